"""Scenarios for what differs between classic and standard, and for each variant switch."""

from __future__ import annotations

import pytest

from cuttle_net.games.cuttle.engine import (
    BLOCK,
    CHANCE,
    DISCARD,
    MAIN,
    OVER,
    SEVEN,
    Game,
    IllegalMove,
)
from cuttle_net.games.cuttle.rules import Rules
from tests.rules.build import cards, moves, play, position

# Kings ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rules", "goals"), [("classic", (21, 14, 10, 7, 5)), ("standard", (21, 14, 10, 5, 0))]
)
def test_goal_by_number_of_kings(rules: str, goals: tuple[int, ...]) -> None:
    kings = ["", "KC", "KC,KD", "KC,KD,KH", "KC,KD,KH,KS"]
    for n, goal in enumerate(goals):
        over = "over:0:goal" if goal == 0 else "main"  # 0: the fourth king has already won
        assert position(rules, perms0=kings[n], hand0="3C", phase=over).goal(0) == goal


def test_standard_fourth_king_wins_at_once() -> None:
    g = play(position("standard", hand0="KS", perms0="KC,KD,KH", hand1="3C"), "permanent KS")
    assert g.outcome == (0, "goal")
    g = play(position("classic", hand0="KS", perms0="KC,KD,KH", hand1="3C"), "permanent KS")
    assert g.phase == MAIN  # classic still needs 5 points


# Hand limit -------------------------------------------------------------------------------


def test_standard_hand_limit_forbids_drawing_at_eight() -> None:
    eight = "AC,AD,AH,AS,3C,3D,3H,3S"
    g = position("standard", hand0=eight, hand1="4C")
    assert "draw" not in moves(g)
    with pytest.raises(IllegalMove, match=r"hand is full \(8 cards\)"):
        g.apply("draw")
    assert "draw" in moves(position("classic", hand0=eight, hand1="4C"))


def test_standard_five_draws_only_up_to_eight_and_needs_room_for_one() -> None:
    seven = "AC,AD,AH,AS,3C,3D,5S"  # seven cards with the 5: six after it, room for two
    g = play(position("standard", hand0=seven, hand1="4C", deck="6C,6D"), "oneoff 5S", "decline")
    assert len(g.hands[0]) == 8
    eight = "AC,AD,AH,AS,3C,3D,3H,5S"  # seven after the 5: room for one
    g = play(position("standard", hand0=eight, hand1="4C", deck="6C,6D"), "oneoff 5S", "decline")
    assert len(g.hands[0]) == 8 and g.hands[0][-1] != cards("6D")[0]
    nine = "AC,AD,AH,AS,3C,3D,3H,3S,5S"  # eight after the 5: no room
    g = position("standard", hand0=nine, hand1="4C")
    assert "oneoff 5S" not in moves(g)
    with pytest.raises(IllegalMove, match="must draw at least one card"):
        g.apply("oneoff 5S")


def test_standard_three_and_nine_may_take_a_hand_past_eight() -> None:
    eight = "AC,AD,AH,AS,2C,2D,2H,3S"
    g = play(position("standard", hand0=eight, hand1="4C", scrap="TH"), "oneoff 3S", "decline")
    play(g, "pick TH")
    assert len(g.hands[0]) == 8  # eight, minus the 3, plus the ten
    g = position("standard", hand0="9S", hand1="AC,AD,AH,AS,2C,2D,2H,4S", perms1="KH")
    play(g, "oneoff 9S KH", "decline")
    assert len(g.hands[1]) == 9


# The 7 ---------------------------------------------------------------------------------------


def test_classic_seven_reveals_one_card_that_must_be_played() -> None:
    g = play(position(hand0="7S,9D", hand1="3C", deck="5H,6H"), "oneoff 7S", "decline")
    assert g.phase == SEVEN and g.revealed == cards("5H")
    assert moves(g) == {"points 5H", "oneoff 5H"}
    with pytest.raises(IllegalMove, match="must play the revealed card"):
        g.apply("points 9D")
    play(g, "points 5H")
    assert g.points[0] == cards("5H") and g.player == 1


def test_classic_seven_scraps_a_card_with_no_legal_play() -> None:
    g = play(position(hand0="7S", hand1="3C", deck="JH,6H"), "oneoff 7S", "decline")
    assert moves(g) == {"scrap JH"}
    play(g, "scrap JH")
    assert g.scrap[-1] == cards("JH")[0] and g.phase == MAIN


