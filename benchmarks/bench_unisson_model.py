"""How well the search's playout policy predicts `greedy`: the share of `greedy`'s decisions
(turn actions and forced discards; optional draws are left out) where the policy, without
noise, would have made the same move.

    python benchmarks/bench_unisson_model.py --players 3 --games 40

The games are `greedy` against itself, deals from seeds 0 to GAMES - 1; the policy is asked
from the full game (it reads only the seat to act's cards and the public ones).
"""

from __future__ import annotations

import argparse
import random
from collections import Counter

from cuttle_net.games.unisson import Game, search
from cuttle_net.games.unisson.bots import GreedyBot


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--players", type=int, default=3)
    p.add_argument("--games", type=int, default=40)
    args = p.parse_args()
    n = args.players
    decks = 2 if n >= 5 else 1
    greedy = GreedyBot()
    agree: Counter[str] = Counter()
    asked: Counter[str] = Counter()
    for seed in range(args.games):
        g = Game.deal(players=n, decks=decks, dealer=0, seed=seed)
        rng = random.Random(seed)
        while not g.is_over:
            m = greedy.choose(g.view(g.to_act), rng)
            free_draw = g.pending and g.pending[0][0] == search.MAY_DRAW
            legal = g._legal()
            if len(legal) > 1 and not free_draw:
                vs = search.values(g, legal, lambda: 0.0, 0.0)
                kind = m.kind.name.lower()
                asked[kind] += 1
                agree[kind] += legal[vs.index(max(vs))] == m
            g.apply(m)
    total = sum(asked.values())
    print(
        f"{n} players, {args.games} games: the policy agrees with greedy in "
        f"{sum(agree.values())} of {total} decisions ({100 * sum(agree.values()) / total:.1f}%)"
    )
    for kind in sorted(asked):
        print(f"  greedy's {kind}: {agree[kind]} of {asked[kind]}")


if __name__ == "__main__":
    main()
