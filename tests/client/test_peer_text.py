"""Text that a peer, a record or a LAN announcement chooses is shown as it is written, on
every screen that shows it: never read as Textual markup (``[/b]`` used to kill the replay
with ``MarkupError``; ``[@click=…]`` would make a link that runs an action), and never a
control character sent to the terminal (each is shown as ``?``)."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from cuttle_client import app as app_module
from cuttle_client.app import NetworkLaunch, Settings, make_app
from cuttle_client.cuttle.controller import PracticeController
from cuttle_client.cuttle.table import TableScreen
from cuttle_client.lobby import LobbyScreen
from cuttle_client.modals import ConfirmScreen, GameOverScreen
from cuttle_client.peertext import plain, visible
from cuttle_client.replay import ReplayApp, load
from cuttle_client.unisson.controller import Ending
from cuttle_client.unisson.controller import PracticeController as UnissonPractice
from cuttle_client.unisson.table import UnissonTableScreen
from cuttle_protocol.play import NetPlan
from cuttle_protocol.shells import LanGame
from cuttle_protocol.wire import Announcement
from textual.pilot import Pilot

from cuttle_net.games.cuttle.bots import make_bot
from cuttle_net.games.cuttle.rules import Rules
from cuttle_net.games.unisson import Score
from cuttle_net.records.record import build_record
from cuttle_net.records.verify import Verdict, verify_text
from tests.client.helpers import choose_like, keys, run, screen_text, until
from tests.session.link import Link

# Each hostile name, and what the screen must show of it.
NAMES = {
    "[/b]Eve": "[/b]Eve",
    "[@click=app.quit]": "[@click=app.quit]",
    "[@click=app.quit]x": "[@click=app.quit]x",  # as markup, "x" quits when clicked
    "[link=https://x]y[/link]": "[link=https://x]y[/link]",
    "\x1b[31mred": "?[31mred",
    "c\x07\x9b\x7f\u202ed\x00": "c????d?",
}
MARKUP = [n for n in NAMES if n.isprintable()]  # what a record may hold (it refuses the rest)
# Every screen, with one name of each kind: a closing tag, an action link, ESC, the other
# control characters (the two other markup names: `plain` above and the replay below).
ON_SCREENS = ["[/b]Eve", "[@click=app.quit]x", "\x1b[31mred", "c\x07\x9b\x7f\u202ed\x00"]


def test_plain_is_never_markup_and_shows_every_control_character() -> None:
    for name, shown in NAMES.items():
        assert plain(name).plain == shown and not plain(name).spans
    assert visible("a\nb\tc\u2028d\u2066e") == "a\nb?c?d?e"  # a line break stays one


def shows(app, text: str) -> None:
    screen = screen_text(app)
    assert text in screen, screen
    hidden = {c for c in screen if not c.isprintable()} - {"\n"}
    assert not hidden, hidden  # no ESC, C1, DEL or bidi override reaches the terminal


class AgainstNamed(PracticeController):
    """A practice game whose opponent is called ``other``: the name a peer chose."""

    def __init__(self, other: str, **how) -> None:
        self.other = other
        super().__init__(**how)

    def _deal(self, seed: int, seat: int) -> None:
        super()._deal(seed, seat)
        self.names = ("You", self.other) if seat == 0 else (self.other, "You")


@pytest.mark.parametrize("name", ON_SCREENS, ids=[repr(n) for n in ON_SCREENS])
def test_a_peer_name_is_plain_text_on_every_screen(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shown = NAMES[name]
    # A seat's journal at a table reached by a name like this one: the lobby's notification
    # says where it was (the address as it was typed, or came in a LAN record).
    header = SimpleNamespace(game="cuttle", role="joiner", address=f"{name}:4454", port=4454)
    monkeypatch.setattr(app_module, "unfinished_tables", lambda data: [header])
    app = make_app(Settings(bot_delay=0, data_dir=tmp_path, lan=False, name="Ann"))

    async def body(pilot: Pilot) -> None:
        # The notification, then the lobby's list of LAN games.
        # (Tests run without toasts: a notification shown with markup=False is Content(message).)
        (note,) = app._notifications
        assert f"join {shown}:4454 again" in note.message and not note.markup
        app.clear_notifications()
        lobby = app.lobby
        assert isinstance(lobby, LobbyScreen)
        # A LAN record with control characters is refused when read, but the list must not
        # count on that: the name is set after the checks.
        announcement = Announcement("x", 4454, Rules.parse("classic"))
        object.__setattr__(announcement, "name", name)
        found = LanGame("x", announcement, ("127.0.0.1",), 0.0)
        await lobby._list_games([found])
        await pilot.pause()
        shows(app, f"{shown} · 127.0.0.1:4454 · Cuttle classic · seat free")
        if name.isprintable():  # the player's own name (the lobby refuses the others)
            lobby.post_message(LobbyScreen.NameChanged(name))
            await pilot.pause()
            shows(app, f"Other players will see you as {shown}")

        # Cuttle: the table against them (title, border title, log, last move), quitting,
        # conceding, and the game-over panel.
        app.open_table(AgainstNamed(name, bot="greedy", seed=3, bot_delay=0))
        await until(pilot, lambda: isinstance(app.screen, TableScreen))
        table = app.screen
        c = table.controller
        await until(pilot, lambda: c.my_turn)
        await keys(pilot, "d")  # a move, then theirs: the log and the last move name them
        await until(pilot, lambda: c.my_turn and len(c.log) >= 2)
        await pilot.pause()
        shows(app, f"against {shown}")
        assert table.query_one("#them")._border_title.plain == shown  # the Side's title
        title = screen_text(app).splitlines()[0]
        await pilot.click("#title", offset=(title.index(shown) + len(shown) - 1, 0))
        assert app.is_running and app.screen is table  # the name's last letter did nothing
        shows(app, f"Last: {shown}")
        await keys(pilot, "c")
        shows(app, f"Concede this game? {shown} wins.")
        await keys(pilot, "y")
        await until(pilot, lambda: isinstance(app.screen, GameOverScreen))
        await until(pilot, lambda: bool(app.screen.query("#result")))
        await pilot.pause()
        shows(app, f"{shown}'s hand: ")
        await keys(pilot, "l")
        await until(pilot, lambda: app.screen is lobby)

        # L'Unisson: the players, whose turn, the last player, and the game-over panel.
        unisson = UnissonPractice("greedy", 3, seed=2, bot_delay=0)
        unisson.names = ("You", name, f"x{name}")
        unisson.games = [[1, 3, 2]]  # a game played before: each line has its seat's total
        app.open_table(unisson)
        await until(pilot, lambda: isinstance(app.screen, UnissonTableScreen))
        table = app.screen
        await until(pilot, lambda: bool(unisson.log) and unisson.my_turn)
        await pilot.pause()
        shows(app, f" {shown[:11]:<11}  match   3")
        score = Score(1, 2, 3, 4, 5, 6, 21)
        text = f"{name} wins the game"
        unisson.ending = Ending(text, (score,) * 3, ((), (), ()))
        unisson._changed()
        await until(pilot, lambda: isinstance(app.screen, GameOverScreen))
        await until(pilot, lambda: bool(app.screen.query("#result")))
        await pilot.pause()
        shows(app, f"{shown} wins the game")
        shows(app, shown[:10])
        await keys(pilot, "l")
        assert app.is_running  # nothing a name says was run as an action

    run(app, body, size=(100, 30))


@pytest.fixture(scope="module")
def played() -> Link:
    link = Link(Rules.parse("classic"), 4, bots=("greedy", "random"))
    link.play()
    return link


@pytest.mark.parametrize("name", MARKUP, ids=[repr(n) for n in MARKUP])
def test_the_replay_of_a_game_against_such_a_peer(name: str, played: Link) -> None:
    record = build_record(played.sessions[1], (name, "bob"), "2026-11-21T12:00:00Z")
    replay = load(record)  # it verifies: any printable name is a name
    app = ReplayApp(replay)

    async def body(pilot: Pilot) -> None:
        shows(app, f"replay · Cuttle · {name} vs bob")
        await keys(pilot, "end", "s")  # the end, from the named player's chair
        shows(app, f"as {name} saw it")
        assert app.is_running

    run(app, body, size=(100, 30))


def test_a_record_never_carries_control_characters_to_the_replay(played: Link) -> None:
    for name in set(NAMES) - set(MARKUP):
        with pytest.raises(ValueError, match=r"not a game record|does not verify"):
            load(build_record(played.sessions[1], (name, "bob"), "2026-11-21T12:00:00Z"))


def test_a_network_game_and_its_replay_against_a_host_named_in_markup(tmp_path: Path) -> None:
    """Issue 24's finding: a game against ``[/b]Eve`` saves a record that verifies, and its
    replay died with MarkupError. Here the person joins Eve (a headless bot host) over
    loopback, plays to the end, then replays the record."""
    eve = "[/b]Eve"
    host = subprocess.Popen(
        [
            *(sys.executable, "-m", "cuttle_client", "host", "--bind", "127.0.0.1"),
            *("--port", "0", "--bot", "greedy", "--games", "1", "--name", eve),
            *("--config-dir", str(tmp_path / "eve"), "--data-dir", str(tmp_path / "eve")),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert host.stdout is not None
        port = next(m[1] for line in host.stdout if (m := re.search(r"\(port (\d+)\)", line)))
        plan = NetPlan("join", "Ann", address=f"127.0.0.1:{port}", config_dir=tmp_path / "ann")
        settings = Settings(bot_delay=0, data_dir=tmp_path / "ann", lan=False)
        app = make_app(settings, network=NetworkLaunch(plan))

        async def body(pilot: Pilot) -> None:
            from tests.client.test_quit_network import seated

            await seated(pilot)  # a 2-seat table: the code confirmed in its dialog
            await until(pilot, lambda: f"against {eve} · code" in screen_text(app))
            table = app.screen
            assert table.query_one("#them")._border_title.plain == eve
            c = table.controller
            # Greedy moves against a greedy host: a short game (a random one by keys, some
            # fifty moves, is test_network_game's whole game against a headless peer).
            bot, rng = make_bot("greedy"), random.Random(4)
            for _ in range(3000):
                await until(pilot, lambda: c.ending is not None or c.my_turn, 60)
                if c.ending is not None:
                    break
                await choose_like(pilot, table, lambda view: bot.choose(view, rng))
            await until(pilot, lambda: isinstance(app.screen, GameOverScreen), 60)
            await until(pilot, lambda: bool(app.screen.query("#result")))
            await pilot.pause()
            shows(app, "record saved")
            assert eve in str(app.screen.query_one("#result").render())
            await keys(pilot, "l")

        run(app, body)
        host.communicate(timeout=60)
    finally:
        host.kill()
    (record,) = (tmp_path / "ann" / "games").glob("*.cuttle")
    assert verify_text(record.read_text()).verdict == Verdict.VALID
    replay = load(record.read_text())
    assert eve in replay.names
    watching = ReplayApp(replay)

    async def watch(pilot: Pilot) -> None:
        shows(watching, "replay · Cuttle · ")
        shows(watching, eve)  # the title, and the border title of Eve's side
        await keys(pilot, "end")
        shows(watching, f"move {len(replay)} of {len(replay)}")
        assert watching.is_running

    run(watching, watch, size=(100, 30))


def test_a_lunisson_table_with_seats_named_in_markup(tmp_path: Path) -> None:
    """The person hosts a table of 3; bots named in markup take the other seats; the person
    leaves mid-game."""
    from tests.client.test_unisson_network import bot_joins, hosting, table_shown

    eve, mallory = "[/b]Eve", "[@click=app.quit]"
    app = hosting(tmp_path)
    games: dict = {}

    async def body(pilot: Pilot) -> None:
        await until(pilot, lambda: "(port " in screen_text(app))
        port = re.search(r"\(port (\d+)\)", screen_text(app))[1]  # type: ignore[index]
        where = f"127.0.0.1:{port}"
        app.trio.start_task(lambda: bot_joins(where, eve, tmp_path / "eve", games))
        await until(pilot, lambda: f"Ann, {eve}" in screen_text(app))  # the connect screen
        app.trio.start_task(lambda: bot_joins(where, mallory, tmp_path / "m", games))
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), 60)
        # The table's code, seat by seat (the dialog is drawn a frame or two after it mounts).
        await until(pilot, lambda: "(key" in screen_text(app))
        shows(app, f": {eve} (key")
        shows(app, f": {mallory} (key")
        await keys(pilot, "y")
        await table_shown(pilot)
        shows(app, f" {eve} ")
        shows(app, f" {mallory[:11]} ")
        # Leaving mid-game: the lobby's notification says how the game ended, naming them.
        await keys(pilot, "l")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await keys(pilot, "y")
        await until(pilot, lambda: bool(app._notifications), 60)
        (note,) = app._notifications
        assert "you left the table" in note.message and not note.markup, note  # may name them
        assert app.is_running

    run(app, body)


def test_the_headless_commands_print_no_control_character(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``cuttle host/join`` (and a table's) print status and result lines that quote peers,
    journals and records: an ESC there would drive the player's terminal."""
    from cuttle_client.cli_net import _say
    from cuttle_client.cli_table import _report
    from cuttle_protocol.play import GameResult, TableGame

    from cuttle_net.records.ending import Ending

    for name, shown in NAMES.items():
        _say(f"resuming game 1 against {name}")
        won = GameResult(1, (name, "Bob"), Ending("goal"), (0,), (), True, "cuttle")
        _report(TableGame(won), _say)
        out = capsys.readouterr().out
        assert f"against {shown}\n" in out and f"{shown} (seat 0)" in out, out
        assert all(c.isprintable() or c == "\n" for c in out), out
