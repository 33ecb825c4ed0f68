"""Two versions of a L'Unisson bot on the same games, to tell a change from the luck of the deal.

    python benchmarks/bench_unisson_paired.py medium hard --others greedy --players 6 \
        --games 60 --seed 7

Game ``i`` is ``cuttle arena --game unisson A OTHERS...``'s game ``i`` (its deal, seats and
random generators), played once with bot ``A`` and once with ``B`` in its place: the rows
are paired, and the games won by one version only are the difference.  ``VARIANTS`` names
the versions under trial (not shipped bots); any name ``make_bot`` knows works too.
``--cache FILE`` keeps each game's result, so a version already measured is not replayed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
from collections.abc import Callable

from cuttle_net.games.unisson import arena, bots
from cuttle_net.stats import p95, wilson


# The versions under trial, by name (earlier ones, a paired root and a reward more of the
# margin, are in commit 7db08f3 and benchmarks/README.md): `hard`'s budget with
# SearchBot's trial options (``model``: plies played by greedy's rule after the root move;
# ``flat``: no tree below the root; ``greedy_cand``: greedy's own choice among the root's
# candidates; ``epsilon``).
def _v(name: str, budget: int = bots.HARD_BUDGET, **kw) -> Callable[[], bots.Bot]:
    def make() -> bots.Bot:
        from cuttle_net.games.unisson.rule import QuickGreedy
        from cuttle_net.games.unisson.search import SearchBot

        if kw.get("model") or kw.get("greedy_cand"):
            kw["rule"] = QuickGreedy()  # greedy's decisions, faster
        return SearchBot(name, budget, **kw)

    return make


VARIANTS: dict[str, Callable[[], bots.Bot]] = {
    "h_flat_m8": _v("h_flat_m8", flat=True, model=8),
    "h_m8": _v("h_m8", model=8),
    "h_flat_m8g": _v("h_flat_m8g", flat=True, model=8, greedy_cand=True),
    "h_flat_m16g": _v("h_flat_m16g", flat=True, model=16, greedy_cand=True),
    "h_flat_m4g": _v("h_flat_m4g", flat=True, model=4, greedy_cand=True),
    "h_eps0": _v("h_eps0", epsilon=0.0),
    "h_g": _v("h_g", greedy_cand=True),
    # A modelled ply by QuickGreedy counted at 7 of the policy's (its measured cost).
    "h_m16q": _v("h_m16q", flat=True, model=16, greedy_cand=True, model_cost=7),
    "h_m32q": _v("h_m32q", flat=True, model=32, greedy_cand=True, model_cost=7),
}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--others", default="greedy")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--games", type=int, default=60)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--first", type=int, default=0)
    p.add_argument("--cache", default=None, help="a JSON-lines file of games already played")
    args = p.parse_args()
    bots.BOTS.update(VARIANTS)
    n = args.players
    decks = 2 if n >= 5 else 1
    rest = [args.others] * (n - 1)
    wins = {args.a: 0, args.b: 0}
    only = {args.a: 0, args.b: 0}
    times: dict[str, list[float]] = {args.a: [], args.b: []}
    cache = {}
    if args.cache and os.path.exists(args.cache):
        with open(args.cache) as f:
            for line in f:
                key, result = json.loads(line)
                cache[tuple(key)] = result
    for played, i in enumerate(range(args.first, args.games), 1):
        won = {}
        for name in (args.a, args.b):
            # A game depends only on the bots, the table, the seed and its index.
            key = (name, args.others, n, args.seed, i)
            if key not in cache:
                r = arena.play_game([name, *rest], decks, args.seed, i)
                cache[key] = [0 in r.winners, r.times[0]]
                if args.cache:
                    with open(args.cache, "a") as f:
                        f.write(json.dumps([key, cache[key]]) + "\n")
            won[name], t = cache[key]
            wins[name] += won[name]
            times[name].extend(t)
        if won[args.a] != won[args.b]:
            only[args.a if won[args.a] else args.b] += 1
        if played % n == 0:
            print(f"after {played} games (indexes {args.first}-{i})", flush=True)
            for name in (args.a, args.b):
                lo, hi = wilson(wins[name], played)
                t = times[name]
                print(
                    f"  {name}: {wins[name]} wins ({100 * wins[name] / played:.1f}%, "
                    f"{100 * lo:.1f}-{100 * hi:.1f}%), {only[name]} won by it alone; "
                    f"time a decision median {statistics.median(t):.3f} s, p95 {p95(t):.3f} s",
                    flush=True,
                )


if __name__ == "__main__":
    main()
