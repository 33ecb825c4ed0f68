"""A watcher beside a table (SPEC 3.15 *Watchers*), over the trio shells on the in-memory
network and trio's mock clock: it sees every public move and never a seat's secret, its
copy of each record verifies, one that posts or floods is closed while the game goes on,
and a host that takes no watchers refuses it."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cuttle_client.cli_table import bot_for
from cuttle_client.progress import game_line
from cuttle_protocol.play import play_at_table
from cuttle_protocol.shells import (
    ConnectionEnded,
    connect,
    follow_table,
    host_table,
    join_table,
    open_listener,
    watch_table,
)
from cuttle_protocol.table import Chat, Played, Said, TableSettings, Watching
from cuttle_protocol.table.watch import MAX_DROPPED, WATCH_CAP
from cuttle_protocol.wire import LocalPlayer, Post, Resume, codec

from cuttle_net.deck.group import card_point, scalar_bytes
from cuttle_net.records.follow import WatchedGame
from cuttle_net.records.verify import Verdict as RecordVerdict
from cuttle_net.records.verify import verify_text

WAIT = 3 * 3600  # mock seconds: each test's bound (a hang is still caught)


async def until(condition) -> None:
    while not condition():
        await trio.sleep(0.01)


async def watched_table(
    tmp: Path,
    seats: int,
    game: str,
    token: str,
    watcher: Any,
    *,
    max_watchers: int | None = None,
    hosting: dict[str, Any] | None = None,
    watcher_chat: bool = False,
    heard: dict[int, list] | None = None,
) -> tuple[dict[int, Any], Any]:
    """A table of `seats` bots (a greedy bot each) and `watcher(address)` beside it, let in
    before the seats fill; each seat's game, and what the watcher returned. `heard`: each
    seat's table items (`play_at_table`'s `watch`); its bot moves only once `heard[seat]`
    holds a watcher's chat line."""
    games: dict[int, Any] = {}
    out: dict[str, Any] = {}
    async with open_listener(0, "127.0.0.1") as listener:
        address = f"127.0.0.1:{listener.address[1]}"
        hosting = {} if hosting is None else hosting  # "table": the host's shell

        async def sit(seat: int, table, key) -> None:
            bot, rng = bot_for(game, "greedy"), random.Random(seat)
            items = heard.setdefault(seat, []) if heard is not None else []

            async def choose(view: Any) -> Any:
                if heard is not None:
                    await until(lambda: any(getattr(i, "watcher", "") for i in items))
                return bot.choose(view, rng)

            games[seat] = await play_at_table(
                table, key, token, choose=choose, data_dir=tmp, watch=items.append
            )

        async def host() -> None:
            key = Ed25519PrivateKey.generate()
            settings = TableSettings(game, tuple(token.split("+")), seats)
            hosted = host_table(
                listener, LocalPlayer("p0", key), settings, watcher_chat=watcher_chat
            )
            async with hosted as table:
                if max_watchers is not None:
                    table.core.max_watchers = max_watchers
                hosting["table"] = table
                await sit(0, table, key)

        async def join(seat: int) -> None:
            key = Ed25519PrivateKey.generate()
            async with join_table(address, LocalPlayer(f"p{seat}", key)) as table:
                await sit(seat, table, key)

        async def watch() -> None:
            out["watcher"] = await watcher(address)

        with trio.fail_after(WAIT):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(host)
                await until(lambda: "table" in hosting)
                nursery.start_soon(watch)
                # The seats fill once the host took the watcher in (or refused it).
                await until(lambda: hosting["table"].core._watching or "watcher" in out)
                for seat in range(1, seats):
                    nursery.start_soon(join, seat)
    return games, out.get("watcher")


def watcher_at(tmp: Path) -> Any:
    async def watcher(address: str) -> Any:
        key = Ed25519PrivateKey.generate()
        notes: list[Any] = []
        async with watch_table(address, LocalPlayer("Watcher", key)) as table:
            verdicts = await follow_table(table, key, show=notes.append, data_dir=tmp / "w")
            return notes, verdicts, table.core

    return watcher


