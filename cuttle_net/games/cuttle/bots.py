"""Bots that play from a player's view, as a peer does: never from the full truth.

A bot is asked for a move only when its seat is to act (or, for the random-fours pick,
never: chance is the deck protocol's job).  ``choose`` must return one of
``view.legal_moves()``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Protocol

from .engine import COUNTER, OFFER, Game
from .moves import ACCEPT_DRAW, DECLINE, REFUSE_DRAW, Move

# Search effort of the levels, in iterations a decision (not seconds: a level plays the
# same on every machine, and a seeded game is reproducible).
MEDIUM_ITERATIONS = 500
HARD_ITERATIONS = 2500


class Bot(Protocol):
    name: str

    def choose(self, view: Game, rng: random.Random) -> Move: ...


class RandomBot:
    """Any legal move, uniformly."""

    name = "random"

    def choose(self, view: Game, rng: random.Random) -> Move:
        return rng.choice(view.legal_moves())


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
            return ACCEPT_DRAW if _value(view, me) < -0.25 else REFUSE_DRAW
        scored = [(self._score(view, m, me), rng.random(), m) for m in moves]
        return max(scored)[2]

    def _score(self, view: Game, m: Move, me: int) -> float:
        after = _after(view, m)
        if after is None:  # the result depends on hidden cards: a modest, fixed hope
            return _value(view, me) + 0.05
        return _value(after, me)


def _after(view: Game, m: Move) -> Game | None:
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


def _progress(g: Game, seat: int) -> float:
    goal = g.goal(seat)
    return 1.0 if goal <= 0 else min(1.0, g.score(seat) / goal)


def _value(g: Game, me: int) -> float:
    """How good the table looks for ``me``: progress to goal, cards in hand, protection."""
    if g.outcome is not None:
        if g.outcome.winner is None:
            return 0.0
        return 100.0 if g.outcome.winner == me else -100.0
    o = 1 - me
    value = _progress(g, me) - _progress(g, o)
    value += 0.03 * (g.hand_size(me) - g.hand_size(o))
    value += 0.08 * (min(g.queens(me), 1) - min(g.queens(o), 1))
    value += 0.04 * (g.has_glasses(me) - g.has_glasses(o))
    return value


def _search(name: str, iterations: int) -> Callable[[], Bot]:
    def make() -> Bot:
        from .search import SearchBot

        return SearchBot(name, iterations)

    return make


def _named(cls: type[RandomBot] | type[GreedyBot], name: str) -> Callable[[], Bot]:
    def make() -> Bot:
        bot = cls()
        bot.name = name
        return bot

    return make


# The levels (easy, medium, hard) first: the lobby lists them in this order.
BOTS: dict[str, Callable[[], Bot]] = {
    "easy": _named(GreedyBot, "easy"),
    "medium": _search("medium", MEDIUM_ITERATIONS),
    "hard": _search("hard", HARD_ITERATIONS),
    "greedy": GreedyBot,
    "random": RandomBot,
}


def make_bot(name: str) -> Bot:
    """The bot called ``name``; raise ``ValueError`` listing the names otherwise."""
    try:
        return BOTS[name]()
    except KeyError:
        raise ValueError(f"no bot called {name!r}; bots: {', '.join(BOTS)}") from None
