"""Screens as a person sees them at 80×24 (and larger and smaller), compared with accepted
SVG snapshots.

Every snapshot is deterministic: fixed deals, moves replayed through the controller, a bot
that answers at once, no clock on screen.  Update with ``pytest --snapshot-update`` and
look at the SVGs before committing them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cuttle_client.app import CuttleApp, Settings, make_app
from cuttle_client.cuttle.controller import PracticeController

from cuttle_net.games.cuttle.moves import parse_move
from cuttle_net.games.cuttle.rules import Rules
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
    # The table saves no record here: its path, with the time in it, would change each run.
    assert snap_compare(table_after(1, []), press=["c", "y"])


def test_the_final_table_with_the_panel_aside(snap_compare) -> None:
    """The game-over table at 80×24: the bot's hand face up, the keys on the bottom line."""
    assert snap_compare(table_after(1, []), press=["c", "y", "escape"])


def test_wide_table_widens_the_log(snap_compare) -> None:
    moves = ["permanent QD", "scuttle TH TC", "points 8C", "draw", "scuttle 4C 2S", "jack JD 9D"]
    assert snap_compare(table_after(0, moves, "standard"), terminal_size=(120, 40))


def test_narrow_table_drops_the_log_but_keeps_the_last_move(snap_compare) -> None:
    assert snap_compare(table_after(21, ["points 3C", "oneoff 5C"]), terminal_size=(64, 22))


def test_too_small_terminal(snap_compare) -> None:
    assert snap_compare(practice_app(seed=1), terminal_size=(50, 16))


def test_no_color_marks_red_cards(snap_compare, monkeypatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    assert snap_compare(table_after(7, ["points 5D", "points 3H", "permanent 8S"]))


def test_rules_help_at_the_table(snap_compare) -> None:
    app = table_after(3, [], "standard+joker+nine-frozen")
    assert snap_compare(app, press=["question_mark"])


def test_rules_help_in_the_lobby(snap_compare) -> None:
    assert snap_compare(make_app(Settings(bot_delay=0)), press=["question_mark"])


class _AskedForARematch(PracticeController):
    """The picture of the prompt a joiner sees when the host asks for another game (the
    network test checks the real one, whose deal and code change every run)."""

    @property
    def rematch_offer(self) -> str:
        return "Bob asks for a rematch: r to play again, l to leave" if self.ending else ""


def test_rematch_prompt(snap_compare) -> None:
    c = _AskedForARematch("greedy", Rules.parse("classic"), 1, bot_delay=0)
    c.start()
    assert snap_compare(CuttleApp(Settings(bot_delay=0), c), press=["c", "y"])


@pytest.mark.parametrize(
    ("screenshot", "snapshot"),
    [
        ("table.svg", "test_snapshots/test_mid_game_table.svg"),
        ("unisson-table.svg", "test_unisson_snapshots/test_six_players_two_decks.svg"),
        ("lesson.svg", "test_learn/test_snapshot_cuttle_lesson_after_a_wrong_move.svg"),
    ],
)
def test_the_readme_screenshots_are_the_current_snapshots(screenshot, snapshot) -> None:
    """README shows the tables as they are: each screenshot is a snapshot these tests keep
    current (the L'Unisson one was checked by nobody)."""
    root = Path(__file__).resolve().parents[2]
    snap = root / "tests/client/__snapshots__" / snapshot
    assert (root / "docs" / screenshot).read_text() == snap.read_text(), (
        f"copy the updated snapshot {snapshot} to docs/{screenshot}"
    )


def _replay(name: str):
    from cuttle_client.replay import ReplayApp, load

    vectors = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "record"
    return ReplayApp(load((vectors / name).read_text()))


def test_replay_of_a_cuttle_game(snap_compare) -> None:
    # Four moves in, from ann's chair: bob's hand face down but for what she was shown.
    assert snap_compare(_replay("example.cuttle"), press=["right"] * 4 + ["s"])


def test_replay_of_a_lunisson_game(snap_compare) -> None:
    # Every hand face up on the players' lines, the moves below.
    assert snap_compare(_replay("example-unisson.cuttle"), press=["right"] * 6)
