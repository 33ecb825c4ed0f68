"""L'Unisson's planning bots (medium, hard): legal moves in every kind of position,
deterministic from a seed, and blind to what their seat cannot see."""

from __future__ import annotations

import random

import pytest

from cuttle_net.games.unisson import Game
from cuttle_net.games.unisson.arena import play_game
from cuttle_net.games.unisson.bots import BOTS, make_bot
from cuttle_net.games.unisson.cards import parse_face
from cuttle_net.games.unisson.motions import UNKNOWN
from cuttle_net.games.unisson.moves import parse_move
from cuttle_net.games.unisson.position import parse_position, position_text
from cuttle_net.games.unisson.search import (
    SearchBot,
    candidates,
    sample_world,
    unseen_faces,
)
from tests.test_unisson_bots import position

TABLES = [(3, 1), (4, 1), (4, 2), (5, 2), (6, 2)]


def small_bot() -> SearchBot:
    return SearchBot("small", budget=400)


def state(g: Game) -> dict[str, object]:
    """Everything a game object holds, for comparing two views."""
    return {name: getattr(g, name) for name in Game.__slots__ if not name.startswith("_")}


def decision_points(players: int, decks: int, seed: int) -> list[tuple[Game, int]]:
    """(full game, seat to decide) at each decision with a choice in a random game: turn
    actions and answers to effects alike."""
    g = Game.deal(players=players, decks=decks, seed=seed)
    rng = random.Random(seed)
    out = []
    while not g.is_over:
        moves = g.legal_moves()
        if len(moves) > 1:
            out.append((g.copy(), g.to_act))
        g.push(rng.choice(moves))
    return out


@pytest.mark.parametrize(("players", "decks"), TABLES)
def test_search_bot_decides_legally_in_random_positions(players: int, decks: int) -> None:
    bot = small_bot()
    effects = 0
    for seed in range(3):
        for g, seat in decision_points(players, decks, seed)[::3]:
            view = g.view(seat)
            effects += bool(view.effects)
            move = bot.choose(view.copy(), random.Random(seed))
            assert move in view.legal_moves()
            g.apply(move)  # the full game agrees
    assert effects > 0  # answers to effects were asked too


@pytest.mark.parametrize(("players", "decks"), [(3, 1), (6, 2)])
def test_search_bots_play_whole_games_from_their_views(players: int, decks: int) -> None:
    g = Game.deal(players=players, decks=decks, seed=11)
    bots = [small_bot() if s % 2 == 0 else make_bot("greedy") for s in range(players)]
    rng = random.Random(11)
    while not g.is_over:
        seat = g.to_act
        view = g.view(seat)
        move = bots[seat].choose(view, rng)
        assert move in view.legal_moves()
        g.apply(move)
    assert g.winners()


@pytest.mark.parametrize(("players", "decks"), TABLES)
def test_sampled_worlds_keep_every_card_the_seat_has_seen(players: int, decks: int) -> None:
    for seed in range(3):
        for g, seat in decision_points(players, decks, seed)[::3]:
            view = g.view(seat)
            unseen = sorted(unseen_faces(view))
            assert len(unseen) == sum(view.hidden) + len(view.stock)
            for k in range(3):
                w = sample_world(view, random.Random(k))
                parse_position(position_text(w))  # a full game: every card exactly once
                assert w.hidden == [0] * players and UNKNOWN not in w.stock
                assert state(w.view(seat)) == state(view)  # it looks the same from the seat
                dealt = list(w.stock)
                for s in range(players):
                    held = w.hand(s)
                    for f in view.hand(s):
                        held.remove(f)
                    dealt += held
                assert sorted(dealt) == unseen  # only faces the seat has not seen were dealt


@pytest.mark.parametrize(("players", "decks"), TABLES)
def test_changing_the_hidden_cards_changes_nothing_the_bot_knows_or_does(
    players: int, decks: int
) -> None:
    bot = small_bot()
    differed = 0
    for seed in range(2):
        for g, seat in decision_points(players, decks, seed)[::5]:
            # Another deal of the cards this seat cannot see, consistent with its view.
            other = sample_world(g.view(seat), random.Random(seed + 1000))
            differed += state(other) != state(g)
            assert state(other.view(seat)) == state(g.view(seat))
            assert bot.choose(g.view(seat), random.Random(seed)) == bot.choose(
                other.view(seat), random.Random(seed)
            )
    assert differed > 0  # the hidden cards really were dealt differently


def test_a_bot_refuses_the_full_game_and_another_seats_turn() -> None:
    g = Game.deal(players=4, seed=1)
    with pytest.raises(ValueError, match="view"):
        small_bot().choose(g, random.Random(0))
    with pytest.raises(ValueError, match="view"):
        sample_world(g, random.Random(0))
    with pytest.raises(ValueError, match="its seat is to act"):
        small_bot().choose(g.view((g.to_act + 1) % 4), random.Random(0))


def test_decisions_are_deterministic_for_a_seed() -> None:
    points = decision_points(4, 1, 5)
    bot = small_bot()
    for g, seat in points[::8]:
        first = [bot.choose(g.view(seat), random.Random(s)) for s in range(3)]
        again = [bot.choose(g.view(seat), random.Random(s)) for s in range(3)]
        assert first == again
    a = play_game(["medium", "greedy", "greedy"], 1, seed=4, index=1)
    b = play_game(["medium", "greedy", "greedy"], 1, seed=4, index=1)
    assert (a.winners, a.scores) == (b.winners, b.scores) and len(a.times[0]) > 0


def test_the_search_completes_an_octave_and_melds_a_run_within_its_turn() -> None:
    g = position("AS,8D", "7S-KS", "9D,JC,QD,AC")
    assert str(small_bot().choose(g.view(1), random.Random(0))) == "extend 1 AS"
    for seed in range(3):
        g = position("9H,TH,JH,KC", "", "8D,JS,QD,AC")
        while g.to_act == 1:
            g.apply(SearchBot("x", 8000).choose(g.view(1), random.Random(seed)))
        assert g.sequences(1) == [tuple(parse_face(w) for w in ("9H", "TH", "JH"))]


def test_the_search_tries_the_moves_the_policy_likes_best() -> None:
    g = position("9H,TH,JH,KC", "", "8D,JS,QD,AC")
    moves = g.legal_moves()
    assert len(moves) > 6
    best = candidates(g.view(1), moves, 6)
    assert len(best) == 6 and set(best) <= set(moves)
    assert parse_move("meld 9H TH JH") in best and parse_move("discard TH") not in best
    assert candidates(g.view(1), moves, 0) == moves


def test_levels_are_named_and_listed_weakest_first() -> None:
    assert list(BOTS) == ["random", "easy", "greedy", "medium", "hard"]  # weakest first
    for name in BOTS:
        assert make_bot(name).name == name
    assert make_bot("hard").budget > make_bot("medium").budget  # type: ignore[attr-defined]
