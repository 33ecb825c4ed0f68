import sys

from cuttle_net.cli import main

sys.exit(main())
