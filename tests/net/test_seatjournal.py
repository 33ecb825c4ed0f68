"""The crash journal of a table seat, the host's included (SPEC 4.6, *Tables*): a seat's
journal rebuilds its table core and its session byte for byte; a damaged journal is refused
naming its file; a journal another process plays is refused."""

from __future__ import annotations

import fcntl
import os
import random
from pathlib import Path

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cuttle_client.cli_table import bot_for
from cuttle_client.progress import game_line
from cuttle_protocol.play import (
    TableGame,
    TableMatch,
    game_session,
    play_at_table,
    play_match_at_table,
)
from cuttle_protocol.shells import TableTimeouts, host_table, join_table, open_listener
from cuttle_protocol.store import (
    JournalDamaged,
    JournaledGuest,
    JournaledHost,
    JournalInUse,
    SeatJournal,
    host_table_path,
    join_table_path,
    open_journal,
    read_table_journal,
    rebuild,
)
from cuttle_protocol.store.journal import _record
from cuttle_protocol.store.seatjournal import FORMAT
from cuttle_protocol.table import Stage, TableSettings
from cuttle_protocol.wire import LocalPlayer

# Honest bots on the real clock: the deadlines only bound a failure (5 s ran out between
# the games of a match at load 15); no connection is lost, so the window is never waited.
FAST = TableTimeouts(reply=60.0, move=60.0, window=3.0)


async def journaled_table(
    tmp: Path,
    seats: int,
    game: str = "unisson",
    token: str = "one-deck",
    games: int = 1,
    matches: dict[int, TableMatch] | None = None,
    leaver: int | None = None,
) -> tuple[dict[int, TableGame], dict[int, SeatJournal], dict[int, Ed25519PrivateKey]]:
    """A whole game (or a match of `games`: each seat's last game, the whole match in
    `matches`) at a table in this process, every seat journaled (the journals kept).
    `leaver`: that seat leaves the table at its first decision instead."""
    played: dict[int, TableGame] = {}
    journals: dict[int, SeatJournal] = {}
    keys = {seat: Ed25519PrivateKey.generate() for seat in range(seats)}
    settings = TableSettings(game, tuple(token.split("+")), seats)
    host_key = keys[0].public_key().public_bytes_raw()
    async with open_listener(0, "127.0.0.1") as listener:
        port = listener.address[1]
        address = f"127.0.0.1:{port}"

        async def sit(seat: int, table) -> None:
            bot, rng = bot_for(game, "greedy"), random.Random(seat)

            async def leave(view) -> None:
                table.leave("peer-quit", "gone for coffee")
                await trio.sleep_forever()

            how = dict(
                choose=leave if seat == leaver else lambda view: bot.choose(view, rng),
                data_dir=tmp / f"p{seat}",
                journal=journals[seat],
            )
            if games == 1:
                played[seat] = await play_at_table(table, keys[seat], token, **how)
            else:
                match = await play_match_at_table(table, keys[seat], token, games=games, **how)
                played[seat] = match.games[-1]
                if matches is not None:
                    matches[seat] = match

        async def host() -> None:
            me = LocalPlayer("p0", keys[0])
            path = host_table_path(tmp / "p0", port)
            journal = journals[0] = SeatJournal.new(
                path, role="host", name="p0", settings=settings, token=token,
                host_identity=host_key, port=port,
            )  # fmt: skip
            core = JournaledHost(journal, me, settings)
            async with host_table(listener, me, settings, timeouts=FAST, core=core) as table:
                await sit(0, table)

        async def join(seat: int, task_status=trio.TASK_STATUS_IGNORED) -> None:
            me = LocalPlayer(f"p{seat}", keys[seat])
            path = join_table_path(tmp / f"p{seat}", address)
            journal = journals[seat] = SeatJournal.new(
                path, role="joiner", name=me.name, settings=settings, token=token,
                host_identity=host_key, address=address,
            )  # fmt: skip
            async with join_table(
                address,
                me,
                timeouts=FAST,
                new_core=lambda info: JournaledGuest(journal, me, info.peer_identity),
            ) as table:
                task_status.started()
                await sit(seat, table)

        with trio.fail_after(300):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(host)
                for seat in range(1, seats):
                    await nursery.start(join, seat)
    return played, journals, keys


