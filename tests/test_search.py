"""The search bot: legal under every rule set, deterministic, and it never peeks."""

from __future__ import annotations

import random
import re

import pytest
from cuttle_client.cli import main

from cuttle_net.games.cuttle.arena import play_game, wilson
from cuttle_net.games.cuttle.bots import BOTS, make_bot
from cuttle_net.games.cuttle.cards import RANK_OF
from cuttle_net.games.cuttle.engine import CHANCE, MAIN, OFFER, UNKNOWN, Game
from cuttle_net.games.cuttle.moves import OFFER_DRAW
from cuttle_net.games.cuttle.position import format_position, parse_position
from cuttle_net.games.cuttle.rules import VARIANTS, Rules
from cuttle_net.games.cuttle.search import SearchBot, sample_world

ALL_VARIANTS = "classic+" + "+".join(v for v in VARIANTS if v != "nine-frozen")
RULE_SETS = ["classic", "standard", ALL_VARIANTS, "standard+nine-frozen+random-fours+joker"]


def small_bot() -> SearchBot:
    return SearchBot("small", iterations=40)


def state(g: Game) -> dict[str, object]:
    """Everything a game object holds, for comparing two views."""
    return {name: getattr(g, name) for name in Game.__slots__ if not name.startswith("_")}


def decision_points(rules: Rules, seed: int) -> list[tuple[Game, int]]:
    """(full game, seat to decide) at each decision with a choice in a random game."""
    g = Game.deal(rules, seed=seed)
    rng = random.Random(seed)
    out = []
    while not g.is_over:
        seat = g.to_act
        moves = g.legal_moves()
        if seat != CHANCE and len(moves) > 1:
            out.append((g.copy(), seat))
        g.push(rng.choice(moves))
    return out


@pytest.mark.parametrize("rules", RULE_SETS)
def test_search_bot_plays_legal_moves_and_answers_draw_offers(rules: str) -> None:
    r = Rules.parse(rules)
    offers = 0
    for seed in range(3):
        g = Game.deal(r, seed=seed)
        views = [g.view(0), g.view(1)]
        bots = [small_bot(), make_bot("random")] if seed % 2 else [make_bot("random"), small_bot()]
        rng = random.Random(seed)
        while not g.is_over:
            seat = g.to_act
            if seat == CHANCE:
                move = rng.choice(g.legal_moves())
            elif isinstance(bots[seat], SearchBot) or g.phase != MAIN or g.offered:
                move = bots[seat].choose(views[seat].copy(), rng)
                assert move in views[seat].legal_moves()
            else:  # the random side offers a draw now and then: the bot must answer
                move = OFFER_DRAW if rng.random() < 0.2 else rng.choice(g.legal_moves())
                offers += move == OFFER_DRAW
            learned = g.play(move)
            for s in (0, 1):
                views[s].apply(move, reveal=learned[s])
            if g.phase == OFFER:
                assert isinstance(bots[g.to_act], SearchBot)
    assert offers > 0


def test_a_bot_refuses_the_full_game() -> None:
    g = Game.deal(Rules(), seed=1)
    with pytest.raises(ValueError, match="view"):
        small_bot().choose(g, random.Random(0))
    with pytest.raises(ValueError, match="view"):
        sample_world(g, random.Random(0))


@pytest.mark.parametrize("rules", RULE_SETS)
def test_sampled_worlds_keep_every_card_the_seat_has_seen(rules: str) -> None:
    r = Rules.parse(rules)
    for seed in range(4):
        for g, seat in decision_points(r, seed)[::3]:
            view = g.view(seat)
            o = 1 - seat
            unseen = view.unseen()
            for k in range(3):
                w = sample_world(view, random.Random(k))
                parse_position(format_position(w))  # a full game: every card exactly once
                assert w.viewer == -1 and w.hidden == [0, 0]
                assert w.hands[seat] == view.hands[seat]
                assert set(view.hands[o]) <= set(w.hands[o])
                assert set(w.hands[o]) - set(view.hands[o]) <= unseen
                for a, b in zip(view.deck, w.deck, strict=True):
                    assert b == a if a != UNKNOWN else b in unseen
                for name in ("points", "perms", "jacks", "scrap", "chain", "revealed", "known"):
                    assert getattr(w, name) == getattr(view, name), name
                assert w.view(seat).hands == view.hands  # and it looks the same from the seat


@pytest.mark.parametrize("rules", RULE_SETS)
def test_changing_the_hidden_cards_changes_nothing_the_bot_knows_or_does(rules: str) -> None:
    r = Rules.parse(rules)
    bot = small_bot()
    differed = 0
    for seed in range(3):
        for g, seat in decision_points(r, seed)[::4]:
            # Another deal of the cards this seat cannot see, consistent with its view.
            other = sample_world(g.view(seat), random.Random(seed))
            differed += state(other) != state(g)
            assert state(other.view(seat)) == state(g.view(seat))
            assert bot.choose(g.view(seat), random.Random(seed)) == bot.choose(
                other.view(seat), random.Random(seed)
            )
    assert differed > 0  # the hidden cards really were dealt differently


