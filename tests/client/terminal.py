"""``cuttle`` on a pseudo-terminal of its own, as in a real terminal: the pty is its
controlling terminal (so closing it hangs the process up), 80x24, read as the test waits."""

from __future__ import annotations

import fcntl
import os
import select
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable

WAIT = 60  # seconds: the bound on every wait here

# The child makes the pty its controlling terminal, then becomes `python -m cuttle_client`
# (the same process: the test's pid and exit status are the command's).
_CONTROLLING = (
    "import fcntl, os, sys, termios; os.setsid(); fcntl.ioctl(0, termios.TIOCSCTTY, 0); "
    "os.execv(sys.executable, [sys.executable, '-m', 'cuttle_client', *sys.argv[1:]])"
)


class Terminal:
    """A ``cuttle`` command on a pty; ``output`` is what it wrote so far (bytes)."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _CONTROLLING, *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env={**os.environ, "TERM": "xterm-256color", **(env or {})},
        )
        os.close(slave)
        self.output = bytearray()
        self.closed = False

    def read_until(self, done: Callable[[bytes], bool], timeout: float = WAIT) -> None:
        """Read until ``done(output)`` or the end of the output; fail after ``timeout``."""
        deadline = time.monotonic() + timeout
        while not done(bytes(self.output)):
            if not self._read(deadline):
                if done(bytes(self.output)):
                    return
                raise AssertionError(f"the terminal ended without that: {self.text[-2000:]}")

    def read_to_the_end(self) -> int:
        """Read everything the command writes until it exits; its exit status."""
        deadline = time.monotonic() + WAIT
        while self._read(deadline):
            pass
        return self.proc.wait(timeout=WAIT)

    def type(self, keys: bytes) -> None:
        """Keys typed at the terminal."""
        os.write(self.master, keys)

    def hang_up(self) -> None:
        """Close the terminal, as a closed window or a lost connection does (SIGHUP)."""
        os.close(self.master)
        self.closed = True

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=WAIT)
        if not self.closed:
            self.hang_up()

    @property
    def text(self) -> str:
        return self.output.decode(errors="replace")

    def _read(self, deadline: float) -> bool:
        """Read what came (waiting for it); False at the end of the output."""
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"timed out; the terminal showed: {self.text[-2000:]}")
        ready, _, _ = select.select([self.master], [], [], min(left, 0.5))
        if not ready:
            return True
        try:
            data = os.read(self.master, 65536)
        except OSError:  # EIO: every process closed the terminal
            return False
        self.output += data
        return bool(data)
