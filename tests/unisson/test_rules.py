"""One named test for each rule and effect of UNISSON.md, in its order."""

from __future__ import annotations

import pytest

from cuttle_net.games.unisson import (
    Game,
    IllegalMove,
    MoveSyntaxError,
    next_dealer,
    parse_move,
)

from .helpers import cards, hand, play, position, range_of

# ------------------------------------------------------------------ table


@pytest.mark.parametrize(("players", "decks"), [(3, 1), (4, 1), (3, 2), (4, 2), (5, 2), (6, 2)])
def test_table_seats_three_to_six_players(players: int, decks: int) -> None:
    g = Game.deal(players, decks, seed=1)
    assert g.players == players and g.decks == decks
    assert sum(g.hand_size(s) for s in range(players)) == 4 * players


@pytest.mark.parametrize("players", [2, 7])
def test_table_refuses_fewer_than_three_or_more_than_six(players: int) -> None:
    with pytest.raises(ValueError, match="3 to 6 players"):
        Game.deal(players, 2)


@pytest.mark.parametrize("players", [5, 6])
def test_five_or_six_players_need_two_decks(players: int) -> None:
    with pytest.raises(ValueError, match="need two decks"):
        Game.deal(players, 1)


def test_two_decks_hold_every_face_twice_and_a_move_names_a_face() -> None:
    g = position(["9H 9H 7C", "8C", "9C", "TC"], decks=2)
    play(g, "discard 9H")
    assert hand(g, 0) == "7C 9H"
    assert range_of(g).split().count("9H") == 1
    play(g, "discard 9H")
    assert hand(g, 0) == "7C" and range_of(g).split().count("9H") == 2


def test_the_deal_gives_four_cards_each_then_four_to_the_range_and_the_rest_is_the_stock() -> None:
    g = Game.deal(4, 1, dealer=3, order=list(range(32)))
    assert [hand(g, s) for s in range(4)] == [
        "7C 8C 9C TC",
        "JC QC KC AC",
        "7D 8D 9D TD",
        "JD QD KD AD",
    ]
    assert range_of(g) == "7H 8H 9H TH"
    assert g.stock_size == 12
    play(g, "draw")  # the stock's top is the next card of the order
    assert "JH" in hand(g, 0)
    six = Game.deal(6, 2, order=list(range(64)))
    assert six.stock_size == 64 - 24 - 4
    assert hand(six, 5) == "JH QH KH AH"  # card ids 20..23


def test_two_copies_of_a_card_id_modulo_32_are_one_face() -> None:
    g = Game.deal(5, 2, order=[*range(32, 64), *range(32)])
    assert hand(g, 0) == "7C 8C 9C TC"


def test_the_player_left_of_the_dealer_starts() -> None:
    assert Game.deal(4, dealer=2, seed=0).to_act == 3
    assert Game.deal(4, dealer=3, seed=0).to_act == 0


def test_the_deal_passes_left_each_game() -> None:
    assert next_dealer(0, 4) == 1
    assert next_dealer(5, 6) == 0


# ------------------------------------------------------------------- actions


def test_draw_takes_the_top_card_of_the_stock() -> None:
    g = position(["7C", "8C", "9C", "TC"], top="AH 7D")
    before = g.stock_size
    play(g, "draw")
    assert hand(g, 0) == "7C AH"
    assert g.stock_size == before - 1
    play(g, "draw")
    assert hand(g, 0) == "7C 7D AH"


def test_draw_is_not_allowed_when_the_stock_is_empty() -> None:
    g = position(["7C", "8C", "9C", "TC"], stock="", last=0, used=1)
    assert parse_move("draw") not in g.legal_moves()
    with pytest.raises(IllegalMove, match="the stock is empty"):
        g.apply("draw")


def test_take_puts_a_range_card_in_hand_and_the_stock_top_replaces_it_face_up() -> None:
    g = position(["7C", "8C", "9C", "TC"], "9S QD", top="JH")
    play(g, "take 9S")
    assert hand(g, 0) == "7C 9S"
    assert range_of(g) == "QD JH"
    assert g.public_hand(0) == cards("9S")  # everyone saw it taken


def test_take_is_not_replaced_when_the_stock_is_empty() -> None:
    g = position(["7C", "8C", "9C", "TC"], "9S", stock="", last=0, used=1)
    before = len(g.range_cards())
    play(g, "take 9S")
    assert len(g.range_cards()) == before - 1


