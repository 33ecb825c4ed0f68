"""A word to the table and the crash journal (SPEC 3.15, 4.6): a seat rebuilt from its
journal takes the chat's decisions again on the times it journaled, and says again what
its player said, so its log and posts are the ones the others hold."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cuttle_protocol.play import game_session
from cuttle_protocol.store import (
    JournaledGuest,
    JournaledHost,
    SeatJournal,
    host_table_path,
    join_table_path,
    open_journal,
    read_table_journal,
    rebuild,
)
from cuttle_protocol.table import Chat, Stage, TableGuest, TableSettings
from cuttle_protocol.table.core import CHAT_HOST_BURST
from cuttle_protocol.wire import LocalPlayer

SETTINGS = TableSettings("cuttle", ("classic",), 2)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def pump(host: JournaledHost, guest: TableGuest) -> None:
    moved = True
    while moved:
        moved = False
        for seat in (host, guest):  # as a shell does: what is taken leaves after before_send
            out = seat.take_outgoing()
            if out:
                moved = True
                seat.before_send()
            for message in out:
                if seat is host:
                    guest.receive(message[1])
                else:
                    host.receive(guest.identity, message)


def seated(tmp: Path, host_clock: Clock, guest_clock: Clock, journaled_guest: bool = False):
    """A 2-seat table in memory, seated (the code shown, not confirmed: no game yet),
    the host journaled, the joiner too if asked."""
    keys = [Ed25519PrivateKey.generate() for _ in range(2)]
    host_key = keys[0].public_key().public_bytes_raw()
    journal = SeatJournal.new(
        host_table_path(tmp, 4100), role="host", name="p0", settings=SETTINGS,
        token="classic", host_identity=host_key, port=4100,
    )  # fmt: skip
    host = JournaledHost(journal, LocalPlayer("p0", keys[0]), SETTINGS, clock=host_clock)
    guest: TableGuest
    if journaled_guest:
        mine = SeatJournal.new(
            join_table_path(tmp, "127.0.0.1:4100"), role="joiner", name="p1",
            settings=SETTINGS, token="classic", host_identity=host_key,
            address="127.0.0.1:4100",
        )  # fmt: skip
        guest = JournaledGuest(mine, LocalPlayer("p1", keys[1]), host_key, clock=guest_clock)
    else:
        guest = TableGuest(
            LocalPlayer("p1", keys[1]), host_key, game="cuttle", options=("classic",),
            clock=guest_clock,
        )  # fmt: skip
    host.add_joiner("p1", guest.identity)
    pump(host, guest)
    assert host.stage is Stage.CONFIRM and guest.stage is Stage.CONFIRM
    return host, guest, keys


def test_a_host_that_dropped_a_flooded_line_is_rebuilt_with_the_same_log(tmp_path: Path) -> None:
    """The joiner's lines reach the host bunched up (the joiner's clock saw them spaced):
    the host drops the one past its burst, relays later ones once its bucket refilled, and
    says a line of its own; killed and rebuilt from its journal, it holds the very log the
    joiner holds (on the rebuild's clock it would have dropped other lines: a log the
    joiner does not hold, an equivocation)."""
    host_clock, guest_clock = Clock(), Clock()
    host, guest, keys = seated(tmp_path, host_clock, guest_clock)
    for n in range(CHAT_HOST_BURST + 1):  # spaced for the joiner, at once for the host
        guest_clock.now += 2.0
        assert guest.say(f"line {n}")
    pump(host, guest)
    heard = [e.text for e in host.take_events() if isinstance(e, Chat)]
    assert heard == [f"line {n}" for n in range(CHAT_HOST_BURST)]  # the last one dropped
    host_clock.now = guest_clock.now = 60.0  # the bucket refilled
    assert guest.say("later") and host.say("one moment")
    pump(host, guest)
    assert [e.text for e in host.take_events() if isinstance(e, Chat)] == ["one moment", "later"]
    assert len(host.log) == len(guest.log) and host.log.head == guest.log.head
    inputs = read_table_journal(host.journal.path)[1]
    assert ["say", "one moment"] in inputs and ["at", 60.0] in inputs
    host.journal.close()

    resumed = rebuild(open_journal(host.journal.path), keys[0], game_session)
    assert len(resumed.core.log) == len(guest.log)
    assert resumed.core.log.head == guest.log.head
    assert resumed.core.log.heads == host.log.heads


def test_a_joiner_rebuilt_from_its_journal_numbers_its_next_line_on(tmp_path: Path) -> None:
    """The joiner's own lines are journaled: rebuilt, it has posted them (as the host
    holds them) and its next line is a new entry, not a post the host has already seen."""
    host_clock, guest_clock = Clock(), Clock()
    host, guest, keys = seated(tmp_path, host_clock, guest_clock, journaled_guest=True)
    assert guest.say("good game") and guest.say("good game")
    pump(host, guest)
    assert isinstance(guest, JournaledGuest)
    guest.journal.close()

    rebuilt = rebuild(open_journal(guest.journal.path), keys[1], game_session).core
    assert isinstance(rebuilt, TableGuest)
    assert rebuilt._posts == guest._posts and rebuilt.unrelayed == 0
    assert rebuilt.log.head == host.log.head
    assert rebuilt.say("good game")
    (post,) = rebuilt.take_outgoing()
    host.receive(rebuilt.identity, post)  # a new line (n = 2), relayed
    assert [e.text for e in host.take_events() if isinstance(e, Chat)][-1] == "good game"
    assert len(host.log) == len(guest.log) + 1


def test_a_rebuilt_seat_shows_the_tables_chat_again(tmp_path: Path) -> None:
    host, guest, keys = seated(tmp_path, Clock(), Clock())
    assert guest.say("hello") and host.say("hi Bob")
    pump(host, guest)
    host.journal.close()
    resumed = rebuild(open_journal(host.journal.path), keys[0], game_session)
    again = [(e.seat, e.text) for e in resumed.core.take_events() if isinstance(e, Chat)]
    assert again == [(0, "hi Bob"), (1, "hello")]  # in the log's order


def test_a_journal_whose_chat_line_has_no_time_is_refused_naming_the_input(
    tmp_path: Path,
) -> None:
    from cuttle_protocol.store import JournalDamaged
    from cuttle_protocol.store.journal import _record
    from cuttle_protocol.store.seatjournal import _header_wire

    host, _, keys = seated(tmp_path, Clock(), Clock())
    assert host.say("hello")
    host.take_outgoing()
    host.journal.close()
    header, inputs = read_table_journal(host.journal.path)
    assert inputs[-2:] == [["at", 0.0], ["say", "hello"]]
    cut = [*inputs[:-2], ["say", "hello"]]  # the time taken out
    host.journal.path.write_bytes(b"".join(_record(x) for x in [_header_wire(header), *cut]))
    with pytest.raises(JournalDamaged, match=r"\('say'\) cannot be replayed.*no time"):
        rebuild(open_journal(host.journal.path), keys[0], game_session)
