"""Card motions: what a move does with cards that are, or were, out of someone's sight.

The engine records them in order while it applies a move.  From them come what each
player learns (``disclosure``) and which deck-protocol operations a networked game must
run (``deck_plan`` in ``module``).  Both peers record the same motions for the same move;
only the card identities differ (``UNKNOWN`` where a view cannot see).
"""

from __future__ import annotations

from typing import NamedTuple


class HandOut(NamedTuple):
    """``card`` leaves ``seat``'s hand face up: played, countered with, blocked with, discarded."""

    seat: int
    card: int


class Drawn(NamedTuple):
    """The top card of the draw pile goes to ``seat``'s hand.

    ``public``: it was face up, known to both; ``exposed``: the other player sees it too
    (glasses).
    """

    seat: int
    card: int
    public: bool
    exposed: bool


class Revealed(NamedTuple):
    """The top card of the draw pile is turned face up by a 7 (``public``: it already was)."""

    card: int
    public: bool


class Exposed(NamedTuple):
    """Glasses show ``seat``'s hand to the other player; ``cards`` are the newly seen ones."""

    seat: int
    cards: tuple[int, ...]


class Swapped(NamedTuple):
    """The joker swapped the hands; ``learned[s]`` are the cards seat ``s`` newly sees."""

    learned: tuple[tuple[int, ...], tuple[int, ...]]


class ToTop(NamedTuple):
    """A card known to both goes face up on top of the draw pile."""

    card: int


class ToHand(NamedTuple):
    """A card known to both joins ``seat``'s hand (a 3's pick, a 9's return)."""

    seat: int
    card: int


Motion = HandOut | Drawn | Revealed | Exposed | Swapped | ToTop | ToHand


class Disclosure(NamedTuple):
    """The cards each seat saw for the first time during a move, in the order met."""

    seat0: tuple[int, ...]
    seat1: tuple[int, ...]


def disclosure(motions: list[Motion]) -> Disclosure:
    learned: tuple[list[int], list[int]] = ([], [])
    for m in motions:
        if isinstance(m, Drawn):
            if not m.public:
                learned[m.seat].append(m.card)
                if m.exposed:
                    learned[1 - m.seat].append(m.card)
        elif isinstance(m, Revealed):
            if not m.public:
                learned[0].append(m.card)
                learned[1].append(m.card)
        elif isinstance(m, Exposed):
            learned[1 - m.seat].extend(m.cards)
        elif isinstance(m, Swapped):
            learned[0].extend(m.learned[0])
            learned[1].extend(m.learned[1])
    return Disclosure(tuple(learned[0]), tuple(learned[1]))
