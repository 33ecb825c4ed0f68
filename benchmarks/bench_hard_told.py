"""Where knowing the other hand would change `hard`'s moves: `hard` and `hard` told the hand.

    python benchmarks/bench_hard_told.py medium --games 24 --seed 7 --raw FILE

Plays the arena's games of ``cuttle arena hard BOT`` (the same deals, seats and random
generators); at each of `hard`'s decisions with a choice, `hard` told the opponent's hidden
cards (``SeesHand`` of ``bench_bot_information.py``) is asked too, from the same view with
the same random generator, and the game goes on with `hard`'s move.  Prints how often the
two differ, by kind of move (`hard`'s, then the told one's); ``--raw`` writes one JSON line
a decision (the scores and goals, both hands' ranks, the pile's size and both moves) and
one a game.  An experiment only: the told bot sees the truth through the arena's hook.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter

from bench_bot_information import SeesHand, _tell, _truth  # benchmarks/ is on the path

from cuttle_net.games.cuttle import arena
from cuttle_net.games.cuttle.bots import BOTS, HARD_INFERENCE, HARD_ITERATIONS
from cuttle_net.games.cuttle.cards import RANK_OF
from cuttle_net.games.cuttle.engine import MAIN, Game
from cuttle_net.games.cuttle.moves import Move
from cuttle_net.games.cuttle.rules import Rules
from cuttle_net.games.cuttle.search import SearchBot

_rows: list[dict] = []


class Probe(SearchBot):
    """`hard`, noting what `hard` told the other hand would have done at each decision."""

    def choose(self, view: Game, rng: random.Random) -> Move:
        twin = random.Random()
        twin.setstate(rng.getstate())
        m = super().choose(view, rng)
        if len(view.legal_moves()) > 1:
            told = SeesHand("told", HARD_ITERATIONS).choose(view.copy(), twin)
            g, me = _truth[0], view.viewer
            o = 1 - me
            _rows.append(
                {
                    "main": view.phase == MAIN,
                    "scores": [g.score(me), g.goal(me), g.score(o), g.goal(o)],
                    "hand": [RANK_OF[c] for c in g.hands[me]],
                    "other": [RANK_OF[c] for c in g.hands[o]],
                    "pile": len(g.deck),
                    "hard": str(m),
                    "told": str(told),
                }
            )
        return m


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("opponent")
    p.add_argument("--games", type=int, default=24)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--first", type=int, default=0)
    p.add_argument("--raw", default=None)
    args = p.parse_args()
    BOTS["probe"] = lambda: Probe("hard", HARD_ITERATIONS, infer=HARD_INFERENCE)
    kinds: Counter[tuple[str, str]] = Counter()
    decisions = wins = 0
    for index in range(args.first, args.games):
        r = arena.play_game(("probe", args.opponent), Rules(), args.seed, index, truth=_tell)
        wins += r.winner == 0
        for row in _rows:
            decisions += 1
            a, b = row["hard"].split()[0], row["told"].split()[0]
            if row["hard"] != row["told"]:
                kinds[a, b] += 1
        if args.raw:
            with open(args.raw, "a") as f:
                for row in _rows:
                    f.write(json.dumps({"game": index, **row}) + "\n")
                f.write(json.dumps({"game": index, "winner": r.winner}) + "\n")
        _rows.clear()
    games = args.games - args.first
    print(f"hard won {wins} of {games}; {decisions} decisions with a choice, of which differ:")
    for (a, b), n in kinds.most_common():
        print(f"  hard {a}, told {b}: {n}")


if __name__ == "__main__":
    main()
