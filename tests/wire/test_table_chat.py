"""A word to the table (SPEC 3.15): a chat line is a signed entry relayed like any other,
bounded in length and rate, and never touches the game."""

from __future__ import annotations

import pytest
from cuttle_protocol.table import Chat, Delivered, Muted, Stage, TableEnded
from cuttle_protocol.table.core import CHAT_BURST, CHAT_EVERY, CHAT_FLOOD, CHAT_HOST_BURST, ChatRate
from test_table import Table, _everyone_names, _signed_post


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _lines(table: Table, i: int) -> list[tuple[int, str]]:
    return [(c.seat, c.text) for c in table.of(i, Chat)]


def test_a_chat_line_reaches_every_seat_in_the_log_order_and_not_the_game() -> None:
    table = Table(3)
    table.start()
    table.guests[0].post({"t": "say", "n": 1})
    assert table.guests[1].say("good game")
    assert table.host.say("one  moment\x1b[2J")  # cleaned before it is signed
    table.pump()
    expected = [(0, "one moment\ufffd[2J"), (2, "good game")]
    for i in range(3):
        assert _lines(table, i) == expected
        # The game sees only its own messages: the session is fed Delivered alone.
        assert [d.body for d in table.of(i, Delivered)] == [{"t": "say", "n": 1}]
        assert table.sides[i].stage is Stage.GAME
    assert len({side.log.head for side in table.sides}) == 1


def test_chat_is_refused_before_the_seating_and_after_the_end() -> None:
    table = Table(3)
    assert not table.host.say("hello")  # the lobby: no log yet
    table.start()
    table.guests[0].leave()
    table.pump()
    assert not table.guests[1].say("bye") and not table.host.say("bye")
    assert table.guests[1].take_outgoing() == []


@pytest.mark.parametrize(
    "body",
    [
        {"t": "chat", "n": 0, "text": "x" * 201},
        {"t": "chat", "n": 0, "text": ""},
        {"t": "chat", "n": 0, "text": "bell\x07"},
        {"t": "chat", "n": 0, "text": "two  spaces"},
        {"t": "chat", "n": 0, "text": b"bytes"},
        {"t": "chat", "n": 0, "text": "hi", "extra": 1},
        {"t": "chat", "text": "no number"},
        {"t": "chat", "n": -1, "text": "hi"},
        {"t": "chat", "n": "0", "text": "hi"},
        {"t": "muted", "seat": 1},  # only the host mutes
    ],
)
def test_a_malformed_chat_line_is_its_authors_bad_entry(body: dict) -> None:
    table = Table(3)
    table.start()
    guest = table.guests[1]
    table.host.receive(guest.identity, _signed_post(guest, body))
    table.pump()
    _everyone_names(table, 2, "bad-entry")
    for i in (0, 1, 2):
        assert table.of(i, TableEnded)[0].reporter is None  # each seat's own finding


def test_a_seat_keeps_to_the_rate_and_the_host_drops_what_passes_it() -> None:
    clock = Clock()
    table = Table(3, clock=clock)
    table.start()
    guest = table.guests[0]
    said = [guest.say(f"line {n}") for n in range(CHAT_BURST + 2)]
    assert said == [True] * CHAT_BURST + [False, False]
    clock.now += CHAT_EVERY
    assert guest.say("later")
    table.pump()
    assert [t for _, t in _lines(table, 2)] == [f"line {n}" for n in range(CHAT_BURST)] + ["later"]
    assert guest.unrelayed == 0
    # A client that ignores its rate: the host relays CHAT_HOST_BURST, drops the rest,
    # and the game goes on (the dropped lines are not the host's to answer for).
    clock.now += 100
    for n in range(CHAT_HOST_BURST + 3):
        line = {"t": "chat", "n": n, "text": f"f{n}"}
        table.host.receive(guest.identity, _signed_post(guest, line))
        table.pump()
    shown = [t for _, t in _lines(table, 2) if t.startswith("f")]
    assert shown == [f"f{n}" for n in range(CHAT_HOST_BURST)]
    assert guest.unrelayed == 0 and table.host.stage is Stage.GAME
    assert table.of(0, Muted) == []


def test_a_flooding_seat_is_named_and_muted_and_the_game_goes_on() -> None:
    table = Table(3)  # the clock stands still: past the burst every line is dropped
    table.start()
    guest = table.guests[1]
    for n in range(CHAT_HOST_BURST + CHAT_FLOOD + 5):
        line = {"t": "chat", "n": n, "text": f"{n}"}
        table.host.receive(guest.identity, _signed_post(guest, line))
        table.pump()
    for i in range(3):
        assert table.of(i, Muted) == [Muted(2)]
        assert len(table.of(i, Chat)) == CHAT_HOST_BURST
        assert table.sides[i].stage is Stage.GAME and 2 in table.sides[i].muted
    assert not guest.say("let me talk")  # it knows it is muted
    table.guests[0].post({"t": "say", "n": 7})
    table.pump()
    assert [d.body["n"] for d in table.of(2, Delivered)] == [7]


def test_chat_is_no_step_for_the_timeouts() -> None:
    table = Table(3)
    table.start()
    steps = [side.steps for side in table.sides]
    table.guests[0].say("still thinking")
    table.pump()
    assert [side.steps for side in table.sides] == steps  # talking buys no time
    table.guests[0].post({"t": "say", "n": 1})
    table.pump()
    assert [side.steps for side in table.sides] == [s + 1 for s in steps]


def test_the_same_line_twice_in_a_row_is_two_lines() -> None:
    """Found in play: "good game" twice over the same log was the same signed post, which
    the host refused as a replay and closed the seat's connection."""
    table = Table(3)
    table.start()
    assert table.guests[0].say("good game") and table.guests[0].say("good game")
    table.pump()
    assert _lines(table, 2) == [(1, "good game"), (1, "good game")]
    assert all(side.stage is Stage.GAME for side in table.sides)


def test_a_clock_that_goes_back_neither_refills_nor_drains_the_bucket() -> None:
    """A seat rebuilt from its journal in a new process reads a clock of another origin:
    the bucket goes on from the new time (it would otherwise stay empty until the new
    clock caught up with the old one)."""
    rate = ChatRate(2)
    assert rate.allow(5000.0) and rate.allow(5000.0) and not rate.allow(5000.0)
    assert not rate.allow(10.0)  # back in time: nothing refilled
    assert rate.allow(10.0 + CHAT_EVERY)  # and from there on, the rate as ever
