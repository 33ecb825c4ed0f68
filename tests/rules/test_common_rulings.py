"""One scenario (or more) for each ruling common to both rule sets (RULINGS.md 1–20).

Each test runs under classic and standard unless the ruling differs between them.
"""

from __future__ import annotations

import pytest

from cuttle_net.games.cuttle.cards import parse_card
from cuttle_net.games.cuttle.engine import (
    CHANCE,
    COUNTER,
    MAIN,
    OVER,
    PICK,
    SEVEN,
    Game,
    IllegalMove,
)
from cuttle_net.games.cuttle.rules import Rules
from tests.rules.build import cards, moves, play, position

BOTH = pytest.mark.parametrize("rules", ["classic", "standard"])


# 1. Deck and deal -------------------------------------------------------------------


@pytest.mark.parametrize("rules", ["classic", "standard", "classic+joker", "standard+joker"])
def test_deal_gives_dealer_six_and_first_player_five(rules: str) -> None:
    r = Rules.parse(rules)
    g = Game.deal(r, seed=7)
    assert (len(g.hands[0]), len(g.hands[1])) == (5, 6)  # seat 1 deals
    assert g.to_act == 0 and g.phase == MAIN
    assert len(g.deck) == r.deck_size - 11
    every = sorted(g.deck + g.hands[0] + g.hands[1])
    assert every == list(range(r.deck_size))


def test_deal_from_an_explicit_order_puts_top_cards_in_hands() -> None:
    order = list(range(52))
    g = Game.deal(order=order)
    assert g.hands[0] == [0, 1, 2, 3, 4] and g.hands[1] == [5, 6, 7, 8, 9, 10]
    assert g.deck[-1] == 11  # the next card is on top
    with pytest.raises(ValueError, match="each of the 52 cards once"):
        Game.deal(order=order[:-1] + [0])


# 2. Ranks and suits -----------------------------------------------------------------


@BOTH
def test_suit_order_decides_equal_rank_scuttles(rules: str) -> None:
    g = position(rules, hand0="7D", points1="6S,7C,7H", hand1="2C")
    ms = moves(g)
    assert {"scuttle 7D 7C", "scuttle 7D 6S"} <= ms
    assert "scuttle 7D 7H" not in ms
    with pytest.raises(IllegalMove, match="7♦ cannot scuttle 7♥: equal rank needs a higher suit"):
        g.apply("scuttle 7D 7H")
    with pytest.raises(IllegalMove, match="5♣ cannot scuttle 7♥: a scuttle needs a higher rank"):
        position(rules, hand0="5C", points1="7H").apply("scuttle 5C 7H")


@BOTH
def test_royals_score_nothing(rules: str) -> None:
    g = position(rules, points0="TH/JC,3S", perms0="QH,KS", hand1="JD")
    assert g.score(0) == 13  # the jacked ten and the three; the king and queen add nothing
    assert g.score(1) == 0


# 3. One action a turn; pass only on an empty draw pile ---------------------------------


@BOTH
def test_a_turn_is_one_action_then_the_turn_passes(rules: str) -> None:
    g = play(position(rules, hand0="7D,8C", hand1="2C"), "points 7D")
    assert (g.player, g.turn, g.phase) == (1, 2, MAIN)
    with pytest.raises(IllegalMove, match="not seat 0's decision"):
        g.apply("points 8C", by=0)


@BOTH
def test_pass_only_when_draw_pile_empty_and_then_no_draw(rules: str) -> None:
    g = position(rules, hand0="7D", hand1="2C")
    assert "draw" in moves(g) and "pass" not in moves(g)
    with pytest.raises(IllegalMove, match="only when the draw pile is empty"):
        g.apply("pass")
    g = position(rules, hand0="7D", hand1="2C", rest_to="scrap")
    assert "pass" in moves(g) and "draw" not in moves(g)
    with pytest.raises(IllegalMove, match="draw pile is empty: pass instead"):
        g.apply("draw")


# 4. Point cards ---------------------------------------------------------------------


@BOTH
def test_any_ace_to_ten_is_a_point_card(rules: str) -> None:
    g = position(rules, hand0="AC,TD,JS,QS,KS,8H", hand1="2C")
    ms = moves(g)
    assert {"points AC", "points TD", "points 8H"} <= ms
    assert not {"points JS", "points QS", "points KS"} & ms
    play(g, "points TD")
    assert g.points[0] == cards("TD") and g.score(0) == 10
    with pytest.raises(IllegalMove, match="only A–10 are point cards"):
        position(rules, hand0="KS").apply("points KS")


