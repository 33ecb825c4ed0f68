"""Moves: small immutable values with a one-line, context-free text form.

Every decision in a game of Cuttle is a ``Move(kind, card, target)``; ``card`` and
``target`` are card ints or ``NONE``.  The text form (``scuttle 9H 4C``) is what
travels on the wire and what SPEC.md documents; ``parse_move`` reads it back.

Moves are interned: the engine hands out the same object for the same move, built
once in tables, so generating legal moves allocates nothing.
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

from .cards import JOKER, card_text, parse_card

NONE = -1  # no card


class Kind(IntEnum):
    DRAW = 0
    PASS = 1
    POINTS = 2
    SCUTTLE = 3
    ONEOFF = 4
    PERMANENT = 5
    JACK = 6
    COUNTER = 7
    DECLINE = 8
    DISCARD = 9
    PICK = 10
    SCRAP = 11
    BLOCK = 12
    CONCEDE = 13
    OFFER_DRAW = 14
    ACCEPT_DRAW = 15
    REFUSE_DRAW = 16


# The verb of each kind, and how many cards its text names (min, max).
VERBS: dict[Kind, str] = {
    Kind.DRAW: "draw",
    Kind.PASS: "pass",
    Kind.POINTS: "points",
    Kind.SCUTTLE: "scuttle",
    Kind.ONEOFF: "oneoff",
    Kind.PERMANENT: "permanent",
    Kind.JACK: "jack",
    Kind.COUNTER: "counter",
    Kind.DECLINE: "decline",
    Kind.DISCARD: "discard",
    Kind.PICK: "pick",
    Kind.SCRAP: "scrap",
    Kind.BLOCK: "block",
    Kind.CONCEDE: "concede",
    Kind.OFFER_DRAW: "offer-draw",
    Kind.ACCEPT_DRAW: "accept-draw",
    Kind.REFUSE_DRAW: "refuse-draw",
}
_ARITY: dict[Kind, tuple[int, int]] = {
    Kind.POINTS: (1, 1),
    Kind.SCUTTLE: (2, 2),
    Kind.ONEOFF: (1, 2),
    Kind.PERMANENT: (1, 1),
    Kind.JACK: (2, 2),
    Kind.COUNTER: (1, 1),
    Kind.DISCARD: (1, 2),
    Kind.PICK: (1, 1),
    Kind.SCRAP: (1, 1),
    Kind.BLOCK: (1, 1),
}
_BY_VERB = {verb: kind for kind, verb in VERBS.items()}

# Moves that put a card into play; after a 7 they are made with the revealed card.
PLAY_KINDS = frozenset({Kind.POINTS, Kind.SCUTTLE, Kind.ONEOFF, Kind.PERMANENT, Kind.JACK})


class MoveSyntaxError(ValueError):
    """The text is not a move."""


class Move(NamedTuple):
    kind: Kind
    card: int = NONE
    target: int = NONE

    def __str__(self) -> str:
        words = [VERBS[self.kind]]
        if self.card != NONE:
            words.append(card_text(self.card))
        if self.target != NONE:
            words.append(card_text(self.target))
        return " ".join(words)


# Interned moves: TABLE[kind][card + 1][target + 1].
_SLOTS = JOKER + 2  # NONE, 0..51, joker
TABLE: list[list[list[Move | None]]] = []
for _kind in Kind:
    _lo, _hi = _ARITY.get(_kind, (0, 0))
    _cards = range(JOKER + 1) if _hi >= 1 else (NONE,)
    _targets = range(NONE, JOKER + 1) if _hi == 2 else (NONE,)
    _rows: list[list[Move]] = [[] for _ in range(_SLOTS)]
    for _c in _cards:  # a slot that no valid move fills holds None
        _rows[_c + 1] = [Move(_kind, _c, _t) if _t != NONE or _lo < 2 else None for _t in _targets]
    TABLE.append(_rows)


def move(kind: Kind, card: int = NONE, target: int = NONE) -> Move:
    """The interned move of ``kind`` with these cards."""
    return TABLE[kind][card + 1][target + 1]


DRAW = move(Kind.DRAW)
PASS = move(Kind.PASS)
DECLINE = move(Kind.DECLINE)
CONCEDE = move(Kind.CONCEDE)
OFFER_DRAW = move(Kind.OFFER_DRAW)
ACCEPT_DRAW = move(Kind.ACCEPT_DRAW)
REFUSE_DRAW = move(Kind.REFUSE_DRAW)


def parse_move(text: str) -> Move:
    """Read a move from its text form; raise ``MoveSyntaxError`` saying what is wrong."""
    words = text.split()
    if not words:
        raise MoveSyntaxError("empty move")
    kind = _BY_VERB.get(words[0].lower())
    if kind is None:
        verbs = ", ".join(VERBS.values())
        raise MoveSyntaxError(f"unknown move {words[0]!r}: a move starts with one of {verbs}")
    lo, hi = _ARITY.get(kind, (0, 0))
    args = words[1:]
    if not lo <= len(args) <= hi:
        want = str(lo) if lo == hi else f"{lo} or {hi}"
        raise MoveSyntaxError(f"{words[0]!r} takes {want} card(s), not {len(args)}: {text!r}")
    try:
        cards = [parse_card(a) for a in args]
    except ValueError as e:
        raise MoveSyntaxError(str(e)) from None
    if len(cards) == 2 and cards[0] == cards[1]:
        raise MoveSyntaxError(f"the same card twice: {text!r}")
    if kind is Kind.DISCARD and len(cards) == 2 and cards[0] > cards[1]:
        cards.reverse()  # a discard names a set of cards: keep one canonical order
    return move(kind, *cards)
