"""Cards as small integers, and their text forms.

A card is an ``int``: ``(rank - 1) * 4 + suit`` for the 52 ordinary cards
(rank 1 = ace … 13 = king; suit 0 = clubs < diamonds < hearts < spades), and
``JOKER`` (52) for the joker variant.  Integers keep the rules engine fast and
make every table a list lookup.

Text form: rank character then suit character (``7H``, ``TS``, ``AC``); the
joker is ``JK``.  Display form swaps the suit letter for its glyph (``7♥``);
``ascii=True`` keeps the text form for terminals without suit glyphs.
"""

from __future__ import annotations

RANKS = "A23456789TJQK"
SUITS = "CDHS"
SUIT_GLYPHS = "♣♦♥♠"
# The display form writes the ten in full, as the card shows it and as L'Unisson does (SPEC
# 1.6): the text form's T is only the notation's need for two characters.
DISPLAY_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")

ACE, JACK, QUEEN, KING = 1, 11, 12, 13
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)

JOKER = 52
DECK_SIZE = 52
ALL_CARDS = tuple(range(DECK_SIZE))
ALL_CARDS_WITH_JOKER = tuple(range(DECK_SIZE + 1))

# rank(card) and suit(card) are hot in the engine: tables beat arithmetic.
# The joker has rank 0 and suit -1: it is no point card and has no suit.
RANK_OF: tuple[int, ...] = tuple(c // 4 + 1 for c in range(DECK_SIZE)) + (0,)
SUIT_OF: tuple[int, ...] = tuple(c % 4 for c in range(DECK_SIZE)) + (-1,)


def card(rank: int, suit: int) -> int:
    """The card of ``rank`` (1–13) and ``suit`` (0–3)."""
    if not 1 <= rank <= 13 or not 0 <= suit <= 3:
        raise ValueError(f"no card has rank {rank} and suit {suit}")
    return (rank - 1) * 4 + suit


def card_text(c: int) -> str:
    """``7H``-style text of a card (``JK`` for the joker)."""
    if c == JOKER:
        return "JK"
    return RANKS[c >> 2] + SUITS[c & 3]


def card_display(c: int, ascii: bool = False) -> str:
    """``7♥``-style display form (``10♥`` for a ten); with ``ascii`` the text form ``7H``."""
    if ascii or c == JOKER:
        return card_text(c)
    return DISPLAY_RANKS[c >> 2] + SUIT_GLYPHS[c & 3]


_BY_TEXT = {card_text(c): c for c in ALL_CARDS_WITH_JOKER}


def parse_card(text: str) -> int:
    """The card named by ``text`` (``7H``, ``th``, ``10h``, ``JK``).

    Raises ``ValueError`` saying what is wrong with the text.
    """
    t = text.strip().upper()
    if t.startswith("10"):
        t = "T" + t[2:]
    for glyph, letter in zip(SUIT_GLYPHS, SUITS, strict=True):
        t = t.replace(glyph, letter)
    c = _BY_TEXT.get(t)
    if c is None:
        raise ValueError(
            f"{text!r} is not a card: write a rank ({RANKS}) then a suit ({SUITS}), "
            "like 7H or TS, or JK for the joker"
        )
    return c