# 5. Scuttle ---------------------------------------------------------------------------


@BOTH
def test_scuttle_scraps_both_cards_and_every_jack_ignoring_queens(rules: str) -> None:
    g = position(rules, hand0="9D", points1="5C/JH/JS/JD", perms1="QS", hand1="2C")
    assert g.controller(cards("5C")[0]) == 1
    play(g, "scuttle 9D 5C")
    assert g.points == [[], []]
    assert sorted(g.scrap) == cards("9D,5C,JH,JS,JD")
    assert g.scrap[-1] == cards("9D")[0]  # the scuttling card lands on top
    assert g.phase == MAIN and g.player == 1  # no counter window: a 2 cannot counter it


# 6. One-offs and the counter chain ------------------------------------------------------


@BOTH
def test_counter_window_opens_even_without_a_two(rules: str) -> None:
    g = play(position(rules, hand0="AS", points1="TH", hand1="3C"), "oneoff AS")
    assert g.phase == COUNTER and g.to_act == 1
    assert moves(g) == {"decline"}
    play(g, "decline")
    assert g.points == [[], []] and g.scrap[-1] == cards("AS")[0]


@BOTH
def test_even_number_of_twos_lets_the_one_off_through(rules: str) -> None:
    g = position(rules, hand0="AS,2D,4C", points1="TH", hand1="2C,5C")
    play(g, "oneoff AS", "counter 2C")
    assert g.to_act == 0 and moves(g) == {"decline", "counter 2D"}
    play(g, "counter 2D")
    assert g.to_act == 1
    play(g, "decline")
    assert g.points == [[], []]  # two 2s: the ace took effect
    assert set(g.scrap[-4:]) == set(cards("AS,2C,2D,TH"))


@BOTH
def test_odd_number_of_twos_cancels_the_one_off(rules: str) -> None:
    g = play(position(rules, hand0="AS,4C", points1="TH", hand1="2C,5C"), "oneoff AS", "counter 2C")
    play(g, "decline")
    assert g.points[1] == cards("TH")
    assert g.scrap[-2:] == cards("2C") + cards("AS")  # the 2 first, the one-off after
    assert g.phase == MAIN and g.player == 1


@BOTH
def test_twos_reach_the_scrap_before_the_effect_so_a_three_can_take_one(rules: str) -> None:
    g = position(rules, hand0="3S,2D,4C", hand1="2C,5C", scrap="TH")
    play(g, "oneoff 3S", "counter 2C", "counter 2D", "decline")
    assert g.phase == PICK and g.to_act == 0
    assert moves(g) == {"pick 2C", "pick 2D", "pick TH"}  # never the 3 itself
    play(g, "pick 2C")
    assert cards("2C")[0] in g.hands[0] and g.scrap[-1] == cards("3S")[0]


@BOTH
def test_a_seven_reaches_the_scrap_before_its_reveal(rules: str) -> None:
    g = play(position(rules, hand0="7C", hand1="9H", deck="5D,6D"), "oneoff 7C", "decline")
    assert g.phase == SEVEN and g.scrap[-1] == cards("7C")[0]


@BOTH
def test_only_one_offs_open_a_counter_window(rules: str) -> None:
    base = dict(hand0="7D,KS,JC", points1="5C", hand1="2C,3C")
    for move in ("points 7D", "scuttle 7D 5C", "permanent KS", "jack JC 5C"):
        g = play(position(rules, **base), move)
        assert g.phase == MAIN and g.player == 1, move


@BOTH
def test_no_window_when_the_player_controls_a_queen(rules: str) -> None:
    g = play(position(rules, hand0="AS", perms0="QH", points1="TH", hand1="2C"), "oneoff AS")
    assert g.phase == MAIN and g.points == [[], []]


@BOTH
def test_no_window_when_the_opponent_holds_no_card(rules: str) -> None:
    g = play(position(rules, hand0="AS", points1="TH"), "oneoff AS")
    assert g.phase == MAIN and g.points == [[], []]


@BOTH
def test_a_queen_holders_counter_cannot_be_countered(rules: str) -> None:
    g = position(rules, hand0="AS,2D", points1="TH", perms1="QC", hand1="2C")
    play(g, "oneoff AS", "counter 2C")
    assert g.phase == MAIN  # seat 0 was not asked: the chain resolved at once
    assert g.points[1] == cards("TH")


