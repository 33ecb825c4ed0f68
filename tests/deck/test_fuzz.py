"""Any alteration of a signed message is either harmless or a named cheat: never a crash."""

from __future__ import annotations

import contextlib
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cuttle_net.deck import CheatDetected, Deal, Draw, RevealFromHand

from .helpers import Table, resign

_GAME: Table | None = None


def game() -> Table:
    global _GAME
    if _GAME is None:
        _GAME = Table()
        _GAME.run(Deal((5, 6)))
        _GAME.run(Draw(0))
        _GAME.run(RevealFromHand(0, (_GAME.peers[0].my_hand()[0],)))
    return _GAME


def mutate(value, rnd: random.Random):
    """One random change somewhere inside ``value``."""
    if isinstance(value, dict) and value:
        key = rnd.choice(sorted(value))
        return {**value, key: mutate(value[key], rnd)}
    if isinstance(value, list) and value and rnd.random() < 0.8:
        i = rnd.randrange(len(value))
        return [*value[:i], mutate(value[i], rnd), *value[i + 1 :]]
    return rnd.choice(
        [
            None,
            -1,
            2**70,
            "x",
            b"",
            bytes(32),
            b"\xff" * 32,
            [],
            {},
            True,
            (value + 1) if type(value) is int else 0,
            (bytes([value[0] ^ 1]) + value[1:]) if isinstance(value, bytes) and value else b"\0",
        ]
    )


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), signed=st.booleans())
def test_a_mutated_message_is_a_named_cheat_or_harmless(seed, signed):
    t = game()
    transcript = t.peers[0].transcript()
    rnd = random.Random(seed)
    # Alter one message after the (slow) deal: the replay re-checks everything before it.
    index = rnd.choice([i for i, (k, _) in enumerate(transcript) if k == "msg"][4:])
    wire = transcript[index][1]
    bad = mutate(wire, rnd)
    if signed and isinstance(bad, dict):
        with contextlib.suppress(TypeError, ValueError):  # not encodable: sent unsigned
            bad = resign(bad, t.keys[wire["from"]])
    result = t.recheck([*transcript[:index], ("msg", bad), *transcript[index + 1 :]])
    assert result is None or isinstance(result, CheatDetected)
