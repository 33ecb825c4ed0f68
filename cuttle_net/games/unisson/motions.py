"""Card motions: what a move does with cards, as the deck protocol must carry it out.

The engine records them in order while it applies a move (``Game.motions``).  Every peer
records the same motions for the same move; only the faces of cards it cannot see differ
(``UNKNOWN``).  A face names no copy: with two decks the session picks which card id moves.
"""

from __future__ import annotations

from typing import NamedTuple

UNKNOWN = -1  # a face this game cannot see


class Drawn(NamedTuple):
    """The top card of the stock goes into ``seat``'s hand; only that seat sees it."""

    seat: int
    face: int = UNKNOWN


class Turned(NamedTuple):
    """The top card of the stock goes face up into the range (it replaces a card taken)."""

    face: int


class HandOut(NamedTuple):
    """``face`` leaves ``seat``'s hand face up: ``to`` is "range", "meld" or "extend"."""

    seat: int
    face: int
    to: str


class Taken(NamedTuple):
    """The range card ``face`` goes into ``seat``'s hand, in everyone's sight."""

    seat: int
    face: int


Motion = Drawn | Turned | HandOut | Taken
