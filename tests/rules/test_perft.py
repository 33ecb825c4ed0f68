"""Perft counts from fixed positions, kept as regressions of move generation."""

from __future__ import annotations

import subprocess
import sys

import pytest

from cuttle_net.games.cuttle.engine import Game
from cuttle_net.games.cuttle.playout import perft
from cuttle_net.games.cuttle.position import parse_position
from cuttle_net.games.cuttle.rules import Rules

MID_CLASSIC = (
    "classic 9 0 seven:6H 0 2S,QD,7S,AD,JH,5C,AC,7H,9D,TC,KH,6S,6C,4H,JD,7D,AH,2D,3D,5S,QS,2H,"
    "JS,TS,JC,8H,QH,3S,4C,TD,9C,KS,8D,KD,9S,8C 2C*,4D*,4S*,QC* AS,3H*,9H,KC 6D - - 8S "
    "7C,3C,TH,5D,5H -"
)
MID_STANDARD = (
    "standard 16 1 main 0 7D,JC,2S,9C,7S,TC,QC,4C,JD,6D,5C,AH,TS,5H,AD,2H,KC,8S,3H,QS,8C,QD,JS,"
    "9S,4H,TH,8D,KH,KS,6S,AC,7C,3D,6H,KD,9D,JH,5D,8H TD* 4S 7H 9H - QH 3S,3C,6C,2C,2D,5S,AS,4D -"
)


@pytest.mark.parametrize(
    ("rules", "counts"),
    [
        ("classic", [6, 71, 442, 4699, 27768]),
        ("standard", [6, 71, 442, 4698, 27758]),
        ("classic+joker+random-fours+ten-blocks-scuttle", [8, 74, 490, 3737, 23564]),
    ],
)
def test_perft_from_a_seeded_deal(rules: str, counts: list[int]) -> None:
    g = Game.deal(Rules.parse(rules), seed=1)
    assert [perft(g, d) for d in range(1, len(counts) + 1)] == counts


@pytest.mark.parametrize(
    ("text", "counts"), [(MID_CLASSIC, [2, 11, 76, 444]), (MID_STANDARD, [3, 8, 20, 43])]
)
def test_perft_from_mid_game_positions(text: str, counts: list[int]) -> None:
    g = parse_position(text)
    assert [perft(g, d) for d in range(1, len(counts) + 1)] == counts
    assert perft(g, 0) == 1


def test_perft_on_the_command_line() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "cuttle_client", "rules", "perft", MID_CLASSIC, "3"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.strip() == "76"
