"""L'Unisson bots against each other: N bots at one table, many games, seats rotating.

Each deal is played once per seat rotation (N games for N bots, every bot in every seat),
so the luck of the deal and of the seat cancels out.  Game ``i`` depends only on the seed
and ``i`` (its deal and each bot's random generator), so a match gives the same results
however it is split between processes.  Each bot is fed only its seat's view.  Times are
each decision's CPU time (``time.process_time``), counted only for decisions with more
than one legal move.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from ...jobs import in_processes
from ...stats import p95, wilson
from . import Game
from .bots import make_bot


@dataclass
class GameResult:
    index: int
    winners: tuple[int, ...]  # the bots (indexes into the names) that won; several share
    scores: tuple[int, ...]  # each bot's total for the game
    times: tuple[list[float], ...]  # CPU seconds of each bot's real decisions


def _game_seed(seed: int, index: int) -> int:
    return random.Random(f"unisson-arena {seed} {index}").getrandbits(63)


def play_game(names: Sequence[str], decks: int, seed: int, index: int) -> GameResult:
    """Game ``index`` of a match: deal ``index // N``, bot ``b`` at seat ``(b + index) % N``."""
    n = len(names)
    g = Game.deal(players=n, decks=decks, dealer=0, seed=_game_seed(seed, index // n))
    rng_seed = _game_seed(seed, index)
    seat_of = [(b + index) % n for b in range(n)]
    bot_at = {s: b for b, s in enumerate(seat_of)}
    bots = [make_bot(name) for name in names]
    rngs = [random.Random(rng_seed * n + b) for b in range(n)]
    times: tuple[list[float], ...] = tuple([] for _ in range(n))
    while not g.is_over:
        seat = g.to_act
        b = bot_at[seat]
        view = g.view(seat)
        forced = len(view.legal_moves()) == 1
        start = time.process_time()
        move = bots[b].choose(view, rngs[b])
        if not forced:
            times[b].append(time.process_time() - start)
        g.apply(move)
    totals = [s.total for s in g.scores()]
    return GameResult(
        index,
        tuple(sorted(bot_at[s] for s in g.winners())),
        tuple(totals[seat_of[b]] for b in range(n)),
        times,
    )


def _play_many(names: Sequence[str], decks: int, seed: int, indices: list[int]) -> list:
    return [play_game(names, decks, seed, i) for i in indices]


def play_match(
    names: Sequence[str], decks: int, games: int, seed: int, jobs: int = 1
) -> Iterator[GameResult]:
    """Play ``games`` games; yield each result (in index order within a job's batch)."""
    if jobs <= 1:
        for i in range(games):
            yield play_game(names, decks, seed, i)
        return
    batches = [(names, decks, seed, list(range(j, games, jobs))) for j in range(min(jobs, games))]
    yield from in_processes(_play_many, batches, jobs)


@dataclass
class Tally:
    players: int
    games: int = 0
    wins: list[int] = field(default_factory=list)
    shared: list[int] = field(default_factory=list)
    points: list[int] = field(default_factory=list)
    times: list[list[float]] = field(default_factory=list)

    def __post_init__(self) -> None:
        n = self.players
        self.wins, self.shared, self.points = [0] * n, [0] * n, [0] * n
        self.times = [[] for _ in range(n)]

    def add(self, r: GameResult) -> None:
        self.games += 1
        for b in r.winners:
            self.wins[b] += 1
            self.shared[b] += len(r.winners) > 1
        for b in range(self.players):
            self.points[b] += r.scores[b]
            self.times[b].extend(r.times[b])

    def line(self, label: str, b: int) -> str:
        """One bot's line: wins (shared ones counted, and said), the win rate with a 95%
        interval, its mean score a game, the time of its decisions."""
        lo, hi = wilson(self.wins[b], self.games)
        rate = 100 * self.wins[b] / self.games if self.games else 0.0
        mean = self.points[b] / self.games if self.games else 0.0
        t = self.times[b]
        timing = (
            f"time a decision median {statistics.median(t):.4f} s, p95 {p95(t):.4f} s "
            f"({len(t)} decisions)"
            if t
            else "no decisions"
        )
        return (
            f"{label}: {self.wins[b]} wins ({self.shared[b]} shared) of {self.games} games; "
            f"win rate {rate:.1f}% (95% interval {100 * lo:.1f}-{100 * hi:.1f}%); "
            f"mean score {mean:.1f}; {timing}"
        )


def labels(names: Sequence[str]) -> list[str]:
    """Each bot's name, numbered from the second of a name on: greedy, random, random#2."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return out
