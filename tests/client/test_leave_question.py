"""Leaving a table asks first, and says what is at stake: before the deal, no game."""

from __future__ import annotations

from pathlib import Path

from cuttle_client.app import NetworkLaunch, Settings, make_app
from cuttle_client.modals import ConfirmScreen
from cuttle_protocol.play import NetPlan
from textual.pilot import Pilot

from tests.client.helpers import keys, run, screen_text, until


def test_leaving_a_table_still_seating_says_no_game_is_lost(tmp_path: Path) -> None:
    plan = NetPlan("host", "Ann", port=0, bind="127.0.0.1", announce=False, config_dir=tmp_path)
    launch = NetworkLaunch(plan, game="unisson", players=3, rules_token="one-deck")
    app = make_app(Settings(data_dir=tmp_path, config_dir=tmp_path, lan=False), network=launch)

    async def body(pilot: Pilot) -> None:
        await until(pilot, lambda: "waiting for 2 more players" in screen_text(app))
        await keys(pilot, "ctrl+q")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        text = screen_text(app)
        assert "No game has been dealt" in text and "you lose it" not in text, text
        await keys(pilot, "y")

    run(app, body)
