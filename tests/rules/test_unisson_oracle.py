"""``cuttle rules … --game unisson``: L'Unisson's oracle, with Cuttle's questions and exit
statuses (0 answered, 1 an illegal move, 2 bad input), never a traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest
from cuttle_client.cli import main

from cuttle_net.games.unisson import Game
from cuttle_net.games.unisson.playout import perft
from cuttle_net.games.unisson.position import parse_position, position_text


def rules(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], str]:
    code = main(["rules", *args])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def test_random_prints_a_whole_game_that_replays(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = rules(capsys, "random", "--game", "unisson", "--players", "4", "--seed", "3")
    assert code == 0
    assert lines[0].startswith("position unisson 4 1 ") and lines[-1].startswith("result ")
    g = parse_position(lines[0].removeprefix("position "))
    for line in lines[1:-1]:
        seat, move = line.split(" ", 1)
        assert int(seat) == g.to_act
        g.apply(move)
    assert g.is_over
    assert rules(capsys, "random", "--game", "unisson", "--players", "4", "--seed", "3")[1] == lines


@pytest.mark.parametrize(("players", "decks"), [("3", "1"), ("5", "2"), ("6", "2")])
def test_random_at_every_table_size(
    capsys: pytest.CaptureFixture[str], players: str, decks: str
) -> None:
    code, lines, _ = rules(
        capsys, "random", "--game", "unisson", "--players", players, "--seed", "1"
    )
    assert code == 0 and lines[0].startswith(f"position unisson {players} {decks} ")


def test_legal_play_and_a_position_that_names_its_game(capsys: pytest.CaptureFixture[str]) -> None:
    code, moves, _ = rules(capsys, "legal", "--game", "unisson", "--players", "3", "start:5")
    g = Game.deal(players=3, decks=1, dealer=0, seed=5)
    assert code == 0 and moves == [str(m) for m in g.legal_moves()]
    take = next(m for m in moves if m.startswith("take"))
    code, out, _ = rules(capsys, "play", "--game", "unisson", "--players", "3", "start:5", take)
    g.apply(take)
    assert code == 0 and out == [position_text(g)]
    # The position says it is L'Unisson's: no --game needed.
    code, again, _ = rules(capsys, "legal", out[0])
    assert code == 0 and again == [str(m) for m in g.legal_moves()]


def test_play_reports_an_illegal_move_with_status_1(capsys: pytest.CaptureFixture[str]) -> None:
    text = position_text(Game.deal(players=4, seed=2))
    code, out, err = rules(capsys, "play", text, "draw", "meld 7H 8H 9H")
    assert code == 1 and out == []
    assert err.startswith("cuttle rules: move 2 (meld 7H 8H 9H): ")


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["play", "--game", "unisson", "start", "meld 7H"], "move 1 (meld 7H): a meld is three"),
        (["legal", "unisson 4 1 0"], "position: 4 fields"),
        (["legal", "start", "--game", "unisson", "--players", "7"], "3 to 6 players, not 7"),
        (["legal", "start", "--game", "unisson", "--players", "5", "--decks", "1"], "two decks"),
        (["perft", "start", "7", "--game", "unisson"], "goes 0 to 6 deep"),
        (["legal", "start", "--players", "4"], "--players and --decks are L'Unisson's"),
        (["random", "--seed", "1", "--game", "unisson", "--variant", "joker"], "has none"),
    ],
)
def test_bad_input_is_status_2_with_a_reason(
    capsys: pytest.CaptureFixture[str], args: list[str], says: str
) -> None:
    code, out, err = rules(capsys, *args)
    assert code == 2 and out == []
    assert err.startswith("cuttle rules: ") and says in err


def test_a_view_plays_what_it_can_see_and_refuses_what_it_cannot(
    capsys: pytest.CaptureFixture[str],
) -> None:
    g = Game.deal(players=4, seed=6)
    view = position_text(g.view(g.to_act))
    code, moves, _ = rules(capsys, "legal", view)
    assert code == 0 and moves == [str(m) for m in g.legal_moves()]
    code, _, err = rules(capsys, "play", view, "draw")
    assert code == 2 and "cannot know" in err
    other = position_text(g.view((g.to_act + 1) % 4))
    code, _, err = rules(capsys, "legal", other)
    assert code == 2 and err.startswith("cuttle rules: view: ")
    code, _, err = rules(capsys, "perft", view, "1")
    assert code == 2 and "full position" in err


def test_perft_counts_the_move_tree(capsys: pytest.CaptureFixture[str]) -> None:
    g = Game.deal(players=4, seed=1)
    text = position_text(g)
    counts = [int(rules(capsys, "perft", text, str(d))[1][0]) for d in range(4)]
    assert counts[0] == 1 and counts[1] == len(g.legal_moves())
    assert counts == [perft(g, d) for d in range(4)]
    children = 0
    for m in g.legal_moves():  # a level is the sum of its children's
        c = g.copy()
        c.push(m)
        children += perft(c, 2)
    assert counts[3] == children


def test_legal_on_a_finished_game_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = rules(capsys, "random", "--game", "unisson", "--seed", "4")
    g = parse_position(lines[0].removeprefix("position "))
    for line in lines[1:-1]:
        g.apply(line.split(" ", 1)[1])
    code, out, err = rules(capsys, "legal", position_text(g))
    assert code == 0 and out == [] and "the game is over" in err


def test_a_real_process_and_standard_input() -> None:
    text = position_text(Game.deal(players=3, seed=8))
    r = subprocess.run(
        [sys.executable, "-m", "cuttle_client", "rules", "legal", "-"],
        input=text,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0 and r.stdout.splitlines()[0] == "draw"
    r = subprocess.run(
        [sys.executable, "-m", "cuttle_client", "rules", "legal", "unisson garbage"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2 and "Traceback" not in r.stderr
