"""Perft regression counts: leaf nodes of the legal-move tree (every decision a ply, effect
answers included) from fixed positions.  A change to move generation or to the effects shows
here first."""

from __future__ import annotations

import pytest

from cuttle_net.games.unisson import parse_position
from cuttle_net.games.unisson.playout import perft

# Depth 1 of the first, by hand: draw, 4 takes, 4 discards, 3 melds of 7C-TC, pass.
CASES = [
    (
        "unisson 4 1 3 1 0 0 main 0 - JH,QH,KH,AH,7S,8S,9S,TS,JS,QS,KS,AS 7H,8H,9H,TH "
        "7C,8C,9C,TC JC,QC,KC,AC 7D,8D,9D,TD JD,QD,KD,AD",
        [13, 117, 1213, 12179],
    ),
    (
        "unisson 6 2 0 1 1 0 main 0 - TD,9D,KH,9C,9D,QH,TH,7S,8C,AC,AD,8D,8S,JD,7H,QS,9H,QD,JD,"
        "KD,TC,7H,7S,7C,8S,JC,KS,7D,AS,KC,9S,AH,7D,9C,QC,KS AD,TH,9S,JS 8C,QC,QH,QS 8D,8H,JH,TS "
        "7C,KC,8H,AH TC,AC,JS,AS JC,TD,9H,JH QD,KD,KH,TS",
        [10, 99, 972, 8753],
    ),
]


@pytest.mark.parametrize(("text", "counts"), CASES)
def test_perft_counts(text: str, counts: list[int]) -> None:
    g = parse_position(text)
    assert [perft(g, d) for d in range(1, len(counts) + 1)] == counts
