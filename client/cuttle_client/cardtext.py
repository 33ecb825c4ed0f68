"""Cards as styled text: rank and suit always in letters or glyphs, colour only a bonus."""

from __future__ import annotations

import os
import re
from collections.abc import Collection, Iterable

from rich.text import Text

from cuttle_net.games.cuttle.cards import SUIT_OF, card_display, parse_card

RED_SUITS = (1, 2)  # diamonds, hearts


def ascii_wanted(flag: bool = False) -> bool:
    """ASCII cards when asked (``--ascii``) or when ``CUTTLE_ASCII`` is set to a true value."""
    return flag or os.environ.get("CUTTLE_ASCII", "").lower() in ("1", "true", "yes")


def no_color() -> bool:
    """The NO_COLOR convention: set and not empty."""
    return bool(os.environ.get("NO_COLOR"))


def card(c: int, ascii: bool, touched: bool = False) -> Text:
    """``7♥`` (``7H`` in ASCII), red suits in red where colour is shown and underlined where
    it is not (NO_COLOR); ``touched`` (the last move's cards) in reverse video."""
    return styled(card_display(c, ascii), SUIT_OF[c] in RED_SUITS, touched)


def styled(shown: str, red: bool, touched: bool = False) -> Text:
    """A card's text in the table's style (any game's cards: see ``card``)."""
    style = "bold"
    if red:
        style += " underline" if no_color() else " red"
    if touched:
        style += " reverse"
    return Text(shown, style=style)


def back(ascii: bool) -> Text:
    """A face-down card."""
    return Text("##" if ascii else "▒▒", style="dim")


def cards(cs: Iterable[int], ascii: bool, sep: str = " ", touched: Collection[int] = ()) -> Text:
    return Text(sep).join(card(c, ascii, c in touched) for c in cs)


def ascii_text(text: str) -> str:
    """Replace suit glyphs in prose (``7♥`` → ``7H``): a glyph always follows its rank."""
    return text.translate(_GLYPH_TO_LETTER)


_GLYPH_TO_LETTER = str.maketrans(dict(zip("♣♦♥♠", "CDHS", strict=True)))


def move_shown(move: object, ascii: bool = False) -> str:
    """A move's notation with its cards as the table shows them (``points 5S`` →
    ``points 5♠``, ``extend 1 TH`` → ``extend 1 10♥``): the player picked cards by their
    face, and reads them back the same way (SPEC 1.6); ``ascii`` keeps the text form."""
    return _CARD_TOKEN.sub(lambda m: card_display(parse_card(m.group(0)), ascii), str(move))


_CARD_TOKEN = re.compile(r"\b[A2-9TJQK][CDHS]\b")  # the text form of a card (not JK)
