"""L'Unisson bots in the arena, printing the tally as it goes.

    python benchmarks/bench_unisson_bots.py hard greedy greedy greedy --games 120 --seed 1

The same games as ``cuttle arena --game unisson BOT... --games N --seed S`` (a game depends
only on the seed and its index), with every bot's line printed again after each deal has
been played in every seat: on a crowded machine a long match still leaves figures behind,
each the result of ``cuttle arena`` with that many games.  ``--first K`` plays games K to
N - 1 only (one share of a match split between processes, as ``--jobs`` splits it) and
``--raw FILE`` appends each game's result there as a line of JSON, to add the shares up.
The versions under trial in ``bench_unisson_paired.py`` (``VARIANTS``) can play too.
"""

from __future__ import annotations

import argparse
import json

from bench_unisson_paired import VARIANTS

from cuttle_net.games.unisson import arena, bots


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("bots", nargs="+")
    p.add_argument("--games", type=int, default=120)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--decks", type=int, default=None)
    p.add_argument("--first", type=int, default=0)
    p.add_argument("--raw", default=None)
    args = p.parse_args()
    bots.BOTS.update(VARIANTS)  # the versions under trial play here too
    n = len(args.bots)
    decks = args.decks if args.decks is not None else (2 if n >= 5 else 1)
    tally = arena.Tally(n)
    labels = arena.labels(args.bots)
    for index in range(args.first, args.games):
        result = arena.play_game(args.bots, decks, args.seed, index)
        tally.add(result)
        if args.raw:
            with open(args.raw, "a") as f:
                f.write(json.dumps([index, result.winners, result.scores, result.times]) + "\n")
        if tally.games % n == 0:
            print(f"after {tally.games} games", flush=True)
            for b, label in enumerate(labels):
                print("  " + tally.line(label, b), flush=True)


if __name__ == "__main__":
    main()
