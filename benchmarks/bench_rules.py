"""Rules engine speed: random whole games per second, and legal-move generation.

Run: python benchmarks/bench_rules.py [--games N] [--repeats R]
Prints medians over R repeats, on one core (a single process).
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time

from cuttle_net.games.cuttle.engine import OVER, Game
from cuttle_net.games.cuttle.rules import Rules

RULE_SETS = (
    "classic",
    "standard",
    "classic+eight-one-off+joker+nine-frozen+queens-protect-queens+random-fours+ten-blocks-scuttle",
)


def machine() -> str:
    cpu = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{cpu}; Python {platform.python_version()} ({platform.python_implementation()})"


def random_games(rules: Rules, games: int, seed: int) -> tuple[float, int]:
    """Seconds for ``games`` whole random games (deal included), and decisions made."""
    rng = random.Random(seed)
    choice = rng.choice
    decisions = 0
    start = time.perf_counter()
    for i in range(games):
        g = Game.deal(rules, seed=seed + i)
        legal, push = g.legal_moves, g.push
        while g.phase != OVER:
            push(choice(legal()))
            decisions += 1
    return time.perf_counter() - start, decisions


def deal_only(rules: Rules, games: int, seed: int) -> float:
    start = time.perf_counter()
    for i in range(games):
        Game.deal(rules, seed=seed + i)
    return time.perf_counter() - start


def sample_positions(rules: Rules, count: int) -> list[Game]:
    rng = random.Random(7)
    out: list[Game] = []
    seed = 0
    while len(out) < count:
        g = Game.deal(rules, seed=seed)
        seed += 1
        while g.phase != OVER and len(out) < count:
            out.append(g.copy())
            g.push(rng.choice(g.legal_moves()))
    return out


def time_legal(positions: list[Game]) -> float:
    start = time.perf_counter()
    for g in positions:
        g.legal_moves()
    return (time.perf_counter() - start) / len(positions)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=3000)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    print(f"machine: {machine()}")
    print(f"medians of {args.repeats} runs of {args.games} games, one core\n")
    for name in RULE_SETS:
        rules = Rules.parse(name)
        runs = [random_games(rules, args.games, seed=1000 * r) for r in range(args.repeats)]
        rate = statistics.median(args.games / t for t, _ in runs)
        per_game = statistics.median(d / args.games for _, d in runs)
        deal = statistics.median(deal_only(rules, args.games, 0) for _ in range(args.repeats))
        positions = sample_positions(rules, 5000)
        legal_us = statistics.median(time_legal(positions) for _ in range(args.repeats)) * 1e6
        moves = statistics.mean(len(g.legal_moves()) for g in positions)
        print(f"{name}")
        print(f"  random games/s          {rate:10.0f}   ({per_game:.1f} decisions a game)")
        print(
            f"  µs per decision         {1e6 / rate / per_game:10.2f}   (generate + choose + push)"
        )
        print(f"  µs per deal (shuffle)   {deal / args.games * 1e6:10.2f}")
        print(f"  µs per legal_moves()    {legal_us:10.2f}   ({moves:.1f} moves on average)")


if __name__ == "__main__":
    main()
