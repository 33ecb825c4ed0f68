"""What the hidden cards are worth to `hard`: the same search, honest and told the truth.

Run: python benchmarks/bench_bot_information.py [--games N] [--seed S] [--opponent BOT]
                                                 [--rules classic|standard] [--jobs J]

Plays the arena's games (the same deals, seats and random generators as `cuttle arena hard
OPPONENT`) three times: with `hard` as it is, with `hard` told the opponent's hidden cards
(its worlds deal only the draw pile), and with `hard` told everything (the pile's order
too). Prints each one's wins with a 95% interval and its median time a decision.

An experiment only: the told bots exist in this script and nowhere else, and the arena
shows them the truth through a hook that play never uses. A bot that plays people is handed
its seat's view and nothing more.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
from concurrent.futures import ProcessPoolExecutor

from bench_rules import machine  # run as a script: benchmarks/ is on the path

from cuttle_net.games.cuttle.arena import GameResult, play_game
from cuttle_net.games.cuttle.bots import BOTS, HARD_INFERENCE, HARD_ITERATIONS
from cuttle_net.games.cuttle.engine import Game
from cuttle_net.games.cuttle.rules import Rules
from cuttle_net.games.cuttle.search import SearchBot, sample_world
from cuttle_net.stats import wilson

_truth: list[Game] = []  # the game in progress, as the arena's hook last showed it


def _tell(g: Game) -> None:
    _truth[:] = [g]


class SeesHand(SearchBot):
    """`hard`, dealing the opponent's real hidden cards in every world."""

    def _world(
        self, view: Game, rng: random.Random, unseen: list[int], hand: list[int] | None
    ) -> Game:
        o = 1 - view.viewer
        hidden = [c for c in _truth[0].hands[o] if c not in view.hands[o]]
        return sample_world(view, rng, unseen, hidden)


class SeesAll(SearchBot):
    """`hard`, searching the real game: both hands and the order of the pile."""

    def _world(
        self, view: Game, rng: random.Random, unseen: list[int], hand: list[int] | None
    ) -> Game:
        world = _truth[0].copy()
        world.viewer = -1
        return world


VARIANTS = {
    "hard": None,
    "hard, told the opponent's hand": SeesHand,
    "hard, told everything": SeesAll,
}
for label, cls in VARIANTS.items():
    if cls is not None:
        BOTS[label] = lambda cls=cls, label=label: cls(label, HARD_ITERATIONS, infer=HARD_INFERENCE)


def _games(label: str, opponent: str, rules: Rules, seed: int, indices: list[int]) -> list:
    return [play_game((label, opponent), rules, seed, i, truth=_tell) for i in indices]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--opponent", default="random", choices=sorted(BOTS))
    p.add_argument("--rules", default="classic")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    a = p.parse_args()
    rules = Rules.parse(a.rules)
    print(machine())
    print(f"{a.games} games against {a.opponent}, {a.rules}, --seed {a.seed}")
    chunks = [list(range(j, a.games, a.jobs)) for j in range(a.jobs)]
    with ProcessPoolExecutor(a.jobs) as pool:
        for label in VARIANTS:
            futures = [
                pool.submit(_games, label, a.opponent, rules, a.seed, c) for c in chunks if c
            ]
            results: list[GameResult] = [r for f in futures for r in f.result()]
            wins = sum(r.winner == 0 for r in results)
            lo, hi = wilson(wins, len(results))
            times = [t for r in results for t in r.times[0]]
            print(
                f"{label}: won {wins} of {len(results)}, {100 * wins / len(results):.1f}% "
                f"(95% interval {100 * lo:.1f}-{100 * hi:.1f}%); "
                f"median {statistics.median(times):.3f} s a decision"
            )


if __name__ == "__main__":
    main()
