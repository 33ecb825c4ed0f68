import sys

from cuttle_client.cli import main

sys.exit(main())
