"""Moves in words, for move logs and replays: ``scuttle 9H 4C`` → "seat 0 scuttles seat 1's 4♣
with 9♥".

``describe`` reads only the position *before* the move, and only what that position's viewer
may know, so it works on a player's view as well as on full information.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .cards import RANK_OF as RANK
from .cards import card_display
from .moves import NONE, Kind, Move
from .phases import CHANCE, COUNTER, SEVEN

if TYPE_CHECKING:
    from .engine import Game

_ONE_OFF_EFFECTS = {
    1: "to scrap every point card",
    3: "to take a card from the scrap",
    5: "to draw two cards",
    6: "to scrap every king, queen, glasses and jack",
}


def describe(
    move: Move,
    before: Game,
    *,
    by: int | None = None,
    names: Sequence[str] = ("seat 0", "seat 1"),
    you: int | None = None,
    ascii: bool = False,
) -> str:
    """One sentence saying what ``move`` does in the position ``before`` it.

    ``by`` is the seat making the move (default: the seat to act; chance for random-fours).
    ``names`` name the seats; the seat ``you`` is addressed as "you" ("you draw a card").
    """
    seat = before.to_act if by is None else by
    if seat == CHANCE:
        seat = -1
    w = _Words(names, you, ascii)
    k, c, t = move
    who = w.subject(seat)
    other = 1 - seat if seat in (0, 1) else 1 - before.player
    card = w.card(c) if c != NONE else ""
    if k in _PLAYS and before.phase == SEVEN:
        card = f"the revealed {card}"
    if k == Kind.DRAW:
        top = before.deck[-1] if before.deck_known else NONE
        drawn = f"the face-up {w.card(top)}" if top != NONE else "a card"
        return f"{who} {w.verb('draws', seat)} {drawn}"
    if k == Kind.PASS:
        return f"{who} {w.verb('passes', seat)} (the draw pile is empty)"
    if k == Kind.POINTS:
        return f"{who} {w.verb('plays', seat)} {card} for {RANK[c]} point{'s' * (RANK[c] > 1)}"
    if k == Kind.SCUTTLE:
        return f"{who} {w.verb('scuttles', seat)} {w.whose(other)} {w.card(t)} with {card}"
    if k == Kind.ONEOFF:
        return f"{who} {w.verb('plays', seat)} {card} as a one-off {_effect(w, before, c, t, seat)}"
    if k == Kind.PERMANENT:
        return f"{who} {w.verb('plays', seat)} {card} {_permanent(w, before, c, seat)}"
    if k == Kind.JACK:
        owner = before.controller(t)
        puts = f"{who} {w.verb('puts', seat)} {card} on"
        if owner == seat:
            return f"{puts} {w.whose(seat)} own {w.card(t)}, giving it away"
        return f"{puts} {w.whose(owner)} {w.card(t)} and {w.verb('takes', seat)} it"
    if k == Kind.COUNTER:
        return f"{who} {w.verb('counters', seat)} {w.card(before.chain[-1])} with {card}"
    if k == Kind.DECLINE:
        lets = f"{who} {w.verb('lets', seat)}"
        if before.phase != COUNTER:
            return f"{lets} the scuttle happen"
        first, top = before.chain[0], before.chain[-1]
        if len(before.chain) % 2 == 0:  # an odd number of 2s: the one-off is cancelled
            return f"{lets} {w.card(top)} stand, cancelling {w.card(first)}"
        return f"{lets} {w.card(first)} take effect"
    if k == Kind.DISCARD:
        cards = " and ".join(w.card(x) for x in (c, t) if x != NONE)
        if seat == -1:
            return f"chance discards {cards} from {w.whose(other)} hand"
        return f"{who} {w.verb('discards', seat)} {cards}"
    if k == Kind.PICK:
        return f"{who} {w.verb('takes', seat)} {card} from the scrap"
    if k == Kind.SCRAP:
        return f"{who} {w.verb('scraps', seat)} {card}: it has no legal play"
    if k == Kind.BLOCK:
        return f"{who} {w.verb('blocks', seat)} the scuttle with {card}"
    if k == Kind.CONCEDE:
        return f"{who} {w.verb('concedes', seat)}"
    if k == Kind.OFFER_DRAW:
        return f"{who} {w.verb('offers', seat)} a draw"
    if k == Kind.ACCEPT_DRAW:
        return f"{who} {w.verb('accepts', seat)} the draw"
    return f"{who} {w.verb('refuses', seat)} the draw"


_PLAYS = frozenset({Kind.POINTS, Kind.SCUTTLE, Kind.ONEOFF, Kind.PERMANENT, Kind.JACK})


def _effect(w: _Words, g: Game, c: int, t: int, seat: int) -> str:
    r = RANK[c]
    if c == 52:
        return "to swap hands"
    if t != NONE:
        owner = _side_of_permanent(g, t)
        if r == 9:
            if g.rules.nine_to_deck:
                return f"to put {w.whose(owner)} {w.card(t)} on top of the draw pile"
            return f"to return {w.whose(owner)} {w.card(t)} to {w.possessive(owner)} hand"
        return f"to scrap {w.whose(owner)} {w.card(t)}"
    if r == 4:
        return f"so {w.subject(1 - seat)} must discard two cards"
    if r == 7:
        if g.rules.seven_reveals == 2 and len(g.deck) > 1:
            return "to reveal the top two cards of the draw pile and play one"
        return "to reveal the top card of the draw pile and play it"
    return _ONE_OFF_EFFECTS.get(r, "")


def _permanent(w: _Words, g: Game, c: int, seat: int) -> str:
    r = RANK[c]
    if r == 13:
        goal = g.rules.goals[g.kings(seat) + 1]
        return f"as a king: {w.possessive(seat)} goal is now {goal}"
    if r == 12:
        return "as a queen, shielding the others"
    return f"as glasses: {w.whose(1 - seat)} hand is open to {w.subject(seat)}"


def _side_of_permanent(g: Game, t: int) -> int:
    if RANK[t] == 11:
        return next(g.controller(b) for b, jl in g.jacks.items() if jl and jl[-1] == t)
    return 0 if t in g.perms[0] else 1


class _Words:
    """Names, persons and card forms for one description."""

    def __init__(self, names: Sequence[str], you: int | None, ascii: bool) -> None:
        self.names, self.you, self.ascii = names, you, ascii

    def card(self, c: int) -> str:
        return card_display(c, self.ascii)

    def subject(self, seat: int) -> str:
        if seat == -1:
            return "chance"
        return "you" if seat == self.you else self.names[seat]

    def possessive(self, seat: int) -> str:
        return "your" if seat == self.you else ("their" if seat >= 0 else "its")

    def whose(self, seat: int) -> str:
        return "your" if seat == self.you else f"{self.names[seat]}'s"

    def verb(self, third_person: str, seat: int) -> str:
        """``draws`` for a named seat, ``draw`` for "you"."""
        if seat != self.you:
            return third_person
        return third_person[:-2] if third_person.endswith("sses") else third_person[:-1]