def test_take_needs_the_card_in_the_range() -> None:
    g = position(["7C", "8C", "9C", "TC"], "9S")
    with pytest.raises(IllegalMove, match="not in the range"):
        g.apply("take 9H")


def test_discard_puts_a_card_of_the_hand_face_up_on_the_range() -> None:
    g = position(["7C 9H", "8C", "9C", "TC"])
    play(g, "discard 9H")
    assert hand(g, 0) == "7C" and range_of(g) == "9H"
    with pytest.raises(IllegalMove, match="holds no"):
        g.apply("discard 9H")


def test_meld_is_three_or_more_cards_of_one_suit_in_a_row_ace_high_only() -> None:
    g = position(["9H TH JH QS KS AS 7S", "8C", "9C", "TC"])
    legal = {str(m) for m in g.legal_moves()}
    assert {"meld 9H TH JH", "meld QS KS AS"} <= legal
    assert not any(m.startswith("meld") and "7S" in m for m in legal)  # nothing wraps
    with pytest.raises(MoveSyntaxError, match="not a sequence"):
        parse_move("meld KS AS 7S")
    with pytest.raises(MoveSyntaxError, match="three cards or more"):
        parse_move("meld 9H TH")
    play(g, "meld JH 9H TH")  # any order; written low to high
    assert g.sequences(0) == [tuple(cards("9H TH JH"))]


def test_extend_adds_one_card_at_either_end_of_ones_own_sequence() -> None:
    g = position(["8H QH 8S", "8C", "9C", "TC"], seqs=[["9H-JH"], ["9S-JS"], [], []])
    legal = {str(m) for m in g.legal_moves()}
    assert {"extend 1 8H", "extend 1 QH"} <= legal
    assert not any("8S" in m and m.startswith("extend") for m in legal)  # not seat 1's
    with pytest.raises(IllegalMove, match="1 sequence"):
        g.apply("extend 2 8S")
    with pytest.raises(IllegalMove, match="does not extend"):
        g.apply("extend 1 8S")
    play(g, "extend 1 8H", "extend 1 QH")
    assert g.sequences(0) == [tuple(cards("8H 9H TH JH QH"))]


def test_each_card_added_by_extend_is_one_action() -> None:
    g = position(["8H QH", "8C", "9C", "TC"], seqs=[["9H-JH"], [], [], []])
    play(g, "extend 1 8H")
    assert g.actions_left == 1 and g.to_act == 0
    play(g, "extend 1 QH")
    assert g.to_act == 1 and g.actions_left == 2


def test_a_turn_ends_by_itself_after_its_second_action() -> None:
    g = position(["7C", "8C", "9C", "TC"])
    play(g, "draw")
    assert (g.player, g.actions_left) == (0, 1)
    play(g, "draw")
    assert (g.player, g.turn, g.actions_left) == (1, 2, 2)


def test_a_turn_may_hold_no_action_or_one_and_pass_ends_it() -> None:
    g = position(["7C", "8C", "9C", "TC"])
    play(g, "pass")
    assert g.player == 1
    play(g, "draw", "pass")
    assert g.player == 2 and g.idle == 0


def test_two_melds_in_one_turn_of_any_suits() -> None:
    g = position(["8C 9C TC 8D 9D TD", "8H", "9H", "TH"])
    play(g, "meld 8C 9C TC", "meld 8D 9D TD")
    assert len(g.sequences(0)) == 2 and g.player == 1
    g = position(["8H 9H TH JH QH KH", "8C", "9C", "TC"])
    play(g, "meld 8H 9H TH", "meld JH QH KH")  # the same suit twice is fine too
    assert len(g.sequences(0)) == 2


def test_a_card_discarded_may_be_taken_back_and_a_card_taken_discarded_in_one_turn() -> None:
    g = position(["9H 8C", "8D", "9D", "TD"], "JS")
    play(g, "discard 9H", "take 9H")
    assert "9H" in hand(g, 0) and g.player == 1
    g = position(["8C", "8D", "9D", "TD"], "JS")
    play(g, "take JS", "discard JS")
    assert "JS" in range_of(g) and g.player == 1


# ------------------------------------------------------------------- effects


