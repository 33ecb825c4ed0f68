"""Cuttle's cards as styled text (``cardtext``: what every game's cards share)."""

from __future__ import annotations

from collections.abc import Collection, Iterable

from rich.text import Text

from cuttle_net.games.cuttle.cards import SUIT_OF, card_display

from ..cardtext import styled

RED_SUITS = (1, 2)  # diamonds, hearts


def card(c: int, ascii: bool, touched: bool = False) -> Text:
    """``7♥`` (``7H`` in ASCII), red suits in red where colour is shown and underlined where
    it is not (NO_COLOR); ``touched`` (the last move's cards) in reverse video."""
    return styled(card_display(c, ascii), SUIT_OF[c] in RED_SUITS, touched)


def cards(cs: Iterable[int], ascii: bool, sep: str = " ", touched: Collection[int] = ()) -> Text:
    return Text(sep).join(card(c, ascii, c in touched) for c in cs)
