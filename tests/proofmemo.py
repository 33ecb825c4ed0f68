"""Shuffle arguments checked once per test process.

A shuffle argument is checked by every other seat as it is dealt, and again by every record
of that game the test verifies (a record's check replays the whole deal): the suite checked
the same argument, byte for byte, up to ten times, and those checks were most of the CPU of
the in-memory table and record tests.  ``verify`` is a pure function of its arguments (no
randomness, no state), so an argument that passed once passes again: one that was checked
and passed is remembered by a digest of everything it is checked against, and a new or
changed one (a cheat, a tampered record) is always checked in full.  Failures are never
remembered.  Cuttle processes a test starts check everything themselves.
"""

from __future__ import annotations

import hashlib
import pickle

from cuttle_net.deck import shuffle

_real_verify = shuffle.verify
_passed: set[bytes] = set()


def _verify(inp, out, y: bytes, context: bytes, arg: shuffle.ShuffleArgument) -> None:
    key = hashlib.sha256(pickle.dumps((list(inp), list(out), y, context, arg), 5)).digest()
    if key in _passed:
        return
    _real_verify(inp, out, y, context, arg)  # raises on a bad argument: not remembered
    _passed.add(key)


def install() -> None:
    """Route ``shuffle.verify`` (looked up at each call by the deck) through the memo."""
    shuffle.verify = _verify  # type: ignore[assignment]
