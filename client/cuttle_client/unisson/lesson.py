"""L'Unisson's lessons on the L'Unisson practice table (``learn.py`` finds this class
through the game registry, ``games.GAMES["unisson"].lesson``)."""

from __future__ import annotations

from pathlib import Path

from cuttle_net.games.unisson import IllegalMove
from cuttle_net.games.unisson.lessons import COURSE
from cuttle_net.games.unisson.moves import Move

from ..learn import LEAVE, Coaching
from .controller import Ending, PracticeController
from .words import result_words


class UnissonLesson(Coaching, PracticeController):
    """A lesson of L'Unisson on the L'Unisson practice table."""

    table_title = "L'Unisson · learn"

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
        super().__init__("easy", 3, 1, seed=0, bot_delay=bot_delay)

    def _deal(self) -> None:
        self._begin()
        self.game = self.run.game  # type: ignore[assignment]
        self.seat, self.players, self.decks = self.lesson.seat, self.game.players, self.game.decks
        others = iter(range(self.players - 1))
        self.names = tuple(
            "You" if s == self.seat else self.other(next(others)) for s in range(self.players)
        )
        self.order, self.moves, self.saved = [], [], None
        self._view = self.game.view(self.seat)
        self.log, self.ending = [], None
        self._deals += 1

    def submit(self, move: Move) -> None:
        self._take(move, IllegalMove)

    leave_question = LEAVE  # l at the table

    def rematch(self) -> None:
        self.index += 1
        self._deal()
        self._advance()

    def _advance(self) -> None:
        if not self.run.done:
            self._changed()
            return
        g = self.game
        words = self._ending_words()
        if g.is_over:
            words = f"{result_words(g, self.names, self.seat)} · {words}"
            scores, hands = tuple(g.scores()), tuple(tuple(g.hand(s)) for s in range(g.players))
            self.ending = Ending(words, scores, hands)
        else:
            self.ending = Ending(words, (), ())
        self._changed()
