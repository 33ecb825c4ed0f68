"""L'Unisson bots in the arena, printing the tally as it goes.

    python benchmarks/bench_unisson_bots.py hard greedy greedy greedy --games 120 --seed 1

The same games as ``cuttle arena --game unisson BOT... --games N --seed S`` (a game depends
only on the seed and its index), with every bot's line printed again after each deal has
been played in every seat: on a crowded machine a long match still leaves figures behind,
each the result of ``cuttle arena`` with that many games.
"""

from __future__ import annotations

import argparse

from cuttle_net.games.unisson import arena


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("bots", nargs="+")
    p.add_argument("--games", type=int, default=120)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--decks", type=int, default=None)
    args = p.parse_args()
    n = len(args.bots)
    decks = args.decks if args.decks is not None else (2 if n >= 5 else 1)
    tally = arena.Tally(n)
    labels = arena.labels(args.bots)
    for result in arena.play_match(args.bots, decks, args.games, args.seed):
        tally.add(result)
        if tally.games % n == 0:
            print(f"after {tally.games} games", flush=True)
            for b, label in enumerate(labels):
                print("  " + tally.line(label, b), flush=True)


if __name__ == "__main__":
    main()
