"""Deck proofs checked once per test process.

A shuffle argument is checked by every other seat as it is dealt, and again by every record
of that game the test verifies (a record's check replays the whole deal); a decryption share's
or a key's proof likewise: the suite checked the same proof, byte for byte, up to ten times,
and those checks were most of the CPU of the in-memory table and record tests.  Each check is
a pure function of its arguments (no randomness, no state), so a proof that passed once passes
again, with the same result: a proof that was checked and passed is remembered with everything
it was checked against, and a new or changed one (a cheat, a tampered record) is always
checked in full.  Failures are never remembered.  Cuttle processes a test starts check
everything themselves.
"""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Callable

from cuttle_net.deck import proofs, shuffle, state

_real_verify = shuffle.verify
_passed: set[bytes] = set()


def _verify(inp, out, y: bytes, context: bytes, arg: shuffle.ShuffleArgument) -> None:
    key = hashlib.sha256(pickle.dumps((list(inp), list(out), y, context, arg), 5)).digest()
    if key in _passed:
        return
    _real_verify(inp, out, y, context, arg)  # raises on a bad argument: not remembered
    _passed.add(key)


def remembered(real: Callable[..., bytes]) -> Callable[..., bytes]:
    """``real`` (a proof check over bytes that returns bytes or raises) with its passes kept."""
    results: dict[tuple[bytes, ...], bytes] = {}

    def check(*args: bytes) -> bytes:
        if args not in results:
            results[args] = real(*args)  # raises on a bad proof: not remembered
        return results[args]

    check.real = real  # type: ignore[attr-defined]
    return check


def install() -> None:
    """Route the deck's proof checks (looked up at each call) through the memo."""
    shuffle.verify = _verify  # type: ignore[assignment]
    state.verify_share = remembered(proofs.verify_share)  # type: ignore[assignment]
    state.verify_key = remembered(proofs.verify_key)  # type: ignore[assignment]
