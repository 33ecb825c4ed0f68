"""The greedy player: one decision ahead, from its own view.

Its evaluation (``value``, and ``after`` for the table a move leaves) is also the model of
a sensible opponent that ``belief`` reads the opponent's play with.
"""

from __future__ import annotations

import random

from .engine import COUNTER, OFFER, Game
from .moves import ACCEPT_DRAW, DECLINE, REFUSE_DRAW, Move


class GreedyBot:
    """Looks one decision ahead and takes the move that leaves the best-looking table.

    A move whose outcome depends on cards the bot cannot see (a draw, a 5, a 7) gets a
    fixed estimate instead of a look-ahead, so the bot never peeks.
    """

    name = "greedy"

    def choose(self, view: Game, rng: random.Random) -> Move:
        me = view.to_act
        moves = view.legal_moves()
        if view.phase == OFFER:
            return ACCEPT_DRAW if value(view, me) < -0.25 else REFUSE_DRAW
        scored = [(self._score(view, m, me), rng.random(), m) for m in moves]
        return max(scored)[2]

    def _score(self, view: Game, m: Move, me: int) -> float:
        table = after(view, m)
        if table is None:  # the result depends on hidden cards: a modest, fixed hope
            return value(view, me) + 0.05
        return value(table, me)


def after(view: Game, m: Move) -> Game | None:
    """The view after ``m``, with any counter chain it opens resolved as if declined."""
    if view.reveals_needed(m):
        return None
    g = view.copy()
    g.push(m)
    while g.phase == COUNTER:
        if g.hidden[g.to_act] or g.reveals_needed(DECLINE):
            break
        g.push(DECLINE)
    return g


def progress(g: Game, seat: int) -> float:
    goal = g.goal(seat)
    return 1.0 if goal <= 0 else min(1.0, g.score(seat) / goal)


def value(g: Game, me: int) -> float:
    """How good the table looks for ``me``: progress to goal, cards in hand, protection."""
    if g.outcome is not None:
        if g.outcome.winner is None:
            return 0.0
        return 100.0 if g.outcome.winner == me else -100.0
    o = 1 - me
    v = progress(g, me) - progress(g, o)
    v += 0.03 * (g.hand_size(me) - g.hand_size(o))
    v += 0.08 * (min(g.queens(me), 1) - min(g.queens(o), 1))
    v += 0.04 * (g.has_glasses(me) - g.has_glasses(o))
    return v