# 7. A one-off must change something -------------------------------------------------------


@BOTH
@pytest.mark.parametrize(
    ("hand", "extra", "move", "reason"),
    [
        ("AS", {}, "oneoff AS", "an ace needs at least one point card"),
        ("2S", {}, "oneoff 2S", "needs a target"),
        ("9S", {}, "oneoff 9S", "needs a target"),
        ("3S", {"scrap": ""}, "oneoff 3S", "a 3 needs a card in the scrap"),
        ("6S", {}, "oneoff 6S", "a 6 needs at least one permanent"),
        ("5S", {"rest_to": "scrap"}, "oneoff 5S", "a 5 needs a card in the draw pile"),
        ("7S", {"rest_to": "scrap"}, "oneoff 7S", "a 7 needs a card in the draw pile"),
    ],
)
def test_one_off_needs_something_to_change(
    rules: str, hand: str, extra: dict, move: str, reason: str
) -> None:
    g = position(rules, hand0=hand, hand1="4C", **extra)
    assert not any(m.startswith("oneoff") for m in moves(g))
    with pytest.raises(IllegalMove, match=reason):
        g.apply(move)


def test_classic_four_needs_the_opponent_to_hold_a_card() -> None:
    g = position("classic", hand0="4S,5C")
    assert "oneoff 4S" not in moves(g)
    with pytest.raises(IllegalMove, match="a 4 needs your opponent to hold at least one card"):
        g.apply("oneoff 4S")
    assert "oneoff 4S" in moves(position("classic", hand0="4S,5C", hand1="6C"))


# 8. Queen protection -----------------------------------------------------------------------


@BOTH
def test_queen_shields_point_cards_from_jacks(rules: str) -> None:
    g = position(rules, hand0="JC", points1="9H", perms1="QD", hand1="2C")
    assert not any(m.startswith("jack") for m in moves(g))
    with pytest.raises(IllegalMove, match="protected by your opponent's queen"):
        g.apply("jack JC 9H")


@BOTH
def test_queen_shields_other_permanents_but_not_itself_from_twos_and_nines(rules: str) -> None:
    g = position(rules, hand0="2S*,9S*", perms1="8C,QD,KH", points1="5H/JD", hand1="3C")
    ms = moves(g)
    assert {"oneoff 2S QD", "oneoff 9S QD"} <= ms
    assert not {"oneoff 2S KH", "oneoff 2S 8C", "oneoff 2S JD", "oneoff 9S KH"} & ms
    with pytest.raises(IllegalMove, match="K♥ is protected by your opponent's queen"):
        g.apply("oneoff 2S KH")


@BOTH
def test_two_queens_do_not_protect_each_other(rules: str) -> None:
    g = position(rules, hand0="2S", perms1="QD,QH", hand1="3C")
    assert {"oneoff 2S QD", "oneoff 2S QH"} <= moves(g)


@BOTH
def test_queens_do_not_stop_aces_sixes_fours_or_scuttles(rules: str) -> None:
    g = position(rules, hand0="AS,6S,4S,9D", perms1="QD,KH", points1="5H", hand1="3C")
    assert {"oneoff AS", "oneoff 6S", "oneoff 4S", "scuttle 9D 5H"} <= moves(g)


@BOTH
def test_own_queen_does_not_stop_own_effects(rules: str) -> None:
    g = position(rules, hand0="2S,9S", perms0="QD,KH", hand1="3C")
    assert {"oneoff 2S KH", "oneoff 9S KH", "oneoff 2S QD"} <= moves(g)


# 9. Jacks ----------------------------------------------------------------------------------


@BOTH
def test_each_jack_passes_control_and_only_the_top_jack_is_a_target(rules: str) -> None:
    g = position(rules, hand0="JC,2S", points1="9H", hand1="JD,3C")
    play(g, "jack JC 9H")
    assert g.points == [cards("9H"), []] and g.score(0) == 9
    play(g, "jack JD 9H")
    assert g.points == [[], cards("9H")] and g.owner(cards("9H")[0]) == 1
    g2 = g.copy()
    assert "oneoff 2S JD" in moves(g2) and "oneoff 2S JC" not in moves(g2)
    with pytest.raises(IllegalMove, match="only the top jack"):
        g2.apply("oneoff 2S JC")
    play(g2, "oneoff 2S JD", "decline")
    assert g2.points == [cards("9H"), []]  # removing a jack passes control back


