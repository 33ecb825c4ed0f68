"""Cuttle's lessons on the Cuttle practice table (``learn.py`` finds this class through the
game registry, ``games.GAMES["cuttle"].lesson``)."""

from __future__ import annotations

from pathlib import Path

from cuttle_net.games.cuttle.engine import IllegalMove
from cuttle_net.games.cuttle.lessons import COURSE
from cuttle_net.games.cuttle.moves import Move

from ..learn import LEAVE, Coaching
from .controller import PracticeController, waiting_entry


class CuttleLesson(Coaching, PracticeController):
    """A lesson of Cuttle on the Cuttle practice table."""

    table_title = "cuttle · learn"

    def __init__(
        self,
        index: int = 0,
        *,
        bot_delay: float = 0.6,
        config_dir: Path | None = None,
        player: str = "",
    ) -> None:
        self.course, self.index, self.config_dir = COURSE, index, config_dir
        self._name_others(player)
        super().__init__("easy", seed=0, bot_delay=bot_delay)

    def _deal(self, seed: int, seat: int) -> None:
        self._begin()
        self.seed, self.seat = seed, self.lesson.seat
        self.names = ("You", self.other(0)) if self.seat == 0 else (self.other(0), "You")
        self.game = self.run.game  # type: ignore[assignment]
        self.rules = self.game.rules
        self.order, self.moves, self.saved = [], [], None
        self._view = self.game.view(self.seat)
        waiting = waiting_entry(self._view, self.names, self.seat)
        self.log, self.ending = [waiting] if waiting else [], None
        self._deals += 1

    def submit(self, move: Move) -> None:
        self._take(move, IllegalMove)

    concede_question, concede_label = LEAVE, "Leave"  # c at the table

    def concede(self) -> None:
        self._end(None, f"You left the lesson {self.lesson.title}: it is not ticked as done.")

    def rematch(self) -> None:
        self.index += 1
        self._deal(0, 0)
        self._advance()

    def _advance(self) -> None:
        if self.run.done:
            self._end(None, self._ending_words())  # no match score: a lesson is no game
        else:
            self._changed()  # the learner acts next: the lessons are written so
