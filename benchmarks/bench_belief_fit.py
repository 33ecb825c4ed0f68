"""How well `hard`'s beliefs read an opponent, by the kind of opponent.

    python benchmarks/bench_belief_fit.py medium --games 30 --seed 7

A `greedy` seat (cheap, so that the opponent's decisions are what costs) keeps the beliefs
`hard` keeps (``belief.Beliefs``, shown every move of the game) while it plays the named
opponent; before each of its decisions the beliefs are checked against the truth: the
weighted share of the opponent's hidden cards the guesses hold, against the share a
uniform deal of the unseen cards would hold, and the probability the beliefs give to the
opponent being the sensible (greedy-like) player.  Read-only: the truth is looked at for
the measure, never shown to a bot.
"""

from __future__ import annotations

import argparse
import random
import statistics
from collections.abc import Callable

from cuttle_net.games.cuttle import arena, belief, bots
from cuttle_net.games.cuttle.belief import Beliefs
from cuttle_net.games.cuttle.engine import Game
from cuttle_net.games.cuttle.greedy import GreedyBot
from cuttle_net.games.cuttle.moves import Move
from cuttle_net.games.cuttle.rules import Rules


class Reader(GreedyBot):
    """`greedy`, keeping `hard`'s beliefs about its opponent on the side."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "reader"
        self.beliefs: Beliefs | None = None
        self.view: Game | None = None

    def observe(self, view: Game, move: Move) -> None:
        if self.beliefs is None:
            self.beliefs = Beliefs(view, random.Random(f"beliefs {view.hands[view.viewer]}"))
        self.beliefs.observe(view, move)

    def choose(self, view: Game, rng: random.Random) -> Move:
        self.view = view
        return super().choose(view, rng)


def searcher_likelihood(iterations: int, tries: int = 3) -> Callable[[Game, Move], float]:
    """How likely a search of ``iterations`` makes ``move`` in ``view``: the share of
    ``tries`` searches (fixed generators) that chose it, smoothed.  For the measure only:
    48 guesses times ``tries`` searches an opponent decision is far beyond a bot's budget."""
    from cuttle_net.games.cuttle.search import SearchBot

    bot = SearchBot("model", iterations)

    def likelihood(view: Game, move: Move) -> float:
        moves = view.legal_moves()
        if move not in moves:
            return 0.0
        hits = sum(bot.choose(view, random.Random(k)) == move for k in range(tries))
        return (hits + 0.1) / (tries + 0.1 * len(moves))

    return likelihood


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("opponent")
    p.add_argument("--games", type=int, default=30)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument(
        "--beta", type=float, default=belief.BETA, help="the sensible player's sharpness"
    )
    p.add_argument(
        "--search",
        type=int,
        default=0,
        help="model the opponent as a search of this many iterations instead (slow)",
    )
    args = p.parse_args()
    belief.BETA = args.beta
    if args.search:
        belief.sensible_likelihood = searcher_likelihood(args.search)
    reader = Reader()
    bots.BOTS["reader"] = lambda: reader
    held, uniform, sensible = [], [], []

    def truth(g: Game) -> None:
        b = reader.beliefs
        seat = g.to_act
        if b is None or b.seat != seat:
            return
        view = g.view(seat)
        opp = 1 - seat
        hidden = [c for c in g.hands[opp] if c not in view.hands[opp]]
        if not hidden:
            return
        b.fit(view)
        total = sum(b.weights)
        held.append(
            sum(
                w * sum(c in hidden for c in guess)
                for w, guess in zip(b.weights, b.guesses, strict=True)
            )
            / total
            / len(hidden)
        )
        uniform.append(len(hidden) / len(view.unseen()))
        sensible.append(b.sensible)

    for i in range(args.games):
        reader.beliefs = None
        arena.play_game(("reader", args.opponent), Rules.parse("classic"), args.seed, i, truth)
        if (i + 1) % 10 == 0 or i + 1 == args.games:
            print(
                f"after {i + 1} games, {len(held)} decisions: the guesses hold "
                f"{100 * statistics.mean(held):.1f}% of the opponent's hidden cards "
                f"(a uniform deal {100 * statistics.mean(uniform):.1f}%); "
                f"P(sensible) {statistics.mean(sensible):.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
