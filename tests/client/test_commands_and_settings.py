"""Commands checked before anything connects, the version, the player's name and where
files go."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest
from cuttle_client import cli
from cuttle_client.app import Settings, make_app
from cuttle_client.lobby import LobbyScreen
from cuttle_client.modals import NameScreen
from cuttle_client.profile import player_name, save_name, saved_name
from cuttle_protocol.store import dirs
from textual.pilot import Pilot
from textual.widgets import Input

from tests.client.helpers import keys, run, screen_text, until


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["host", "--port", "99999"], "bad port 99999"),
        (["host", "--port", "-1"], "bad port -1"),
        (["join", "127.0.0.1:99999"], "the port must be 1..65535"),
        (["join", "foo:bar"], "the port must be 1..65535"),
        (["join", ""], "no host"),
        (["join", "[::1"], "expected [IPv6]:PORT"),
        # Checked before any lookup (issue 26, defect 9): these were looked up as names.
        (["join", "http://127.0.0.1:4454"], "without http:// or a path"),
        (["join", "300.1.1.1"], "'300.1.1.1' is not an IPv4 address"),
    ],
)
def test_bad_ports_and_addresses_are_refused_before_connecting(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(argv) == 2
    assert says in capsys.readouterr().err


def test_version() -> None:
    from importlib.metadata import version

    out = subprocess.run(
        [sys.executable, "-m", "cuttle_client.cli", "--version"], capture_output=True, text=True
    )
    assert out.returncode == 0
    assert out.stdout.strip() == f"cuttle {version('cuttle-net')}"


def test_folders_follow_xdg_on_linux(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if sys.platform != "linux":
        pytest.skip("XDG variables are a Linux convention")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "c"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "d"))
    assert dirs.config_dir() == tmp_path / "c" / "cuttle-net"
    assert dirs.games_dir() == tmp_path / "d" / "cuttle-net" / "games"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    assert dirs.config_dir() == Path.home() / ".config" / "cuttle-net"


def test_the_name_is_kept_and_a_garbage_settings_file_is_ignored(tmp_path: Path) -> None:
    assert saved_name(tmp_path) is None
    save_name("Zoé", tmp_path)
    assert saved_name(tmp_path) == "Zoé"
    assert player_name(None, tmp_path) == "Zoé"
    assert player_name("Bob", tmp_path) == "Bob"
    for garbage in ("\x00\xff", "[1, 2]", '{"name": 7}', '{"name": "a\\u001b[31m"}'):
        (tmp_path / "client.json").write_text(garbage)
        assert saved_name(tmp_path) is None
    save_name("Zoé", tmp_path)  # over a garbage file
    assert saved_name(tmp_path) == "Zoé"


def test_name_given_on_the_command_line_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    from cuttle_client import app as app_module

    monkeypatch.setattr(app_module.CuttleApp, "run", lambda self: None)
    assert cli.main(["--name", "Bob"]) == 0
    assert saved_name() == "Bob"
    assert cli.main(["--name", "  two  spaces"]) == 2
    assert saved_name() == "Bob"


def test_first_run_asks_the_name_then_keeps_it(tmp_path: Path) -> None:
    app = make_app(Settings(bot_delay=0, config_dir=tmp_path))

    async def body(pilot: Pilot) -> None:
        assert isinstance(app.screen, NameScreen)
        field = app.screen.query_one("#name-input", Input)
        field.value = ""
        await keys(pilot, "enter")
        assert "a name is 1 to 32 printable characters" in screen_text(app)
        await keys(pilot, *"Zoé", "enter")
        assert isinstance(app.screen, LobbyScreen)
        assert app.screen.query_one("#name", Input).value == "Zoé"

    run(app, body)
    assert saved_name(tmp_path) == "Zoé"


def test_the_lobby_after_a_first_game_shows_the_name_it_was_played_under(tmp_path: Path) -> None:
    """`cuttle play` (or `join`) on a first run plays under the login name; the lobby after
    it showed an empty name field ("your name"), not the name the others had seen."""
    from cuttle_client.app import Practice
    from cuttle_client.profile import login_name

    app = make_app(Settings(bot_delay=0, config_dir=tmp_path), Practice("greedy", "classic", 1))

    async def body(pilot: Pilot) -> None:
        assert app.lobby.query_one("#name", Input).value == login_name()

    run(app, body)


def test_a_name_the_lobby_cannot_keep_is_said_and_used(tmp_path: Path) -> None:
    """Before: a directory at client.json stopped the client with a traceback as the
    player changed the name in the lobby."""
    config = tmp_path / "own-config"
    (config / "client.json").mkdir(parents=True)
    app = make_app(Settings(bot_delay=0, config_dir=config, name="Ann"))

    async def body(pilot: Pilot) -> None:
        await keys(pilot, "n", *["backspace"] * 3, *"bea", "enter")
        shown = " ".join(screen_text(app).split())
        assert "Your name is bea, not kept for the next runs:" in shown
        assert "cannot be written: Is a directory" in shown  # (the path may wrap)
        assert app.name_to_show == "bea"

    run(app, body)


def test_lobby_keys_reach_every_part() -> None:
    app = make_app(Settings(bot_delay=0))

    async def body(pilot: Pilot) -> None:
        lobby = app.screen
        assert isinstance(lobby, LobbyScreen)
        await keys(pilot, "j")  # empty address: the cursor goes there
        assert app.focused is lobby.query_one("#address")
        assert "Type the host's address here" in screen_text(app)
        await keys(pilot, "escape")
        lobby.query_one("#practice").focus()
        await keys(pilot, "n")
        assert app.focused is lobby.query_one("#name")
        for key in [*["backspace"] * 3, *"bea"]:
            await keys(pilot, key)
        await keys(pilot, "enter")
        assert "Other players will see you as bea" in screen_text(app)
        assert saved_name() == "bea"
        await keys(pilot, "l")
        assert "No game found on your network yet" in screen_text(app)
        await keys(pilot, "question_mark")
        text = screen_text(app)
        assert "Rules in play: classic" in text and "Goal" in text
        await keys(pilot, "escape", "j")
        await keys(pilot, *"foo:bar", "enter")  # refused in the lobby, nothing connects
        assert isinstance(app.screen, LobbyScreen)
        assert "the port must be 1..65535" in screen_text(app)

    run(app, body)


def test_the_host_lists_every_address_of_the_machine_loopback_last() -> None:
    from cuttle_protocol.shells import host_addresses

    every = host_addresses("0.0.0.0")
    assert every[-1].join_command(4454) == "cuttle join 127.0.0.1:4454"
    assert every[-1].where == "from this machine"
    assert all(not a.address.startswith("[") for a in every)  # 0.0.0.0 listens on IPv4 only
    assert [a.address for a in host_addresses("127.0.0.1")] == ["127.0.0.1"]
    assert [a.address for a in host_addresses("::1")] == ["[::1]"]
    assert "127.0.0.1" in [a.address for a in host_addresses("::")]  # dual stack


def _elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """HOME and the XDG folders moved to fresh places that nothing may write to."""
    away = [tmp_path / "home", tmp_path / "xdg-config", tmp_path / "xdg-data"]
    for name, path in zip(("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"), away, strict=True):
        monkeypatch.setenv(name, str(path))
    return away


def _run_command(argv: list[str], body, monkeypatch: pytest.MonkeyPatch) -> None:
    """``cuttle ARGV`` for real, its app driven by ``body`` under Pilot at 80x24."""
    from cuttle_client import app as app_module

    monkeypatch.setattr(app_module.CuttleApp, "run", lambda self: run(self, body))
    assert cli.main(argv) == 0


async def _concede_a_practice_game(pilot: Pilot) -> None:
    from cuttle_client.cuttle.table import TableScreen
    from cuttle_client.modals import GameOverScreen

    from tests.client.helpers import until

    app = pilot.app
    await until(pilot, lambda: isinstance(app.screen, TableScreen))
    await keys(pilot, "c", "y")
    await until(pilot, lambda: isinstance(app.screen, GameOverScreen))
    assert "record saved" in screen_text(app)


@pytest.mark.parametrize(
    "argv",
    [
        ["--config-dir", "{x}", "--data-dir", "{y}"],
        ["play", "--config-dir", "{x}", "--data-dir", "{y}"],
        ["--config-dir", "{x}", "--data-dir", "{y}", "play"],  # before the command: kept
    ],
    ids=["lobby", "play", "before-play"],
)
def test_the_folders_given_on_the_command_line_hold_everything(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lobby and ``cuttle play`` take --config-dir and --data-dir: the name chosen on the
    first run and a practice game's record go there, and nothing to HOME or the XDG folders."""
    away = _elsewhere(tmp_path, monkeypatch)
    x, y = tmp_path / "x", tmp_path / "y"
    lobby = "play" not in argv

    async def body(pilot: Pilot) -> None:
        app = pilot.app
        if lobby:
            assert isinstance(app.screen, NameScreen)  # none kept in X yet: asked
            app.screen.query_one("#name-input", Input).value = ""
            await keys(pilot, *"Zoé", "enter")
            assert isinstance(app.screen, LobbyScreen)
            await keys(pilot, "p")
        await _concede_a_practice_game(pilot)

    _run_command([a.format(x=x, y=y) for a in argv], body, monkeypatch)
    if lobby:
        assert saved_name(x) == "Zoé"
    assert len(list((y / "games").glob("*.cuttle"))) == 1
    assert [p for p in away if p.exists()] == []


