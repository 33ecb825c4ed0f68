"""Cuttle bots in the arena, printing the tally as it goes.

    python benchmarks/bench_cuttle_bots.py hard medium --games 400 --seed 1

The same games as ``cuttle arena BOT BOT --games N --seed S`` (a game depends only on the
seed and its index), with both bots' lines printed again after each deal has been played
from both seats: on a crowded machine a long match still leaves figures behind, each the
result of ``cuttle arena`` with that many games.  ``--first K`` plays games K to N - 1 only
(one share of a match split between processes, as ``--jobs`` splits it) and ``--raw FILE``
appends each game's result there as a line of JSON, to add the shares up.
"""

from __future__ import annotations

import argparse
import json

from cuttle_net.games.cuttle import arena
from cuttle_net.games.cuttle.rules import Rules


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("bots", nargs=2)
    p.add_argument("--games", type=int, default=400)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--rules", default="classic")
    p.add_argument("--first", type=int, default=0)
    p.add_argument("--raw", default=None)
    args = p.parse_args()
    names = (args.bots[0], args.bots[1])
    rules = Rules.parse(args.rules)
    tally = arena.Tally()
    for index in range(args.first, args.games):
        result = arena.play_game(names, rules, args.seed, index)
        tally.add(result)
        if args.raw:
            with open(args.raw, "a") as f:
                f.write(json.dumps([index, result.winner, result.times]) + "\n")
        if tally.games % 2 == 0:
            print(f"after {tally.games} games", flush=True)
            for b in (0, 1):
                print("  " + tally.line(names, b), flush=True)


if __name__ == "__main__":
    main()
