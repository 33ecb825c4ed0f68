"""``cuttle rules`` as a user runs it: real processes, exit codes, no tracebacks."""

from __future__ import annotations

import subprocess
import sys

from cuttle_net.games.cuttle.position import format_position, parse_position
from tests.rules.build import position


def cuttle(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cuttle_client", "rules", *args],
        capture_output=True,
        text=True,
        input=stdin,
        timeout=60,
    )


def test_legal_lists_moves_one_per_line() -> None:
    text = format_position(position(hand0="7D", points1="7C", hand1="2C"))
    r = cuttle("legal", text)
    assert r.returncode == 0
    assert r.stdout.splitlines() == ["draw", "points 7D", "scuttle 7D 7C", "oneoff 7D"]


def test_play_prints_the_resulting_position_and_reads_stdin() -> None:
    g = position(hand0="7D", points1="7C", hand1="2C")
    r = cuttle("play", "-", "scuttle 7D 7C", stdin=format_position(g))
    assert r.returncode == 0, r.stderr
    after = parse_position(r.stdout.strip())
    assert after.points == [[], []] and after.player == 1


def test_play_reports_the_rule_broken_with_a_nonzero_exit() -> None:
    text = format_position(position(hand0="7D", points1="7H", hand1="2C"))
    r = cuttle("play", text, "scuttle 7D 7H")
    assert r.returncode == 1 and r.stdout == ""
    assert (
        "move 1 (scuttle 7D 7H): 7♦ cannot scuttle 7♥: equal rank needs a higher suit" in r.stderr
    )


def test_garbage_gets_a_clear_error_not_a_traceback() -> None:
    for args in (("legal", "not a position"), ("play", "start", "fly away"), ("perft", "x", "2")):
        r = cuttle(*args)
        assert r.returncode in (1, 2), args
        assert "Traceback" not in r.stderr and r.stderr.startswith("cuttle rules:"), r.stderr


def test_random_game_is_reproducible_and_replayable() -> None:
    args = ("random", "--seed", "42", "--rules", "standard", "--variant", "joker")
    first, second = cuttle(*args), cuttle(*args)
    assert first.returncode == 0 and first.stdout == second.stdout
    lines = first.stdout.splitlines()
    assert lines[0].startswith("position standard+joker ") and lines[-1].startswith("result ")
    moves = [line.split(" ", 1)[1] for line in lines[1:-1]]
    replay = cuttle("play", lines[0].removeprefix("position "), *moves)
    assert replay.returncode == 0, replay.stderr
    assert " over:" in replay.stdout


def test_start_position_shortcut() -> None:
    r = cuttle("legal", "start:3", "--rules", "standard")
    assert r.returncode == 0 and r.stdout.splitlines()[0] == "draw"
