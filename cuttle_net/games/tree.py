"""Pieces shared by the games' search bots (information-set Monte Carlo tree search).

One tree is walked in many sampled worlds (single-observer ISMCTS): a node's children are
keyed by move, a child is chosen among the moves legal *in this world* by UCB, and each
child counts how often it was available (``avail``), so a move legal in few worlds is not
undervalued.  A node keeps the reward of the seat whose move led to it (``mover``): a
game of any number of seats backs up one reward per seat.
"""

from __future__ import annotations

import math
import random
from collections.abc import Hashable, Sequence
from typing import Any

UCB_C = 0.7  # exploration constant for rewards in [0, 1]


class Node:
    __slots__ = ("avail", "children", "mover", "visits", "wins")

    def __init__(self, mover: int) -> None:
        self.mover = mover  # the seat whose move led here (the reward is counted for it)
        self.children: dict[Any, Node] = {}
        self.visits = 0
        self.wins = 0.0
        self.avail = 1


def shuffle(cards: list, rng: random.Random) -> None:
    """Shuffle ``cards`` in place: Fisher-Yates on ``random()``, several times faster than
    ``rng.shuffle`` (a search samples thousands of worlds a decision)."""
    rand = rng.random
    for i in range(len(cards) - 1, 0, -1):
        j = int(rand() * (i + 1))
        cards[i], cards[j] = cards[j], cards[i]


def step(
    node: Node, legal: Sequence[Hashable], actor: int, rng: random.Random, c: float = UCB_C
) -> tuple[Any, Node, bool]:
    """The move to walk from ``node`` and its child; True when that child is new (the walk
    then stops there and plays out).  An untried move first (at random), else UCB among the
    legal moves, each of which is counted available."""
    children = node.children
    untried = [m for m in legal if m not in children]
    if untried:
        m = untried[rng.randrange(len(untried))]
        child = children[m] = Node(actor)
        return m, child, True
    best_v, child, move = -1.0, None, legal[0]
    log = math.log
    sqrt = math.sqrt
    for mv in legal:
        ch = children[mv]
        ch.avail += 1
        v = ch.wins / ch.visits + c * sqrt(log(ch.avail) / ch.visits)
        if v > best_v:
            best_v, child, move = v, ch, mv
    return move, child, False  # type: ignore[return-value]


def backup(path: Sequence[Node], rewards: Sequence[float]) -> None:
    """Count a visit on every node of ``path``, each with its mover's reward."""
    for nd in path:
        nd.visits += 1
        nd.wins += rewards[nd.mover]


def most_visited(root: Node) -> Any:
    """The move searched most; ties go to the better total (then to the first found)."""
    return max(root.children.items(), key=lambda kv: (kv[1].visits, kv[1].wins))[0]
