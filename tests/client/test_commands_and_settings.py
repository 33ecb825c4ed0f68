"""Commands checked before anything connects, the version, the player's name and where
files go."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from cuttle_client import cli
from cuttle_client.app import Settings, make_app
from cuttle_client.lobby import LobbyScreen
from cuttle_client.modals import NameScreen
from cuttle_client.profile import player_name, save_name, saved_name
from cuttle_protocol import dirs
from textual.pilot import Pilot
from textual.widgets import Input

from tests.client.helpers import keys, run, screen_text


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["host", "--port", "99999"], "bad port 99999"),
        (["host", "--port", "-1"], "bad port -1"),
        (["join", "127.0.0.1:99999"], "the port must be 1..65535"),
        (["join", "foo:bar"], "the port must be 1..65535"),
        (["join", ""], "no host"),
        (["join", "[::1"], "expected [IPv6]:PORT"),
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
    from cuttle_protocol.addresses import host_addresses

    every = host_addresses("0.0.0.0")
    assert every[-1].join_command(4454) == "cuttle join 127.0.0.1:4454"
    assert every[-1].where == "from this machine"
    assert all(not a.address.startswith("[") for a in every)  # 0.0.0.0 listens on IPv4 only
    assert [a.address for a in host_addresses("127.0.0.1")] == ["127.0.0.1"]
    assert [a.address for a in host_addresses("::1")] == ["[::1]"]
    assert "127.0.0.1" in [a.address for a in host_addresses("::")]  # dual stack