def test_the_lobby_hosts_and_finds_unfinished_games_in_the_folders_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hosting from the lobby makes the identity key under --config-dir; the unfinished
    games the lobby mentions are those under --data-dir."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cuttle_client.network import ConnectScreen
    from cuttle_protocol.store import TableHeader, host_table_path
    from cuttle_protocol.store.journal import _record
    from cuttle_protocol.store.seatjournal import _header_wire

    from tests.client.helpers import until

    away = _elsewhere(tmp_path, monkeypatch)
    x, y = tmp_path / "x", tmp_path / "y"
    save_name("Zoé", x)
    # A table hosted on port 4999 and left by a killed process: its journal's header.
    key = Ed25519PrivateKey.generate().public_key().public_bytes_raw()
    header = TableHeader(
        "host", "Zoé", "cuttle", ("classic",), 2, "classic", "", "::", 4999, key, bytes(32)
    )
    journal = host_table_path(y, 4999)
    journal.parent.mkdir(parents=True)
    journal.write_bytes(_record(_header_wire(header)))

    async def body(pilot: Pilot) -> None:
        app = pilot.app
        await until(pilot, lambda: len(app._notifications) > 0)
        (note,) = list(app._notifications)
        assert "a table of Cuttle is unfinished: host on port 4999 again" in note.message
        assert app.screen.query_one("#name", Input).value == "Zoé"
        # Host (h) takes it back: the lobby offers its port (it hosted on 4454 only).
        assert app.screen.query_one("#port", Input).value == "4999"
        await keys(pilot, "h")
        await until(pilot, lambda: isinstance(app.screen, ConnectScreen))
        # The journal on that port is the one read (written here with another key than the
        # one just made under --config-dir: said, and set aside).
        await until(pilot, lambda: "written with another identity key" in screen_text(app))
        await keys(pilot, "escape")

    argv = ["--config-dir", str(x), "--data-dir", str(y)]
    _run_command(argv, body, monkeypatch)
    assert (x / "identity.pem").exists()
    assert [p for p in away if p.exists()] == []


