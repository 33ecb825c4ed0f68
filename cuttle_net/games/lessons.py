"""Lessons: short games on real positions, each teaching one idea, for every game.

A lesson is data (its game's ``lessons.py`` lists them): a one-line position of that game,
then steps.  Each step says what to do (``goal``), which moves pass (their text), the rule
to recall when the move was wrong (``hint``), what to say once it passed (``after``), and
the other seats' answers (``replies``, scripted, so a lesson plays the same every time).

``LessonRun`` judges the learner's moves; it is pure (no I/O) so the lessons are tested
without a screen, and a client plays them on its ordinary table.  A move the rules refuse
is explained in the engine's own words; a legal move that misses the lesson's point is
judged wrong, with the step's words for it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

REST = "+"  # ends a lesson's draw-pile field: then every card the line places nowhere else


@dataclass(frozen=True)
class Step:
    goal: str  # what to do, said before the move
    passes: tuple[str, ...]  # the moves that pass, as text (at least one)
    hint: str  # the rule, said after a wrong move
    after: str  # why it worked, said once it passed
    replies: tuple[str, ...] = ()  # the other seats' moves after it, in order
    # Moves a newcomer may try, and what to say of each ("": the rules refuse it, and the
    # engine's words say why); the tests check that each is refused or judged wrong.
    wrong: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Lesson:
    key: str  # its name in the progress file: never changed once published
    title: str
    position: str  # the game's one-line position, the draw pile maybe ending with REST
    steps: tuple[Step, ...]
    seat: int = 0  # the learner's seat


@dataclass(frozen=True)
class Verdict:
    passed: bool
    legal: bool
    words: str  # why it was refused, or why it worked


class LessonGame(Protocol):
    """What a lesson needs of a game's engine (both engines' ``Game`` have it)."""

    @property
    def to_act(self) -> int: ...

    def check(self, m: Any, by: int | None = None) -> Any: ...

    def apply(self, m: Any, by: int | None = None) -> None: ...


@dataclass(frozen=True)
class Course:
    """One game's lessons and the pieces of its engine they are played with."""

    game: str  # the game's name ("cuttle", "unisson")
    lessons: tuple[Lesson, ...]
    cards: tuple[str, ...]  # every card's text, in the order REST deals them (top first)
    deck_field: int  # the index of the draw pile's field in a position line
    placed: Callable[[Sequence[str]], set[str]]  # the cards a line's fields name
    parse_position: Callable[[str], Any]
    parse_move: Callable[[str], Any]
    illegal: type[Exception]  # what the engine raises for a move the rules refuse
    # The other seats' names, in seat order skipping the learner's: the lessons' words
    # name them so (a client renames one that is the player's own name, words included).
    others: tuple[str, ...] = ()

    def position(self, lesson: Lesson) -> str:
        """The lesson's full position line: REST replaced by the cards placed nowhere else."""
        fields = lesson.position.split()
        deck = fields[self.deck_field].split(",")
        if deck[-1] != REST:
            return lesson.position
        placed = self.placed(fields)
        rest = [c for c in self.cards if c not in placed]
        fields[self.deck_field] = ",".join([*deck[:-1], *rest]) or "-"
        return " ".join(fields)

    def start(self, lesson: Lesson) -> LessonRun:
        return LessonRun(self, lesson)

    def find(self, key: str) -> Lesson:
        return next(x for x in self.lessons if x.key == key)


def card_words(fields: Sequence[str]) -> set[str]:
    """Every word of ``fields`` that is a card's text (marks and ``@TURN`` stripped): the
    cards a one-deck position places, for a format that names each card it places."""
    out: set[str] = set()
    for f in fields:
        for w in re.split(r"[,/:>]", f):
            w = w.split("@")[0].rstrip("*")
            if len(w) == 2 and w[0] in "A23456789TJQK" and w[1] in "CDHS":
                out.add(w)
    return out


class LessonRun:
    """One lesson being played: the full game, the step reached, and judging."""

    def __init__(self, course: Course, lesson: Lesson) -> None:
        self.course = course
        self.lesson = lesson
        self.game: LessonGame = course.parse_position(course.position(lesson))
        self.index = 0  # the step the learner is on

    @property
    def done(self) -> bool:
        return self.index >= len(self.lesson.steps)

    @property
    def step(self) -> Step:
        return self.lesson.steps[self.index]

    def judge(self, move: Any) -> Verdict:
        """Is ``move`` (the learner's, a parsed move) what this step asks for?  Nothing
        changes; the rules' refusal is in the engine's words."""
        step = self.step
        try:
            self.game.check(move, by=self.lesson.seat)
        except self.course.illegal as e:
            return Verdict(False, False, str(e))
        text = str(move)
        if text in (str(self.course.parse_move(p)) for p in step.passes):
            return Verdict(True, True, step.after)
        said = {str(self.course.parse_move(m)): w for m, w in step.wrong}
        # Else the step's goal and hint (a screen shows them) say what it asks.
        return Verdict(False, True, said.get(text) or "legal, but not what this step asks")

    def replies(self) -> list[Any]:
        """The other seats' scripted moves after the step just passed, in order (each by
        the seat then to act); call ``passed`` once they are played."""
        return [self.course.parse_move(r) for r in self.step.replies]

    def passed(self) -> None:
        self.index += 1


def play_through(course: Course, lesson: Lesson) -> LessonRun:
    """Play ``lesson`` with the first move of each step that passes there (the tests'
    walk); raise ``ValueError`` if a step has none."""
    run = course.start(lesson)
    while not run.done:
        moves = [course.parse_move(p) for p in run.step.passes]
        verdicts = [run.judge(m) for m in moves]
        move = next((m for m, v in zip(moves, verdicts, strict=True) if v.passed), None)
        if move is None:
            why = "; ".join(f"{m}: {v.words}" for m, v in zip(moves, verdicts, strict=True))
            raise ValueError(f"{lesson.key} step {run.index + 1}: no move passes ({why})")
        run.game.apply(move, by=lesson.seat)
        for reply in run.replies():
            run.game.apply(reply)
        run.passed()
    return run
