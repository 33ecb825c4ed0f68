"""L'Unisson as a game module (``cuttle_net.games.interface``): the engine's ``Game`` is the
state, its card motions become deck operations (SPEC 4.3), and every hand is shown at the
end so that the scores are known to all (SPEC part 6).

The engine knows faces; the deck knows card ids (face = id % 32).  With one deck they are
the same numbers.  With two decks a move names a face and nobody but its holder knows which
copy it holds, so the operations name faces and the deck protocol resolves the copy
(CONTRACTS "Requests", SPEC 2.8).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...deck import (
    CardsLearned,
    Deal,
    Draw,
    ExposeHands,
    Op,
    RevealFromDeck,
    RevealFromHand,
    TakeToHand,
)
from ..interface import NOBODY, Outcome
from . import engine
from .cards import FACES, face_of, face_text, parse_face
from .engine import Game, check_table
from .motions import Drawn, HandOut, Taken, Turned
from .moves import Move, parse_move
from .position import position_text

HAND_SIZE = 4
RANGE_SIZE = 4
_DECKS = {"one-deck": 1, "two-decks": 2}


@dataclass(frozen=True)
class UnissonRules:
    """The table's choice: one deck (3–4 players) or two (required for 5–6)."""

    decks: int

    @property
    def name(self) -> str:
        return "one-deck" if self.decks == 1 else "two-decks"

    @property
    def deck_size(self) -> int:
        return FACES * self.decks


class UnissonModule:
    name = "unisson"
    seats = range(3, 7)
    dealer_seat = None
    endings = ("octave", "last-round", "passes")

    def parse_rules(self, token: str, seats: int) -> UnissonRules:
        if token not in _DECKS:
            raise ValueError(f"L'Unisson's rules are one-deck or two-decks, not {token!r}")
        rules = UnissonRules(_DECKS[token])
        check_table(seats, rules.decks)
        return rules

    def check_table(self, rules: UnissonRules, seats: int, dealer: int) -> None:
        check_table(seats, rules.decks)

    def card_text(self, card: int) -> str:
        return face_text(face_of(card))

    def parse_card(self, text: str) -> int:
        return parse_face(text)

    def faces(self, rules: UnissonRules) -> int:
        return FACES

    def deal(self, rules: UnissonRules, seats: int, dealer: int) -> Deal:
        return Deal((HAND_SIZE,) * seats, RANGE_SIZE)

    def new_view(
        self,
        rules: UnissonRules,
        seats: int,
        dealer: int,
        seat: int | None,
        hand: Sequence[int],
        face_up: Sequence[int],
    ) -> Game:
        faces = [face_of(c) for c in face_up]
        mine = [face_of(c) for c in hand]
        return Game.dealt_view(seats, rules.decks, dealer, seat, mine, faces)

    def new_full(self, rules: UnissonRules, seats: int, dealer: int, order: Sequence[int]) -> Game:
        return Game.deal(seats, rules.decks, dealer, order=order)

    def parse_move(self, text: str) -> Move:
        return parse_move(text)

    def move_text(self, m: Move) -> str:
        return str(m)

    def to_act(self, state: Game) -> int:
        actor = state.to_act
        return NOBODY if actor == engine.NOBODY else actor

    def check(self, state: Game, m: Move, by: int) -> None:
        state.check(m, by=by)

    def deck_ops(self, state: Game, m: Move) -> list[Op]:
        ops: list[Op] = []
        for motion in state.motions(m):
            last = ops[-1] if ops else None
            if isinstance(motion, Drawn):
                ops.append(Draw(motion.seat))
            elif isinstance(motion, Turned):
                if isinstance(last, RevealFromDeck):
                    ops[-1] = RevealFromDeck(last.count + 1)
                else:
                    ops.append(RevealFromDeck(1))
            elif isinstance(motion, HandOut):
                if isinstance(last, RevealFromHand) and last.seat == motion.seat:
                    ops[-1] = RevealFromHand(motion.seat, tuple(sorted((*last.cards, motion.face))))
                else:
                    ops.append(RevealFromHand(motion.seat, (motion.face,)))
            elif isinstance(motion, Taken):
                ops.append(TakeToHand(motion.seat, motion.face))
        return ops

    def chance_ops(self, state: Game) -> list[Op]:
        raise ValueError("chance decides nothing in L'Unisson")

    def apply(
        self, state: Game, m: Move | None, by: int | None, learned: Sequence[CardsLearned]
    ) -> Move:
        if m is None:
            raise ValueError("chance decides nothing in L'Unisson")
        # What the move shows this view beyond the faces it names: its own draws (private)
        # and the cards turned into the range (no seat), in the order met.
        reveal = [face_of(c) for e in learned if e.seat is None or not e.public for c in e.cards]
        state.apply(m, by=by, reveal=reveal)
        return m

    def final_ops(self, state: Game) -> list[Op]:
        # Every hand still hidden, shown in one round (SPEC 2.8).
        seats = range(state.players)
        hidden = tuple(s for s in seats if len(state.public_hand(s)) < state.hand_size(s))
        return [ExposeHands(hidden)] if hidden else []

    def show_final(self, state: Game, learned: Sequence[CardsLearned]) -> None:
        for e in learned:
            if e.seat is not None and e.seat != state.viewer:
                shown = state.public_hand(e.seat) + [face_of(c) for c in e.cards]
                state.show_hand(e.seat, shown)

    def outcome(self, state: Game) -> Outcome | None:
        if state.outcome is None:
            return None
        totals = tuple(s.total for s in state.scores())
        return Outcome(tuple(sorted(state.winners())), state.outcome.reason, totals)

    def concede(self, state: Game, seat: int) -> None:
        pass  # the engine has no concession: the session ends the game around it

    def copy(self, state: Game) -> Game:
        return state.copy()

    def position_text(self, state: Game) -> str:
        return position_text(state)

    def view(self, state: Game, seat: int) -> Game:
        return state.view(seat)

    def play_full(self, state: Game, m: Move, by: int | None) -> tuple[tuple[int, ...], ...]:
        seen: list[list[int]] = [[] for _ in range(state.players)]
        for motion in state.motions(m):
            if isinstance(motion, Drawn):
                seen[motion.seat].append(motion.face)
            elif isinstance(motion, Turned):
                for cards in seen:
                    cards.append(motion.face)
        state.apply(m, by=by)
        return tuple(tuple(cards) for cards in seen)


MODULE = UnissonModule()

__all__ = ["MODULE", "UnissonModule", "UnissonRules"]
