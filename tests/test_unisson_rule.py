"""QuickGreedy, the fast copy of greedy's rule the search models seats by: the same move as
``GreedyBot`` in every kind of position (seat views and full games, effects, the end), the
random generator drawn the same, and blind to what the seat to act cannot see."""

from __future__ import annotations

import random

import pytest

from cuttle_net.games.unisson import Game
from cuttle_net.games.unisson.bots import GreedyBot
from cuttle_net.games.unisson.rule import QuickGreedy
from cuttle_net.games.unisson.search import sample_world

TABLES = [(3, 1), (4, 1), (4, 2), (5, 2), (6, 2)]


def positions(players: int, decks: int, seed: int) -> list[Game]:
    """Each decision of a game of greedy seats with one move in five random (so aces,
    sevens, effects and odd hands turn up), as the full game."""
    g = Game.deal(players=players, decks=decks, seed=seed)
    rng = random.Random(seed)
    greedy = GreedyBot()
    out = []
    while not g.is_over:
        out.append(g.copy())
        if rng.random() < 0.2:
            g.push(rng.choice(g.legal_moves()))
        else:
            g.push(greedy.choose(g.view(g.to_act), rng))
    return out


@pytest.mark.parametrize(("players", "decks"), TABLES)
def test_quick_greedy_makes_greedys_move_everywhere(players: int, decks: int) -> None:
    greedy, quick = GreedyBot(), QuickGreedy()
    checked = 0
    for seed in range(4):
        for i, g in enumerate(positions(players, decks, seed)):
            view = g.view(g.to_act)
            for pos in (view, sample_world(view, random.Random(i)), g):
                a, b = random.Random(i), random.Random(i)
                assert quick.choose(pos, b) == greedy.choose(pos, a)
                assert a.random() == b.random()  # the generator drawn alike
                checked += 1
    assert checked > 300


def test_quick_greedy_reads_only_what_its_seat_sees() -> None:
    quick = QuickGreedy()
    for seed in range(3):
        for i, g in enumerate(positions(6, 2, seed)[::3]):
            view = g.view(g.to_act)
            # Another world the seat cannot tell from this one: the same move.
            other = sample_world(view, random.Random(1000 + i))
            assert quick.choose(g, random.Random(i)) == quick.choose(other, random.Random(i))


def test_the_search_decides_the_same_with_either_copy_of_the_rule() -> None:
    # hard at 3 players moved from GreedyBot to QuickGreedy as its model: the same moves.
    from cuttle_net.games.unisson.search import SearchBot

    def bot(rule: object) -> SearchBot:
        return SearchBot("m", 600, model=6, flat=True, greedy_cand=True, rule=rule)  # type: ignore[arg-type]

    slow, quick = bot(GreedyBot()), bot(QuickGreedy())
    for players, decks in ((3, 1), (6, 2)):
        for g in positions(players, decks, 5)[::7]:
            view = g.view(g.to_act)
            assert quick.choose(view, random.Random(3)) == slow.choose(view, random.Random(3))
