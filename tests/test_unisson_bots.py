"""L'Unisson bots play legal moves from their own view only, greedy beats chance, and the
N-bot arena is deterministic by seed (however it is split between processes)."""

from __future__ import annotations

import random
import re

import pytest
from cuttle_client.cli import main
from hypothesis import given
from hypothesis import strategies as st

from cuttle_net.games.unisson import Game
from cuttle_net.games.unisson.arena import Tally, labels, play_game, play_match
from cuttle_net.games.unisson.bots import BOTS, GreedyBot, hand_runs, make_bot
from cuttle_net.games.unisson.cards import face_text, parse_face
from cuttle_net.games.unisson.motions import UNKNOWN
from cuttle_net.games.unisson.moves import Kind
from cuttle_net.games.unisson.position import parse_position
from cuttle_net.games.unisson.scoring import sequences_in


def masks(hand: list[int]) -> tuple[int, int]:
    """A multiset of faces as the engine's two masks (held once, held twice)."""
    lo = hi = 0
    for f in hand:
        if lo >> f & 1:
            hi |= 1 << f
        else:
            lo |= 1 << f
    return lo, hi


@given(st.lists(st.integers(0, 31), max_size=24), st.sampled_from([1, 2]))
def test_hand_runs_finds_the_sequences_the_scoring_finds(faces: list[int], decks: int) -> None:
    hand = sorted(f for i, f in enumerate(faces) if faces[:i].count(f) < decks)
    assert sorted(hand_runs(hand)) == sorted(sequences_in(*masks(hand)))


@pytest.mark.parametrize(("players", "decks"), [(3, 1), (4, 1), (4, 2), (5, 2), (6, 2)])
def test_bots_play_legal_moves_to_the_end_from_their_views(players: int, decks: int) -> None:
    for seed in range(6):
        g = Game.deal(players=players, decks=decks, seed=seed)
        bots = [make_bot("greedy" if s % 2 else "random") for s in range(players)]
        rng = random.Random(seed)
        for _ in range(2000):
            if g.is_over:
                break
            seat = g.to_act
            view = g.view(seat)
            move = bots[seat].choose(view, rng)
            assert move in view.legal_moves()
            g.apply(move)
        assert g.is_over


def test_greedy_decides_on_the_view_alone() -> None:
    """Deals that look the same from the first player's seat (its hand, the range) but
    hide different cards elsewhere get the same first decision from greedy."""
    for seed in range(8):
        order = random.Random(seed).sample(range(32), 32)
        seen = set(range(4, 8)) | set(range(16, 20))  # seat 1's hand, the range
        hidden = [i for i in range(32) if i not in seen]
        other = list(order)
        for i, j in zip(hidden, random.Random(seed + 100).sample(hidden, len(hidden)), strict=True):
            other[i] = order[j]
        a, b = Game.deal(players=4, order=order), Game.deal(players=4, order=other)
        assert a.to_act == b.to_act == 1 and a.hand(1) == b.hand(1)
        assert a.range_cards() == b.range_cards() and a.hand(0) != b.hand(0)
        for trial in range(3):
            rng_a, rng_b = random.Random(trial), random.Random(trial)
            assert GreedyBot().choose(a.view(1), rng_a) == GreedyBot().choose(b.view(1), rng_b)


def position(seat1: str, seat1_seqs: str, player_range: str) -> Game:
    """A 4-player position, seat 1 to play: its hand (and sequences); 3 range cards; the
    rest dealt around and into the stock."""

    def faces(text: str) -> list[int]:
        return [parse_face(w) for w in text.split(",")] if text else []

    used = faces(seat1) + faces(player_range)
    for seq in filter(None, seat1_seqs.split("/")):
        lo, hi = (parse_face(w) for w in seq.split("-"))
        used += list(range(lo, hi + 1))
    rest = [face_text(f) for f in range(32) if f not in used]
    hands = [",".join(rest[0:4]), "", ",".join(rest[4:8]), ",".join(rest[8:12])]
    hands[1] = "/".join(filter(None, [seat1, *seat1_seqs.split("/")]))
    stock = ",".join(rest[12:])
    text = f"unisson 4 1 0 1 1 0 main 0 - {stock} {player_range} {' '.join(hands)}"
    return parse_position(text)


def test_greedy_melds_a_run_in_hand() -> None:
    g = position("7H,8H,9H,KC", "", "8D,JS,QD,AC")
    move = GreedyBot().choose(g.view(1), random.Random(0))
    assert str(move) == "meld 7H 8H 9H"


def test_greedy_completes_an_octave() -> None:
    g = position("AS,8D", "7S-KS", "9D,JC,QD,AC")
    assert str(GreedyBot().choose(g.view(1), random.Random(0))) == "extend 1 AS"


def test_greedy_keeps_its_run_when_forced_to_discard() -> None:
    g = position("TH,JH,QH,7C", "", "8D,JS,QD,AC")
    g.apply("take AC")  # an ace taken: discard two
    run = {parse_face(w) for w in ("TH", "JH", "QH")}
    for _ in range(2):
        move = GreedyBot().choose(g.view(1), random.Random(0))
        assert move.kind is Kind.DISCARD and move.faces[0] not in run
        g.apply(move)
    assert g.effects == () and run <= set(g.hand(1))


