"""L'Unisson's rules engine: random whole games per second, and legal-move generation.

Run: python benchmarks/bench_unisson.py [--games N] [--repeats R] [--players P] [--decks D]
Prints medians over R repeats, on one core (a single process).  A random game is a deal then
a uniformly random legal move at every decision (effect answers included) until the end.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

from bench_rules import machine, time_legal  # run as a script: benchmarks/ is on the path

from cuttle_net.games.unisson import Game


def random_games(players: int, decks: int, games: int, seed: int) -> tuple[float, int]:
    """Seconds for ``games`` whole random games (deal included), and decisions made."""
    rng = random.Random(seed)
    choice = rng.choice
    decisions = 0
    start = time.perf_counter()
    for i in range(games):
        g = Game.deal(players, decks, i % players, seed=seed + i)
        legal, push = g.legal_moves, g.push
        while g.outcome is None:
            push(choice(legal()))
            decisions += 1
    return time.perf_counter() - start, decisions


def deal_only(players: int, decks: int, games: int) -> float:
    start = time.perf_counter()
    for i in range(games):
        Game.deal(players, decks, 0, seed=i)
    return time.perf_counter() - start


def sample_positions(players: int, decks: int, count: int) -> list[Game]:
    rng = random.Random(7)
    out: list[Game] = []
    seed = 0
    while len(out) < count:
        g = Game.deal(players, decks, 0, seed=seed)
        seed += 1
        while g.outcome is None and len(out) < count:
            out.append(g.copy())
            g.push(rng.choice(g.legal_moves()))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=3000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--players", type=int, nargs="*", default=[4])
    ap.add_argument("--decks", type=int, default=0, help="1 or 2 (default: the fewest allowed)")
    args = ap.parse_args()
    print(f"machine: {machine()}; load average {os.getloadavg()[0]:.2f}")
    print(f"medians of {args.repeats} runs of {args.games} games, one core\n")
    for players in args.players:
        decks = args.decks or (2 if players >= 5 else 1)
        runs = [random_games(players, decks, args.games, 1000 * r) for r in range(args.repeats)]
        rate = statistics.median(args.games / t for t, _ in runs)
        per_game = statistics.median(d / args.games for _, d in runs)
        deal = statistics.median(deal_only(players, decks, args.games) for _ in range(args.repeats))
        positions = sample_positions(players, decks, 5000)
        legal_us = statistics.median(time_legal(positions) for _ in range(args.repeats)) * 1e6
        moves = statistics.mean(len(g.legal_moves()) for g in positions)
        print(f"{players} players, {decks} deck(s)")
        print(f"  random games/s          {rate:10.0f}   ({per_game:.1f} decisions a game)")
        decision_us = 1e6 / rate / per_game
        print(f"  µs per decision         {decision_us:10.2f}   (generate + choose + push)")
        print(f"  µs per deal (shuffle)   {deal / args.games * 1e6:10.2f}")
        print(f"  µs per legal_moves()    {legal_us:10.2f}   ({moves:.1f} moves on average)")


if __name__ == "__main__":
    main()
