"""Screens as a person sees them at 80×24, compared with accepted SVG snapshots.

Every snapshot is deterministic: fixed deals, moves replayed through the controller, a bot
that answers at once, no clock on screen.  Update with ``pytest --snapshot-update`` and
look at the SVGs before committing them.
"""

from __future__ import annotations

from pathlib import Path

from cuttle_client.app import CuttleApp, Settings, make_app
from cuttle_client.controller import PracticeController

from cuttle_net.moves import parse_move
from cuttle_net.rules import Rules
from tests.client.helpers import practice_app


def table_after(seed: int, moves: list[str], rules: str = "classic") -> CuttleApp:
    """A practice table on deal ``seed`` after the player's ``moves`` (the bot answering)."""
    c = PracticeController("greedy", Rules.parse(rules), seed, bot_delay=0)
    c.start()
    for m in moves:
        c.submit(parse_move(m))
    return CuttleApp(Settings(bot_delay=0), c)


def test_lobby(snap_compare) -> None:
    assert snap_compare(make_app(Settings(bot_delay=0)))


def test_mid_game_table(snap_compare) -> None:
    moves = ["permanent QD", "scuttle TH TC", "points 8C", "draw", "scuttle 4C 2S", "jack JD 9D"]
    assert snap_compare(table_after(0, moves, "standard"))


def test_counter_prompt(snap_compare) -> None:
    assert snap_compare(table_after(21, ["points 3C", "oneoff 5C"]))


def test_glasses_expose_the_opponents_hand(snap_compare) -> None:
    assert snap_compare(table_after(7, ["points 5D", "points 3H", "permanent 8S"]))


def test_game_over(snap_compare) -> None:
    assert snap_compare(practice_app(seed=1), press=["c", "y"])


def test_the_readme_screenshot_is_the_mid_game_snapshot() -> None:
    root = Path(__file__).resolve().parents[2]
    snapshot = root / "tests/client/__snapshots__/test_snapshots/test_mid_game_table.svg"
    assert (root / "docs/table.svg").read_text() == snapshot.read_text(), (
        "copy the updated snapshot to docs/table.svg"
    )
