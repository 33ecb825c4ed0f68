"""The lessons (``cuttle learn``, the lobby's Learn) played through on the practice tables:
the right move passes and says why, a wrong one is refused with the rule, progress is kept
in the config folder and ticked in the list; snapshots of the lesson screens at 80×24."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cuttle_client.app import CuttleApp, Settings, make_app
from cuttle_client.cli import build_parser
from cuttle_client.cuttle.lesson import CuttleLesson
from cuttle_client.learn import PROGRESS_FILE, LearnScreen, finished, mark_finished
from cuttle_client.lobby import LobbyScreen
from cuttle_client.modals import ConfirmScreen, GameOverScreen
from cuttle_client.unisson.lesson import UnissonLesson
from textual.pilot import Pilot
from textual.widgets import OptionList

from cuttle_net.games.cuttle.lessons import COURSE as CUTTLE
from cuttle_net.games.cuttle.moves import parse_move
from cuttle_net.games.unisson.lessons import COURSE as UNISSON
from cuttle_net.games.unisson.moves import parse_move as parse_unisson
from tests.client.helpers import keys, run, screen_text, until


def learn_app(config: Path, game: str = "cuttle") -> CuttleApp:
    return make_app(Settings(bot_delay=0, config_dir=config), learn=game)


def error_text(pilot: Pilot) -> str:
    error = pilot.app.screen.query_one("#error")
    return str(error.render()) if error.display else ""


def panel_text(pilot: Pilot) -> str:
    return str(pilot.app.screen.query_one("#log-text").render())


def result_text(pilot: Pilot) -> str:
    """The game-over panel's text, lines joined."""
    return " ".join(str(pilot.app.screen.query_one("#result").render()).split())


def test_a_cuttle_lesson_wrong_move_then_right_move_then_ticked(tmp_path: Path) -> None:
    app = learn_app(tmp_path)

    async def body(pilot: Pilot) -> None:
        assert isinstance(pilot.app.screen, LearnScreen)
        assert "Cuttle: 0 of 17 done" in screen_text(pilot.app)
        await keys(pilot, "enter")  # the first lesson not done: Points
        await until(pilot, lambda: "lesson 1 of 17: Points" in screen_text(pilot.app))
        assert "Reach 21" in panel_text(pilot)
        await keys(pilot, "2", "enter")  # 6♥ for points: legal, but 20
        assert error_text(pilot) == (
            "✗ points 6♥: 6♥ makes 20, one short of 21. Which card makes 21?"
        )
        assert "Rule: a card played as points adds its rank" in panel_text(pilot)
        c = pilot.app.screen.controller
        assert not c.log and c.view.score(0) == 14  # refused: nothing was played
        await keys(pilot, "escape", "3", "enter")  # 7♦ for points: 21
        await until(pilot, lambda: isinstance(pilot.app.screen, GameOverScreen))
        shown = screen_text(pilot.app)
        assert "Lesson complete" in shown and "Points: done. 21 points: you win." in shown
        assert "Next lesson (r)" in shown and "Lessons (l)" in shown
        assert finished(tmp_path) == {"cuttle": {"points"}}
        await keys(pilot, "l")
        await until(pilot, lambda: isinstance(pilot.app.screen, LearnScreen))
        shown = screen_text(pilot.app)
        assert "Cuttle: 1 of 17 done" in shown and "✓  1. Points" in shown

    run(app, body)


def test_a_refused_move_is_explained_in_the_engines_words() -> None:
    c = CuttleLesson(CUTTLE.lessons.index(CUTTLE.find("scuttle")), bot_delay=0)
    app = CuttleApp(Settings(bot_delay=0), c)

    async def body(pilot: Pilot) -> None:
        await keys(pilot, "colon", *"scuttle 9c 9h", "enter")
        assert error_text(pilot) == (
            "✗ scuttle 9♣ 9♥: 9♣ cannot scuttle 9♥: equal rank needs a higher suit"
        )
        assert "Rule: a scuttle needs a higher rank" in panel_text(pilot)
        pilot.app.screen.query_one("#move-input").value = ""
        await keys(pilot, *"scuttle tc 9h", "enter")
        await until(pilot, lambda: isinstance(pilot.app.screen, GameOverScreen))
        assert "Sam is back to 10 points" in result_text(pilot)

    run(app, body)