def secrets_and_cards(games: dict[int, Any]) -> tuple[list[bytes], list[bytes]]:
    """Each seat's deck secrets (its key share and its shuffle seed, which only the audit
    reveals), and the points of the cards each seat held hidden at the end of play."""
    secrets, cards = [], []
    for g in games.values():
        deck = g.session.deck
        secrets += [scalar_bytes(deck.x), deck.seed]
        cards += [card_point(c) for c in deck.my_hand() if c not in deck.hands[deck.me].public]
    return secrets, cards


def split_at_audit(core: Any, header: Any, names: tuple[str, ...]) -> tuple[bytes, bytes]:
    """The bytes the watcher received before the game's audit began, and from it on."""
    game = WatchedGame(header, names)
    before, after = bytearray(), bytearray()
    for entry in core.log.entries:
        body = codec.unpack(entry.body)
        (after if game.public.over is not None else before).extend(entry.body)
        if body["t"] in ("move", "deck"):
            game.receive(header.keys.index(core.seats[entry.seat].identity), body)
    return bytes(before), bytes(after)


@pytest.mark.trio
@pytest.mark.parametrize(
    ("game", "token", "seats"), [("cuttle", "standard", 2), ("unisson", "two-decks", 6)]
)
async def test_a_watcher_sees_every_public_move_never_a_secret_and_its_record_verifies(
    tmp_path: Path, memory_net, autojump_clock, game: str, token: str, seats: int
) -> None:
    games, (notes, verdicts, core) = await watched_table(
        tmp_path, seats, game, token, watcher_at(tmp_path)
    )
    session = games[0].session
    module = session.module
    # Every seat ended the same game by the rules, its audit passed (test_table_games.py's
    # honest game, here for six seats through the driver).
    assert len(games) == seats and all(g.clean for g in games.values())
    assert len({(g.session.outcome, g.session.audit) for g in games.values()}) == 1
    # Every move, in the game's order, by the same seats.
    played = [(n.seat, n.text) for n in notes if isinstance(n, Played)]
    assert played == [(s, module.move_text(m)) for s, m in session.played]
    # Its verdict: the audit passed, and its saved copy verifies as a seat's does.
    ((verdict, path),) = verdicts
    assert verdict.report.verdict is RecordVerdict.VALID, verdict.report.problem
    assert verify_text(path.read_text()).verdict is RecordVerdict.VALID
    assert '[Signer "watcher"]' in path.read_text()
    # The seats were told who watches.
    assert any(isinstance(n, Watching) and [w for w, _ in n.watchers] == ["Watcher"] for n in notes)
    # Never a secret before the audit (the audit reveals them to everyone: the control).
    before, after = split_at_audit(core, session.header, verdict.names)
    secrets, hidden = secrets_and_cards(games)
    assert secrets and all(s not in before for s in secrets)
    assert all(s in after for s in secrets)
    assert all(c not in before for c in hidden)
    # Its view is the spectator's: exactly the public positions a seat's record shows.
    seat_record = verify_text(games[1].record.read_text())
    ours = verify_text(path.read_text())
    assert [module.position_text(p) for p in ours.public] == [
        module.position_text(p) for p in seat_record.public
    ]


async def intruder(address: str, messages: list[Any]) -> str:
    """A watcher that sends `messages` once it is taken in: how its connection ended."""
    key = Ed25519PrivateKey.generate()
    async with connect(address, LocalPlayer("Mallory", key), caps=(WATCH_CAP,)) as peer:
        first = await peer.receive()  # the seating: it is watching
        assert first.TYPE == "entry"
        for message in messages:
            await peer.send(message)
        with pytest.raises(ConnectionEnded):
            while True:
                await peer.receive()
        return peer.ended.code


@pytest.mark.trio
@pytest.mark.parametrize("flood", [False, True])
async def test_a_watcher_that_posts_or_floods_is_closed_and_the_game_finishes(
    tmp_path: Path, memory_net, autojump_clock, flood: bool
) -> None:
    if flood:
        sent: list[Any] = [codec_junk() for _ in range(MAX_DROPPED + 1)]
    else:
        sent = [Post(1, bytes(32), bytes(64), codec.pack({"t": "move"}), bytes(64))]

    async def watcher(address: str) -> str:
        return await intruder(address, sent)

    games, code = await watched_table(tmp_path, 3, "unisson", "one-deck", watcher)
    assert code == "unexpected-message"
    assert all(g.clean for g in games.values()), [game_line(g) for g in games.values()]


