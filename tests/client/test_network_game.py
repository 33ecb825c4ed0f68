"""The terminal client against a headless peer in another process, over real TCP."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

from cuttle_client.app import NetworkLaunch, Settings, make_app
from cuttle_client.modals import GameOverScreen
from cuttle_client.network import ConnectScreen
from cuttle_client.table import TableScreen
from cuttle_protocol.netplay import NetPlan
from textual.pilot import Pilot
from textual.widgets import OptionList

from cuttle_net.record import parse_record
from cuttle_net.rules import Rules
from tests.client.helpers import keys, run, screen_text


async def wait_until(pilot: Pilot, condition, seconds: float = 20.0) -> None:
    for _ in range(int(seconds / 0.02)):
        if condition():
            return
        await pilot.pause(0.02)
    raise AssertionError(f"timed out; the screen shows:\n{screen_text(pilot.app)}")


def test_a_whole_game_in_the_client_against_a_headless_peer(tmp_path: Path) -> None:
    plan = NetPlan(
        "host",
        "ann",
        port=0,
        bind="127.0.0.1",
        rules=Rules.parse("standard"),
        config_dir=tmp_path / "ann",
    )
    app = make_app(Settings(bot_delay=0, data_dir=tmp_path / "ann"), network=NetworkLaunch(plan))
    rng = random.Random(5)
    peer: list[subprocess.Popen[str]] = []

    async def body(pilot: Pilot) -> None:
        assert isinstance(app.screen, ConnectScreen)
        await wait_until(pilot, lambda: "waiting for a player" in screen_text(app))
        port = re.search(r"\(port (\d+)\)", screen_text(app))[1]
        peer.append(
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "cuttle_net",
                    "join",
                    f"127.0.0.1:{port}",
                    "--bot",
                    "random",
                    "--name",
                    "bot",
                    "--config-dir",
                    str(tmp_path / "bot"),
                    "--data-dir",
                    str(tmp_path / "bot"),
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen))
        table = app.screen
        c = table.controller
        await wait_until(pilot, lambda: "against bot · standard" in screen_text(app))
        assert re.search(r"code \d{4} \d{4} \d{4} \d{4} \d{4}", screen_text(app))
        for _ in range(3000):
            await wait_until(pilot, lambda: c.ending is not None or c.my_turn)
            if c.ending is not None:
                break
            options = table.query_one("#actions", OptionList)
            enabled = [
                i
                for i in range(options.option_count)
                if not options.get_option_at_index(i).disabled
            ]
            target = rng.choice(enabled)
            await keys(
                pilot,
                *(["up"] * options.option_count),
                *(["down"] * enabled.index(target)),
                "enter",
            )
        await wait_until(pilot, lambda: isinstance(app.screen, GameOverScreen))
        await wait_until(pilot, lambda: "record saved" in c.ending.text)
        assert c.ending.outcome is not None and "audit passed" in c.ending.text

    run(app, body)
    out, err = peer[0].communicate(timeout=60)
    assert peer[0].returncode == 0, out + err
    (line,) = [x for x in out.splitlines() if x.startswith("result:")]
    assert "audit passed" in line
    (mine,) = (tmp_path / "ann" / "games").glob("*.cuttle")
    (theirs,) = (tmp_path / "bot" / "games").glob("*.cuttle")
    assert parse_record(mine.read_text()).moves == parse_record(theirs.read_text()).moves
