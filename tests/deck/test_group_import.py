"""Importing the group leaves nothing behind in the temporary folder."""

import os
import subprocess
import sys


def test_importing_the_group_leaves_no_copy_of_libsodium_behind() -> None:
    # rbcl writes its bundled libsodium to a new temporary file at every import; a process
    # that imports our group must not leave that file behind (2.7 MB per process).
    code = (
        "import sys, cuttle_net.deck.group as g\n"
        "assert g.base_mul(5) != g.IDENTITY\n"  # the library still works once its file is gone
        "print(sys.modules['rbcl._sodium'].lib_path)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    path = out.stdout.strip()
    assert path.endswith(".so") or path.endswith(".pyd") or path.endswith(".dylib"), path
    assert not os.path.exists(path), f"{path} was left behind"