@pytest.mark.parametrize("command", [["play"], ["host"], ["join", "127.0.0.1:4454"]])
def test_the_folder_options_are_one_definition_taken_before_or_after_the_command(
    command: list[str],
) -> None:
    parser = cli.build_parser()
    before = parser.parse_args(["--config-dir", "c", "--data-dir", "d", *command])
    after = parser.parse_args([*command, "--config-dir", "c", "--data-dir", "d"])
    neither = parser.parse_args(command)
    assert (before.config_dir, before.data_dir) == (Path("c"), Path("d"))
    assert (after.config_dir, after.data_dir) == (Path("c"), Path("d"))
    assert (neither.config_dir, neither.data_dir) == (None, None)
    sub = next(a for a in parser._actions if a.dest == "command").choices[command[0]]
    top_help = {a.dest: a.help for a in parser._actions}
    for action in sub._actions:
        if action.dest in ("config_dir", "data_dir"):
            assert action.help == top_help[action.dest]


@pytest.mark.parametrize(
    "command", [["play"], ["host"], ["join", "127.0.0.1:4454"], ["replay", "game.cuttle"]]
)
def test_ascii_is_kept_before_or_after_the_command(command: list[str]) -> None:
    """`cuttle --ascii play` used to drop it: the command's own default overrode it."""
    parser = cli.build_parser()
    assert parser.parse_args(["--ascii", *command]).ascii is True
    assert parser.parse_args([*command, "--ascii"]).ascii is True
    assert parser.parse_args(command).ascii is False


def _parsers(parser: argparse.ArgumentParser, depth: int = 0):
    """``parser`` and every (sub)command's parser under it, with its depth."""
    yield parser, depth
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):  # aliases once
                yield from _parsers(sub, depth + 1)


def test_every_help_text_is_clean_and_names_each_game() -> None:
    """No doubled '%' (argparse formats only option helps: '95%%' in a description showed
    as such), and ``cuttle --help`` and each command's name both games, which every command
    serves (issue 26, defect 8: 'cuttle --help' never named L'Unisson)."""
    parsers = list(_parsers(cli.build_parser()))
    assert len(parsers) > 10
    for parser, depth in parsers:
        text = parser.format_help()
        assert "%%" not in text, parser.prog
        # every option says what it does (`play --rules {classic,standard}` did not)
        bare = [a.option_strings for a in parser._actions if a.option_strings and not a.help]
        assert not bare, (parser.prog, bare)
        if depth <= 1:
            assert "Cuttle" in text and "L'Unisson" in text, parser.prog


@pytest.mark.parametrize("cancel", [False, True])
def test_a_join_that_cannot_join_exits_1(cancel: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """``cuttle join`` in the terminal client: nobody at the address, the player reads why
    and quits; the command exits 1 (it exited 0, issue 26, defect 13).  A host the player
    cancels is no failure."""
    import socket

    from cuttle_client import stopping

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]

    def headless(app) -> None:  # the terminal client, under Textual's test harness
        async def body(pilot: Pilot) -> None:
            if not cancel:
                await until(pilot, lambda: "could not connect" in screen_text(app))
            await keys(pilot, "escape")
            await app.action_quit()

        run(app, body)

    monkeypatch.setattr(stopping, "run_app", headless)
    argv = ["host", "--port", "0", "--bind", "127.0.0.1", "--no-announce", "--no-map"]
    assert cli.main(argv if cancel else ["join", f"127.0.0.1:{port}"]) == (0 if cancel else 1)
