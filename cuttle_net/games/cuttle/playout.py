"""Whole-game helpers on full information: random playouts and perft."""

from __future__ import annotations

import random
from collections.abc import Iterator

from .engine import OVER, Game
from .moves import Move
from .rules import CLASSIC, Rules


def perft(g: Game, depth: int) -> int:
    """Leaf nodes of the legal-move tree ``depth`` plies deep (chance moves count as plies)."""
    if depth == 0:
        return 1
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
    """Play ``g`` to its end with uniformly random legal moves; yield (actor, move)."""
    while g.phase != OVER:
        actor = g.to_act
        m = rng.choice(g.legal_moves())
        g.push(m)
        yield actor, m


def random_game(seed: int, rules: Rules = CLASSIC) -> tuple[Game, list[tuple[int, Move]]]:
    """A whole random game: the deal and the moves both come from ``seed``."""
    g = Game.deal(rules, seed=seed)
    start = g.copy()
    moves = list(random_moves(g, random.Random(seed)))
    return start, moves
