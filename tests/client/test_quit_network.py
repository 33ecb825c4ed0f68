"""ctrl+q during a network game asks first; conceding and leaving each end the game truthfully
on both sides, and a client that left resumes the game from its journal when started again."""

from __future__ import annotations

import random
import re
from pathlib import Path

from cuttle_client.app import NetworkLaunch, Settings, make_app
from cuttle_client.cuttle.table import TableScreen
from cuttle_client.modals import ConfirmScreen
from cuttle_protocol.play import NetPlan
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import OptionList

from cuttle_net.records.record import parse_record
from tests.client.helpers import choose_any_option, keys, run, screen_text, seated, until
from tests.net.crash import Side
from tests.records.saved import records_in_play_order


def bot_host(tmp: Path) -> tuple[Side, int]:
    """A headless host (a bot) for the client to join."""
    host = Side(
        [
            "host",
            "--port",
            "0",
            "--bind",
            "127.0.0.1",
            "--name",
            "bot",
            "--config-dir",
            str(tmp / "bot"),
            "--data-dir",
            str(tmp / "bot"),
            "--bot",
            "random",
            "--bot-delay",
            "0.05",
        ]
    )
    port = int(host.wait_for(r"\(port (\d+)\)")[1].split("(port ")[1].rstrip(")"))
    return host, port


def client(tmp: Path, port: int):
    plan = NetPlan("join", "ann", address=f"127.0.0.1:{port}", config_dir=tmp / "ann")
    return make_app(Settings(data_dir=tmp / "ann"), network=NetworkLaunch(plan))


async def at_the_table(pilot: Pilot) -> None:
    """Until both players have moved (the client plays whatever it may)."""
    await seated(pilot)
    table = pilot.app.screen
    c, rng = table.controller, random.Random(1)
    await until(pilot, lambda: table.is_mounted and table.query("#actions"))

    def may_choose() -> bool:
        options = table.query_one("#actions", OptionList).options
        return c.my_turn and any(not o.disabled for o in options)

    while len(c.session.played) < 2:
        await until(pilot, lambda: may_choose() or len(c.session.played) >= 2)
        if len(c.session.played) < 2:
            await choose_any_option(pilot, table, rng)
    await until(pilot, lambda: not c.busy)


def records(directory: Path) -> list:
    return [parse_record(p.read_text()) for p in records_in_play_order(directory)]


def test_ctrl_q_asks_and_staying_changes_nothing(tmp_path: Path) -> None:
    host, port = bot_host(tmp_path)
    app = client(tmp_path, port)

    async def body(pilot: Pilot) -> None:
        await at_the_table(pilot)
        await keys(pilot, "ctrl+q")
        assert isinstance(app.screen, ConfirmScreen)  # a 2-seat table: leaving forfeits
        assert "Leave this table?" in screen_text(app)
        await keys(pilot, "escape")  # stay
        assert isinstance(app.screen, TableScreen) and app.is_running
        await keys(pilot, "ctrl+q", "y")  # leave: the app closes once the record is kept
        await until(pilot, lambda: not app.is_running)

    run(app, body)
    assert host.finish() == 1  # a game left did not end by the rules (SPEC 4.5)
    assert "bot wins: ann (seat " in host.text and ") left" in host.text, host.text
    (mine,) = records(tmp_path / "ann" / "games")
    (theirs,) = records(tmp_path / "bot" / "games")
    assert [m[:2] for m in mine.moves] == [m[:2] for m in theirs.moves]


async def leave_and_quit(pilot: Pilot, app) -> None:
    """At the table, ctrl+q then leave (y): the app quits."""
    await at_the_table(pilot)
    await keys(pilot, "ctrl+q", "y")
    await until(pilot, lambda: not app.is_running)


def test_leaving_a_table_says_so_and_leaves_nothing_to_take_back(tmp_path: Path) -> None:
    """Leaving a 2-seat table forfeits (SPEC 3.15): once the app is gone the terminal says
    how the game ended; the record is kept and no journal, since nothing can be taken back
    (a killed process, by contrast, resumes: tests/net/test_crash_resume.py)."""
    host, port = bot_host(tmp_path)
    app = client(tmp_path, port)

    run(app, lambda pilot: leave_and_quit(pilot, app))
    (left,) = (tmp_path / "ann" / "games").glob("*.cuttle")
    assert app.farewell == f"The game stopped: you left the table · record saved: {left}"
    assert "you left the table" in left.read_text()
    assert not list((tmp_path / "ann" / "journal").glob("*.journal"))
    host.wait_for(r"bot wins: ann \(seat \d\) left the table: closed with peer-quit")
    assert host.finish() == 1, host.text


def table_title(app: App) -> str:
    """The table screen's first line once it is drawn ("" before: a screen just pushed may
    not be painted yet on a loaded machine)."""
    if not isinstance(app.screen, TableScreen):
        return ""
    lines = screen_text(app).splitlines()
    return lines[0].strip() if lines else ""


def test_a_join_by_invitation_shows_verified(tmp_path: Path) -> None:
    """The table said only 'code …', also when the invitation's key had been proven, and the
    player was left to compare it (issue 26, defect 11)."""
    host, _ = bot_host(tmp_path)
    _, said = host.wait_for(r"cuttle join cuttle:[a-z2-7]+")
    invitation = said.split("cuttle join ")[-1].strip()
    plan = NetPlan("join", "ann", address=invitation, config_dir=tmp_path / "ann")
    app = make_app(Settings(data_dir=tmp_path / "ann"), network=NetworkLaunch(plan))

    async def body(pilot: Pilot) -> None:
        # A 2-seat table: nothing to compare, so no question (SPEC 3.15).
        await until(pilot, lambda: isinstance(app.screen, TableScreen))
        await until(pilot, lambda: " · verified · code " in screen_text(app).split("\n")[0])
        await leave_and_quit(pilot, app)

    run(app, body)
    host.kill()


def test_a_first_meeting_asks_to_compare_the_code(tmp_path: Path) -> None:
    """The table showed the code in its title and never asked to compare it (issue 26,
    defect 11): a first meeting without an invitation says to."""
    host, port = bot_host(tmp_path)
    app = client(tmp_path, port)

    async def body(pilot: Pilot) -> None:
        # The table's code, asked in its own dialog (y/n), then kept in the title.
        # (the dialog is pushed before its text is mounted: wait for the text, under load)
        said = r"The table's code is (\d{3} \d{3})\."
        shown = lambda: isinstance(app.screen, ConfirmScreen) and re.search(said, screen_text(app))  # noqa: E731
        await until(pilot, lambda: bool(shown()))
        code = re.search(said, screen_text(app))[1]
        await keys(pilot, "y")
        await until(pilot, lambda: isinstance(app.screen, TableScreen))
        await until(pilot, lambda: f"code {code}" in screen_text(app).split("\n")[0])
        await leave_and_quit(pilot, app)

    run(app, body)
    host.kill()
