"""A seat at a networked L'Unisson table (SPEC 3.15): the table screen of practice, fed by the
session of the client's one table seat (``seat.TableSeat``).

``_step`` keeps ``_view`` as a copy of the session's view and logs each move from the views
around it; ``_finished`` says how the game ended, every hand shown, and keeps the match
totals (the scores of the games that ended by the rules, audited).
"""

from __future__ import annotations

from cuttle_protocol.play import TableGame
from cuttle_protocol.table import Lobby

from cuttle_net.games.unisson import Game, IllegalMove
from cuttle_net.games.unisson.moves import Move
from cuttle_net.session import Dealt, GameOver, GameSession, MovePlayed

from ..seat import TableSeat, stopped_words
from ..tablehost import saved_words
from .controller import Ending, Entry, UnissonController
from .words import result_words


class NetworkTable(TableSeat, UnissonController):
    """This player's seat at a L'Unisson table of people (and bots) on other machines."""

    def __init__(self, *args, **kwargs) -> None:  # TableSeat's
        UnissonController.__init__(self)
        TableSeat.__init__(self, *args, **kwargs)
        self.seat, self.names = 0, ("You",)
        hosting = self.hosting
        self.players = hosting.players if hosting else 3
        self.decks = 2 if hosting and hosting.token == "two-decks" else 1

    def _lobby(self, lobby: Lobby) -> None:
        self.decks = 2 if "two-decks" in lobby.settings.options else 1

    def _show_code(self, words: str) -> None:
        self.label = f"table · {words}"  # (the title says the label: a banner names a lesson)

    def _step(self, session: GameSession, events: list[object]) -> None:
        if self.session is None:
            self.session = session
            self.seat = session.seat
            self.names = self._game_names(session)
        for event in events:
            if isinstance(event, Dealt):
                self._view = session.view.copy()
                self._open()
            elif isinstance(event, MovePlayed):
                before = self.view
                self._view = session.view.copy()
                self._logged(event.seat, event.move, before)
                if event.seat == self.seat:
                    self.busy = False
            elif isinstance(event, GameOver):
                self._view = session.view.copy()  # every hand shown
        if self._view is not None:
            self._changed()

    def _logged(self, seat: int | None, move: object, before: Game) -> None:
        assert seat is not None  # L'Unisson has no chance moves
        if not isinstance(move, Move):  # a concession (another client may offer it)
            who = self.names[seat]
            self.log.append(Entry(seat, None, f"{who} concede" + "s" * (who != "You")))
        else:
            self._record(seat, move, before, self.view)

    def submit(self, move: Move) -> None:
        if self.busy:
            raise IllegalMove("your move is on its way")
        self.check(move)
        self._send(move)

    def _finished(self, game: TableGame) -> None:
        """The table is over: the result in words, whose fault if any, and the record."""
        if self._unfinished(game):
            return
        s = game.session
        assert s is not None
        v = self.view
        text = stopped_words(s, self.names, host=self._order.game(0))
        if text is None and s.conceded is not None:  # another client may offer it
            text = f"The game stopped: {self.names[s.conceded]} conceded"
        culprit = self._culprit(s)
        if text is not None and culprit is not None:  # every other seat shares the win
            text += f" · {' and '.join(n for i, n in enumerate(self.names) if i != culprit)} win"
        if text is None and not s.finished:
            text = f"The game stopped: {s.ending(game.note).text}"
        elif text is None:
            text = result_words(v, self.names, self.seat)
            text += " · audit passed: the deal was fair" if s.audit else ""
        text += saved_words(game.record or game.unsaved)
        self.record = game.record
        over = v.is_over
        scores = tuple(v.scores()) if over else ()
        hands = tuple(tuple(v.hand(p)) for p in range(self.players)) if over else ()
        self.ending = Ending(text, scores, hands)
        self.busy = False
        self._count(game)

    def _count(self, game: TableGame) -> None:
        """The match totals: the verified scores of a game that ended by the rules."""
        outcome = game.session.outcome if game.session is not None else None
        if game.clean and outcome is not None and outcome.scores:
            self.games.append(list(outcome.scores))

    def _stop_with(self, why: str) -> None:
        self.ending = Ending(why, (), ())
        self._changed()
