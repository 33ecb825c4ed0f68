"""Beliefs about the opponent's hidden cards: read from its play, never from its hand."""

from __future__ import annotations

import random

import pytest

from cuttle_net.games.cuttle.arena import play_game
from cuttle_net.games.cuttle.belief import Beliefs
from cuttle_net.games.cuttle.bots import BOTS
from cuttle_net.games.cuttle.cards import RANK_OF, card
from cuttle_net.games.cuttle.engine import Game
from cuttle_net.games.cuttle.moves import parse_move
from cuttle_net.games.cuttle.position import format_position, parse_position
from cuttle_net.games.cuttle.rules import Rules
from cuttle_net.games.cuttle.search import SearchBot, sample_world

from .test_search import RULE_SETS


def _weight_of(b: Beliefs, has: object) -> float:
    return sum(w for w, g in zip(b.weights, b.guesses, strict=True) if has(g)) / sum(b.weights)


def _before_a_three_is_played(owner: int, points: list[int], seed: int):
    """Seat 1's view at turn 7, seat `owner` with `points` on the table; seat 0 holds the
    3♥ among five cards (it plays it as points next), the rest dealt at random."""
    g = Game.empty(Rules())
    g.points[owner] = points
    rest = [c for c in range(52) if c not in points]
    random.Random(seed).shuffle(rest)
    rest.remove(card(3, 2))
    g.hands[0], g.hands[1] = sorted([card(3, 2), *rest[:4]]), sorted(rest[4:9])
    g.deck = rest[9:]
    g.turn = 7
    return g.view(1)


def test_an_opponent_who_does_not_win_when_it_could_is_believed_not_to_hold_the_winner() -> None:
    # Seat 0 has 15 points and plays 3 more: a sensible player holding a 6 to 10 would
    # have played it and won.
    view = _before_a_three_is_played(0, [card(9, 0), card(6, 0)], seed=4)
    b = Beliefs(view, random.Random(1), particles=1000)

    def winner(hand: list[int]) -> bool:
        return any(6 <= RANK_OF[c] <= 10 for c in hand)

    b.sensible = 0.95  # it has played sensibly so far
    before = _weight_of(b, winner)
    b.observe(view, parse_move("points 3H"))
    after = _weight_of(b, winner)
    assert before > 0.8
    assert after / (1 - after) < before / (1 - before) / 5  # the odds fall fivefold or more


def test_beliefs_that_the_opponent_takes_its_wins_read_a_missed_win_from_any_player() -> None:
    """``takes_wins`` reads the missed win even when the mixture takes the opponent for a
    random player (as it does a searcher: `medium`); without it the odds barely move."""
    view = _before_a_three_is_played(0, [card(9, 0), card(6, 0)], seed=4)

    def winner(hand: list[int]) -> bool:
        return any(6 <= RANK_OF[c] <= 10 for c in hand)

    def odds_ratio(takes_wins: float) -> float:
        b = Beliefs(view, random.Random(1), particles=1000, takes_wins=takes_wins)
        b.sensible = 0.05  # it has played like a random player so far
        before = _weight_of(b, winner)
        b.observe(view, parse_move("points 3H"))
        after = _weight_of(b, winner)
        return (after / (1 - after)) / (before / (1 - before))

    assert odds_ratio(0.9) < 0.2  # the odds fall fivefold or more
    assert odds_ratio(0.0) > 0.5


def test_with_steals_an_opponent_who_leaves_a_big_point_card_alone_holds_no_jack() -> None:
    """``steals``: a jack's steal of a card of that rank or more counts as a win it takes."""
    view = _before_a_three_is_played(1, [card(10, 0)], seed=5)

    def jack(hand: list[int]) -> bool:
        return any(RANK_OF[c] == 11 for c in hand)

    def odds_ratio(steals: int) -> float:
        b = Beliefs(view, random.Random(1), particles=1000, takes_wins=0.9, steals=steals)
        b.sensible = 0.05
        before = _weight_of(b, jack)
        b.observe(view, parse_move("points 3H"))
        after = _weight_of(b, jack)
        return (after / (1 - after)) / (before / (1 - before))

    assert odds_ratio(8) < 0.2
    assert odds_ratio(0) > 0.5  # a steal that does not win says nothing without it


class Checked(SearchBot):
    """A bot with inference that checks its beliefs at every decision."""

    checks = 0

    def _believe(self, view: Game):  # type: ignore[no-untyped-def]
        b = super()._believe(view)
        assert b is not None
        unseen = view.unseen()
        o = 1 - view.viewer
        for guess in b.guesses:
            assert len(guess) == view.hidden[o] and set(guess) <= unseen
            if guess:
                w = sample_world(view, random.Random(0), sorted(unseen), guess)
                parse_position(format_position(w))  # a full game: every card exactly once
                assert set(guess) <= set(w.hands[o])
                assert w.view(view.viewer).hands == view.hands
        Checked.checks += 1
        return b


@pytest.mark.parametrize("rules", RULE_SETS)
def test_beliefs_only_ever_hold_cards_the_seat_has_not_seen(
    rules: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(BOTS, "checked", lambda: Checked("checked", 30, infer=0.7))
    Checked.checks = 0
    for i in range(4):
        play_game(("checked", "greedy" if i % 2 else "random"), Rules.parse(rules), 2, i)
    assert Checked.checks > 4
