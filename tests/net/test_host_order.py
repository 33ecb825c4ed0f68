"""A seat rebuilt from its journal holds the very log it held live, whatever the timing
(SPEC 4.6, *Tables*: the ordering rule). Sans-I/O: every seat's core and session in memory,
its driver (as `play_at_table`'s) handing the session the table's events some time after
the core made them, while more messages arrive; a seeded scheduler picks the interleaving.

Found as an honest restarted host refused by its joiners ("entry 34: the host's signature
does not fit"): the live host's session took a joiner's entry after more entries had come,
so its own deck posts came later in the log than a rebuild that fed the session after
every input put them."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cuttle_client.cli_table import bot_for
from cuttle_protocol.play import game_session
from cuttle_protocol.store import (
    JournalDamaged,
    JournaledGuest,
    JournaledHost,
    SeatJournal,
    host_table_path,
    join_table_path,
    open_journal,
    read_table_journal,
    rebuild,
)
from cuttle_protocol.store.journal import _record
from cuttle_protocol.store.seatjournal import _header_wire
from cuttle_protocol.table import (
    CodeShown,
    Delivered,
    Stage,
    Started,
    TableEnded,
    TableGuest,
    TableHost,
    TableSettings,
    TableWatcher,
)
from cuttle_protocol.table.log import next_head, post_digest, relay_statement
from cuttle_protocol.wire import Entry, LocalPlayer

from cuttle_net.session import Fault, GameSession, Output, message_bodies


class Seat:
    """One seat: its journaled core, and a driver that takes the core's events from a queue
    (the live driver's event channel) one at a time, as the scheduler lets it."""

    def __init__(
        self, core: TableHost | TableGuest, key: Ed25519PrivateKey, game: str, token: str,
        seed: int,
    ) -> None:  # fmt: skip
        self.core, self.key, self.token = core, key, token
        self.journal: SeatJournal = core.journal  # type: ignore[union-attr]
        self.queue: list[Any] = []
        self.session: GameSession | None = None
        self.order: Any = None
        self.bot = bot_for(game, "greedy")
        self.rng = random.Random(seed)

    def carry(self, out: Output) -> None:
        assert self.session is not None
        for body in message_bodies(out.sends):
            self.core.post(body)
        for event in out.events:
            if isinstance(event, Fault):
                self.core.fault(self.order.table(event.culprit), event.kind, event.message)

    def decide(self) -> None:
        while (
            self.session is not None and self.session.my_turn and self.core.stage is not Stage.ENDED
        ):
            move = self.bot.choose(self.session.view, self.rng)
            out = self.session.play(move)
            self.journal.played(self.session.module.move_text(move))
            self.carry(out)

    def step(self) -> None:
        """Take the next event, as `play_at_table` does."""
        event = self.queue.pop(0)
        core = self.core
        if isinstance(event, CodeShown):
            core.confirm()
        elif isinstance(event, Started):
            assert core.settings is not None
            self.journal.began(event.number)
            self.order, _, self.session = game_session(
                core.settings, event, self.token, self.key, core.me,
                self.journal.header.rng(b"session %d" % event.number),
            )  # fmt: skip
            self.carry(self.session.start())
            self.decide()
        elif isinstance(event, Delivered):
            if self.session is None or event.seat == core.me or self.session.finished:
                return
            self.journal.fed(event.index)
            self.carry(self.session.receive(self.order.game(event.seat), event.body))
            self.decide()


def play(
    tmp: Path,
    game: str,
    token: str,
    seats: int,
    seed: int,
    watcher: bool = False,
    keep: bool = False,
) -> list[Seat]:
    """A table played in memory, every seat journaled, on the interleaving `seed` picks:
    a message delivered on one link (each link in order), or one seat's driver taking one
    event. The host's driver is the slow one (a few events wait for it while more come).
    `watcher`: one comes once the game is under way, and goes a while later (`keep`: it
    is still watching at the end)."""
    settings = TableSettings(game, (token,), seats)
    keys = [Ed25519PrivateKey.from_private_bytes(bytes([seed, n]) * 16) for n in range(seats)]
    host_key = keys[0].public_key().public_bytes_raw()
    journal = SeatJournal.new(
        host_table_path(tmp / "p0", 4200), role="host", name="p0", settings=settings,
        token=token, host_identity=host_key, port=4200,
    )  # fmt: skip
    journal.header = replace(journal.header, seed=bytes([seed, 0]) * 16)  # the same game
    host = JournaledHost(journal, LocalPlayer("p0", keys[0]), settings, clock=lambda: 0.0)
    guests: list[JournaledGuest] = []
    for n in range(1, seats):
        mine = SeatJournal.new(
            join_table_path(tmp / f"p{n}", "127.0.0.1:4200"), role="joiner", name=f"p{n}",
            settings=settings, token=token, host_identity=host_key, address="127.0.0.1:4200",
        )  # fmt: skip
        mine.header = replace(mine.header, seed=bytes([seed, n]) * 16)
        guests.append(
            JournaledGuest(mine, LocalPlayer(f"p{n}", keys[n]), host_key, clock=lambda: 0.0)
        )
    for guest in guests:
        host.add_joiner(guest._player.name, guest.identity)
    table = [Seat(host, keys[0], game, token, seed)]
    table += [Seat(g, keys[n], game, token, seed + n) for n, g in enumerate(guests, start=1)]
    to_host: dict[bytes, list[Any]] = {g.identity: [] for g in guests}
    to_guest: dict[bytes, list[Any]] = {g.identity: [] for g in guests}
    by_key = {g.identity: g for g in guests}
    rng = random.Random(seed)

    # The watcher talks (the host takes its lines): each line it relays is an entry of its
    # own, which the rebuilt host must post again at the same place.
    host.watcher_chat = watcher
    watcher_key = Ed25519PrivateKey.from_private_bytes(bytes(32))
    watching = watcher_key.public_key().public_bytes_raw()
    onlooker: TableWatcher | None = None

    def route() -> None:
        outgoing = host.take_outgoing()
        if outgoing:
            host.before_send()  # as the shell's writers do before they send
        for identity, message in outgoing:
            if identity != watching:
                to_guest[identity].append(message)
            elif onlooker is not None:
                onlooker.receive(message)
        if onlooker is not None:
            onlooker.take_events()
            for post in onlooker.take_outgoing():
                assert host.hear_watcher(watching, post) is None
        for guest in guests:
            posts = guest.take_outgoing()
            if posts:
                guest.before_send()
            to_host[guest.identity].extend(posts)
        for seat in table:
            seat.queue.extend(seat.core.take_events())

    route()
    for step in range(100_000):
        if watcher and host.stage is Stage.GAME and step % 40 == 0:
            if not host.watchers:
                onlooker = TableWatcher(LocalPlayer("w", watcher_key), host.identity, chat=True)
                assert host.add_watcher("w", watching) is None
            elif not keep:
                host.remove_watcher(watching)
                onlooker = None
        elif onlooker is not None and step % 40 == 20 and onlooker.may_say:
            assert onlooker.say(f"line {step}")
            route()
        moves: list[tuple[str, Any]] = [("host", k) for k, q in to_host.items() if q]
        moves += [("guest", k) for k, q in to_guest.items() if q]
        moves += [("seat", s) for s in table if s.queue]
        if not moves:
            break
        # The host's driver lags: it takes an event one time in four it could.
        weights = [1 if kind != "seat" or s is not table[0] else 0.25 for kind, s in moves]
        kind, which = rng.choices(moves, weights)[0]
        if kind == "host":
            host.receive(which, to_host[which].pop(0))
        elif kind == "guest":
            by_key[which].receive(to_guest[which].pop(0))
        else:
            which.step()
        route()
    if host.watchers and not keep:  # (a rebuilt host lets it go: its connection died)
        host.remove_watcher(watching)
        route()
    return table


@pytest.mark.parametrize(
    ("game", "token", "seats", "seed"),
    [("unisson", "one-deck", 3, 1), ("unisson", "one-deck", 3, 2), ("cuttle", "classic", 2, 3)],
)
@pytest.mark.parametrize("watcher", [False, True], ids=["", "watched"])
def test_every_seat_rebuilds_the_log_it_held_live_whatever_the_timing(
    tmp_path: Path, game: str, token: str, seats: int, seed: int, watcher: bool
) -> None:
    table = play(tmp_path, game, token, seats, seed, watcher)
    host = table[0].core
    assert host.log is not None and len(host.log) > 20
    assert all(s.session is not None and s.session.finished for s in table), "a game unfinished"
    assert watcher == any(b"\xa1t\xa5watch" in e.body for e in host.log.entries)
    assert watcher == any(b"watcher-chat" in e.body for e in host.log.entries)
    for seat in table:
        live = seat.core
        seat.journal.close()
        again = rebuild(open_journal(seat.journal.path), seat.key, game_session)
        core = again.core
        assert core.log is not None and live.log is not None
        for n, (mine, theirs) in enumerate(zip(core.log.entries, live.log.entries, strict=True)):
            assert mine == theirs, f"seat {live.me}: entry {n} differs once rebuilt"
        assert core.log.relays == live.log.relays
        if isinstance(live, TableGuest):
            assert core._posts == live._posts  # what it signed, byte for byte
        assert again.session is not None and seat.session is not None
        assert again.session.played == seat.session.played


def test_a_journal_of_the_old_format_is_refused_in_one_line(tmp_path: Path) -> None:
    """A `/1` journal noted no `began`/`fed`: rebuilt, the seat's own entries could fall
    elsewhere in the log than the others hold (its host convicted of equivocation)."""
    key = Ed25519PrivateKey.generate()
    settings = TableSettings("cuttle", ("classic",), 2)
    journal = SeatJournal.new(
        host_table_path(tmp_path, 4300), role="host", name="p0", settings=settings,
        token="classic", host_identity=key.public_key().public_bytes_raw(), port=4300,
    )  # fmt: skip
    journal.close()
    old = {**_header_wire(journal.header), "format": "cuttle-table-journal/1"}
    journal.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    journal.path.write_bytes(_record(old))
    with pytest.raises(JournalDamaged, match=r"older cuttle \(cuttle-table-journal/1\)"):
        open_journal(journal.path)


def test_a_host_log_that_differs_before_what_a_joiner_holds_is_a_mismatch_not_a_proof(
    tmp_path: Path,
) -> None:
    """A restarted host whose log differs at an entry the joiner already holds, relaying
    on from there: the joiner refuses it saying it holds no proof (one signature that does
    not fit proves nothing to another seat), and the host, an honest seat hearing it, takes
    it as the joiner's claim, never as a proven fault (SPEC 3.15, the verdict rule)."""
    table = play(tmp_path, "cuttle", "classic", 2, seed=4)
    host, joiner = table[0].core, table[1]
    assert isinstance(host, TableHost) and host.log is not None
    joiner.journal.close()
    # Entry m: one whose author had not seen the entry before it (the joiner shares its view).
    m = next(n for n in range(len(host.log) // 2, len(host.log)) if host.log.entries[n].seen < n)
    inputs = _inputs(joiner.journal.path)  # killed as entry m came: it holds m entries
    _rewrite(joiner.journal.path, inputs[: next(i for i, x in enumerate(inputs) if _entry(x, m))])
    guest = rebuild(open_journal(joiner.journal.path), joiner.key, game_session).core
    assert isinstance(guest, TableGuest) and guest.log is not None and len(guest.log) == m

    # The host's log differs at entry k = m - 1 (held by the joiner); it relays entry m
    # chained on its own heads.
    log, key = host.log, table[0].key
    k = m - 1
    old = log.entries[k]
    heads = list(log.heads[: k + 1])
    other = old.body + b"\x00"  # (another body: another digest)
    heads.append(next_head(heads[k], post_digest(log.table_id, 0, old.seen, old.head, other)))
    for e in log.entries[k + 1 : m + 1]:
        heads.append(
            next_head(heads[-1], post_digest(log.table_id, e.seat, e.seen, e.head, e.body))
        )
    e = log.entries[m]
    assert e.seen <= k  # its author's view is one the joiner shares: no conflicting vouch
    relay = key.sign(relay_statement(m + 1, heads[m + 1]))
    guest.receive(Entry(m, e.seat, e.seen, e.head, e.vouch, e.body, e.sig, relay))

    (ended,) = [x for x in guest.take_events() if isinstance(x, TableEnded)]
    assert (ended.culprit, ended.kind, ended.proven) == (0, "bad-relay", False)
    assert "no proof" in ended.detail
    (report,) = guest.take_outgoing()  # its `fault` entry, for the host to relay
    host.take_events()
    host.receive(guest.identity, report)
    (heard,) = [x for x in host.take_events() if isinstance(x, TableEnded)]
    assert (heard.culprit, heard.reporter, heard.proven) == (0, 1, False)  # a claim


def _inputs(path: Path) -> list[list[Any]]:
    return read_table_journal(path)[1]


def _rewrite(path: Path, inputs: list[list[Any]]) -> None:
    header = read_table_journal(path)[0]
    path.write_bytes(b"".join(_record(x) for x in [_header_wire(header), *inputs]))


def _entry(value: list[Any], n: int) -> bool:
    return value[0] == "recv" and value[2].get("t") == "entry" and value[2].get("n") == n


def test_another_entry_for_an_index_the_joiner_holds_is_kept_as_proof(tmp_path: Path) -> None:
    """A restarted host sends again an entry the joiner holds, another one, under a relay
    signature over the head it makes: the joiner holds two host signatures over two heads
    of that length, the proof (SPEC 3.15), and every seat that hears its report checks it."""
    table = play(tmp_path, "cuttle", "classic", 2, seed=5)
    host, joiner = table[0].core, table[1]
    assert isinstance(host, TableHost) and host.log is not None
    joiner.journal.close()
    guest = rebuild(open_journal(joiner.journal.path), joiner.key, game_session).core
    assert isinstance(guest, TableGuest) and guest.log is not None
    log, key = guest.log, table[0].key
    n = len(log) - 1
    e = log.entries[n]
    other = e.body + b"\x00"  # another entry n, over the head the joiner holds before it
    head = next_head(log.heads[n], post_digest(log.table_id, e.seat, e.seen, e.head, other))
    relay = key.sign(relay_statement(n + 1, head))
    guest.receive(Entry(n, e.seat, e.seen, e.head, e.vouch, other, e.sig, relay))

    (ended,) = [x for x in guest.take_events() if isinstance(x, TableEnded)]
    assert (ended.culprit, ended.kind) == (0, "equivocation") and ended.proven
    assert ended.evidence is not None and ended.evidence.proves(key.public_key())

    # A watcher, sent the log from entry 0 again after a reconnection, keeps it too.
    watcher = TableWatcher(LocalPlayer("w", Ed25519PrivateKey.generate()), host.identity)
    for i in range(n + 1):
        watcher.receive(host._entry_message(i))
    watcher.receive(Entry(n, e.seat, e.seen, e.head, e.vouch, other, e.sig, relay))
    (seen,) = [x for x in watcher.take_events() if isinstance(x, TableEnded)]
    assert seen.kind == "equivocation" and seen.evidence == ended.evidence

    (report,) = guest.take_outgoing()
    host.take_events()
    host.receive(guest.identity, report)
    (heard,) = [x for x in host.take_events() if isinstance(x, TableEnded)]
    assert (heard.culprit, heard.kind, heard.reporter) == (0, "equivocation", 1)
    assert heard.proven  # checked by the seat that heard it: a verdict, not a claim


def test_a_rebuilt_host_lets_its_watchers_go_in_a_new_entry(tmp_path: Path) -> None:
    """Killed while watched: the watchers' connections died with the process, so the
    rebuilt host posts (and journals) who watches now, after the log it held."""
    table = play(tmp_path, "cuttle", "classic", 2, seed=6, watcher=True, keep=True)
    host = table[0].core
    assert isinstance(host, TableHost) and host.log is not None and host.watchers
    table[0].journal.close()
    again = rebuild(open_journal(table[0].journal.path), table[0].key, game_session).core
    assert isinstance(again, TableHost) and again.log is not None
    assert again.log.entries[: len(host.log)] == host.log.entries
    (new,) = again.log.entries[len(host.log) :]
    assert new.seat == 0 and b"\xa1t\xa5watch" in new.body and not again.watchers
    again.take_outgoing()
    again.before_send()  # (written before it leaves)
    assert read_table_journal(table[0].journal.path)[1][-1][0] == "unwatch"


@pytest.mark.parametrize("how", ["remove", "close"])
def test_a_journal_let_go_is_never_written_again(tmp_path: Path, how: str) -> None:
    """Removed once the record is saved (or closed for a restart), the journal is not made
    anew by what the core notes after: a joiner's connection closing as the host shuts
    down (seen in a full run: a removed host journal back with one `gone` input)."""
    key, other = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    settings = TableSettings("cuttle", ("classic",), 2)
    path = host_table_path(tmp_path, 4400)
    journal = SeatJournal.new(
        path, role="host", name="p0", settings=settings, token="classic",
        host_identity=key.public_key().public_bytes_raw(), port=4400,
    )  # fmt: skip
    core = JournaledHost(journal, LocalPlayer("p0", key), settings)
    joiner = other.public_key().public_bytes_raw()
    core.add_joiner("p1", joiner)
    core.take_outgoing()
    core.before_send()  # as the shell's writer does
    written = path.read_bytes()
    getattr(journal, how)()
    core.remove_joiner(joiner, "the connection closed")
    core.take_outgoing()
    core.before_send()
    assert (path.read_bytes() == written) if how == "close" else not path.exists()
