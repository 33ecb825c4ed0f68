"""Lessons, played on the ordinary practice tables (``cuttle learn``, the lobby's Learn).

A lesson is a practice game that starts from its lesson's position (the data is in each
game's ``lessons.py``), with the other seats' moves scripted.  Each game's lesson
controller (``GameUI.lesson`` in the registry, in the game's own client module) is its
practice controller with ``Coaching`` mixed in, which judges the learner's moves with
``LessonRun``: a move the rules refuse is explained in the engine's words, one beside the
point in the lesson's, and the table's side panel (the ``coach``) says the goal, the rule
after a miss, and why a move worked.  The lessons
finished are kept in the config folder (``lessons.json``) and ticked in the list.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from pathlib import Path
from typing import ClassVar

from cuttle_protocol.store import dirs
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from cuttle_net.games import game_part
from cuttle_net.games.lessons import Course, Lesson, LessonRun

from .footer import Footer
from .games import GAMES, game_ui
from .tablewidgets import DONE, GOAL, RULE

PROGRESS_FILE = "lessons.json"
LEAVE = "Leave this lesson? It is not ticked as done."


# ------------------------------------------------------------------ progress


def _progress_path(config_dir: Path | None) -> Path:
    return (config_dir or dirs.config_dir()) / PROGRESS_FILE


def finished(config_dir: Path | None) -> dict[str, set[str]]:
    """The lessons finished, by game; an unreadable file counts as none (never fatal)."""
    try:
        data = json.loads(_progress_path(config_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {
        g: {k for k in keys if isinstance(k, str)}
        for g, keys in data.items()
        if isinstance(g, str) and isinstance(keys, list)
    }


def mark_finished(game: str, key: str, config_dir: Path | None) -> None:
    """Remember that lesson ``key`` of ``game`` was finished (a failed write is ignored: the
    lesson itself went fine)."""
    done = finished(config_dir)
    done.setdefault(game, set()).add(key)
    path = _progress_path(config_dir)
    with contextlib.suppress(OSError):
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        temporary = path.with_name(path.name + ".tmp")
        data = {g: sorted(keys) for g, keys in sorted(done.items())}
        temporary.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        os.replace(temporary, path)


# --------------------------------------------------------------- the coach

# Names for a lesson's other seats when one the lessons use is the player's own.
SPARE_NAMES = ("Kit", "Lou", "Max", "Zoe", "Sam", "Ada", "Ben", "Cy", "Dee", "Eve", "Fay")


def other_names(course: Course, player: str) -> dict[str, str]:
    """The lesson names to change, each to a spare one, so that no other seat has the
    player's own name (compared without case): ``{"Sam": "Kit"}`` for a player called sam."""
    taken = {n.casefold() for n in course.others} | {player.casefold()}
    spares = (n for n in SPARE_NAMES if n.casefold() not in taken)
    return {n: next(spares) for n in course.others if n.casefold() == player.casefold()}


class Coaching:
    """What every game's lesson controller shares: the run, the coach's lines, progress."""

    course: Course
    index: int
    run: LessonRun
    config_dir: Path | None
    coach: list[tuple[str, str]]
    renamed: dict[str, str]  # ``other_names``: the lessons' names that are the player's
    table_title: str  # the table's title while a lesson is played: each game's own
    over_heading = "Lesson complete"
    again_label = "Next lesson"
    back_label = "Lessons"

    @property
    def lesson(self) -> Lesson:
        return self.course.lessons[self.index]

    @property
    def can_rematch(self) -> bool:  # "rematch" is the next lesson
        return self.index + 1 < len(self.course.lessons)

    @property
    def banner(self) -> str:
        return f"lesson {self.index + 1} of {len(self.course.lessons)}: {self.lesson.title}"

    def _name_others(self, player: str) -> None:
        self.renamed = other_names(self.course, player)

    def other(self, i: int) -> str:
        """The name of the ``i``-th other seat (seat order, the learner's skipped)."""
        name = self.course.others[i]
        return self.renamed.get(name, name)

    def _words(self, text: str) -> str:
        """A lesson's words with the other seats as named at this table."""
        for old, new in self.renamed.items():
            text = re.sub(rf"\b{re.escape(old)}\b", new, text)
        return text

    def _begin(self) -> None:
        self.run = self.course.start(self.lesson)
        self.coach = [(GOAL, self._words(self.run.step.goal))]

    def _take(self, move: object, illegal: type[Exception]) -> None:
        """Play the learner's ``move`` and the other seats' scripted replies, or raise
        ``illegal`` saying why not (the rules' words, else the lesson's) and add the rule to
        the coach; nothing is played then."""
        try:
            self.check(move)  # type: ignore[attr-defined]
            verdict = self.run.judge(move)
            if not verdict.passed:
                raise illegal(self._words(verdict.words))
        except illegal:
            self._missed()
            raise
        for m in [move, *self.run.replies()]:
            self._play(self.game.to_act, m)  # type: ignore[attr-defined]
        self._stepped()
        self._advance()  # type: ignore[attr-defined]

    def _missed(self) -> None:
        rule = (RULE, self._words(self.run.step.hint))
        if rule not in self.coach:
            self.coach.append(rule)
            self._changed()  # type: ignore[attr-defined]  # the panel shows the rule

    def _stepped(self) -> None:
        """The step passed and its replies were played: say why, then the next goal."""
        self.coach.append((DONE, self._words(self.run.step.after)))
        self.run.passed()
        if not self.run.done:
            self.coach.append((GOAL, self._words(self.run.step.goal)))
        else:
            mark_finished(self.course.game, self.lesson.key, self.config_dir)

    def _ending_words(self) -> str:
        last = "" if self.can_rematch else " That was the last one: you are ready to play."
        after = self._words(self.run.lesson.steps[-1].after)
        return f"{self.lesson.title}: done. {after}{last}"


