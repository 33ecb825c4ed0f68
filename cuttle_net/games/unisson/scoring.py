"""Scoring a game of L'Unisson (UNISSON.md, "Scoring"), and match totals.

Works on anything shaped like ``engine.Game`` whose hands are all known: a full-information
game, or a view after every hand was shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from .cards import OCTAVES, runs

if TYPE_CHECKING:
    from .engine import Game

OCTAVE = 8
EMPTY_HAND_BONUS, LAST_PLAYER_BONUS, UNISSON_BONUS = 10, 5, 50

# The lengths of the sequences (runs of 3 or more) in one suit's byte.
_RUN_LENGTHS: tuple[tuple[int, ...], ...] = tuple(
    tuple(n for _, n in runs(b) if n >= 3) for b in range(256)
)


class Score(NamedTuple):
    """One seat's score, part by part (UNISSON.md numbers the parts 1 to 5)."""

    melded: int  # 1: sequences in front of the seat, doubled by a melded octave
    hand: int  # 2: sequences left in hand (zero or less), doubled by a held octave
    empty: int  # 3: the empty-hand bonus
    last: int  # 3: the last player's bonus
    range: int  # 4: the range's sequences, added to every seat
    unisson: int  # 5: the Unisson bonus
    total: int


def sequences_in(lo: int, hi: int) -> list[int]:
    """The lengths of the sequences found in a multiset of faces (two masks), per suit.

    The rule takes the longest run present, then the longest run of what remains, and so on.
    Runs of the faces held at least once (``lo``) are disjoint, so that is every run of 3+
    in ``lo``; the second copies (``hi``, with two decks) then form runs of their own.
    """
    out: list[int] = []
    for mask in (lo, hi):
        if mask:
            for s in range(4):
                out += _RUN_LENGTHS[mask >> (8 * s) & 255]
    return out


def scores(g: Game) -> list[Score]:
    """Every seat's score in ``g``; the hands must all be known."""
    if any(g.hidden):
        raise ValueError("scoring needs every hand: show the hidden ones first")
    n = g.players
    melded_octave = [any(m in OCTAVES for m in g.seqs[s]) for s in range(n)]
    held = [sequences_in(g.lo[s], g.hi[s]) for s in range(n)]
    unisson = all(melded_octave[s] or OCTAVE in held[s] for s in range(n))
    range_points = sum(sequences_in(g.range_lo, g.range_hi))
    out = []
    for s in range(n):
        melded = sum(m.bit_count() for m in g.seqs[s])
        if melded_octave[s]:
            melded *= 2
        in_hand = [r for r in held[s] if r != OCTAVE] if unisson else held[s]
        hand = -sum(in_hand)
        if OCTAVE in in_hand:
            hand *= 2
        empty = EMPTY_HAND_BONUS if g.sizes[s] == 0 else 0
        last = LAST_PLAYER_BONUS if g.last == s else 0
        bonus = UNISSON_BONUS if unisson else 0
        total = melded + hand + empty + last + range_points + bonus
        out.append(Score(melded, hand, empty, last, range_points, bonus, total))
    return out


def match_totals(games: Sequence[Sequence[int]]) -> list[int]:
    """Each seat's total over a match: the sum of its totals game by game."""
    if not games:
        return []
    n = len(games[0])
    if any(len(t) != n for t in games):
        raise ValueError("every game of a match has the same seats")
    return [sum(t[s] for t in games) for s in range(n)]
