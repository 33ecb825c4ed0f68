"""A hostile seat at the N-player table, without I/O (SPEC 3.15): a joiner that signs, with
its own key, entries out of place, out of shape, replayed, or accusing others; and a host
that alters, replays or reorders what it relays. Whatever it sends, every honest side takes
it without an exception, and any end it reaches names the hostile seat, or carries only its
word (a `fault` whose reporter is the hostile seat, which the game then weighs as a claim:
tests/session/test_table_verdicts.py)."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest
from cuttle_protocol.table import Stage
from cuttle_protocol.wire import Entry, Message
from test_table import Table

KINDS = ("commit", "reveal", "ready", "rematch", "fault", "leave", "chat", "muted", "watch")
KINDS += ("watcher-chat", "seats", "say")
FIELDS = ("seat", "kind", "detail", "value", "text", "n", "code", "reason", "proof", "game")
FIELDS += ("watchers", "key", "seen", "body", "sig")


def junk(rnd: random.Random, depth: int = 0) -> Any:
    """A value of any allowed wire type, at the edges of their ranges."""
    pick = rnd.randrange(7 if depth < 3 else 4)
    if pick == 0:
        return rnd.choice([0, -1, 1, 5, 2**32, 2**63, -(2**63), 2**64 - 1])
    if pick == 1:
        return rnd.choice(["", "x", "[/b]", "\x1b[2J", "a" * 300, "equivocation", "left"])
    if pick == 2:
        return rnd.randbytes(rnd.choice([0, 32, 64]))
    if pick == 3:
        return rnd.choice([None, True, False])
    if pick in (4, 5):
        return [junk(rnd, depth + 1) for _ in range(rnd.randrange(6))]
    return {rnd.choice(FIELDS): junk(rnd, depth + 1) for _ in range(rnd.randrange(5))}


def hostile_body(rnd: random.Random, seats: int, game: int) -> dict[str, Any]:
    """A table entry a hostile joiner signs: most well formed but out of place."""
    value = rnd.randbytes(32)
    return rnd.choice(
        [
            {"t": "commit", "value": value},
            {"t": "reveal", "value": value},
            {"t": "ready"},
            {"t": "rematch", "game": game + rnd.choice([0, 1, 2])},
            {"t": "fault", "seat": rnd.randrange(seats), "kind": "timeout", "detail": "[/b]"},
            {"t": "fault", "seat": 0, "kind": "equivocation", "detail": "\x1b[2J"}
            | {"proof": [rnd.randrange(9), value, rnd.randbytes(64), value[::-1], bytes(64)]},
            {"t": "leave", "code": "peer-quit", "reason": "bye"},
            {"t": "muted", "seat": rnd.randrange(seats)},
            {"t": "say", "n": 1},
            {"t": rnd.choice(KINDS)} | {rnd.choice(FIELDS): junk(rnd) for _ in range(3)},
        ]
    )


def altered(rnd: random.Random, message: Entry, sent: list[Entry]) -> Entry:
    """What a hostile host relays instead: an earlier entry again, or one field changed."""
    if sent and rnd.random() < 0.3:
        return rnd.choice(sent)
    field = rnd.choice([f.name for f in dataclasses.fields(message)])
    value = getattr(message, field)
    if isinstance(value, bytes):
        value = bytes([value[0] ^ 1]) + value[1:]
    else:
        value = rnd.choice([0, 1, value + 1, max(value - 1, 0), 5])
    try:
        return dataclasses.replace(message, **{field: value})
    except ValueError:  # out of the wire's range: the frame would not decode
        return message


def play(seed: int, seats: int, hostile_host: bool) -> tuple[Table, int]:
    """A table whose hostile seat (the host, or the last joiner) attacks at random moments
    of every stage while the others go on honestly."""
    rnd = random.Random(seed)
    sent: list[Entry] = []

    def to_guest(identity: bytes, message: Message) -> Message:
        if hostile_host and type(message) is Entry:
            sent.append(message)
            if rnd.random() < 0.15:
                return altered(rnd, message, sent)
        return message

    table = Table(seats, to_guest=to_guest)
    bad = 0 if hostile_host else seats - 1
    hostile = table.sides[bad]
    table.join_all()
    for _ in range(rnd.randrange(2, 14)):
        for side in table.sides:
            if side.stage is Stage.CONFIRM and side.me not in side._ready and rnd.random() < 0.8:
                side.confirm()
            elif side.stage is Stage.GAME and rnd.random() < 0.4:
                side.post({"t": "say", "n": side.me})
            elif (
                # the host proposes the next game, a joiner agrees (whichever is due)
                ((side.stage is Stage.GAME and side.me == 0) or side.stage is Stage.BETWEEN)
                and not side.asked_next
                and rnd.random() < 0.1
            ):
                side.rematch()
        if not hostile_host and hostile.log is not None:
            if rnd.random() < 0.6:
                hostile._post(hostile_body(rnd, seats, hostile.game))
            if rnd.random() < 0.15 and hostile._posts:  # a post sent again, byte for byte
                hostile._outgoing.append(rnd.choice(hostile._posts))
        table.pump()
    return table, bad


@pytest.mark.parametrize("hostile_host", [False, True], ids=["joiner", "host"])
@pytest.mark.parametrize("seats", [2, 3, 4])
def test_a_hostile_seat_is_named_and_no_honest_seat_is_convicted(
    seats: int, hostile_host: bool
) -> None:
    ended = 0
    for seed in range(40):
        table, bad = play(seed, seats, hostile_host)
        for i, side in enumerate(table.sides):
            end = side.ended
            if i == bad or end is None:
                continue
            ended += 1
            # The hostile seat named, or nobody, or the hostile seat's own word.
            assert bad in (end.culprit, end.reporter) or end.culprit is None, (seed, i, end)
            if end.reporter == bad and end.culprit not in (bad, None):
                assert not end.proven  # its word, never a proof
                if end.culprit != 0:  # about another joiner: shown as its word
                    assert end.detail.startswith(f"seat {bad} says: "), (seed, i, end)
    assert ended > 20  # the attacks did end tables (the test attacks, not just plays)