def test_taking_an_ace_forces_two_discards_and_the_ace_may_be_one() -> None:
    g = position(["9H 8C", "8D", "9D", "TD"], "AS")
    play(g, "take AS")
    assert [tuple(e) for e in g.effects] == [("discard", 0, 2)]
    assert {str(m) for m in g.legal_moves()} == {"discard 8C", "discard 9H", "discard AS"}
    play(g, "discard AS", "discard 9H")
    assert not g.effects and g.actions_left == 1 and g.to_act == 0  # effects are free
    assert hand(g, 0) == "8C"


def test_taking_an_ace_with_fewer_than_two_cards_discards_all() -> None:
    g = position(["-", "8D", "9D", "TD"], "AS")
    play(g, "take AS", "discard AS")
    assert not g.effects and g.hand_size(0) == 0 and g.actions_left == 1


def test_taking_a_seven_lets_the_player_draw_one_card_at_once() -> None:
    g = position(["8C", "8D", "9D", "TD"], "7S", top="QD KD")
    play(g, "take 7S")
    assert [str(m) for m in g.legal_moves()] == ["draw", "stop"]
    play(g, "draw")
    assert hand(g, 0) == "8C KD 7S"
    assert "QD" in range_of(g)  # the replacement came first
    assert not g.effects and g.actions_left == 1
    g = position(["8C", "8D", "9D", "TD"], "7S")
    play(g, "take 7S", "stop")
    assert hand(g, 0) == "8C 7S" and g.actions_left == 1


def test_taking_a_seven_replaces_it_first_so_an_emptied_stock_leaves_nothing_to_draw() -> None:
    g = position(["8C", "8D", "9D", "TD"], "7S", stock="QD")
    play(g, "take 7S")
    assert not g.effects and g.stock_size == 0 and "QD" in range_of(g)
    assert g.last_player == 0


def test_discarding_an_ace_lets_the_player_draw_up_to_two_one_at_a_time() -> None:
    g = position(["AH 8C", "8D", "9D", "TD"])
    play(g, "discard AH")
    assert [tuple(e) for e in g.effects] == [("draw", 0, 2)]
    play(g, "draw")
    assert [tuple(e) for e in g.effects] == [("draw", 0, 1)]
    play(g, "stop")
    assert not g.effects and g.hand_size(0) == 2 and g.actions_left == 1
    g = position(["AH 8C", "8D", "9D", "TD"])
    play(g, "discard AH", "draw", "draw")
    assert not g.effects and g.hand_size(0) == 3


def test_discarding_a_seven_forces_one_more_discard() -> None:
    g = position(["7H 8C 9S", "8D", "9D", "TD"])
    play(g, "discard 7H")
    assert [tuple(e) for e in g.effects] == [("discard", 0, 1)]
    play(g, "discard 9S")
    assert hand(g, 0) == "8C" and g.actions_left == 1
    g = position(["7H", "8D", "9D", "TD"])
    play(g, "discard 7H")  # nothing left to discard: no decision
    assert not g.effects and g.to_act == 0


def test_discards_and_draws_made_as_an_effect_trigger_no_effect() -> None:
    g = position(["7H AS 7C", "8D", "9D", "TD"])
    play(g, "discard 7H", "discard AS")  # an ace discarded by the seven's effect
    assert not g.effects and g.actions_left == 1
    play(g, "discard 7C")  # a seven as an action: its effect again
    assert [tuple(e) for e in g.effects] == []  # nothing left in hand to discard
    g = position(["AH", "8D", "9D", "TD"], top="7S")
    play(g, "discard AH", "draw")  # a seven drawn by an effect does nothing
    assert [tuple(e) for e in g.effects] == [("draw", 0, 1)]


def test_a_meld_holding_an_ace_makes_every_other_player_discard_as_many_in_turn_order() -> None:
    g = position(["QH KH AH 8C", "7D 8D", "9D TD JD QD", "-"])
    play(g, "meld QH KH AH")
    assert [tuple(e) for e in g.effects] == [
        ("discard", 1, 3),
        ("discard", 2, 3),
        ("discard", 3, 3),
    ]
    assert g.to_act == 1
    play(g, "discard 7D", "discard 8D")  # all, having fewer than three
    assert g.to_act == 2
    play(g, "discard 9D", "discard TD", "discard JD")
    assert hand(g, 2) == "QD"
    assert not g.effects and g.to_act == 0 and g.actions_left == 1  # seat 3 had nothing