def courses() -> dict[str, Course]:
    """Each game's course of lessons, in the registry's order (a game without lessons has
    none here)."""
    return {name: game_part(name, "lessons").COURSE for name, ui in GAMES.items() if ui.lesson}


def lesson_table(
    game: str, index: int, bot_delay: float, config_dir: Path | None, player: str = ""
) -> Coaching:
    """The controller of lesson ``index`` of ``game``: the game's own (``GameUI.lesson``);
    ``player``: the player's name, which no other seat then has."""
    kind = game_ui(game).lesson_class()
    return kind(index, bot_delay=bot_delay, config_dir=config_dir, player=player)


# ---------------------------------------------------------------- the list


class LearnScreen(Screen[None]):
    """Every lesson of every game, ticked once finished; Enter plays one."""

    DEFAULT_CSS = """
    #learn-intro { height: auto; padding: 0 1; color: $text-muted; }
    #lessons { height: 1fr; border: round $accent; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Back"),
        Binding("enter", "start", "Play the lesson", show=False),
    ]

    def __init__(self, game: str = "") -> None:
        super().__init__()
        self.game = game or next(iter(GAMES))  # the first game's lessons by default
        self._rows: list[tuple[str, int] | None] = []  # each option's (game, index)
        self._played: int | None = None  # the option of the lesson last opened

    def compose(self) -> ComposeResult:
        yield Static("cuttle · Learn: short lessons on real positions", id="title")
        yield Static(id="learn-intro")
        yield OptionList(id="lessons")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#learn-intro", Static).update(
            "Each lesson teaches one idea: you make the move, the panel on the right says "
            "why it worked, or the rule when it did not. Enter: play · Esc: back"
        )
        self._fill()

    def on_screen_resume(self) -> None:
        self._fill()  # a lesson was just played: tick it

    def _config(self) -> Path | None:
        return self.app.settings.config_dir  # type: ignore[attr-defined]

    def _fill(self) -> None:
        done = finished(self._config())
        options: list[Option] = []
        self._rows = []
        todo: dict[str, int] = {}  # each game's first lesson not done
        unfinished: set[int] = set()
        # The game asked for comes first, its lessons in sight (below the other game's 17,
        # L'Unisson's list started off screen at 80×24).
        for game, course in sorted(courses().items(), key=lambda item: item[0] != self.game):
            ticked = done.get(game, set())
            count = sum(lesson.key in ticked for lesson in course.lessons)
            heading = f"{GAMES[game].title}: {count} of {len(course.lessons)} done"
            options.append(Option(Text(heading, style="bold"), disabled=True))
            self._rows.append(None)
            for i, lesson in enumerate(course.lessons):
                mark = "✓" if lesson.key in ticked else " "
                options.append(Option(f" {mark} {i + 1:>2}. {lesson.title}"))
                self._rows.append((game, i))
                if lesson.key not in ticked:
                    todo.setdefault(game, len(options) - 1)
                    unfinished.add(len(options) - 1)
        listing = self.query_one("#lessons", OptionList)
        listing.set_options(options)
        # The next lesson to play: the one just left unfinished, else this game's first not
        # done, else the other game's.
        start = next(i for i, row in enumerate(self._rows) if row and row[0] == self.game)
        start = todo.get(self.game, next(iter(todo.values()), start))
        listing.highlighted = self._played if self._played in unfinished else start
        listing.focus()

    @on(OptionList.OptionSelected, "#lessons")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        row = self._rows[event.option_index]
        if row is not None:
            self._played = event.option_index
            self.app.open_lesson(*row)  # type: ignore[attr-defined]

    def action_start(self) -> None:
        listing = self.query_one("#lessons", OptionList)
        if listing.highlighted is not None:
            listing.action_select()
