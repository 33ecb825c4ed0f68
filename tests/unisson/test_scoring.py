"""Scoring (UNISSON.md "Scoring" and "Winning"): the seed's worked examples and each part."""

from __future__ import annotations

import pytest

from cuttle_net.games.unisson import match_totals, parse_position, sequences_in

from .helpers import cards, play, position


def _mask(text: str) -> tuple[int, int]:
    lo = hi = 0
    for f in cards(text):
        b = 1 << f
        if lo & b:
            hi |= b
        else:
            lo |= b
    return lo, hi


def test_worked_example_melds_of_three_four_and_an_octave_score_thirty() -> None:
    g = position(
        ["JH", "8H", "9H", "TH"],
        seqs=[["7C-9C", "7D-TD", "7S-AS"], [], [], []],
        phase="over:octave:0",
        used=1,
    )
    s = g.scores()[0]
    assert s.melded == (3 + 4 + 8) * 2 == 30
    assert s.total == 30


def test_worked_example_a_tierce_melded_with_a_quinte_and_an_octave_in_hand_is_minus_23() -> None:
    g = position(
        ["7D 8D 9D TD JD 7H 8H 9H TH JH QH KH AH", "8S", "9S", "TS"], seqs=[["7C-9C"], [], [], []]
    )
    s = g.scores()[0]
    assert (s.melded, s.hand) == (3, -(5 + 8) * 2)
    assert s.total == 3 - (5 + 8) * 2 == -23


def test_worked_example_the_unisson_of_four_players_scores_76_50_55_50() -> None:
    # Seat 0 melded the spade octave and emptied its hand; the others hold an octave each;
    # seat 2 is the last player (the stock ran out in its turn).
    text = (
        "unisson 4 1 3 5 0 1 over:octave:0 0 2 - - "
        "-/7S-AS 7C,8C,9C,TC,JC,QC,KC,AC 7D,8D,9D,TD,JD,QD,KD,AD 7H,8H,9H,TH,JH,QH,KH,AH"
    )
    g = parse_position(text)
    assert [s.total for s in g.scores()] == [76, 50, 55, 50]
    s0 = g.scores()[0]
    assert (s0.melded, s0.empty, s0.unisson) == (16, 10, 50)
    assert g.winners() == (0,)


def test_hand_sequences_take_the_longest_run_then_the_longest_of_what_remains() -> None:
    assert sequences_in(*_mask("7H 8H 9H TH JH 9H TH JH")) == [5, 3]  # two decks
    assert sequences_in(*_mask("7H 8H 9H JH QH KH AH")) == [3, 4]
    assert sequences_in(*_mask("7H 8H TH JH")) == []
    assert sequences_in(*_mask("9S TS JS QS KS AS 7S 8S 9S TS JS")) == [8, 3]


def test_a_held_octave_doubles_the_hand_part_once_even_with_two() -> None:
    g = position(["7H 8H 9H TH JH QH KH AH 7H 8H 9H TH JH QH KH AH", "8S", "9S", "TS"], decks=2)
    assert g.scores()[0].hand == -(8 + 8) * 2


def test_a_melded_octave_doubles_the_melded_part() -> None:
    g = position(
        ["9H", "8H", "TH", "JH"],
        seqs=[["7S-AS", "7C-9C"], [], [], []],
        phase="over:octave:0",
        used=1,
    )
    assert g.scores()[0].melded == (8 + 3) * 2


def test_an_empty_hand_scores_ten_and_the_last_player_five() -> None:
    g = position(["-", "8H", "9C", "TD"], stock="", last=1, player=1, used=1, dealer=0)
    scores = g.scores()
    assert (scores[0].empty, scores[0].last) == (10, 0)
    assert (scores[1].empty, scores[1].last) == (0, 5)


def test_the_last_players_bonus_is_kept_when_an_octave_then_ends_the_last_round() -> None:
    g = position(
        ["AS", "8H", "9C", "TD"], seqs=[["7S-KS"], [], [], []], stock="", last=3, player=0, dealer=3
    )
    play(g, "extend 1 AS")
    assert g.outcome.reason == "octave"
    assert g.scores()[3].last == 5 and g.scores()[0].empty == 10


def test_the_ranges_sequences_add_to_every_total_undoubled() -> None:
    g = position(["-", "8H", "9C", "TD"], "9S TS JS QS 7D 8D 9D")
    assert [s.range for s in g.scores()] == [7, 7, 7, 7]
    g = position(["AS", "8H", "9C", "TD"], "7D 8D 9D", seqs=[["7S-KS"], [], [], []])
    play(g, "extend 1 AS")
    s = g.scores()[0]
    assert s.range == 3 and s.total == 16 + 10 + 3  # an octave doubles only the melds


def test_at_an_unisson_held_octaves_cost_nothing_but_other_hand_sequences_still_cost() -> None:
    # Six players, two decks: seat 0 melded an octave; each other seat holds one, and
    # seat 1 also holds a tierce.
    hands = [
        "8C",
        "7C 8C 9C TC JC QC KC AC 7S 8S 9S",
        "7D 8D 9D TD JD QD KD AD",
        "7H 8H 9H TH JH QH KH AH",
        "7D 8D 9D TD JD QD KD AD",
        "7H 8H 9H TH JH QH KH AH",
    ]
    g = position(
        hands, seqs=[["7S-AS"], [], [], [], [], []], decks=2, phase="over:octave:0", used=1
    )
    scores = g.scores()
    assert all(s.unisson == 50 for s in scores)
    assert scores[1].hand == -3 and scores[2].hand == 0
    assert scores[0].total == 16 + 50 + scores[0].range


def test_no_unisson_when_one_player_has_no_octave() -> None:
    hands = ["9H", "7C 8C 9C TC JC QC KC AC", "7D 8D 9D TD JD QD KD AD", "7H"]
    g = position(hands, seqs=[["7S-AS"], [], [], []], phase="over:octave:0", used=1)
    scores = g.scores()
    assert all(s.unisson == 0 for s in scores)
    assert scores[1].hand == -16


def test_without_an_octave_the_highest_total_wins_and_equal_totals_share() -> None:
    g = position(["8C", "9D TD JD", "8H", "8S"], stock="", last=3, player=2, dealer=3, idle=2)
    play(g, "pass")
    assert g.outcome.reason == "last-round"
    totals = [s.total for s in g.scores()]
    assert totals[1] == min(totals)
    assert g.winners() == tuple(s for s in range(4) if totals[s] == max(totals))
    assert g.winners() == (3,)  # the last player's 5
    g = position(["8C", "8D", "8H", "8S"], idle=3)
    play(g, "pass")
    assert g.outcome.reason == "passes" and g.winners() == (0, 1, 2, 3)


def test_match_totals_add_up_game_by_game() -> None:
    assert match_totals([[30, -23, 5], [76, 50, 55]]) == [106, 27, 60]
    assert match_totals([]) == []
    with pytest.raises(ValueError, match="same seats"):
        match_totals([[1, 2, 3], [1, 2]])