def test_next_lesson_plays_on_the_same_table_and_replies_are_scripted() -> None:
    c = CuttleLesson(CUTTLE.lessons.index(CUTTLE.find("three")), bot_delay=0)
    app = CuttleApp(Settings(bot_delay=0), c)

    async def body(pilot: Pilot) -> None:
        await keys(pilot, "colon", *"oneoff 3d", "enter")
        await until(pilot, lambda: "Pick the 10♠" in panel_text(pilot))
        assert [e.words for e in c.log][-1] == "Sam lets 3♦ take effect"
        await keys(pilot, "colon", *"pick ts", "enter")
        await until(pilot, lambda: isinstance(pilot.app.screen, GameOverScreen))
        await pilot.pause()
        # The footer says the panel's keys in its words (it said the table's: issue 26).
        bottom = screen_text(pilot.app).rstrip().splitlines()[-1]
        assert bottom.split() == [
            "r",
            "Next",
            "lesson",
            "l",
            "Lessons",
            "t",
            "Panel",
            "/",
            "table",
        ], bottom
        await keys(pilot, "r")  # the next lesson: the 4
        await until(pilot, lambda: "lesson 9 of 17: The 4" in screen_text(pilot.app))
        assert c.lesson.key == "four" and not c.log

    run(app, body)


def test_a_lesson_that_starts_on_a_waiting_one_off_says_who_played_it() -> None:
    """The counter lesson starts with Sam's ace waiting, the discard one with Sam's 4: the
    last-move line says so (it said "No move yet", issue 26)."""
    for key, said in (("counter", "Sam plays A♣ as a one-off"), ("discard", "Sam plays 4♠")):
        c = CuttleLesson(CUTTLE.lessons.index(CUTTLE.find(key)), bot_delay=0)

        async def body(pilot: Pilot, said: str = said) -> None:
            last = str(pilot.app.screen.query_one("#last").render())
            assert last.startswith(f"Last: {said}"), last
            assert "No move yet" not in screen_text(pilot.app)

        run(CuttleApp(Settings(bot_delay=0), c), body)


@pytest.mark.parametrize(
    ("name", "game", "key"), [("Sam", "cuttle", "counter"), ("ada", "unisson", "meld-effects")]
)
def test_no_other_seat_of_a_lesson_has_the_players_name(
    tmp_path: Path, name: str, game: str, key: str
) -> None:
    """A player called Sam (or ada) meets no Sam (no Ada) in the lessons: the seat and the
    lesson's words name a spare name instead (issue 26)."""
    course = CUTTLE if game == "cuttle" else UNISSON
    app = make_app(Settings(bot_delay=0, config_dir=tmp_path, name=name))

    async def body(pilot: Pilot) -> None:
        pilot.app.open_lesson(game, course.lessons.index(course.find(key)))  # type: ignore[attr-defined]
        await until(pilot, lambda: bool(pilot.app.screen.query("#log-text")))
        await pilot.pause()
        c = pilot.app.screen.controller  # type: ignore[attr-defined]
        assert name.capitalize() not in c.names and "Kit" in c.names, c.names
        text = screen_text(pilot.app) + panel_text(pilot)
        assert "Kit" in panel_text(pilot) and name.capitalize() not in text, text

    run(app, body)


def test_a_unisson_lesson_on_the_unisson_table() -> None:
    app = CuttleApp(Settings(bot_delay=0), UnissonLesson(0, bot_delay=0))

    async def body(pilot: Pilot) -> None:
        await until(pilot, lambda: "lesson 1 of 7: A turn: two actions" in screen_text(pilot.app))
        await keys(pilot, "p")  # pass: legal, but this step asks for a draw
        assert error_text(pilot) == "✗ pass: pass ends your turn; you have two actions to use."
        await keys(pilot, "d")
        await until(pilot, lambda: "✓ One action done" in panel_text(pilot))
        await keys(pilot, "colon", *"discard 9d", "enter")  # not the Q♠
        assert error_text(pilot) == "✗ discard 9♦: legal, but not what this step asks"
        assert "Rule: discard puts a card" in panel_text(pilot)
        pilot.app.screen.query_one("#move-input").value = ""
        await keys(pilot, *"discard qs", "enter")
        await until(pilot, lambda: isinstance(pilot.app.screen, GameOverScreen))
        assert "A turn: two actions: done." in result_text(pilot)

    run(app, body)


