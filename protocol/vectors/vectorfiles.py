"""What every vector generator here shares: the deterministic byte source the vectors are
made with, and writing the files or checking them (``--check``, what the test suite runs).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path


def shake_rng(seed: bytes) -> Callable[[int], bytes]:
    """The vectors' byte source: call i (from 1) returns SHAKE-256(seed || i as 8 bytes
    big-endian), truncated to the n bytes asked for."""
    calls = 0

    def rng(n: int) -> bytes:
        nonlocal calls
        calls += 1
        return hashlib.shake_256(seed + calls.to_bytes(8, "big")).digest(n)

    return rng


def write_or_check(
    folder: Path, files: Mapping[str, Callable[[], str]], argv: Sequence[str]
) -> int:
    """Write each file of ``files`` (name -> its text) into ``folder``; with ``--check`` in
    ``argv``, compare instead and return 1 naming the stale ones."""
    check = "--check" in argv
    stale = []
    for name, make in files.items():
        text, path = make(), folder / name
        if not check:
            path.write_text(text)
        elif not path.exists() or path.read_text() != text:
            stale.append(name)
    if stale:
        print("stale vectors:", ", ".join(stale))
        return 1
    return 0