@pytest.mark.trio
@pytest.mark.parametrize(
    ("seats", "game", "token"), [(3, "unisson", "one-deck"), (2, "cuttle", "classic")]
)
async def test_every_seats_journal_rebuilds_its_log_and_session_byte_for_byte(
    tmp_path: Path, seats: int, game: str, token: str
) -> None:
    games, journals, keys = await journaled_table(tmp_path, seats, game, token)
    assert all(g.clean for g in games.values()), games
    for seat, journal in journals.items():
        live = journal.core
        assert live is not None and live.log is not None
        journal.close()
        kinds = [entry[0] for entry in read_table_journal(journal.path)[1]]
        assert {"recv", "confirm", "play"} <= set(kinds), kinds
        assert ("leave" in kinds) == (seat == 0)  # the host closes the table once it is over
        again = open_journal(journal.path)
        seat_again = rebuild(again, keys[seat], game_session)
        core = seat_again.core
        assert core.log is not None
        # The same log: every entry and every host signature, at the host as at the joiners.
        assert core.log.heads == live.log.heads
        assert core.log.relays == live.log.relays
        assert core.log.entries == live.log.entries
        assert core.stage is Stage.ENDED  # the game's end is journaled too
        # The same table code (SPEC 3.15, *One code*): a restarted seat shows no new one.
        assert live.code and core.code == live.code
        assert seat_again.code is not None and seat_again.code.code == live.code
        session, played = seat_again.session, games[seat].session
        assert session is not None and played is not None
        assert session.seat == played.seat and session.finished
        assert [r.signature for r in session.records] == [r.signature for r in played.records]
        again.close()


@pytest.mark.trio
async def test_a_match_is_rebuilt_from_its_journal_at_its_last_game(tmp_path: Path) -> None:
    """Two games at a table: every seat's journal notes its rematch answer, and rebuilding it
    gives the same log and game 2's session, whose secrets are not game 1's."""
    games, journals, keys = await journaled_table(tmp_path, 3, games=2)
    assert all(g.clean for g in games.values()), games
    for seat, journal in journals.items():
        live = journal.core
        assert live is not None and live.log is not None
        journal.close()
        kinds = [entry[0] for entry in read_table_journal(journal.path)[1]]
        assert "rematch" in kinds
        again = rebuild(open_journal(journal.path), keys[seat], game_session)
        assert again.core.log is not None and again.core.log.entries == live.log.entries
        session = again.session
        assert session is not None and session.header.number == 2
        assert session.played == games[seat].session.played  # type: ignore[union-attr]


def test_a_journal_is_written_only_once_the_table_is_seated_and_then_before_any_send(
    tmp_path: Path,
) -> None:
    """Nothing is written in the lobby; the seating, and every input after it, is on disk
    by the time what the core handed over is sent (`before_send`)."""
    key, other = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    settings = TableSettings("cuttle", ("classic",), 2)
    me = key.public_key().public_bytes_raw()
    path = host_table_path(tmp_path, 4000)
    journal = SeatJournal.new(
        path, role="host", name="p0", settings=settings, token="classic",
        host_identity=me, port=4000,
    )  # fmt: skip
    core = JournaledHost(journal, LocalPlayer("p0", key), settings)
    core.take_outgoing()
    assert not path.exists()
    core.add_joiner("p1", other.public_key().public_bytes_raw())
    assert not path.exists()  # noted, not yet written: nothing left yet
    sent = core.take_outgoing()
    assert sent  # the lobby status, the seating, our commitment
    assert not path.exists()  # taken, not sent yet: the shell calls before_send first
    core.before_send()
    header, inputs = read_table_journal(path)
    assert header.port == 4000 and inputs == [["join", "p1", other.public_key().public_bytes_raw()]]
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    journal.remove()
    assert not path.exists()


