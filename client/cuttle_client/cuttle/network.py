"""A seat at a networked Cuttle table (the 2-seat table, SPEC 3.15): the Cuttle table screen
of practice, fed by the session of the client's one table seat (``seat.TableSeat``)."""

from __future__ import annotations

from cuttle_protocol.play import TableGame

from cuttle_net.games.cuttle.engine import CHANCE, Game, IllegalMove
from cuttle_net.games.cuttle.module import MODULE, engine_outcome
from cuttle_net.games.cuttle.moves import Move
from cuttle_net.records.replay import replay
from cuttle_net.session import Dealt, GameOver, GameSession, MovePlayed

from ..seat import TableSeat, stopped_words
from ..tablehost import saved_words
from .controller import Ending, TableController, ending_text


class CuttleTable(TableSeat, TableController):
    """This player's seat at a Cuttle table: the other player on another machine."""

    def __init__(self, *args, **kwargs) -> None:  # TableSeat's
        TableController.__init__(self)
        TableSeat.__init__(self, *args, **kwargs)
        self.seat, self.names = 0, ("You", "the other player")
        self._final_hand: list[int] | None = None  # their hand, once an audit revealed it

    def _step(self, session: GameSession, events: list[object]) -> None:
        if self.session is None:
            self.session, self.rules = session, session.rules
            if self._view is None:  # the first game: nothing is drawn yet
                self._seat_in(session)
        for event in events:
            if isinstance(event, Dealt):
                # The next game's seats are turned (the deal passes on): the last game's
                # view is drawn from the last game's seat until the new cards are dealt.
                self._seat_in(session)
                self._view = session.view.copy()
                self.dealing = False
                self._open()
            elif isinstance(event, MovePlayed):
                before = self.view
                self._view = session.view.copy()
                self._logged(event.seat, event.move, before)
                if event.seat == self.seat:
                    self.busy = False
            elif isinstance(event, GameOver):
                self._view = session.view.copy()
        if self._view is not None:
            self._changed()

    def _seat_in(self, session: GameSession) -> None:
        self.seat = session.seat
        self.names = self._game_names(session)  # type: ignore[assignment]

    def _logged(self, seat: int | None, move: Move, before: Game) -> None:
        self._record(CHANCE if seat is None else seat, move, before)

    def _new_game(self) -> None:
        self._final_hand = None

    def check(self, move: Move) -> None:
        if self.dealing:  # r was pressed: the view is still the last game's
            raise IllegalMove("wait: the next game is not dealt yet")
        super().check(move)

    def submit(self, move: Move) -> None:
        if self.busy:
            raise IllegalMove("your move is on its way")
        self.check(move)
        self._send(move)

    def their_hand(self) -> tuple[list[int], int]:
        if self._final_hand is not None:
            return list(self._final_hand), 0
        return super().their_hand()

    def _finished(self, game: TableGame) -> None:
        """The table is over: the result in words, whose fault if any, and the record."""
        if self._unfinished(game):
            return
        s = game.session
        assert s is not None
        text = stopped_words(s, self.names, host=self._order.game(0))
        if text is None and not s.finished:
            text = f"The game stopped: {s.ending(game.note).text}"
        elif text is None:
            assert s.outcome is not None
            text = ending_text(engine_outcome(s.outcome), self.view, self.seat, self.names)
            if s.audit is not None:
                text += " · audit passed: the deal was fair"
                self._final_hand = final_hand(s, self.opponent)
        outcome = engine_outcome(s.outcome) if s.outcome and s.fault is None else None
        if self.ending is None:
            self._count(game)
        text += saved_words(game.record or game.unsaved)
        self.record = game.record
        self.busy = False
        self.ending = Ending(outcome, text)
        self._changed()

    def _count(self, game: TableGame) -> None:
        """The game's winner scores (a forfeit: the other player); a draw counts as one.
        Our game seat is that game's (the seats turn as the deal passes on)."""
        s = game.session
        assert s is not None
        outcome = engine_outcome(s.outcome) if s.outcome and s.fault is None else None
        culprit = self._culprit(s)
        if outcome is not None:
            self.score = self.score.after(outcome, s.seat)
        elif culprit is not None:  # a forfeit: the other player won it
            self.score = self.score.won_by(1 - culprit, s.seat)

    def _stop_with(self, why: str) -> None:
        self.ending, self.dealing = Ending(None, why), False
        self._changed()


def final_hand(session: GameSession, seat: int) -> list[int] | None:
    """``seat``'s hand at the end, from the deal the audit revealed (None if it cannot be
    rebuilt: the record and ``cuttle verify`` then say why)."""
    try:
        final, _ = replay(
            MODULE,
            session.rules,
            2,
            1,
            session.deck.deck_order(),
            [(who, str(m)) for who, m in session.played],
        )
    except Exception:  # showing the hand is a courtesy, never a crash
        return None
    return list(final.hands[seat])
