"""Bot against bot: many games, seats alternating, each bot fed only its own view.

Games come in pairs on the same deal with the seats swapped, so luck of the deal cancels
out.  Game ``i`` depends only on the seed and ``i`` (its deal, the chance picks and each
bot's random generator), so a match gives the same results however it is split between
processes.  Times are each decision's CPU time (``time.process_time``), counted only
for decisions with more than one legal move.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from ...jobs import in_processes
from ...stats import p95, wilson
from .bots import make_bot
from .engine import CHANCE, Game
from .rules import Rules


@dataclass
class GameResult:
    index: int
    winner: int | None  # which bot (0: the first named, 1: the second) or None for a draw
    times: tuple[list[float], list[float]]  # CPU seconds of each bot's real decisions


def _game_seed(seed: int, index: int) -> int:
    return random.Random(f"cuttle-arena {seed} {index}").getrandbits(63)


def play_game(
    names: tuple[str, str],
    rules: Rules,
    seed: int,
    index: int,
    truth: Callable[[Game], None] | None = None,
) -> GameResult:
    """Game ``index`` of a match: bot 0 sits at seat ``index % 2``; pairs share a deal.

    ``truth``, for experiments that measure what hidden information is worth (never for
    play), is shown the full game before every bot decision.
    """
    deal_seed = _game_seed(seed, index // 2)
    rng_seed = _game_seed(seed, index)
    g = Game.deal(rules, seed=deal_seed)
    views = [g.view(0), g.view(1)]
    seat_of = (index % 2, 1 - index % 2)  # seat_of[bot]
    bot_at = {seat_of[b]: b for b in (0, 1)}
    bots = [make_bot(n) for n in names]
    rngs = [random.Random(rng_seed * 2 + b) for b in (0, 1)]
    chance = random.Random(rng_seed)
    times: tuple[list[float], list[float]] = ([], [])
    while not g.is_over:
        seat = g.to_act
        if seat == CHANCE:
            move = chance.choice(g.legal_moves())
        else:
            b = bot_at[seat]
            view = views[seat]
            forced = len(view.legal_moves()) == 1
            if truth is not None:
                truth(g)
            start = time.process_time()
            move = bots[b].choose(view.copy(), rngs[b])
            if not forced:
                times[b].append(time.process_time() - start)
        for b in (0, 1):  # a bot that reads the opponent's play is shown every move
            observe = getattr(bots[b], "observe", None)
            if observe is not None:
                observe(views[seat_of[b]], move)
        learned = g.play(move)
        for s in (0, 1):
            views[s].apply(move, reveal=learned[s])
    winner = g.outcome.winner  # type: ignore[union-attr]
    return GameResult(index, None if winner is None else bot_at[winner], times)


def _play_many(names: tuple[str, str], rules: Rules, seed: int, indices: list[int]) -> list:
    return [play_game(names, rules, seed, i) for i in indices]


def play_match(
    names: tuple[str, str], rules: Rules, games: int, seed: int, jobs: int = 1
) -> Iterator[GameResult]:
    """Play ``games`` games; yield each result (in index order within a job's batch)."""
    if jobs <= 1:
        for i in range(games):
            yield play_game(names, rules, seed, i)
        return
    batches = [(names, rules, seed, list(range(j, games, jobs))) for j in range(min(jobs, games))]
    yield from in_processes(_play_many, batches, jobs)


@dataclass
class Tally:
    games: int = 0
    wins: list[int] = field(default_factory=lambda: [0, 0])
    draws: int = 0
    times: tuple[list[float], list[float]] = field(default_factory=lambda: ([], []))

    def add(self, r: GameResult) -> None:
        self.games += 1
        if r.winner is None:
            self.draws += 1
        else:
            self.wins[r.winner] += 1
        for b in (0, 1):
            self.times[b].extend(r.times[b])

    def line(self, names: tuple[str, str], b: int) -> str:
        """One bot's line: its name, wins, draws, win rate with a 95% interval, times."""
        lo, hi = wilson(self.wins[b], self.games)
        rate = 100 * self.wins[b] / self.games if self.games else 0.0
        t = self.times[b]
        timing = (
            f"time a decision median {statistics.median(t):.3f} s, p95 {p95(t):.3f} s "
            f"({len(t)} decisions)"
            if t
            else "no decisions"
        )
        return (
            f"{names[b]}: {self.wins[b]} wins, {self.draws} draws of {self.games} games; "
            f"win rate {rate:.1f}% (95% interval {100 * lo:.1f}-{100 * hi:.1f}%); {timing}"
        )
