"""Moves in words: ``describe`` reads the position before the move, views included."""

from __future__ import annotations

import random

import pytest

from cuttle_net.games.cuttle.describe import describe
from cuttle_net.games.cuttle.engine import OVER, Game
from cuttle_net.games.cuttle.moves import parse_move
from cuttle_net.games.cuttle.rules import STANDARD
from tests.rules.build import position


def test_scuttle_names_both_cards_and_the_victim() -> None:
    g = position(hand0="9H", points1="4C", hand1="2C")
    assert describe(parse_move("scuttle 9H 4C"), g) == "seat 0 scuttles seat 1's 4♣ with 9♥"


def test_you_are_addressed_in_the_second_person() -> None:
    g = position(hand0="9H", points1="4C", hand1="2C")
    text = describe(parse_move("scuttle 9H 4C"), g, names=("Ann", "Bot"), you=0, ascii=True)
    assert text == "you scuttle Bot's 4C with 9H"
    assert describe(parse_move("pass"), g, you=0).startswith("you pass ")


@pytest.mark.parametrize(
    ("move", "words"),
    [
        ("draw", "seat 0 draws a card"),
        ("points 9H", "seat 0 plays 9♥ for 9 points"),
        ("oneoff 9H QS", "seat 0 plays 9♥ as a one-off to return seat 1's Q♠ to their hand"),
        ("permanent KD", "seat 0 plays K♦ as a king: their goal is now 14"),
        ("jack JH 4C", "seat 0 puts J♥ on seat 1's 4♣ and takes it"),
        ("oneoff AC", "seat 0 plays A♣ as a one-off to scrap every point card"),
        ("offer-draw", "seat 0 offers a draw"),
    ],
)
def test_main_moves(move: str, words: str) -> None:
    g = position(hand0="9H,KD,JH,AC", points1="4C", hand1="2C", perms1="QS")
    assert describe(parse_move(move), g) == words


def test_a_counter_names_what_it_counters() -> None:
    g = position(hand0="4D", hand1="2C,5S")
    g.apply("oneoff 4D")
    assert describe(parse_move("counter 2C"), g) == "seat 1 counters 4♦ with 2♣"
    assert describe(parse_move("decline"), g) == "seat 1 lets 4♦ take effect"


@pytest.mark.parametrize("rules", [None, STANDARD])
def test_every_move_of_random_games_is_described_from_both_views(rules: object) -> None:
    rng = random.Random(3)
    for seed in range(15):
        g = Game.deal(seed=seed) if rules is None else Game.deal(STANDARD, seed=seed)
        while g.phase != OVER:
            m = rng.choice(g.legal_moves())
            for seat in (0, 1):
                assert describe(m, g.view(seat), you=seat)
            assert describe(m, g)
            g.play(m)
