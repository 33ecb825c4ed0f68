"""A `cuttle` command run in this process: the same code path as the command (its
`main`), without a Python start-up per call (each cost about a quarter of a CPU second).
The command as a real process is tested where that is the point (tests/rules/test_cli.py,
tests/records/test_verify.py)."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys

from cuttle_client.cli import main


def run_cuttle(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """``cuttle ARGS`` with `stdin`: its exit status and what it wrote, as `subprocess.run`
    with ``capture_output=True, text=True`` would give them (argparse's errors exit 2)."""
    out, err = io.StringIO(), io.StringIO()
    old_stdin = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exit:
                code = exit.code if isinstance(exit.code, int) else 1
    finally:
        sys.stdin = old_stdin
    return subprocess.CompletedProcess(["cuttle", *args], code, out.getvalue(), err.getvalue())
