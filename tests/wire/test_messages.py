"""The message catalogue: exact field types, unknown fields and types, display safety."""

from __future__ import annotations

import pytest
from cuttle_protocol.errors import ErrorCode, RemoteProtocolError
from cuttle_protocol.wire import (
    Accept,
    Auth,
    Close,
    Commit,
    DeckPayload,
    Entry,
    Flip,
    Hello,
    Message,
    Move,
    Ping,
    Pong,
    Post,
    Propose,
    RematchAnswer,
    RematchRequest,
    Resume,
    TableStatus,
    display_safe,
    message_from_wire,
)
from cuttle_protocol.wire.messages import CATALOGUE

SIG = bytes(range(64))  # a move signature: the session checks it, not the wire

K = b"k" * 32
SAMPLES: list[Message] = [
    Hello((1, 2), ("x-cap",), "host", "Alice", K, K),
    Commit(K),
    Auth(b"s" * 64),
    Flip(K),
    Propose("classic", ("joker", "random-fours")),
    Accept(),
    Move("draw", SIG),
    DeckPayload({"step": "shuffle", "cards": [b"\x01" * 32] * 52, "proof": {"n": 3}}),
    RematchRequest(),
    RematchAnswer(True),
    Resume(0, 12),
    Ping(7),
    Pong(7),
    Close("peer-quit", "bye"),
    TableStatus(K, "unisson", ("short",), 4, 1, (("Alice", K), ("Bob", b"b" * 32))),
    Post(3, K, SIG, b"\x81\xa1t\xa3say", SIG),
    Entry(4, 2, 3, K, SIG, b"\x81\xa1t\xa3say", SIG, SIG),
]


def test_samples_cover_the_catalogue() -> None:
    assert {type(m) for m in SAMPLES} == set(CATALOGUE.values())


@pytest.mark.parametrize("message", SAMPLES, ids=lambda m: m.TYPE)
def test_round_trip(message: Message) -> None:
    wire = message.to_wire()
    assert next(iter(wire)) == "t"
    assert message_from_wire(wire) == message


def reject(wire: object, code: ErrorCode = ErrorCode.MALFORMED_MESSAGE) -> None:
    with pytest.raises(RemoteProtocolError) as info:
        message_from_wire(wire)
    assert info.value.code is code


@pytest.mark.parametrize(
    "wire",
    [
        {"t": "ping", "n": True},  # a bool is not an int
        {"t": "ping", "n": -1},
        {"t": "ping", "n": 2**32},
        {"t": "rematch-answer", "accept": 1},  # an int is not a bool
        {"t": "move", "text": ""},
        {"t": "move", "text": "x" * 201},
        {"t": "move", "text": b"draw"},  # bin is not str
        {"t": "accept", "value": K},  # version 4's coin value: no longer a field
        {"t": "commit", "hello": b"short"},
        {"t": "flip", "commit": K, "extra": 1},
        {"t": "propose", "rules": "Classic", "variants": []},
        {"t": "propose", "rules": "classic", "variants": ["joker", "joker"]},
        {"t": "propose", "rules": "classic", "variants": "joker"},
        {"t": "propose", "rules": "classic", "variants": [], "value": K},
        {"t": "deck", "data": []},
        {"t": "close", "code": "Not A Token", "reason": ""},
        {"t": "move"},  # missing field
        {"t": "move", "text": "draw", "extra": 1},  # unknown field
        SAMPLES[0].to_wire() | {"versions": []},
        SAMPLES[0].to_wire() | {"versions": [0]},
        SAMPLES[0].to_wire() | {"role": "dealer"},
        SAMPLES[0].to_wire() | {"name": "a" * 33},
        SAMPLES[0].to_wire() | {"caps": ["UPPER"]},
        SAMPLES[0].to_wire() | {"identity": K[:31]},
        SAMPLES[-3].to_wire() | {"seats": 7},  # a table has 2..6 seats
        SAMPLES[-3].to_wire() | {"you": 0},  # the host's seat is never a joiner's
        SAMPLES[-3].to_wire() | {"players": [["Alice", K]]},  # "you" is past the players
        SAMPLES[-3].to_wire() | {"players": [["Alice", K], ["Bob"]]},
        SAMPLES[-2].to_wire() | {"body": b""},
        SAMPLES[-2].to_wire() | {"vouch": K},
        SAMPLES[-1].to_wire() | {"seat": 6},
        SAMPLES[-1].to_wire() | {"relay": None},
        {"text": "draw"},
        {"t": 5},
        ["move", "draw"],
    ],
)
def test_malformed_messages(wire: object) -> None:
    reject(wire)


def test_unknown_type() -> None:
    reject({"t": "teleport"}, ErrorCode.UNKNOWN_MESSAGE)


def test_hello_ignores_unknown_fields_for_later_versions() -> None:
    wire = SAMPLES[0].to_wire() | {"future": {"anything": [1, 2]}}
    assert message_from_wire(wire) == SAMPLES[0]


def nested(depth: int) -> list:
    value: list = []
    for _ in range(depth - 1):
        value = [value]
    return value


def test_local_construction_checks_too() -> None:
    with pytest.raises(ValueError):
        Move("x" * 201, SIG)
    with pytest.raises(ValueError):
        DeckPayload({"deep": nested(20)})


def test_display_safe() -> None:
    assert display_safe("  Alice \t  B ") == "Alice B"
    assert display_safe("evil\u202egnp.exe") == "evil\ufffdgnp.exe"
    assert display_safe("a\x1b[2Jb\nc\u200bd") == "a\ufffd[2Jb c\ufffdd"
