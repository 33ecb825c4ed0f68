"""The lessons of every game, checked without a screen: every position is a real one,
every passing move is legal there, every wrong move a newcomer may try is refused (in the
engine's words) or judged wrong (in the lesson's)."""

from __future__ import annotations

import pytest

from cuttle_net.games import GAMES, game_part
from cuttle_net.games.cuttle.lessons import COURSE as CUTTLE
from cuttle_net.games.lessons import REST, Course, Lesson, play_through
from cuttle_net.games.unisson.lessons import COURSE as UNISSON

COURSES = tuple(game_part(name, "lessons").COURSE for name in GAMES)  # every game's
ALL = [(c, lesson) for c in COURSES for lesson in c.lessons]
IDS = [f"{c.game}-{lesson.key}" for c, lesson in ALL]


@pytest.mark.parametrize(("course", "lesson"), ALL, ids=IDS)
def test_every_position_parses_and_places_every_card(course: Course, lesson: Lesson) -> None:
    line = course.position(lesson)
    assert REST not in line.split()[course.deck_field].split(",")
    course.parse_position(line)  # raises PositionError naming the field


@pytest.mark.parametrize(("course", "lesson"), ALL, ids=IDS)
def test_every_lesson_plays_through_with_its_passing_moves(course: Course, lesson: Lesson) -> None:
    run = play_through(course, lesson)  # each step's move passes, each reply is legal
    assert run.done


@pytest.mark.parametrize(("course", "lesson"), ALL, ids=IDS)
def test_every_passing_move_is_legal_and_every_wrong_move_refused(
    course: Course, lesson: Lesson
) -> None:
    run = course.start(lesson)
    for step in lesson.steps:
        assert step.passes and step.goal and step.hint and step.after
        for text, words in step.wrong:
            verdict = run.judge(course.parse_move(text))
            assert not verdict.passed, f"{lesson.key}: {text} passes"
            if words:  # a legal move that misses the point: the lesson says why
                assert verdict.legal and verdict.words == words
            else:  # the rules refuse it: the engine says which rule
                assert not verdict.legal and verdict.words
        # Walk on with a passing move, as the learner would.
        move = next(m for m in (course.parse_move(p) for p in step.passes) if run.judge(m).passed)
        run.game.apply(move, by=lesson.seat)
        for reply in run.replies():
            run.game.apply(reply)
        run.passed()
        if not run.done:
            assert run.game.to_act == lesson.seat, f"{lesson.key}: the learner waits"


def test_a_refused_move_is_explained_in_the_engines_words() -> None:
    run = CUTTLE.start(CUTTLE.find("scuttle"))
    verdict = run.judge(CUTTLE.parse_move("scuttle 9C 9H"))
    assert (verdict.passed, verdict.legal) == (False, False)
    assert verdict.words == "9♣ cannot scuttle 9♥: equal rank needs a higher suit"


def test_a_legal_move_beside_the_point_is_judged_wrong_with_the_rule() -> None:
    run = UNISSON.start(UNISSON.find("range"))
    verdict = run.judge(UNISSON.parse_move("draw"))  # legal, but not a take
    assert (verdict.passed, verdict.legal) == (False, True)
    assert verdict.words == "legal, but not what this step asks"


def test_the_cuttle_course_teaches_each_idea_the_issue_names() -> None:
    keys = [lesson.key for lesson in CUTTLE.lessons]
    ideas = ("points", "draw", "scuttle", "counter", "discard", "kings", "queens", "jacks")
    for idea in (*ideas, "glasses"):
        assert idea in keys
    for one_off in ("ace", "two", "three", "four", "five", "six", "seven", "nine"):
        assert one_off in keys
    assert len(set(keys)) == len(keys)


def test_the_unisson_course_ends_a_game_and_scores_it() -> None:
    run = play_through(UNISSON, UNISSON.find("end"))
    assert run.game.is_over
    score = run.game.scores()[0]
    assert (score.melded, score.last, score.total) == (3, 5, 8)


@pytest.mark.parametrize(("course", "lesson"), ALL, ids=IDS)
def test_the_last_step_does_not_say_done_after_the_ending_does(
    course: Course, lesson: Lesson
) -> None:
    """The lesson-complete panel reads "TITLE: done. " then the last step's words: two
    lessons' words began "Done." ("The ace's effects: done. Done. A new meld…")."""
    assert not lesson.steps[-1].after.lower().startswith("done")
