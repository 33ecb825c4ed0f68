"""The watcher's screen (``cuttle watch`` in the terminal client, SPEC 3.15 *Watchers*): the
game as a spectator sees it, read only, with the moves in words, who sits and watches, the
chat, the verdict and the record saved; and the whole watch against a real table."""

from __future__ import annotations

import random
import socket
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import cuttle_client
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cuttle_client.app import CuttleApp, Settings, make_app
from cuttle_client.cli_table import Hosting, sit_at_table
from cuttle_client.games import game_ui
from cuttle_client.network import ConnectScreen
from cuttle_client.tablewidgets import sentence
from cuttle_client.watch import Onlooker, WatchScreen
from cuttle_client.watching import WatchLaunch
from cuttle_protocol.play import play_at_table
from cuttle_protocol.shells import join_table
from cuttle_protocol.shells.watch import Saved
from cuttle_protocol.table import Began, Ended, GameVerdict, Watching
from cuttle_protocol.table.follow import Said
from cuttle_protocol.wire import LocalPlayer
from textual.pilot import Pilot
from textual.widgets import Input, ListView, Static

from cuttle_net.games.interface import game_module
from cuttle_net.records.follow import WatchedGame
from cuttle_net.records.verify import Verdict, verify_text
from tests.client.helpers import keys, run, screen_text, until
from tests.client.test_cuttle_table import FAST
from tests.session.table import Table

NAMES = ("Ann", "Bob", "Cy", "Di", "Eve", "Fay")
KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))


def watched(game: str, rules: str, seats: int, moves: int, seed: int = 3) -> tuple[Onlooker, Table]:
    """An onlooker that has followed a table's game, played in memory by bots for about
    ``moves`` moves (0: to its end, then the audit's verdict and the record saved)."""
    table = Table(game, rules, seats, dealer=1, seed=seed)
    if moves:
        table.start()
        for _ in range(moves):  # as `Table.play_on`, stopping mid-game
            mover = next(s for s in table.sessions if s.my_turn)
            table.post(mover.seat, mover.play(table.bot(mover.view, table.rng)))
            table.pump()
    else:
        table.play()
    names = NAMES[:seats]
    game_seen = WatchedGame(table.header, names)
    onlooker = Onlooker(WatchLaunch("127.0.0.1:4454"))
    model = onlooker.watched
    model.follower = SimpleNamespace(game=game_seen)  # type: ignore[assignment]
    onlooker._show(Began(1, names, table.header.dealer))  # as the watch shows them
    onlooker._show(Watching((("Wendy", b"w" * 32), ("Xi", b"x" * 32))))
    for seat, body in table.log:
        game_seen.receive(seat, body)
    if not moves:
        assert game_seen.over
        record = game_seen.record("2026-11-28T00:00:00Z", KEY)
        onlooker._show(GameVerdict(1, names, verify_text(record), record))
        onlooker._show(Saved(1, Path("games/2026-11-28-watched-game1.cuttle")))
        onlooker._show(Ended("the table ended: Ann (seat 0) left: no more games"))
    return onlooker, table


class WatchingApp(CuttleApp):
    """The client, watching: the watch screen over the lobby (as ``cuttle watch``)."""

    CSS_PATH = str(Path(cuttle_client.__file__).parent / "cuttle.tcss")

    def __init__(self, onlooker: Onlooker) -> None:
        super().__init__(Settings(bot_delay=0, lan=False))
        self.onlooker = onlooker

    def on_mount(self) -> None:  # over the lobby the app's own on_mount pushes next
        self.call_later(self.push_screen, WatchScreen(self.onlooker, ascii=False, quits=True))


def hidden_cards(game: str, table: Table, spectator: Any) -> list[str]:
    """Each card a seat holds (as its own view has it) that the spectator does not know."""

    def hand(view: Any, seat: int) -> list[int]:
        return view.hands[seat] if game == "cuttle" else view.hand(seat)

    card = game_ui(game).card
    return [
        card(c, False)
        for s, session in enumerate(table.sessions)
        for c in hand(session.view, s)
        if c not in hand(spectator, s)
    ]


def test_a_cuttle_table_watched_mid_game(snap_compare) -> None:
    onlooker, _ = watched("cuttle", "standard", 2, 6)
    onlooker._show(Said("Bob", "good game"))
    assert snap_compare(WatchingApp(onlooker))


def test_a_six_seat_unisson_table_watched_to_its_verdict(snap_compare) -> None:
    onlooker, _ = watched("unisson", "two-decks", 6, 0)
    assert snap_compare(WatchingApp(onlooker))


