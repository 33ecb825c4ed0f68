"""Bots that play from a player's view, as a peer does: never from the full truth.

A bot is asked for a move only when its seat is to act (or, for the random-fours pick,
never: chance is the deck protocol's job).  ``choose`` must return one of
``view.legal_moves()``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Protocol

from .engine import Game
from .greedy import GreedyBot
from .moves import Move

# Search effort of the levels, in iterations a decision (not seconds: a level plays the
# same on every machine, and a seeded game is reproducible).
MEDIUM_ITERATIONS = 500
HARD_ITERATIONS = 3000
HARD_INFERENCE = 0.7  # the share of hard's worlds dealt from what it read of the opponent's play


class Bot(Protocol):
    """A player.  One that reads its opponent's play also has ``observe(view, move)``:
    its caller then shows it every move of the game with its seat's view just before."""

    name: str

    def choose(self, view: Game, rng: random.Random) -> Move: ...


class RandomBot:
    """Any legal move, uniformly."""

    name = "random"

    def choose(self, view: Game, rng: random.Random) -> Move:
        return rng.choice(view.legal_moves())


def _search(name: str, iterations: int, infer: float = 0.0) -> Callable[[], Bot]:
    def make() -> Bot:
        from .search import SearchBot

        return SearchBot(name, iterations, infer=infer)

    return make


def _named(cls: type[RandomBot] | type[GreedyBot], name: str) -> Callable[[], Bot]:
    def make() -> Bot:
        bot = cls()
        bot.name = name
        return bot

    return make


# The levels (easy, medium, hard) first: the lobby lists them in this order.
# Weakest first, as menus list them; "greedy" is "easy" under its other name.
BOTS: dict[str, Callable[[], Bot]] = {
    "random": RandomBot,
    "easy": _named(GreedyBot, "easy"),
    "greedy": GreedyBot,
    "medium": _search("medium", MEDIUM_ITERATIONS),
    "hard": _search("hard", HARD_ITERATIONS, HARD_INFERENCE),
}


def make_bot(name: str) -> Bot:
    """The bot called ``name``; raise ``ValueError`` listing the names otherwise."""
    try:
        return BOTS[name]()
    except KeyError:
        raise ValueError(f"no bot called {name!r}; bots: {', '.join(BOTS)}") from None