def codec_junk() -> Any:
    return Resume(0, 0)  # a message the table reads (a ping the connection answers itself)


@pytest.mark.trio
async def test_a_host_without_watchers_refuses_them(
    tmp_path: Path, memory_net, autojump_clock
) -> None:
    async def watcher(address: str) -> str:
        with pytest.raises(ConnectionEnded) as refused:
            async with watch_table(address, LocalPlayer("W", Ed25519PrivateKey.generate())):
                pass
        return refused.value.message

    games, why = await watched_table(tmp_path, 3, "unisson", "one-deck", watcher, max_watchers=0)
    assert why == "this table takes no watchers"
    assert all(g.clean for g in games.values())


@pytest.mark.trio
async def test_a_watcher_whose_connection_is_lost_dials_again_and_misses_nothing(
    tmp_path: Path, memory_net, autojump_clock
) -> None:
    hosting: dict[str, Any] = {}

    async def watcher(address: str) -> Any:
        key = Ed25519PrivateKey.generate()
        me = key.public_key().public_bytes_raw()
        notes: list[Any] = []

        def show(note: Any) -> None:
            notes.append(note)
            if len([n for n in notes if isinstance(n, Played)]) == 3:  # cut it once
                link = hosting["table"]._watcher_links[me]
                trio.lowlevel.spawn_system_task(link.peer.aclose, "away", "cut by the test")

        async with watch_table(address, LocalPlayer("W", key)) as table:
            verdicts = await follow_table(table, key, show=show, save=False)
            return notes, verdicts

    games, (notes, verdicts) = await watched_table(
        tmp_path, 3, "unisson", "one-deck", watcher, hosting=hosting
    )
    session = games[0].session
    played = [(n.seat, n.text) for n in notes if isinstance(n, Played)]
    assert played == [(s, session.module.move_text(m)) for s, m in session.played]
    ((verdict, _),) = verdicts
    assert verdict.report.verdict is RecordVerdict.VALID, verdict.report.problem
    # The seats saw it go and come back.
    told = [[w for w, _ in n.watchers] for n in notes if isinstance(n, Watching)]
    assert told[:3] == [["W"], [], ["W"]]


@pytest.mark.trio
@pytest.mark.parametrize("allowed", [True, False])
async def test_a_watcher_chats_into_a_cuttle_game_where_the_host_allows_it(
    tmp_path: Path, memory_net, autojump_clock, allowed: bool
) -> None:
    line = "gg [b]x[/b] [@click=app.quit]"

    async def watcher(address: str) -> Any:
        key = Ed25519PrivateKey.generate()
        notes: list[Any] = []
        async with watch_table(address, LocalPlayer("Wes", key)) as table:

            def show(note: Any) -> None:
                notes.append(note)
                if isinstance(note, Watching) and table.core.may_say:
                    assert table.say(line)

            verdicts = await follow_table(table, key, show=show, save=False)
            return notes, verdicts, table.can_chat

    heard: dict[int, list] = {}
    games, (notes, verdicts, can_chat) = await watched_table(
        tmp_path,
        2,
        "cuttle",
        "standard",
        watcher,
        watcher_chat=allowed,
        heard=heard if allowed else None,
    )
    assert can_chat is allowed
    said = [(n.name, n.text) for n in notes if isinstance(n, Said)]
    assert said == ([("Wes (watching)", line)] if allowed else [])
    for seat in (0, 1):
        chats = [i for i in heard.get(seat, []) if isinstance(i, Chat)]
        assert [(c.who(str), c.text) for c in chats] == said
    assert all(g.clean for g in games.values()), [g.line for g in games.values()]
    ((verdict, _),) = verdicts
    assert verdict.report.verdict is RecordVerdict.VALID, verdict.report.problem
