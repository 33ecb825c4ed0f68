"""How often two Cuttle bots make the same move in the same position.

    python benchmarks/bench_bot_agreement.py hard medium --positions 120

The positions come from games of two greedy players that now and then (30%) play a random
move instead, one position in three of those with more than two legal moves, from the view
of the seat to act (seeds 1000 and up: no arena seed).  Each bot decides there twice, with
the random generators 1 and 2; the script prints how often the first bot agrees with the
second, and how often each agrees with itself under another generator (a search bot's
own noise).  A diagnostic, not a strength: it says whether two levels play differently.
"""

from __future__ import annotations

import argparse
import random

from cuttle_net.games.cuttle.bots import make_bot
from cuttle_net.games.cuttle.engine import CHANCE, Game
from cuttle_net.games.cuttle.rules import Rules


def positions(count: int) -> list[Game]:
    out: list[Game] = []
    seed = 0
    while len(out) < count:
        g = Game.deal(Rules(), seed=1000 + seed)
        rng = random.Random(seed)
        greedy = make_bot("greedy")
        views = [g.view(0), g.view(1)]
        k = 0
        while not g.is_over:
            s = g.to_act
            if s == CHANCE:
                m = rng.choice(g.legal_moves())
            else:
                if len(views[s].legal_moves()) > 2 and k % 3 == 0:
                    out.append(views[s].copy())
                k += 1
                if rng.random() < 0.3:
                    m = rng.choice(g.legal_moves())
                else:
                    m = greedy.choose(views[s].copy(), rng)
            learned = g.play(m)
            for t in (0, 1):
                views[t].apply(m, reveal=learned[t])
        seed += 1
    return out[:count]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("bots", nargs=2)
    p.add_argument("--positions", type=int, default=120)
    args = p.parse_args()
    a, b = args.bots
    both = same_a = same_b = 0
    views = positions(args.positions)
    for i, v in enumerate(views, 1):
        a1, a2, b1, b2 = (
            make_bot(name).choose(v.copy(), random.Random(s))
            for name, s in ((a, 1), (a, 2), (b, 1), (b, 2))
        )
        both, same_a, same_b = both + (a1 == b1), same_a + (a1 == a2), same_b + (b1 == b2)
        if i % 20 == 0 or i == len(views):
            print(
                f"{i} positions: {a} = {b} {both}, {a} = {a} (other generator) {same_a}, "
                f"{b} = {b} (other generator) {same_b}",
                flush=True,
            )


if __name__ == "__main__":
    main()
