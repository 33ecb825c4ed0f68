"""Cuttle as a game module (``cuttle_net.games.interface``): the engine's ``Game`` is the
state, and the engine's card motions become deck operations (SPEC 4.3)."""

from __future__ import annotations

from collections.abc import Sequence

from ...deck import (
    CardsLearned,
    Deal,
    Draw,
    ExposeHand,
    Op,
    PlaceOnTop,
    RandomPick,
    RevealFromDeck,
    RevealFromHand,
    SwapHands,
    TakeToHand,
)
from ..interface import CHANCE, NOBODY, Outcome
from . import engine
from .cards import card_text, parse_card
from .engine import Game
from .motions import Drawn, Exposed, HandOut, Motion, Revealed, Swapped, ToHand, ToTop
from .moves import CONCEDE, Kind, Move, move, parse_move
from .position import format_position
from .rules import Rules

HANDS = (5, 6)  # seat 0, then seat 1 (the dealer)


def deck_plan(motions: list[Motion], *, chance: bool = False) -> list[Op]:
    """The deck operations that carry out ``motions``; every view derives the same list.

    ``chance``: the move is a random-fours pick, whose cards a ``RandomPick`` already took
    out of the hand.
    """
    ops: list[Op] = []
    for m in motions:
        last = ops[-1] if ops else None
        if isinstance(m, HandOut):
            if chance:
                continue
            if isinstance(last, RevealFromHand) and last.seat == m.seat:
                ops[-1] = RevealFromHand(m.seat, tuple(sorted((*last.cards, m.card))))
            else:
                ops.append(RevealFromHand(m.seat, (m.card,)))
        elif isinstance(m, Drawn):
            ops.append(Draw(m.seat, public=m.exposed))
        elif isinstance(m, Revealed):
            if isinstance(last, RevealFromDeck):
                ops[-1] = RevealFromDeck(last.count + 1)
            else:
                ops.append(RevealFromDeck(1))
        elif isinstance(m, Exposed):
            ops.append(ExposeHand(m.seat))
        elif isinstance(m, Swapped):
            ops.append(SwapHands(0, 1))
        elif isinstance(m, ToTop):
            ops.append(PlaceOnTop(m.card))
        elif isinstance(m, ToHand):
            ops.append(TakeToHand(m.seat, m.card))
    return ops


class CuttleModule:
    name = "cuttle"
    seats = range(2, 3)
    dealer_seat = 1
    endings = ("goal", "passes", "agreed")

    def parse_rules(self, token: str, seats: int) -> Rules:
        return Rules.parse(token)

    def check_table(self, rules: Rules, seats: int, dealer: int) -> None:
        if seats != 2:
            raise ValueError("Cuttle is for two players")
        if dealer != 1:
            raise ValueError("in Cuttle seat 1 deals every game")

    def card_text(self, card: int) -> str:
        return card_text(card)

    def parse_card(self, text: str) -> int:
        return parse_card(text)

    def faces(self, rules: Rules) -> int:
        return rules.deck_size

    def deal(self, rules: Rules, seats: int, dealer: int) -> Deal:
        return Deal(HANDS)

    def new_view(
        self,
        rules: Rules,
        seats: int,
        dealer: int,
        seat: int | None,
        hand: Sequence[int],
        face_up: Sequence[int],
    ) -> Game:
        if seat is None:
            return Game.spectator_view(rules)
        return Game.dealt_view(rules, seat, hand)

    def new_full(self, rules: Rules, seats: int, dealer: int, order: Sequence[int]) -> Game:
        return Game.deal(rules, order=order)

    def parse_move(self, text: str) -> Move:
        return parse_move(text)

    def move_text(self, m: Move) -> str:
        return str(m)

    def to_act(self, state: Game) -> int:
        actor = state.to_act
        if actor == engine.CHANCE:
            return CHANCE
        return NOBODY if actor == engine.NOBODY else actor

    def check(self, state: Game, m: Move, by: int) -> None:
        state.check(m, by=by)

    def deck_ops(self, state: Game, m: Move) -> list[Op]:
        return deck_plan(state.motions(m))

    def chance_ops(self, state: Game) -> list[Op]:
        victim = 1 - state.player
        return [RandomPick(victim, min(2, state.hand_size(victim)))]

    def apply(
        self, state: Game, m: Move | None, by: int | None, learned: Sequence[CardsLearned]
    ) -> Move:
        shown = [c for event in learned for c in event.cards]
        if m is None:  # chance's pick is known now: it is the victim's discard
            m = move(Kind.DISCARD, *sorted(shown))
            reveal: list[int] = []
        else:
            # The view learns what the deck showed it, except the cards the move names.
            reveal = []
            if shown:  # (most moves show nothing: no need to work out the unseen cards)
                unseen, named = state.unseen(), {m.card, m.target}
                reveal = [c for c in dict.fromkeys(shown) if c in unseen and c not in named]
        state.apply(m, by=by, reveal=reveal)
        return m

    def final_ops(self, state: Game) -> list[Op]:
        return []

    def show_final(self, state: Game, learned: Sequence[CardsLearned]) -> None:
        pass

    def outcome(self, state: Game) -> Outcome | None:
        o = state.outcome
        if o is None:
            return None
        return Outcome(() if o.winner is None else (o.winner,), o.reason)

    def concede(self, state: Game, seat: int) -> None:
        if state.phase != engine.OVER:
            state.apply(CONCEDE, by=seat)

    def copy(self, state: Game) -> Game:
        return state.copy()

    def position_text(self, state: Game) -> str:
        return format_position(state)

    def view(self, state: Game, seat: int) -> Game:
        return state.view(seat)

    def play_full(self, state: Game, m: Move, by: int | None) -> tuple[tuple[int, ...], ...]:
        return tuple(state.play(m, by=by))


def engine_outcome(outcome: Outcome) -> engine.Outcome:
    """A table's outcome of a Cuttle game as the engine states it (one winner or none)."""
    return engine.Outcome(outcome.winners[0] if outcome.winners else None, outcome.reason)


MODULE = CuttleModule()

__all__ = ["HANDS", "MODULE", "CuttleModule", "deck_plan", "engine_outcome"]