@pytest.mark.parametrize(
    ("game", "rules", "seats"), [("cuttle", "classic", 2), ("unisson", "one-deck", 4)]
)
def test_the_watcher_sees_the_moves_in_words_and_no_hidden_card(game, rules, seats) -> None:
    onlooker, table = watched(game, rules, seats, 6)
    seen = onlooker.watched.game
    hidden = hidden_cards(game, table, seen.view)
    assert len(hidden) >= 4  # (the test means something: cards are in hands)
    app = WatchingApp(onlooker)
    board = game_ui(game).board()
    p = onlooker.watched.positions()
    assert p is not None and not p.full
    words = [line.words for lines in board.log(p, None) for line in lines]

    async def body(pilot: Pilot) -> None:
        text = screen_text(app)
        assert f"game 1 · move {len(seen.public.played)} · checking every move" in text
        assert "watching: Wendy, Xi" in text
        assert sentence(words[-1], ascii=False)[:30] in text.replace("\n", " ")
        # Read only: no moves to choose from, nowhere to type one.
        assert not app.screen.query("#actions") and not app.screen.query("Input")
        for card in hidden:
            assert card not in text, (card, text)

    run(app, body)


def test_peer_words_show_as_plain_text_and_the_end_is_told() -> None:
    onlooker, _ = watched("cuttle", "classic", 2, 0)
    evil = "[b]x[/b] [@click=app.quit]go[/] \x1b[31mred\x07"
    onlooker._show(Said("[b]Mal[/b]", evil))
    onlooker._show(Said("Spam", "", muted=True))
    app = WatchingApp(onlooker)

    async def body(pilot: Pilot) -> None:
        text = screen_text(app)
        chat = str(app.screen.query_one("#chat-text", Static).render())
        where = str(app.screen.query_one("#where", Static).render())
        flat = " ".join([chat, where])
        assert "[b]Mal[/b]: [b]x[/b] [@click=app.quit]go[/] ?[31mred?" in flat, text
        assert "the host muted Spam for flooding the chat" in flat, text
        assert "game 1 verified: audit passed, every move checked" in text, text
        assert "record saved: games/2026-11-28-watched-game1.cuttle" in flat, text
        assert "the table ended: Ann (seat 0) left: no more games" in flat, text
        await keys(pilot, "q")  # stop watching: cuttle watch quits

    run(app, body)
    assert not app.is_running


def test_a_lost_host_is_said_in_words() -> None:
    onlooker, _ = watched("unisson", "one-deck", 3, 4)
    onlooker._say("lost the connection to the host (connection reset): dialling again")
    app = WatchingApp(onlooker)

    async def body(pilot: Pilot) -> None:
        assert "lost the connection to the host (connection reset): dialling again" in (
            screen_text(app)
        )
        onlooker._say("watching again")
        await until(pilot, lambda: "watching again" in screen_text(app))

    run(app, body)


# --- the whole watch, against a real table on loopback ---------------------------------------


CUTTLE = Hosting("cuttle", 2, "classic", 0, "127.0.0.1", announce=False)


async def watching_two_bots(
    pilot: Pilot, tmp_path: Path, choose: Callable[[Any], Any], where: Hosting = CUTTLE, **play: Any
) -> None:
    """Ann hosts ``where`` (her seat's `sit_at_table` hooks: ``play``) and Bob joins, both
    choosing by ``choose``, in the app's trio run; the app watches as Wendy. Returns once
    the watch screen is up."""
    app, port = pilot.app, []

    async def host() -> None:
        await sit_at_table(
            "Ann",
            where,
            config_dir=tmp_path / "a",
            timeouts=FAST,
            say=lambda line: None,
            seated=lambda table: port.append(table._listener.address[1]),
            choose=choose,
            data_dir=tmp_path / "a",
            **play,
        )

    async def joiner() -> None:
        key = Ed25519PrivateKey.generate()
        address = f"127.0.0.1:{port[0]}"
        async with join_table(address, LocalPlayer("Bob", key), timeouts=FAST) as table:
            await play_at_table(table, key, "classic", choose=choose, save=False)

    app.trio.start_task(host)  # type: ignore[attr-defined]
    await until(pilot, lambda: bool(port))
    w = tmp_path / "w"
    app.open_watch(WatchLaunch(f"127.0.0.1:{port[0]}", "Wendy", w, w))  # type: ignore[attr-defined]
    await until(pilot, lambda: "the table shows once it is seated" in screen_text(app))
    app.trio.start_task(joiner)  # type: ignore[attr-defined]
    await until(pilot, lambda: isinstance(app.screen, WatchScreen))


def test_the_client_watches_a_real_table_to_its_verdict(tmp_path: Path) -> None:
    """The lobby's Watch (and ``cuttle watch``): the connect screen until the game begins,
    then the table as two bots play it, the verdict and the watcher's record."""
    app = make_app(Settings(bot_delay=0, lan=False))
    rng = random.Random(1)

    def bot(view: Any) -> Any:
        return rng.choice(view.legal_moves())

    async def body(pilot: Pilot) -> None:
        await watching_two_bots(pilot, tmp_path, bot)
        # The watch's state first, then the screen: drawing it 50 times a second while
        # the game is played was a third of the test's CPU.
        watched = app.screen.onlooker.watched
        await until(pilot, lambda: bool(watched.verdict))
        await until(pilot, lambda: "verified: audit passed" in screen_text(app))
        assert "watching: Wendy" in screen_text(app)
        await until(pilot, lambda: any("the table ended" in line for line in watched.news))
        await until(pilot, lambda: "the table ended" in screen_text(app))
        await keys(pilot, "q")  # back to the lobby
        await until(pilot, lambda: not isinstance(app.screen, WatchScreen))

    run(app, body)
    (record,) = (tmp_path / "w" / "games").glob("*-watched-*.cuttle")
    assert verify_text(record.read_text()).verdict is Verdict.VALID