@pytest.mark.parametrize(
    ("extra", "targets"),
    [
        ({"points0": "4D", "points1": "5C"}, {"jack JH 5C"}),  # an opponent's card if any
        ({"points0": "4D"}, {"jack JH 4D"}),  # else one of your own
        ({"points0": "4D", "points1": "5C", "perms1": "QS"}, {"jack JH 4D"}),  # queen: own
    ],
)
def test_classic_seven_jack_goes_on_your_own_card_only_when_it_must(
    extra: dict, targets: set[str]
) -> None:
    g = play(position(hand0="7S", hand1="3C", deck="JH", **extra), "oneoff 7S", "decline")
    assert moves(g) == targets


def test_standard_seven_reveals_two_and_the_other_goes_back_face_up() -> None:
    g = play(position("standard", hand0="7S", hand1="3C", deck="5H,KD,9C"), "oneoff 7S", "decline")
    assert g.revealed == cards("5H") + cards("KD")
    assert {"points 5H", "permanent KD"} <= moves(g)
    play(g, "permanent KD")
    assert g.deck[-1] == cards("5H")[0] and g.deck_known == 1
    assert cards("5H")[0] in g.view(1).deck  # known to both
    play(g, "draw")  # seat 1 draws the face-up card: seat 0 knows it is there
    assert cards("5H")[0] in g.view(0).hands[1]


def test_standard_seven_with_one_card_left_reveals_it() -> None:
    g = position("standard", hand0="7S", hand1="3C", deck="5H", rest_to="scrap")
    play(g, "oneoff 7S", "decline")
    assert g.revealed == cards("5H")


def test_standard_unchosen_card_returns_before_the_play_so_a_five_draws_it() -> None:
    g = position("standard", hand0="7S", hand1="3C", deck="5H,KD", rest_to="scrap")
    play(g, "oneoff 7S", "decline", "oneoff 5H", "decline")
    assert cards("KD")[0] in g.hands[0] and not g.deck


def test_standard_neither_playable_scrap_one_of_your_choice() -> None:
    g = play(position("standard", hand0="7S", hand1="3C", deck="JH,JD,4C"), "oneoff 7S", "decline")
    assert moves(g) == {"scrap JH", "scrap JD"}
    play(g, "scrap JD")
    assert g.deck[-1] == cards("JH")[0] and g.deck_known == 1 and g.scrap[-1] == cards("JD")[0]


# The 9 ----------------------------------------------------------------------------------------


def test_classic_nine_returned_card_may_be_replayed_at_once() -> None:
    g = play(position(hand0="9S", perms1="KH", hand1="3C"), "oneoff 9S KH", "decline")
    assert "permanent KH" in moves(g) and not g.frozen


def test_standard_nine_freezes_the_card_for_its_owners_next_turn() -> None:
    g = play(
        position("standard", hand0="9S,3D", perms1="KH", hand1="3C"), "oneoff 9S KH", "decline"
    )
    assert g.is_frozen(cards("KH")[0]) and "permanent KH" not in moves(g)
    with pytest.raises(IllegalMove, match="frozen"):
        g.apply("permanent KH")
    play(g, "points 3C", "points 3D")
    assert "permanent KH" in moves(g)


def test_standard_nine_on_your_own_card_freezes_it_until_after_the_opponents_turn() -> None:
    g = position("standard", hand0="9S,3D,4D", perms0="KH", hand1="3C,4C")
    play(g, "oneoff 9S KH", "decline", "points 3C")
    assert "permanent KH" not in moves(g)  # seat 0's next turn
    play(g, "points 3D", "points 4C")
    assert "permanent KH" in moves(g)


def test_frozen_card_discarded_to_a_four() -> None:
    g = position("standard", hand0="4D", hand1="3C,KH*", frozen="KH@2")
    play(g, "oneoff 4D", "decline")
    assert moves(g) == {"discard 3C KH"}
    play(g, "discard 3C KH")
    assert not g.frozen


# The 4 ---------------------------------------------------------------------------------------


def test_standard_four_may_be_played_at_an_empty_hand_and_does_nothing() -> None:
    g = position("standard", hand0="4S,5C")
    assert "oneoff 4S" in moves(g)
    play(g, "oneoff 4S")
    assert g.phase == MAIN and g.player == 1 and g.scrap[-1] == cards("4S")[0]


# Variants -----------------------------------------------------------------------------------


@pytest.mark.parametrize("base", ["classic", "standard"])
def test_random_fours_lets_chance_choose_the_discards(base: str) -> None:
    g = play(position(f"{base}+random-fours", hand0="4S", hand1="3C,5C,9H"), "oneoff 4S", "decline")
    assert g.phase == DISCARD and g.to_act == CHANCE
    assert len(moves(g)) == 3
    with pytest.raises(IllegalMove, match="not seat 1's decision"):
        g.apply("discard 3C 5C", by=1)
    g.apply("discard 3C 5C")  # made by chance (in play: a joint random draw)
    assert g.hands[1] == cards("9H")