@BOTH
def test_voluntary_jack_only_on_an_opponents_point_card(rules: str) -> None:
    g = position(rules, hand0="JC", points0="9H", hand1="3C")
    assert not any(m.startswith("jack") for m in moves(g))
    with pytest.raises(IllegalMove, match="your opponent controls"):
        g.apply("jack JC 9H")


@BOTH
def test_six_scraps_every_jack_and_returns_point_cards_to_who_played_them(rules: str) -> None:
    g = position(rules, hand0="6S", points0="9H/JC", points1="4D/JS/JH,7C/JD", hand1="3C")
    assert g.owner(cards("9H")[0]) == 1 and g.owner(cards("7C")[0]) == 0
    play(g, "oneoff 6S", "decline")
    assert g.points == [cards("7C"), cards("4D,9H")]  # 4D had two jacks: it stays
    assert not g.jacks


@BOTH
def test_nine_returns_a_jack_to_its_controller_and_passes_the_card_back(rules: str) -> None:
    g = position(rules, hand0="9S", points1="8H/JD", hand1="3C")
    play(g, "oneoff 9S JD", "decline")
    assert cards("JD")[0] in g.hands[1] and g.points == [cards("8H"), []]


# 10–16. The effects --------------------------------------------------------------------------


@BOTH
def test_two_scraps_a_permanent_on_either_side(rules: str) -> None:
    g = position(rules, hand0="2S*", perms0="KD", perms1="8C", hand1="3C")
    assert {"oneoff 2S KD", "oneoff 2S 8C"} <= moves(g)
    play(g, "oneoff 2S 8C", "decline")
    assert g.perms == [cards("KD"), []] and g.scrap[-2:] == cards("8C") + cards("2S")


@BOTH
def test_four_discards_two_of_the_victims_choice_or_one(rules: str) -> None:
    g = play(position(rules, hand0="4S", hand1="3C,5C,9H"), "oneoff 4S", "decline")
    assert g.to_act == 1
    assert moves(g) == {"discard 3C 5C", "discard 3C 9H", "discard 5C 9H"}
    with pytest.raises(IllegalMove, match="discard 2 card"):
        g.apply("discard 3C")
    play(g, "discard 3C 9H")
    assert g.hands[1] == cards("5C") and g.scrap[-1] == cards("4S")[0]
    g = play(position(rules, hand0="4S", hand1="3C"), "oneoff 4S", "decline")
    assert moves(g) == {"discard 3C"}


@BOTH
def test_five_draws_two_or_the_last_one(rules: str) -> None:
    g = play(position(rules, hand0="5S", hand1="3C", deck="AD,2D,3D"), "oneoff 5S", "decline")
    assert g.hands[0] == cards("AD,2D")
    g = position(rules, hand0="5S", hand1="3C", deck="AD", rest_to="scrap")
    play(g, "oneoff 5S", "decline")
    assert g.hands[0] == cards("AD") and not g.deck


@BOTH
def test_six_scraps_every_permanent_on_both_sides(rules: str) -> None:
    g = position(rules, hand0="6S", perms0="8H,KD", perms1="QC,KS", hand1="3C*")
    play(g, "oneoff 6S", "decline")
    assert g.perms == [[], []] and set(cards("8H,KD,QC,KS")) <= set(g.scrap)


@BOTH
def test_glasses_expose_the_opponents_hand_including_later_draws(rules: str) -> None:
    g = position(rules, hand0="8S", hand1="3C,4C", deck="9D")
    view = g.view(0)
    assert view.hidden[1] == 2
    d = g.play("permanent 8S")
    assert set(d.seat0) == set(cards("3C,4C")) and d.seat1 == ()
    view.apply("permanent 8S", reveal=d.seat0)
    assert view.hands[1] == cards("3C,4C") and view.hidden[1] == 0
    d = g.play("draw")
    assert d.seat0 == d.seat1 == tuple(cards("9D"))  # seat 0 sees seat 1's draw too
    view.apply("draw", reveal=d.seat0)
    assert view.hands[1] == cards("3C,4C,9D")