def test_the_last_unisson_lesson_ends_the_game_with_its_scores() -> None:
    c = UnissonLesson(len(UNISSON.lessons) - 1, bot_delay=0)
    c.start()
    for move in ("meld 8H 9H TH", "draw"):
        c.submit(parse_unisson(move))
    assert c.ending is not None and not c.can_rematch
    assert c.ending.scores[0].total == 8 and "you are ready to play" in c.ending.text

    async def body(pilot: Pilot) -> None:  # no next lesson: no r in the footer
        await until(pilot, lambda: isinstance(pilot.app.screen, GameOverScreen))
        await pilot.pause()
        bottom = screen_text(pilot.app).rstrip().splitlines()[-1]
        assert " ".join(bottom.split()) == "l Lessons t Panel / table", bottom

    run(CuttleApp(Settings(bot_delay=0), c), body)


def test_the_lobby_opens_the_lessons_at_its_game() -> None:
    app = make_app(Settings(bot_delay=0, lan=False))

    async def body(pilot: Pilot) -> None:
        assert isinstance(pilot.app.screen, LobbyScreen)
        await keys(pilot, "e")
        assert isinstance(pilot.app.screen, LearnScreen) and pilot.app.screen.game == "cuttle"
        await keys(pilot, "escape")
        assert isinstance(pilot.app.screen, LobbyScreen)

    run(app, body)


def test_learn_unisson_lists_its_lessons_first(tmp_path: Path) -> None:
    """`cuttle learn --game unisson` (or e with L'Unisson chosen) showed Cuttle's 17 lessons
    with L'Unisson's heading and first lesson at the bottom of an 80×24 screen: its
    lessons come first, every one in sight."""

    async def body(pilot: Pilot) -> None:
        await until(pilot, lambda: "L'Unisson: 0 of" in screen_text(pilot.app))
        rows = [x.strip("│ ") for x in screen_text(pilot.app).splitlines()]
        first = rows.index(f"L'Unisson: 0 of {len(UNISSON.lessons)} done")
        titles = [f"{i}. {lesson.title}" for i, lesson in enumerate(UNISSON.lessons, 1)]
        assert rows[first + 1 : first + 1 + len(titles)] == titles
        assert first < rows.index(f"Cuttle: 0 of {len(CUTTLE.lessons)} done")

    run(learn_app(tmp_path, "unisson"), body)


def test_a_lesson_keeps_its_panel_below_80_columns() -> None:
    """A practice table drops its move log below 80 columns; a lesson's panel holds the goal
    and the rule, so it stays."""
    app = CuttleApp(Settings(bot_delay=0), CuttleLesson(0, bot_delay=0))

    async def body(pilot: Pilot) -> None:
        await until(pilot, lambda: "Reach 21" in panel_text(pilot))
        panel = pilot.app.screen.query_one("#log")
        assert panel.display and panel.region.width >= 20
        assert "You have 14 points" in screen_text(pilot.app)

    run(app, body, size=(60, 20))


def test_ctrl_q_in_a_lesson_quits_without_asking(tmp_path: Path) -> None:
    app = CuttleApp(Settings(bot_delay=0, data_dir=tmp_path), CuttleLesson(0, bot_delay=0))

    async def body(pilot: Pilot) -> None:
        await keys(pilot, "ctrl+q")  # nothing to lose: no question, no record
        assert not app.is_running

    run(app, body)
    assert not list(tmp_path.rglob("*.cuttle*"))