# --- the lobby's way to watch --------------------------------------------------------------


def two_tables_on_the_lan(monkeypatch: pytest.MonkeyPatch, port: int) -> None:
    """The LAN browser replaced (tests never multicast): a full L'Unisson table that takes
    watchers, on ``port``, and a Cuttle game with a free seat that takes none."""
    from contextlib import asynccontextmanager

    import trio
    from cuttle_protocol.shells import mdns as lan
    from cuttle_protocol.wire import Announcement

    from cuttle_net.games.cuttle.rules import Rules

    rules = game_module("unisson").parse_rules("one-deck", 4)
    full = Announcement("Hal", port, rules, 4, game="unisson", seats=4, watchers=True)
    games = [
        lan.LanGame("Hal._cuttle._tcp.local.", full, ("127.0.0.1",), 0.0),
        lan.LanGame("Al._cuttle._tcp.local.", Announcement("Al", 1, Rules()), ("127.0.0.1",), 0.0),
    ]

    @asynccontextmanager
    async def fake_browse(**_):
        async def updates():
            yield games
            await trio.sleep_forever()

        yield updates()

    monkeypatch.setattr(lan, "browse", fake_browse)


def test_the_lan_list_marks_a_full_table_open_to_watchers_and_enter_watches_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with socket.socket() as s:  # a port nobody listens on: the watch's dial is refused
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    two_tables_on_the_lan(monkeypatch, port)
    app = make_app(Settings(bot_delay=0, lan=True))

    async def body(pilot: Pilot) -> None:
        listing = app.lobby.query_one("#lan", ListView)
        await until(pilot, lambda: "4 of 4 seats taken · w watches" in screen_text(app))
        await keys(pilot, "l")
        await until(pilot, lambda: listing.has_focus and listing.index == 0)
        await keys(pilot, "down", "w")  # Al's game takes no watchers
        assert "That host takes no watchers" in screen_text(app)
        await keys(pilot, "up", "enter")  # Hal's full table: Enter watches it
        await until(pilot, lambda: "Watching a table" in screen_text(app))
        await until(pilot, lambda: f"could not connect to 127.0.0.1:{port}" in screen_text(app))
        await keys(pilot, "escape")
        await until(pilot, lambda: app.screen is app.lobby)

    run(app, body)


def test_the_lobbys_watch_takes_the_address_typed_in_the_join_field() -> None:
    app = make_app(Settings(bot_delay=0, lan=False))

    async def body(pilot: Pilot) -> None:
        await keys(pilot, "w")  # nothing typed: say where to type it
        assert "Type the table's address (or invitation) here" in screen_text(app)
        await keys(pilot, *"not an address!", "tab", "enter")  # the Watch button
        assert "Not an address or an invitation: not an address!" in screen_text(app)
        field = app.lobby.query_one("#address", Input)
        field.value = "127.0.0.1:1"
        await keys(pilot, "w")
        await until(pilot, lambda: "Watching a table" in screen_text(app))
        assert isinstance(app.screen, ConnectScreen)

    run(app, body)


# --- the watch's words, headless and on the screen ----------------------------------------


def test_the_follower_names_who_talks_and_who_ended_the_table() -> None:
    """The table's chat reaches a watcher by table seat: it is named, on the screen and in
    the headless lines, and so is the seat that ended the table."""
    from cuttle_client.watching import note_line
    from cuttle_protocol.table import (
        Chat,
        Follower,
        Lobby,
        Muted,
        SeatInfo,
        TableEnded,
        TableSettings,
    )

    follower = Follower(KEY)
    seats = (SeatInfo(0, "Ann", b"a" * 32), SeatInfo(1, "Bob", b"b" * 32))
    follower.feed(Lobby(TableSettings("cuttle", ("classic",), 2), seats, -1))
    (said,) = follower.feed(Chat(1, "good game", 7))
    assert said == Said("Bob", "good game")
    assert note_line(said) == "Bob says: good game"
    (muted,) = follower.feed(Muted(0))
    assert muted == Said("Ann", "", muted=True)
    (end,) = follower.feed(TableEnded(0, "left", "no more games"))
    assert note_line(end) == "the table ended: Ann (seat 0) left: no more games"
    assert note_line(Saved(1, Path("g.cuttle"))) == "record saved: g.cuttle"


def test_a_game_stopped_before_its_audit_is_said_short() -> None:
    from cuttle_client.watch import verdict_words

    from cuttle_net.records.verify import Verdict

    long = "never audited: 51 cards were never shown (4 in seat 0's hand, ...)"
    report = SimpleNamespace(verdict=Verdict.UNAUDITED, problem=long)
    words = verdict_words(GameVerdict(2, ("Ann", "Bob"), report, ""))  # type: ignore[arg-type]
    assert words == "game 2 unaudited: it stopped before its audit"
