"""Compiled code kept between runs, out of the source tree (a pytest plugin, loaded by
``-p tests.bytecode`` in pyproject's addopts: before the installed plugins, whose modules
pytest compiles and rewrites at every start too).

Where Python was told to write no bytecode (PYTHONDONTWRITEBYTECODE, as in many containers),
every xdist worker compiled every test module and rewrote its asserts again (about 5 s of CPU
a worker), and every `cuttle` process a test starts compiled the packages again.  A cache
folder outside the tree keeps the tree clean, as asked, and the work is done once; the test
processes' children use it too.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

if sys.dont_write_bytecode and sys.pycache_prefix is None:
    # The user's own cache folder, not a shared one such as /tmp: Python runs a cached file
    # whose source's size and time match, so nobody else may write there.
    cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    sys.pycache_prefix = str(Path(cache) / "cuttle-tests" / "pycache")
    sys.dont_write_bytecode = False
    os.environ["PYTHONPYCACHEPREFIX"] = sys.pycache_prefix
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
