"""Between games at a table, without I/O (SPEC 3.15 *Another game*): the host proposes the
next game, every other seat agrees or leaves, the next game starts with the deal passed
left; anything out of turn, malformed or said twice is its author's fault, and a game
message that crossed the end of the game is dropped."""

from __future__ import annotations

import pytest
import trio
import trio.testing
from cuttle_protocol.errors import LocalProtocolError
from cuttle_protocol.shells import HostShell, PeerSettings, TableTimeouts
from cuttle_protocol.table import Delivered, Rematch, Stage, Started, TableEnded
from test_table import Table, _everyone_names, _signed_post


def _agree_all(table: Table) -> None:
    table.host.rematch()
    table.pump()
    for guest in table.guests:
        guest.rematch()
        table.pump()


@pytest.mark.parametrize("seats", [2, 3, 6])
def test_every_seat_agrees_and_the_next_game_starts_with_the_next_dealer(seats: int) -> None:
    table = Table(seats)
    table.start()
    first = table.of(0, Started)[0]
    assert first.number == 1
    for number in (2, 3):
        table.host.rematch()
        table.pump()
        assert all(side.stage is Stage.BETWEEN for side in table.sides)
        assert [side.waiting_for() for side in table.sides] == [list(range(1, seats))] * seats
        for guest in table.guests:
            guest.rematch()
            table.pump()
        for i in range(seats):
            started = table.of(i, Started)
            assert len(started) == number
            assert started[-1].number == number
            assert started[-1].dealer == (first.dealer + number - 1) % seats
            assert started[-1].session_id == first.session_id  # 4.1 binds the game number
            assert [(r.seat, r.number) for r in table.of(i, Rematch)][-seats:] == [
                (s, number) for s in range(seats)
            ]
        assert all(side.stage is Stage.GAME for side in table.sides)
    # The game goes on at every seat: its messages reach everyone in one order.
    table.guests[0].post({"t": "say", "n": 1})
    table.pump()
    assert all(table.of(i, Delivered)[-1].body["n"] == 1 for i in range(seats))


def test_a_seat_that_leaves_instead_of_agreeing_ends_the_match_for_all() -> None:
    table = Table(4)
    table.start()
    table.host.rematch()
    table.pump()
    table.guests[0].rematch()
    table.pump()
    table.guests[1].leave("peer-quit", "no more for me")
    table.pump()
    _everyone_names(table, 2, "left")
    assert table.of(3, TableEnded)[0].detail == "no more for me"
    assert all(len(table.of(i, Started)) == 1 for i in range(4))


def test_a_move_that_crossed_the_end_of_the_game_is_dropped() -> None:
    table = Table(3)
    table.start()
    before = len(table.guests[1].log)
    table.host.rematch()  # the host had not seen the joiner's last message yet
    table.guests[1].post({"t": "say", "n": 9})  # signed before it saw the proposal
    table.pump()
    assert table.guests[1].log.entries[before + 1].seat == 2  # relayed after the proposal
    assert all(table.of(i, Delivered) == [] for i in range(3))  # and dropped by every seat
    assert all(side.stage is Stage.BETWEEN for side in table.sides)
    for guest in table.guests:
        guest.rematch()
        table.pump()
    assert all(len(table.of(i, Started)) == 2 for i in range(3))


@pytest.mark.parametrize(
    "case, body, author",
    [
        ("a joiner proposes", {"t": "rematch", "game": 2}, 2),
        ("the wrong game", {"t": "rematch", "game": 3}, 1),
        ("malformed", {"t": "rematch", "game": 2, "x": 1}, 1),
        ("a game number that is no int", {"t": "rematch", "game": "2"}, 1),
        ("agreeing twice", {"t": "rematch", "game": 2}, 1),
        ("a game message after the proposal", {"t": "say"}, 2),
    ],
)
def test_an_answer_out_of_turn_malformed_or_twice_is_its_authors_fault(
    case: str, body: dict, author: int
) -> None:
    table = Table(3)
    table.start()
    guest = table.guests[author - 1]
    if case != "a joiner proposes":
        table.host.rematch()
        table.pump()
    if case == "agreeing twice":
        guest.rematch()
        table.pump()
    table.host.receive(guest.identity, _signed_post(guest, body))
    table.pump()
    _everyone_names(table, author, "bad-entry")


def test_agreeing_before_seeing_the_proposal_is_its_authors_fault() -> None:
    table = Table(3)
    table.start()
    guest = table.guests[0]
    early = _signed_post(guest, {"t": "rematch", "game": 2})  # signed over the log before
    table.host.rematch()
    table.pump()
    table.host.receive(guest.identity, early)
    table.pump()
    _everyone_names(table, 1, "bad-entry")


def test_a_rematch_is_refused_locally_when_there_is_none_to_answer() -> None:
    table = Table(3)
    table.join_all()
    with pytest.raises(LocalProtocolError):
        table.host.rematch()  # no game yet
    for side in table.sides:
        side.confirm()
        table.pump()
    with pytest.raises(LocalProtocolError):
        table.guests[0].rematch()  # nothing proposed
    table.host.rematch()
    table.pump()
    table.guests[0].rematch()
    with pytest.raises(LocalProtocolError):
        table.guests[0].rematch()  # agreed already
    with pytest.raises(LocalProtocolError):
        table.host.rematch()  # proposed already


def test_a_game_message_of_the_next_game_signed_before_it_started_is_refused() -> None:
    table = Table(3)
    table.start()
    _agree_all(table)
    guest = table.guests[0]
    early = _signed_post(guest, {"t": "say"}, seen=len(guest.log) - 1)  # before the last yes
    table.host.receive(guest.identity, early)
    table.pump()
    _everyone_names(table, 1, "bad-entry")


@pytest.mark.trio
async def test_a_seat_that_never_answers_is_named_at_the_move_timeout(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Between games the host's deadlines run on the mock clock, at the real defaults: a
    seat that neither agrees nor leaves is named `timeout` once the move timeout (an
    answer is a player's decision, like the code's confirmation) passed, not before."""
    table = Table(3)
    table.start()
    table.host.rematch()
    table.pump()
    table.guests[0].rematch()
    table.pump()  # seat 2 is silent from now on
    timeouts = TableTimeouts()
    # The host's shell, without a listener: its deadlines need none (nobody connects).
    shell = HostShell(None, table.host, timeouts, PeerSettings(), None, print)  # type: ignore[arg-type]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(shell._watch)
        await trio.sleep(timeouts.move - 1)
        assert not shell.ended.is_set()
        await trio.sleep(2)
        assert shell.ended.is_set()
    ended = table.host.ended
    assert (ended.culprit, ended.kind) == (2, "timeout")
    assert ended.detail == f"no answer to the rematch in {timeouts.move:g} s"