def test_eight_one_off_scraps_the_opponents_glasses() -> None:
    g = position("classic+eight-one-off", hand0="8S*", perms1="8C", perms0="8D", hand1="3C*")
    assert "oneoff 8S 8C" in moves(g) and "oneoff 8S 8D" not in moves(g)
    play(g, "oneoff 8S 8C", "decline")
    assert g.perms == [cards("8D"), []] and g.scrap[-2:] == cards("8C") + cards("8S")
    assert "oneoff 8S 8C" not in moves(position("classic", hand0="8S*", perms1="8C"))
    guarded = position("classic+eight-one-off", hand0="8S*", perms1="8C,QH", hand1="3C")
    assert "oneoff 8S 8C" not in moves(guarded)  # a queen shields glasses from the 8 too


def test_nine_frozen_targets_only_the_opponent_and_freezes() -> None:
    g = position("classic+nine-frozen", hand0="9S,3D", perms0="KD", perms1="KH", hand1="3C")
    assert "oneoff 9S KH" in moves(g) and "oneoff 9S KD" not in moves(g)
    with pytest.raises(IllegalMove, match="only your opponent's permanents"):
        g.apply("oneoff 9S KD")
    play(g, "oneoff 9S KH", "decline")
    assert "permanent KH" not in moves(g)


def test_nine_to_deck_puts_the_permanent_on_top_known_to_both() -> None:
    g = position("classic+nine-to-deck", hand0="9S", points0="6H/JD", hand1="3C", rest_to="scrap")
    assert "oneoff 9S JD" in moves(g)
    play(g, "oneoff 9S JD", "decline")
    assert g.deck == cards("JD") and g.deck_known == 1
    assert g.points == [[], cards("6H")]  # the jack left: the six went home
    d = g.play("draw")
    assert d == ((), ())  # nobody learns anything new
    assert cards("JD")[0] in g.known[1]


def test_nine_variants_cannot_be_combined() -> None:
    with pytest.raises(ValueError, match="cannot be combined"):
        Rules.parse("classic+nine-frozen+nine-to-deck")


def test_ten_blocks_a_scuttle() -> None:
    g = position("classic+ten-blocks-scuttle", hand0="9D", points1="5C", hand1="TH,3C")
    play(g, "scuttle 9D 5C")
    assert g.phase == BLOCK and g.to_act == 1 and moves(g) == {"decline", "block TH"}
    play(g, "block TH")
    assert g.points[1] == cards("5C") and set(g.scrap[-2:]) == set(cards("TH,9D"))
    g = position("classic+ten-blocks-scuttle", hand0="9D", points1="5C", hand1="3C")
    play(g, "scuttle 9D 5C")
    assert g.phase == BLOCK and moves(g) == {"decline"}  # asked even without a ten
    play(g, "decline")
    assert g.points[1] == []
    g = position("classic+ten-blocks-scuttle", hand0="9D", points1="5C")
    play(g, "scuttle 9D 5C")
    assert g.phase == MAIN and g.points[1] == []  # an empty hand cannot block


def test_queens_protect_queens() -> None:
    two = position("classic+queens-protect-queens", hand0="2S", perms1="QD,QH", hand1="3C")
    assert not any(m.startswith("oneoff 2S") for m in moves(two))
    one = position("classic+queens-protect-queens", hand0="2S", perms1="QD,KH", hand1="3C")
    assert moves(one) >= {"oneoff 2S QD"} and "oneoff 2S KH" not in moves(one)


@pytest.mark.parametrize("base", ["classic", "standard"])
def test_joker_swaps_hands_and_both_then_know_both(base: str) -> None:
    r = Rules.parse(f"{base}+joker")
    assert r.deck_size == 53 and len(Game.deal(r, seed=1).deck) == 42
    g = position(f"{base}+joker", hand0="JK,3D", hand1="3C,4C")
    view = g.view(0)
    assert "oneoff JK" in moves(g)
    play(g, "oneoff JK")
    d = g.play("decline")
    assert g.hands == [cards("3C,4C"), cards("3D")]
    # Each player sees the hand it receives; each already knew the one it gave.
    assert set(d.seat0) == set(cards("3C,4C")) and d.seat1 == tuple(cards("3D"))
    view.apply("oneoff JK")
    view.apply("decline", reveal=d.seat0)
    assert view.hands == g.hands and view.hidden == [0, 0]


def test_joker_illegal_when_both_hands_would_be_empty() -> None:
    g = position("classic+joker", hand0="JK")
    assert "oneoff JK" not in moves(g)
    with pytest.raises(IllegalMove, match="both hands would be empty"):
        g.apply("oneoff JK")


def test_game_over_has_no_moves() -> None:
    g = play(position(hand0="2D", points0="TD,9C", hand1="3C"), "points 2D")
    assert g.phase == OVER and g.legal_moves() == []