@BOTH
def test_both_players_may_wear_glasses(rules: str) -> None:
    g = position(rules, hand0="8S,3D", hand1="8C,3C")
    play(g, "permanent 8S", "permanent 8C")
    assert g.has_glasses(0) and g.has_glasses(1)
    assert g.view(0).hands[1] == cards("3C") and g.view(1).hands[0] == cards("3D")


@BOTH
def test_nine_returns_a_permanent_to_its_controllers_hand(rules: str) -> None:
    g = position(rules, hand0="9S", perms1="KH", hand1="3C")
    play(g, "oneoff 9S KH", "decline")
    assert g.hands[1] == cards("3C,KH") and g.perms[1] == []
    assert cards("KH")[0] in g.known[1]  # both players saw it go back


# 17. Winning -------------------------------------------------------------------------------


@BOTH
def test_goal_is_checked_after_the_action_resolves(rules: str) -> None:
    g = position(rules, hand0="AS", points0="TD,9C", points1="5H", hand1="2C")
    play(g, "oneoff AS")
    assert g.phase == COUNTER  # not yet: the chain is still open
    play(g, "decline")
    assert g.phase == MAIN and g.score(0) == 0
    g = play(position(rules, hand0="2D", points0="TD,9C", hand1="3C"), "points 2D")
    assert g.phase == OVER and g.outcome == (0, "goal")


@BOTH
def test_the_actor_is_checked_before_the_opponent(rules: str) -> None:
    # No action can bring both seats to their goals, so build the state by hand: seat 1
    # already stands on its goal; seat 0 reaches its own.
    g = position(rules, hand0="2D", points0="TD,9C", points1="TS,TH", hand1="3C")
    g.deck.remove(parse_card("AC"))
    g.points[1].insert(0, parse_card("AC"))
    g = play(g, "points 2D")
    assert g.outcome == (0, "goal")


@BOTH
def test_the_opponent_wins_when_an_action_gives_them_the_goal(rules: str) -> None:
    # A 7 reveals a jack; seat 1's point cards are under a queen, so the jack must go on
    # seat 0's own ten, which gives seat 1 its goal.
    g = position(
        rules, hand0="7S", points0="TD", points1="TH,AC", perms1="QC", hand1="3C", deck="JC,JD"
    )
    play(g, "oneoff 7S", "decline")
    assert {m for m in moves(g) if m.startswith("jack JC")} == {"jack JC TD"}
    play(g, "jack JC TD")
    assert g.outcome == (1, "goal")


# 18. Empty draw pile ------------------------------------------------------------------------


@BOTH
def test_three_passes_in_a_row_draw_the_game(rules: str) -> None:
    g = position(rules, hand0="3D", hand1="3C", rest_to="scrap")
    play(g, "pass", "pass")
    assert g.passes == 2 and g.phase == MAIN
    play(g, "pass")
    assert g.outcome == (None, "passes")


@BOTH
def test_any_other_action_resets_the_pass_count(rules: str) -> None:
    g = position(rules, hand0="3D,4D", hand1="3C", rest_to="scrap")
    play(g, "pass", "pass", "points 3D")
    assert g.passes == 0
    play(g, "pass", "pass")
    assert g.phase == MAIN


# 20. Conceding and draw offers ------------------------------------------------------------


@BOTH
def test_either_player_may_concede_at_any_time(rules: str) -> None:
    g = play(position(rules, hand0="AS", points1="TH", hand1="2C"), "oneoff AS")
    assert g.to_act == 1
    g.apply("concede", by=0)  # not seat 0's decision, but conceding is always allowed
    assert g.outcome == (1, "concede")
    with pytest.raises(IllegalMove, match="the game is over"):
        g.apply("decline")


@BOTH
def test_draw_offer_accepted_or_refused_once_a_turn(rules: str) -> None:
    g = position(rules, hand0="3D", hand1="3C")
    assert "offer-draw" not in moves(g)  # meta move: always available, never listed
    play(g, "offer-draw")
    assert g.to_act == 1 and moves(g) == {"accept-draw", "refuse-draw"}
    play(g, "refuse-draw")
    assert g.to_act == 0 and g.phase == MAIN and g.offered
    with pytest.raises(IllegalMove, match="once a turn"):
        g.apply("offer-draw")
    play(g, "points 3D", "offer-draw", "accept-draw")
    assert g.outcome == (None, "agreed")


def test_chance_is_never_a_seat() -> None:
    assert CHANCE not in (0, 1)