def test_a_meld_holding_a_seven_lets_every_other_player_draw_up_to_as_many() -> None:
    g = position(["7D 8D 9D", "8C", "9C", "TC"])
    play(g, "meld 7D 8D 9D")
    assert [tuple(e) for e in g.effects] == [("draw", 1, 3), ("draw", 2, 3), ("draw", 3, 3)]
    play(g, "draw", "stop")
    assert g.hand_size(1) == 2 and g.to_act == 2
    play(g, "draw", "draw", "draw")
    assert g.hand_size(2) == 4 and g.to_act == 3
    play(g, "stop")
    assert g.to_act == 0 and g.actions_left == 1


def test_meld_draws_stop_when_the_stock_runs_out_and_the_melder_is_last() -> None:
    g = position(["7D 8D 9D", "8C", "9C", "TC"], stock="QS KS")
    play(g, "meld 7D 8D 9D", "draw", "draw")
    assert g.stock_size == 0 and not g.effects
    assert g.last_player == 0 and g.to_act == 0


def test_extending_a_sequence_never_triggers_the_ace_or_seven_effect() -> None:
    g = position(["AH 7S", "8C", "9C", "TC"], seqs=[["JH-KH", "8S-TS"], [], [], []])
    play(g, "extend 1 AH")
    assert not g.effects
    play(g, "extend 2 7S")
    assert not g.effects and g.player == 1


def test_a_melded_octave_ends_the_game_at_once_and_wins_it() -> None:
    g = position(["7S 8S 9S TS JS QS KS AS", "8C", "9C", "TC"], "9H TH JH QH KH AH")
    play(g, "meld 7S 8S 9S TS JS QS KS AS")
    assert g.is_over and g.outcome.reason == "octave" and g.outcome.seat == 0
    assert not g.effects  # an octave holds an ace and a seven, but has no effect
    totals = [s.total for s in g.scores()]
    assert totals[0] == 8 * 2 + 10 + 6
    assert g.winners() == (0,)


def test_an_octave_completed_by_extension_ends_the_game() -> None:
    g = position(["AS 8C", "8D", "9D", "TD"], seqs=[["7S-KS"], [], [], []])
    play(g, "extend 1 AS")
    assert g.is_over and g.outcome.seat == 0 and g.winners() == (0,)
    assert g.legal_moves() == []
    with pytest.raises(IllegalMove, match="over"):
        g.apply("pass")


def test_the_octave_wins_even_when_another_total_is_higher() -> None:
    g = position(
        ["AS 9H", "8D", "9D", "TD"],
        seqs=[["7S-KS"], ["8C-AC", "8D-AD", "8H-AH"], [], []],
        decks=2,
    )
    play(g, "extend 1 AS")
    totals = [s.total for s in g.scores()]
    assert totals[0] == 8 * 2 and totals[1] == 3 * 7  # the range holds no sequence
    assert g.winners() == (0,)


# --------------------------------------------------------------- last round


def test_an_emptied_stock_makes_the_player_last_and_every_other_plays_once_more() -> None:
    g = position(["8C", "8D", "9D", "TD"], stock="QS", player=1, dealer=0)
    play(g, "draw")
    assert g.last_player == 1 and g.stock_size == 0
    play(g, "discard 8D")
    for seat in (2, 3, 0):
        assert g.player == seat and not g.is_over
        play(g, "pass")
    assert g.is_over and g.outcome.reason == "last-round"


def test_the_stock_emptied_by_another_players_draw_makes_the_player_whose_turn_it_is_last() -> None:
    g = position(["7D 8D 9D", "8C", "9C", "TC"], stock="QS", player=0)
    play(g, "meld 7D 8D 9D", "draw")  # seat 1 draws the last card
    assert g.last_player == 0 and g.to_act == 0
    play(g, "pass", "pass", "pass")
    assert not g.is_over and g.player == 3
    play(g, "pass")
    assert g.is_over and g.scores()[0].last == 5


def test_as_many_empty_turns_in_a_row_as_players_end_the_game() -> None:
    g = position(["8C", "8D", "9D", "TD"])
    play(g, "pass", "pass", "pass")
    assert not g.is_over and g.idle == 3
    play(g, "draw", "pass")  # an action starts the count again
    assert g.idle == 0
    play(g, "pass", "pass", "pass", "pass")
    assert g.is_over and g.outcome.reason == "passes" and g.last_player is None
