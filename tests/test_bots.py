"""Bots play legal moves from their own view only, and greedy is better than chance."""

from __future__ import annotations

import random

import pytest

from cuttle_net.games.cuttle.bots import make_bot
from cuttle_net.games.cuttle.engine import CHANCE, Game
from cuttle_net.games.cuttle.rules import VARIANTS, Rules


def play_match(names: tuple[str, str], seed: int, rules: Rules) -> int | None:
    """One game between two bots, each fed only its own view; the winning seat."""
    g = Game.deal(rules, seed=seed)
    views = [g.view(0), g.view(1)]
    bots = [make_bot(n) for n in names]
    rng = random.Random(seed)
    while not g.is_over:
        seat = g.to_act
        if seat == CHANCE:
            move = rng.choice(g.legal_moves())
        else:
            move = bots[seat].choose(views[seat], rng)
            assert move in views[seat].legal_moves()
        learned = g.play(move)
        for s in (0, 1):
            views[s].apply(move, reveal=learned[s])
    return g.outcome.winner


@pytest.mark.parametrize(
    "rules",
    ["classic", "standard", "classic+" + "+".join(v for v in VARIANTS if v != "nine-frozen")],
)
def test_bots_finish_games_under_every_rule_set(rules: str) -> None:
    for seed in range(10):
        play_match(("greedy", "random"), seed, Rules.parse(rules))


def test_greedy_beats_random_most_of_the_time() -> None:
    greedy_wins = 0
    for seed in range(100):
        seats = ("greedy", "random") if seed % 2 else ("random", "greedy")
        winner = play_match(seats, seed, Rules())
        greedy_wins += winner is not None and seats[winner] == "greedy"
    assert greedy_wins >= 70


def test_unknown_bot_names_list_the_real_ones() -> None:
    with pytest.raises(ValueError, match="bots: random, easy, greedy, medium, hard"):
        make_bot("deep-blue")
