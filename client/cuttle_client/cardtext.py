"""Cards as styled text, for every game: rank and suit always in letters or glyphs, colour
only a bonus (each game styles its own cards with ``styled``: its ``cardtext`` or ``widgets``)."""

from __future__ import annotations

import os
import re

from rich.text import Text


def ascii_wanted(flag: bool = False) -> bool:
    """ASCII cards when asked (``--ascii``) or when ``CUTTLE_ASCII`` is set to a true value."""
    return flag or os.environ.get("CUTTLE_ASCII", "").lower() in ("1", "true", "yes")


def no_color() -> bool:
    """The NO_COLOR convention: set and not empty."""
    return bool(os.environ.get("NO_COLOR"))


def styled(shown: str, red: bool, touched: bool = False) -> Text:
    """A card's text in the table's style (any game's cards: Cuttle's ``cuttle.cardtext.card``)."""
    style = "bold"
    if red:
        style += " underline" if no_color() else " red"
    if touched:
        style += " reverse"
    return Text(shown, style=style)


def back(ascii: bool) -> Text:
    """A face-down card."""
    return Text("##" if ascii else "▒▒", style="dim")


def ascii_text(text: str) -> str:
    """Replace suit glyphs in prose (``7♥`` → ``7H``): a glyph always follows its rank."""
    return text.translate(_GLYPH_TO_LETTER)


_GLYPHS = "♣♦♥♠"  # clubs, diamonds, hearts, spades: the suits CDHS of every game
_GLYPH_TO_LETTER = str.maketrans(dict(zip(_GLYPHS, "CDHS", strict=True)))


def move_shown(move: object, ascii: bool = False) -> str:
    """A move's notation with its cards as the table shows them (``points 5S`` →
    ``points 5♠``, ``extend 1 TH`` → ``extend 1 10♥``): the player picked cards by their
    face, and reads them back the same way (SPEC 1.6); ``ascii`` keeps the text form. Every
    game writes a card as rank then suit, the ten as T (SPEC 1.6)."""
    if ascii:
        return str(move)
    return _CARD_TOKEN.sub(_shown, str(move))


def _shown(token: re.Match[str]) -> str:
    rank, suit = token.group(1), token.group(2)
    return ("10" if rank == "T" else rank) + _GLYPHS["CDHS".index(suit)]


_CARD_TOKEN = re.compile(r"\b([A2-9TJQK])([CDHS])\b")  # the text form of a card (not JK)
