"""Watchers at a table without I/O (SPEC 3.15 *Watchers*): what the host sends a watcher,
what the seats learn of it, what a watcher may send, and the host's limits."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cuttle_protocol.table import (
    Delivered,
    Stage,
    Started,
    TableEnded,
    TableWatcher,
    WatcherGate,
    Watching,
)
from cuttle_protocol.table.watch import MAX_DROPPED
from cuttle_protocol.wire import Entry, LocalPlayer, Ping, Post, codec

from tests.wire.test_table import Table


class Watched(Table):
    """A table with watchers linked in memory too."""

    def __init__(self, seats: int) -> None:
        super().__init__(seats)
        self.watchers: dict[bytes, TableWatcher] = {}
        self.seen: dict[bytes, list] = {}

    def watch(self, name: str) -> TableWatcher:
        me = LocalPlayer(name, Ed25519PrivateKey.generate())
        watcher = TableWatcher(me, self.host.identity)
        assert self.host.add_watcher(name, watcher.identity) is None
        self.watchers[watcher.identity] = watcher
        self.by_key[watcher.identity] = watcher
        self.seen[watcher.identity] = []
        self.pump()
        return watcher

    def pump(self) -> None:
        super().pump()
        for identity, watcher in self.watchers.items():
            self.seen[identity] += watcher.take_events()
            assert watcher.take_outgoing() == []  # a watcher sends nothing, ever


def test_a_watcher_follows_the_whole_log_and_the_seats_see_who_watches() -> None:
    table = Watched(3)
    early = table.watch("early")  # in the lobby: sent the log once there is one
    table.start()
    for n in range(3):
        for seat in range(3):
            table.sides[seat].post({"t": "say", "n": n * 10 + seat})
        table.pump()
    late = table.watch("late")  # mid-game: the log from entry 0
    table.sides[1].post({"t": "say", "n": 99})
    table.pump()
    head = table.host.log.head
    for watcher in (early, late):
        assert watcher.log.head == head and watcher.stage is Stage.GAME
        seen = table.seen[watcher.identity]
        assert len([e for e in seen if isinstance(e, Started)]) == 1
        said = [(d.seat, d.body["n"]) for d in seen if isinstance(d, Delivered)]
        assert said == [(d.seat, d.body["n"]) for d in table.of(0, Delivered)]
        assert watcher.me == -1 and watcher.unrelayed == 0
    # Every seat learns who watches from the host's signed entry, in the log's order.
    for i in range(3):
        names = [[n for n, _ in w.watchers] for w in table.of(i, Watching)]
        assert names == [["early"], ["early", "late"]]
    told = [e for e in table.seen[early.identity] if isinstance(e, Watching)]
    assert [n for n, _ in told[-1].watchers] == ["early", "late"]
    table.host.remove_watcher(early.identity)
    table.pump()
    assert [n for n, _ in table.of(2, Watching)[-1].watchers] == ["late"]


def test_only_the_host_names_watchers_and_only_during_a_game() -> None:
    table = Watched(3)
    table.start()
    table.guests[0]._post({"t": "watch", "watchers": []})
    table.pump()
    ended = table.of(2, TableEnded)
    assert ended and (ended[0].culprit, ended[0].kind) == (1, "bad-entry")


def test_a_watcher_checks_the_relay_like_a_seat() -> None:
    table = Watched(3)
    watcher = table.watch("w")
    table.start()
    # A host that alters an entry for the watcher is caught by the watcher (and only its
    # own view ends: it signs nothing).
    entry = table.host._entry_message(len(table.host.log) - 1)
    watcher.receive(
        Entry(**{**entry.__dict__, "n": len(watcher.log), "body": codec.pack({"t": "x"})})
    )
    ended = [e for e in watcher.take_events() if isinstance(e, TableEnded)]
    assert ended and (ended[0].culprit, ended[0].kind) == (0, "bad-relay")
    assert watcher.take_outgoing() == []
    assert table.host.stage is Stage.GAME


def test_the_host_limits_watchers() -> None:
    table = Watched(3)
    table.host.max_watchers = 1
    table.watch("one")
    key = Ed25519PrivateKey.generate().public_key().public_bytes_raw()
    assert "watchers" in (table.host.add_watcher("two", key) or "")
    assert "already" in (table.host.add_watcher("p0", table.host.identity) or "")
    table.host.max_watchers = 0  # --no-watchers
    assert table.host.add_watcher("three", key) == "this table takes no watchers"


def test_a_watcher_that_posts_or_floods_is_closed() -> None:
    post = Post(0, bytes(32), bytes(64), b"\x80", bytes(64))
    assert WatcherGate().judge(post) is not None
    gate = WatcherGate()
    assert all(gate.judge(Ping(1)) is None for _ in range(MAX_DROPPED))
    assert gate.judge(Ping(1)) is not None


@pytest.mark.parametrize("seats", [2, 6])
def test_every_size_of_table_can_be_watched(seats: int) -> None:
    table = Watched(seats)
    watcher = table.watch("w")
    table.start()
    assert watcher.stage is Stage.GAME and watcher.log.head == table.host.log.head


def test_a_watcher_coming_or_going_restarts_no_seats_clock() -> None:
    # The shells time a stalled step from the last entry that moved the table (`steps`):
    # a stranger coming and going must not keep a stalling seat from its timeout.
    table = Watched(3)
    table.start()
    before = [side.steps for side in table.sides]
    watcher = table.watch("w")
    table.host.remove_watcher(watcher.identity)
    table.pump()
    assert len(table.of(1, Watching)) == 2
    assert [side.steps for side in table.sides] == before
    table.sides[2].post({"t": "say", "n": 1})
    table.pump()
    assert [side.steps for side in table.sides] == [n + 1 for n in before]
