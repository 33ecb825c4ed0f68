"""The lobby's games played (issue 26): the records in the games folder, newest first, to
replay (either game, on its own table), verify and export."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from cuttle_client.app import Settings, make_app
from cuttle_client.played import PlayedScreen
from cuttle_client.replay import ReplayScreen
from textual.pilot import Pilot

from tests.client.helpers import keys, run, screen_text, until

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "record"


def lobby(data: Path):
    return make_app(
        Settings(bot_delay=0, lan=False, data_dir=data, config_dir=data / "config", name="Zed")
    )


def test_the_games_played_newest_first_replayed_verified_and_exported(tmp_path: Path) -> None:
    games = tmp_path / "games"
    games.mkdir()
    # Oldest first: the conceded Cuttle game, the practice, the Cuttle game, the L'Unisson one.
    order = ["example-conceded", "example-practice", "example", "example-unisson"]
    for age, name in enumerate(order):
        shutil.copy(VECTORS / f"{name}.cuttle", games)
        os.utime(games / f"{name}.cuttle", (1_000_000 + age, 1_000_000 + age))
    (games / "notes.txt").write_text("not a record")
    app = lobby(tmp_path)

    async def body(pilot: Pilot) -> None:
        await keys(pilot, "r")
        assert isinstance(app.screen, PlayedScreen)
        lines = [x for x in screen_text(app).splitlines() if "11-21 12:00" in x]
        assert "L'Unisson · ann, bob, cleo · ann won" in lines[0]
        assert "Cuttle · ann vs bob · ann won" in lines[1]
        # Each on one line at 80 columns, the result in sight (it wrapped: issue 26).
        assert len(lines) == 4 and all(x.rstrip().endswith("│") for x in lines), lines
        practice = "11-21 12:00 · L'Unisson practice · You, Random 1, Random 2 · Random 2 won"
        assert practice in lines[2]  # without the year, to fit
        assert "ann won (concede)" in lines[-1]
        await keys(pilot, "enter")  # the newest: L'Unisson, on its table
        # The screen is pushed before it is drawn: wait for its text, not only for it.
        await until(pilot, lambda: "move 0 of 36" in screen_text(app))
        assert isinstance(app.screen, ReplayScreen) and "Range " in screen_text(app)
        await keys(pilot, "q")  # back to the list, not out of the app
        assert isinstance(app.screen, PlayedScreen)
        await keys(pilot, "down", "v")
        await until(pilot, lambda: "verdict: valid: every check holds" in screen_text(app))
        await keys(pilot, "escape", "e")
        exported = json.loads((games / "example.json").read_text())
        assert exported["tags"]["Seat1"] == "bob" and len(exported["moves"]) == 7
        assert "Exported as JSON beside the record: example.json" in screen_text(app)
        await keys(pilot, "escape")
        assert not isinstance(app.screen, PlayedScreen)  # the lobby again

    run(app, body)


def test_no_game_played_yet_says_where_they_will_be(tmp_path: Path) -> None:
    app = lobby(tmp_path)

    async def body(pilot: Pilot) -> None:
        await keys(pilot, "r", "v")
        shown = screen_text(app)
        assert "No game yet" in shown and "No game to choose." in shown

    run(app, body)
