"""Whole-game helpers on full information: perft and random playouts.

A full position holds the stock's order, so there is no chance in it: every ply is a
seat's decision (an action, or an answer to an effect).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from . import Game
from .moves import Move


def perft(g: Game, depth: int) -> int:
    """Leaf nodes of the legal-move tree ``depth`` plies deep."""
    if depth == 0 or g.is_over:
        return 1 if depth == 0 else 0
    moves = g.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for m in moves:
        child = g.copy()
        child.push(m)
        total += perft(child, depth - 1)
    return total


def random_moves(g: Game, rng: random.Random) -> Iterator[tuple[int, Move]]:
    """Play ``g`` to its end with uniformly random legal moves; yield (seat, move)."""
    while not g.is_over:
        seat = g.to_act
        m = rng.choice(g.legal_moves())
        g.push(m)
        yield seat, m


def random_game(players: int, decks: int, seed: int) -> tuple[Game, Game, list[tuple[int, Move]]]:
    """A whole random game, the deal and the moves both from ``seed``: (start, end, moves)."""
    g = Game.deal(players=players, decks=decks, seed=seed)
    start = g.copy()
    moves = list(random_moves(g, random.Random(seed)))
    return start, g, moves