def test_the_arena_gives_bots_only_their_seats_view(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[int, Game]] = []

    class Spy:
        name = "spy"

        def choose(self, view: Game, rng: random.Random):
            seen.append((view.to_act, view))
            return rng.choice(view.legal_moves())

    monkeypatch.setitem(BOTS, "spy", Spy)
    play_game(["spy", "spy", "spy"], 1, seed=2, index=0)
    assert seen
    for seat, view in seen:
        assert view.viewer == seat
        assert all(f == UNKNOWN for f in view.stock)
        for other in range(3):
            if other != seat:
                assert view.hand(other) == view.public_hand(other)


def test_greedy_beats_random_players() -> None:
    """One greedy bot against three random ones wins far more than its 25% share."""
    tally = Tally(4)
    for result in play_match(["greedy", "random", "random", "random"], 1, 160, seed=5):
        tally.add(result)
    assert tally.games == 160
    assert tally.wins[0] / tally.games >= 0.45, tally.line("greedy", 0)
    assert tally.points[0] > max(tally.points[1:])


def test_a_match_is_the_same_split_between_processes() -> None:
    names = ["greedy", "random", "greedy"]
    one = [(r.index, r.winners, r.scores) for r in play_match(names, 1, 9, seed=8)]
    two = sorted((r.index, r.winners, r.scores) for r in play_match(names, 1, 9, seed=8, jobs=2))
    assert one == two
    assert len({r[2] for r in one}) > 1  # not one game played nine times


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_each_deal_is_played_once_per_rotation_of_the_seats(
    monkeypatch: pytest.MonkeyPatch, players: int
) -> None:
    sat: list[tuple[int, str, int, tuple[int, ...]]] = []  # game, bot, seat, the deal's range

    def spy(name: str) -> type:
        class Spy:
            def choose(self, view: Game, rng: random.Random):
                sat.append((game, name, view.to_act, tuple(view.range_cards())))
                return rng.choice(view.legal_moves())

        Spy.name = name  # type: ignore[attr-defined]
        return Spy

    names = "abcdef"[:players]
    for name in names:
        monkeypatch.setitem(BOTS, name, spy(name))
    decks = 2 if players >= 5 else 1
    for game in range(2 * players):
        play_game(list(names), decks, seed=4, index=game)
    firsts = {}
    for game, name, seat, range_cards in sat:
        firsts.setdefault((game, name), (seat, range_cards))
    for deal in (0, 1):
        games = range(players * deal, players * deal + players)
        for name in names:  # every bot in every seat once
            assert sorted(firsts[g, name][0] for g in games) == list(range(players))
    starts = [next(r for g, _, _, r in sat if g == game) for game in range(2 * players)]
    assert len(set(starts[:players])) == len(set(starts[players:])) == 1  # one deal a rotation
    assert starts[0] != starts[players]


def test_labels_number_a_bot_named_twice() -> None:
    assert labels(["greedy", "random", "random", "greedy"]) == [
        "greedy",
        "random",
        "random#2",
        "greedy#2",
    ]


LINE = re.compile(
    r"(\S+): (\d+) wins \((\d+) shared\) of (\d+) games; win rate [\d.]+% "
    r"\(95% interval [\d.]+-[\d.]+%\); mean score -?[\d.]+; time a decision median [\d.]+ s, "
    r"p95 [\d.]+ s \(\d+ decisions\)"
)


def test_cuttle_arena_for_unisson_prints_a_line_per_bot(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["arena", "--game", "unisson", "greedy", "random", "random", "--games", "6"]
    assert main([*args, "--seed", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    found = [LINE.fullmatch(line) for line in lines]
    assert len(lines) == 3 and all(found), lines
    assert [m[1] for m in found] == ["greedy", "random", "random#2"]  # type: ignore[index]
    assert all(m[4] == "6" for m in found)  # type: ignore[index]
    assert main([*args, "--seed", "2", "--jobs", "2"]) == 0
    again = capsys.readouterr().out.splitlines()
    assert [x.split("; time")[0] for x in again] == [x.split("; time")[0] for x in lines]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["greedy", "random"], "3 to 6 players, not 2"),
        (["greedy"] * 7, "3 to 6 players, not 7"),
        (["greedy", "random", "deep-blue"], "no L'Unisson bot called 'deep-blue'"),
        (["greedy"] * 5 + ["--decks", "1"], "5 players need two decks"),
        (["greedy"] * 3 + ["--variant", "joker"], "L'Unisson has none"),
    ],
)
def test_cuttle_arena_for_unisson_refuses_what_cannot_be_played(
    capsys: pytest.CaptureFixture[str], args: list[str], says: str
) -> None:
    assert main(["arena", "--game", "unisson", *args]) == 2
    assert says in capsys.readouterr().err


def test_cuttle_arena_still_wants_two_cuttle_bots(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "greedy", "random", "random"]) == 2
    assert "Cuttle is for two bots, not 3" in capsys.readouterr().err