@pytest.mark.trio
async def test_a_journaled_seat_fsyncs_once_a_write_at_most(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A whole journaled game: no seat fsyncs for an input that makes it send nothing (an
    fsync is 5 ms or more, a move about 2). At most one fsync a write (a message and what
    is queued with it), besides each journal's creation (the file and its folder) and its
    end. (Before, every entry taken cost one: about two a write.)"""
    from cuttle_protocol.shells.peer import Peer

    fsyncs, writes = [0], [0]
    real_fsync, real_send = os.fsync, Peer.send

    def fsync(fd: int) -> None:
        fsyncs[0] += 1
        real_fsync(fd)

    async def send(self: Peer, *messages: object) -> None:
        writes[0] += 1
        await real_send(self, *messages)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(Peer, "send", send)
    games, _journals, _keys = await journaled_table(tmp_path, 2, "cuttle", "classic")
    assert all(g.clean for g in games.values()), games
    assert 0 < fsyncs[0] <= writes[0] + 4 * 2, (fsyncs[0], writes[0])


def test_an_input_that_sends_nothing_waits_for_the_next_send(tmp_path: Path) -> None:
    """An fsync costs milliseconds: an entry a joiner takes without answering (a chat line,
    its own post back, the other seat's move) is written with the next message it sends,
    before that leaves (SPEC 4.6); no peer holds anything the journal lacks meanwhile.
    (Written by `before_send`, which the shell calls before a write: the seat's own game
    sees an input before its fsync.)"""
    from cuttle_protocol.table import TableHost

    keys = [Ed25519PrivateKey.generate() for _ in range(2)]
    settings = TableSettings("cuttle", ("classic",), 2)
    host = TableHost(LocalPlayer("p0", keys[0]), settings)
    host_key = keys[0].public_key().public_bytes_raw()
    path = join_table_path(tmp_path, "127.0.0.1:4005")
    journal = SeatJournal.new(
        path, role="joiner", name="p1", settings=settings, token="classic",
        host_identity=host_key, address="127.0.0.1:4005",
    )  # fmt: skip
    guest = JournaledGuest(journal, LocalPlayer("p1", keys[1]), host_key, clock=lambda: 0.0)

    def to_guest() -> list:
        for _, message in host.take_outgoing():
            guest.receive(message)
        out = guest.take_outgoing()
        if out:
            guest.before_send()  # as the shell does before it sends them
        return out

    host.add_joiner("p1", keys[1].public_key().public_bytes_raw())
    assert to_guest()  # the seating, the host's commitment: the guest commits
    written = path.stat().st_size
    assert host.say("hello")
    assert to_guest() == []  # a chat line: nothing to answer
    assert path.stat().st_size == written  # noted, not yet written: nothing left
    assert guest.say("hi")
    assert to_guest()  # our line leaves, and the chat before it is on disk first
    kinds = [entry[0] for entry in read_table_journal(path)[1]]
    assert kinds[-3:] == ["recv", "at", "say"], kinds  # the chat line, then ours
    journal.close()


def _garbage(path: Path, data: bytes) -> None:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.write_bytes(data)


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b"\x00\x00\x00\x05garbage and more garbage", "damaged length"),
        (b"", "no header"),
        (_record({"format": "cuttle-journal/1"}), f"not a {FORMAT} journal"),
        (_record({"format": FORMAT, "role": "host"}), "does not have the fields"),
    ],
)
def test_a_damaged_journal_is_refused_naming_its_file(
    tmp_path: Path, data: bytes, why: str
) -> None:
    path = host_table_path(tmp_path, 4001)
    _garbage(path, data)
    with pytest.raises(JournalDamaged) as caught:
        open_journal(path)
    assert why in caught.value.why
    assert str(path) in str(caught.value) and "\n" not in str(caught.value)


def test_an_input_that_cannot_be_replayed_is_named(tmp_path: Path) -> None:
    key = Ed25519PrivateKey.generate()
    settings = TableSettings("cuttle", ("classic",), 2)
    path = host_table_path(tmp_path, 4002)
    header = SeatJournal.new(
        path,
        role="host",
        name="p0",
        settings=settings,
        token="classic",
        host_identity=key.public_key().public_bytes_raw(),
        port=4002,
    ).header
    from cuttle_protocol.store.seatjournal import _header_wire

    release_claim(path)
    _garbage(path, _record(_header_wire(header)) + _record(["play", "7C"]))
    journal = open_journal(path)
    with pytest.raises(JournalDamaged, match=r"input 0 \('play'\) cannot be replayed"):
        rebuild(journal, key, game_session)
    # a journal written with another key is not ours to replay
    with pytest.raises(JournalDamaged, match="another identity key"):
        rebuild(journal, Ed25519PrivateKey.generate(), game_session)


def release_claim(path: Path) -> None:
    from cuttle_protocol.store import release

    release(path)


def test_a_journal_another_process_plays_is_refused(tmp_path: Path) -> None:
    key = Ed25519PrivateKey.generate()
    settings = TableSettings("cuttle", ("classic",), 2)
    path = host_table_path(tmp_path, 4003)
    journal = SeatJournal.new(
        path,
        role="host",
        name="p0",
        settings=settings,
        token="classic",
        host_identity=key.public_key().public_bytes_raw(),
        port=4003,
    )
    header = journal.header
    journal.remove()
    from cuttle_protocol.store.seatjournal import _header_wire

    _garbage(path, _record(_header_wire(header)))
    # Another process's claim: an exclusive flock on the lock file beside the journal.
    fd = os.open(path.with_suffix(".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(JournalInUse):
            open_journal(path)
    finally:
        os.close(fd)
    open_journal(path).close()  # once let go, it is ours


@pytest.mark.trio
async def test_a_restarted_host_that_rewrites_history_is_caught_with_proof(
    tmp_path: Path,
) -> None:
    """A joiner rebuilt from its journal holds its own copy of the log: a host that comes
    back having changed an entry the joiner holds (one of its own: it can sign anything it
    authored) and posts on from there signs a head the joiner never saw, and the joiner
    holds the two host signatures over different heads of one length (SPEC 4.6)."""
    from cuttle_protocol.store.seatjournal import _header_wire
    from cuttle_protocol.table.log import next_head, post_digest, relay_statement
    from cuttle_protocol.wire import Entry, codec

    _, journals, keys = await journaled_table(tmp_path, 2, "cuttle", "classic")
    host, joiner = journals[0].core, journals[1]
    assert host is not None and host.log is not None
    joiner.close()
    header, inputs = read_table_journal(joiner.path)
    half = [e for e in inputs[: len(inputs) // 2]]  # the joiner killed mid-game
    joiner.path.write_bytes(b"".join(_record(x) for x in [_header_wire(header), *half]))
    seat = rebuild(open_journal(joiner.path), keys[1], game_session)
    guest = seat.core
    assert guest.log is not None and guest.stage is Stage.GAME
    m = len(guest.log)

    # The host rewrites its own entry k (< m), chains the rest of its log on it, posts at m.
    log, key, table_id = host.log, keys[0], host.table_id
    k = next(i for i in range(1, m) if log.entries[i].seat == 0)
    forged_body = codec.pack({"t": "forged"})
    old = log.entries[k]
    heads = list(log.heads[: k + 1])
    heads.append(next_head(heads[k], post_digest(table_id, 0, old.seen, old.head, forged_body)))
    for e in log.entries[k + 1 : m]:
        heads.append(next_head(heads[-1], post_digest(table_id, e.seat, e.seen, e.head, e.body)))
    assert heads[m] != guest.log.heads[m]
    body = codec.pack({"t": "move", "text": "pass", "sig": b""})
    digest = post_digest(table_id, 0, m, heads[m], body)
    vouch = key.sign(relay_statement(m, heads[m]))
    relay = key.sign(relay_statement(m + 1, next_head(heads[m], digest)))
    guest.receive(Entry(m, 0, m, heads[m], vouch, body, key.sign(digest), relay))

    (ended,) = [e for e in guest.take_events() if type(e).__name__ == "TableEnded"]
    assert (ended.culprit, ended.kind) == (0, "equivocation"), ended
    assert ended.proven and ended.evidence is not None
    assert ended.evidence.proves(keys[0].public_key())


def test_a_restarted_host_waits_the_window_for_its_joiners_then_names_one(
    tmp_path: Path,
) -> None:
    """A host rebuilt from its journal mid-game seats nobody new: every joiner is away,
    waited for the reconnect window from the restart (its deadlines suspended), then named
    (`left`, SPEC 4.6). On trio's mock clock; nobody dials."""
    from cuttle_protocol.shells import Listener, ListenerLimits, SeatAway
    from cuttle_protocol.store.seatjournal import _header_wire
    from cuttle_protocol.table import TableEnded

    _, journals, keys = trio.run(journaled_table, tmp_path, 3)  # a whole game, on the real clock
    host = journals[0]
    host.close()
    header, inputs = read_table_journal(host.path)
    cut = next(i for i, e in enumerate(inputs) if e[0] == "play") + 1  # just after our 1st move
    host.path.write_bytes(b"".join(_record(x) for x in [_header_wire(header), *inputs[:cut]]))
    seen: list[object] = []
    window = TableTimeouts(reply=5.0, move=30.0, window=60.0)

    async def restarted() -> tuple[float, object]:
        journal = open_journal(host.path)
        seat = rebuild(journal, keys[0], game_session)
        assert seat.core.stage is Stage.GAME and len(seat.lost) == 2
        nobody = Listener([], ListenerLimits(), lambda line: None, lambda alarm: None)
        settings = TableSettings("unisson", ("one-deck",), 3)
        me = LocalPlayer("p0", keys[0])
        start = trio.current_time()
        async with host_table(
            nobody, me, settings, timeouts=window, core=seat.core, restarted=seat.lost
        ) as table:
            bot, rng = bot_for("unisson", "greedy"), random.Random(0)
            game = await play_at_table(
                table,
                keys[0],
                "one-deck",
                choose=lambda view: bot.choose(view, rng),
                data_dir=tmp_path / "p0",
                journal=journal,
                watch=seen.append,
            )
        return trio.current_time() - start, game

    took, game = trio.run(restarted, clock=trio.testing.MockClock(autojump_threshold=0))
    away = [x for x in seen if isinstance(x, SeatAway)]
    assert sorted(a.seat for a in away) == [1, 2] and {a.window for a in away} == {60.0}
    (ended,) = [x for x in seen if isinstance(x, TableEnded)]
    assert ended.kind == "left" and "not back within 60 s" in ended.detail, ended
    assert 60.0 <= took < 60.0 + 1.0, took  # the window, not a move or reply timeout
    assert "left" in game_line(game) and game.record is not None, game_line(game)


def test_a_message_the_host_refuses_is_not_journaled(tmp_path: Path) -> None:
    """A joiner's message that is not a post (the host closes that connection) changes
    nothing at the table: the journal stays replayable."""
    from cuttle_protocol.errors import RemoteProtocolError
    from cuttle_protocol.wire import Resume

    key, other = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    settings = TableSettings("cuttle", ("classic",), 2)
    path = host_table_path(tmp_path, 4004)
    journal = SeatJournal.new(
        path,
        role="host",
        name="p0",
        settings=settings,
        token="classic",
        host_identity=key.public_key().public_bytes_raw(),
        port=4004,
    )
    core = JournaledHost(journal, LocalPlayer("p0", key), settings)
    joiner = other.public_key().public_bytes_raw()
    core.add_joiner("p1", joiner)
    with pytest.raises(RemoteProtocolError):
        core.receive(joiner, Resume(0, 3))
    core.take_outgoing()
    core.before_send()  # as the shell does before it sends
    journal.close()
    assert [e[0] for e in read_table_journal(path)[1]] == ["join"]
    rebuild(open_journal(path), key, game_session)  # no JournalDamaged


def test_a_tampered_journal_is_rebuilt_or_refused_in_one_line_never_a_crash(
    tmp_path: Path,
) -> None:
    """Bytes flipped, inputs swapped or changed (re-framed with valid checksums): the
    rebuild either works or raises `JournalDamaged` naming the file, in one line."""
    from cuttle_protocol.store.seatjournal import _header_wire

    _, journals, keys = trio.run(journaled_table, tmp_path, 2, "cuttle", "classic")
    for journal in journals.values():
        journal.close()
    rng = random.Random(25)
    cases: list[tuple[int, bytes]] = []
    for seat, journal in journals.items():
        data = journal.path.read_bytes()
        header, inputs = read_table_journal(journal.path)
        for _ in range(6):
            at = rng.randrange(len(data))
            cases.append((seat, data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1 :]))
        for _ in range(6):
            changed = list(inputs)
            i = rng.randrange(len(changed) - 1)
            changed[i], changed[i + 1] = changed[i + 1], changed[i]
            if rng.random() < 0.5:
                changed[i] = ["play", "not a move"]
            framed = b"".join(_record(x) for x in [_header_wire(header), *changed])
            cases.append((seat, framed))
    refused = 0
    for n, (seat, data) in enumerate(cases):
        path = join_table_path(tmp_path / f"case{n}", "127.0.0.1:4454")
        _garbage(path, data)
        try:
            rebuild(open_journal(path), keys[seat], game_session)
        except JournalDamaged as e:
            refused += 1
            assert str(path) in str(e) and "\n" not in str(e), e
    assert refused >= len(cases) // 2  # most tampering shows


def test_a_seat_killed_before_confirming_the_code_is_asked_again(tmp_path: Path) -> None:
    from cuttle_protocol.store.seatjournal import _header_wire
    from cuttle_protocol.table import CodeShown

    _, journals, keys = trio.run(journaled_table, tmp_path, 2, "cuttle", "classic")
    for seat, journal in journals.items():
        journal.close()
        header, inputs = read_table_journal(journal.path)
        cut = inputs.index(["confirm"])  # killed as the code was shown
        journal.path.write_bytes(
            b"".join(_record(x) for x in [_header_wire(header), *inputs[:cut]])
        )
        resumed = rebuild(open_journal(journal.path), keys[seat], game_session)
        assert resumed.core.stage is Stage.CONFIRM and resumed.code is not None
        shown = [e for e in resumed.core.take_events() if isinstance(e, CodeShown)]
        assert shown == [resumed.code]
        resumed.core.confirm()  # the player confirms, as before the crash
