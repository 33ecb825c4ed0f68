"""`hard` with one setting changed, against a bot, on the arena's games (paired by index).

    python benchmarks/bench_hard_variants.py glasses=0.2 medium --games 104 --seed 1

Plays games ``--first`` to ``--games`` - 1 of ``cuttle arena hard BOT --seed S`` with the
variant in `hard`'s place (a game depends only on the seed and its index, so the variant
and `hard` meet the same deals, seats and random generators), printing the tally as it
goes and, with ``--raw``, one JSON line a game: index, winner, and which seats ever had
glasses on the table (the variant's seat first).  A setting is a ``SearchBot`` keyword
(several are separated by commas);
``hard`` plays `hard` as it ships.  An experiment only: nothing here is a level.
"""

from __future__ import annotations

import argparse
import json

from cuttle_net.games.cuttle import arena
from cuttle_net.games.cuttle.bots import BOTS, HARD_INFERENCE, HARD_ITERATIONS
from cuttle_net.games.cuttle.engine import Game
from cuttle_net.games.cuttle.rules import Rules
from cuttle_net.games.cuttle.search import SearchBot


def _variant(spec: str) -> str:
    if spec == "hard":
        return spec
    kwargs = {"infer": HARD_INFERENCE}
    for setting in spec.split(","):  # one setting, or several: takes_wins=0.9,infer=1
        key, _, value = setting.partition("=")
        kwargs[key] = float(value)
    BOTS[spec] = lambda: SearchBot(spec, HARD_ITERATIONS, **kwargs)  # type: ignore[arg-type]
    return spec


def _look(g: Game, seen: list[bool]) -> None:
    """Note which seats have glasses on the table (the full game, before a decision)."""
    for s in (0, 1):
        seen[s] = seen[s] or g.has_glasses(s)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("variant")
    p.add_argument("opponent")
    p.add_argument("--games", type=int, default=104)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--rules", default="classic")
    p.add_argument("--first", type=int, default=0)
    p.add_argument("--raw", default=None)
    args = p.parse_args()
    names = (_variant(args.variant), args.opponent)
    rules = Rules.parse(args.rules)
    tally = arena.Tally()
    for index in range(args.first, args.games):
        glasses = [False, False]
        result = arena.play_game(
            names, rules, args.seed, index, truth=lambda g, seen=glasses: _look(g, seen)
        )
        tally.add(result)
        mine = index % 2  # the variant's seat
        if args.raw:
            with open(args.raw, "a") as f:
                row = [index, result.winner, glasses[mine], glasses[1 - mine]]
                f.write(json.dumps(row) + "\n")
        if tally.games % 4 == 0:
            print(f"after {tally.games} games: " + tally.line(names, 0), flush=True)


if __name__ == "__main__":
    main()