def test_reading_the_opponent_changes_nothing_the_hidden_cards_would() -> None:
    """``hard`` also reads the opponent's play (``observe``): shown the same history of its
    seat's views, it decides the same whatever the hidden cards are."""
    checked = 0
    for seed in range(2):
        g = Game.deal(Rules(), seed=seed)
        rng = random.Random(seed)
        history: list[tuple[Game, object]] = []
        while not g.is_over and len(history) < 40:
            seat, moves = g.to_act, g.legal_moves()
            if seat != CHANCE and len(moves) > 1 and len(history) % 4 == 3:
                other = sample_world(g.view(seat), random.Random(seed + 7))
                picks = []
                for world in (g, other):
                    bot = SearchBot(
                        "small",
                        iterations=40,
                        infer=1.0,
                        sight=0.3,
                        glasses=0.2,
                        caution=0.3,
                        takes_wins=0.9,
                        steals=8,
                    )
                    for before, move in history:
                        bot.observe(before.view(seat), move)  # type: ignore[arg-type]
                    picks.append(bot.choose(world.view(seat), random.Random(seed)))
                    assert bot._beliefs is not None  # it did read the play
                assert picks[0] == picks[1]
                checked += 1
            move = rng.choice(moves)
            history.append((g.copy(), move))
            g.push(move)
    assert checked >= 4


def test_a_bonus_for_sight_puts_glasses_down_while_the_other_hand_is_hidden() -> None:
    """``sight`` rewards putting glasses down now (the search cannot value seeing): with it
    the bot opens with its 8 as glasses, without it with its queen."""
    g = Game.deal(Rules(), seed=0)
    while g.to_act == CHANCE:
        g.push(g.legal_moves()[0])
    view = g.view(g.to_act)

    def opening(sight: float) -> set[tuple[str, int]]:
        bot = SearchBot("small", iterations=300, sight=sight)
        picks = (bot.choose(view.copy(), random.Random(k)) for k in range(3))
        return {(m.kind.name, RANK_OF[m.card]) for m in picks}

    assert opening(0.0) == {("PERMANENT", 12)}
    assert opening(0.5) == {("PERMANENT", 8)}


def test_decisions_are_deterministic_for_a_seed() -> None:
    g, seat = decision_points(Rules.parse("standard"), 5)[6]
    bot = small_bot()
    first = [bot.choose(g.view(seat), random.Random(s)) for s in range(5)]
    again = [bot.choose(g.view(seat), random.Random(s)) for s in range(5)]
    assert first == again
    a = play_game(("medium", "greedy"), Rules(), seed=4, index=1)
    b = play_game(("medium", "greedy"), Rules(), seed=4, index=1)
    assert a.winner == b.winner and len(a.times[0]) == len(b.times[0]) > 0


def test_levels_are_named() -> None:
    for name in ("easy", "medium", "hard", "greedy", "random"):
        assert make_bot(name).name == name
    assert list(BOTS) == ["random", "easy", "greedy", "medium", "hard"]  # weakest first


def arena(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    code = main(["arena", *args])
    out, err = capsys.readouterr()
    return code, out.splitlines() or [err]


LINE = re.compile(
    r"(\S+): (\d+) wins, (\d+) draws of (\d+) games; win rate [\d.]+% "
    r"\(95% interval [\d.]+-[\d.]+%\); time a decision median [\d.]+ s, p95 [\d.]+ s"
)


def test_arena_prints_a_line_per_bot_and_the_same_results_in_parallel(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, lines = arena(capsys, "greedy", "random", "--games", "8", "--seed", "3")
    assert code == 0 and len(lines) == 2
    found = [LINE.match(line) for line in lines]
    assert all(found), lines
    assert [m[1] for m in found] == ["greedy", "random"]  # type: ignore[index]
    wins = [int(m[2]) for m in found]  # type: ignore[index]
    assert wins[0] + wins[1] + int(found[0][3]) == 8  # type: ignore[index]
    _, parallel = arena(capsys, "greedy", "random", "--games", "8", "--seed", "3", "--jobs", "2")
    strip = [line.split("; time")[0] for line in lines]
    assert [line.split("; time")[0] for line in parallel] == strip


def test_arena_rejects_unknown_bots_and_bad_counts(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = arena(capsys, "hard", "deep-blue")
    assert code == 2 and "no bot called 'deep-blue'" in lines[0]
    code, lines = arena(capsys, "hard", "easy", "--games", "0")
    assert code == 2 and "--games" in lines[0]


def test_wilson_interval() -> None:
    lo, hi = wilson(85, 100)
    assert 0.76 < lo < 0.77 and 0.90 < hi < 0.92
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0