def test_leaving_a_lesson_asks_in_its_words_and_leaves_it_unticked(tmp_path: Path) -> None:
    app = learn_app(tmp_path)

    async def body(pilot: Pilot) -> None:
        await keys(pilot, "down", "down", "enter")  # the third: Scuttles
        await until(pilot, lambda: "Scuttle Sam's 9♥" in panel_text(pilot))
        footer = screen_text(pilot.app).rstrip().splitlines()[-1]
        assert " c Leave " in footer and "Concede" not in footer, footer  # (issue 26)
        await keys(pilot, "c")
        assert isinstance(pilot.app.screen, ConfirmScreen)
        assert pilot.app.screen.question == "Leave this lesson? It is not ticked as done."
        await keys(pilot, "y")
        await until(pilot, lambda: isinstance(pilot.app.screen, GameOverScreen))
        await keys(pilot, "l")
        assert isinstance(pilot.app.screen, LearnScreen) and finished(tmp_path) == {}
        listing = pilot.app.screen.query_one("#lessons", OptionList)
        assert listing.highlighted == 3  # the lesson left, not the first not done

    run(app, body)


def test_progress_survives_a_broken_file_and_learn_takes_its_game(tmp_path: Path) -> None:
    (tmp_path / PROGRESS_FILE).write_text("{not json", encoding="utf-8")
    assert finished(tmp_path) == {}
    mark_finished("unisson", "melds", tmp_path)
    mark_finished("cuttle", "points", tmp_path)
    data = json.loads((tmp_path / PROGRESS_FILE).read_text(encoding="utf-8"))
    assert data == {"cuttle": ["points"], "unisson": ["melds"]}
    args = build_parser().parse_args(["learn", "--game", "unisson"])
    assert (args.command, args.game) == ("learn", "unisson")


# ------------------------------------------------------------------ snapshots


def test_snapshot_lesson_list(snap_compare, tmp_path: Path) -> None:
    mark_finished("cuttle", "points", tmp_path)
    assert snap_compare(learn_app(tmp_path))


def test_snapshot_cuttle_lesson_after_a_wrong_move(snap_compare) -> None:
    c = CuttleLesson(CUTTLE.lessons.index(CUTTLE.find("scuttle")), bot_delay=0)
    assert snap_compare(CuttleApp(Settings(bot_delay=0), c), press=["1", "enter"])


def test_snapshot_cuttle_lesson_complete(snap_compare) -> None:
    c = CuttleLesson(CUTTLE.lessons.index(CUTTLE.find("jacks")), bot_delay=0)
    c.start()
    c.submit(parse_move("jack JD TS"))
    assert snap_compare(CuttleApp(Settings(bot_delay=0), c))


def test_snapshot_unisson_lesson_mid_way(snap_compare) -> None:
    c = UnissonLesson(UNISSON.lessons.index(UNISSON.find("melds")), bot_delay=0)
    c.start()
    c.submit(parse_unisson("meld 9S TS JS"))
    assert snap_compare(CuttleApp(Settings(bot_delay=0), c))


def test_the_lesson_panel_shows_its_last_line_once_it_scrolls() -> None:
    """The panel scrolled to its end before its scrollbar appeared; the bar took two columns,
    the text wrapped onto more lines, and the goal's last words were left below the panel
    ("…your turn ends by" without "itself.", L'Unisson's first lesson after d at 80×24)."""
    app = CuttleApp(Settings(bot_delay=0), UnissonLesson(0, bot_delay=0))

    async def body(pilot: Pilot) -> None:
        await until(pilot, lambda: "lesson 1 of 7" in screen_text(pilot.app))
        await keys(pilot, "d")
        await until(pilot, lambda: "Second action" in panel_text(pilot))
        panel = pilot.app.screen.query_one("#log")
        await until(pilot, lambda: panel.max_scroll_y > 0)

        def panel_rows() -> list[str]:  # the lines the panel shows, as the screen draws them
            box = panel.content_region
            rows = screen_text(pilot.app).splitlines()[box.y : box.bottom]
            return [row[box.x : box.right].strip(" ▁▂▃▄▅▆▇█") for row in rows]

        await until(pilot, lambda: panel_rows()[-1] == "itself.", seconds=20)

    run(app, body)
