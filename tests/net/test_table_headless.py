"""``cuttle host --players N --game unisson --bot`` and ``cuttle join --bot``: L'Unisson at a
table of real processes on loopback, one result line on every side (SPEC 3.15, 4.5)."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cuttle_net.records.verify import Verdict, verify_text

from .crash import wait_for_journal

WAIT = 600  # seconds: the bound on every process here (only a failure waits it out)


def cuttle(tmp: Path, name: str, *args: str) -> subprocess.Popen[str]:
    files = str(tmp / name)
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "cuttle_client",
            *args,
            *("--name", name, "--config-dir", files, "--data-dir", files),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def play(
    tmp: Path,
    players: int,
    *host_extra: str,
    join_extra: tuple[str, ...] = (),
    watchers: int = 0,
) -> list[tuple[int, str, str]]:
    """Every process's (exit status, stdout, stderr), the host's first (then the joiners',
    then `watchers` running ``cuttle watch``, started before the joiners)."""
    host = cuttle(
        tmp,
        "p0",
        *("host", "--port", "0", "--bind", "127.0.0.1", "--game", "unisson"),
        *("--players", str(players), "--bot", "greedy", "--reply-timeout", "30"),
        *host_extra,
    )
    procs = [host]
    try:
        assert host.stdout is not None
        deadline = time.monotonic() + WAIT
        port = None
        while port is None and time.monotonic() < deadline:
            line = host.stdout.readline()
            if not line:
                break
            found = re.search(r"\(port (\d+)\)", line)
            port = found and found[1]
        assert port, host.stderr.read() if host.poll() is not None else "no port"
        watching = [
            cuttle(tmp, f"w{i}", "watch", "--headless", f"127.0.0.1:{port}")
            for i in range(watchers)
        ]
        for i in range(1, players):
            bot = "random" if i % 2 else "greedy"
            join = ("join", f"127.0.0.1:{port}", "--bot", bot, "--reply-timeout", "30", *join_extra)
            procs.append(cuttle(tmp, f"p{i}", *join))
        procs += watching
        for p in procs:
            p.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    return [(p.returncode, *p.communicate()) for p in procs]


def result_lines(outputs: list[tuple[int, str, str]]) -> list[str]:
    return [
        next((x for x in out.splitlines() if x.startswith("result: ")), f"none: {out} {err}")
        for _, out, err in outputs
    ]


# Six seats, and `cuttle watch` beside them; a three-seat table of processes plays below
# (two games of a match, each verified at every seat).
@pytest.mark.slow
@pytest.mark.parametrize("players", [6])
def test_unisson_at_a_table_of_processes_ends_with_one_result(tmp_path: Path, players: int) -> None:
    *outputs, watched = play(tmp_path, players, watchers=1)
    lines = result_lines(outputs)
    assert len(set(lines)) == 1, lines
    # Seats in joining order, the host first: every player once.
    seating = re.match(r"result: game 1: ((?:p\d \(seat \d\)(?:, )?)+): ", lines[0])
    assert seating, lines[0]
    seated = re.findall(r"(p\d) \(seat (\d)\)", seating[1])
    assert [int(seat) for _, seat in seated] == list(range(players))
    assert seated[0][0] == "p0"
    assert {name for name, _ in seated} == {f"p{i}" for i in range(players)}
    assert lines[0].endswith("; audit passed"), lines[0]
    assert [status for status, _, _ in outputs] == [0] * players, outputs
    # Every seat kept a record of the game, and each verifies.
    for i in range(players):
        (record,) = (tmp_path / f"p{i}" / "games").glob("*.cuttle")
        report = verify_text(record.read_text())
        assert report.verdict == Verdict.VALID, (i, report.problem)
    assert_watched(tmp_path, outputs, watched)


def assert_watched(
    tmp: Path, seats: list[tuple[int, str, str]], watched: tuple[int, str, str]
) -> None:
    """`cuttle watch --headless` printed every move the host's record lists, the seats were
    told it watched, it printed the verdict, and its copy of the record verifies."""
    status, out, err = watched
    assert status == 0, (out, err)
    moves = [line for line in out.splitlines() if re.match(r"cuttle: p\d \(seat \d\): ", line)]
    (record,) = (tmp / "p0" / "games").glob("*.cuttle")
    listed = re.findall(r"^\d+\. \d (.+?)(?: \|.*)?$", record.read_text(), re.M)
    assert [m.split(": ", 2)[2] for m in moves] == listed
    assert "cuttle: watching: w0" in out
    assert all("cuttle: watching: w0" in seat_out for _, seat_out, _ in seats)  # told
    seat = r"p\d \(seat \d\)"  # the winners by name: one wins, or two or more win (a tie)
    won = rf"{seat} wins|(?:{seat}, )*{seat} and {seat} win"
    assert re.search(rf"cuttle: game 1 verdict: valid; (?:{won}) \(", out), out
    (copy,) = (tmp / "w0" / "games").glob("*.cuttle")
    assert verify_text(copy.read_text()).verdict == Verdict.VALID


@pytest.mark.slow
def test_a_table_of_processes_plays_a_match_with_the_same_totals_everywhere(
    tmp_path: Path,
) -> None:
    """`--games 2` on every side: two games at one table, each with its line and its own
    record at every seat, then the same match totals everywhere."""
    outputs = play(tmp_path, 3, "--games", "2", join_extra=("--games", "2"))
    assert [status for status, _, _ in outputs] == [0] * 3, outputs
    shown = [
        [x for x in out.splitlines() if x.startswith(("result: ", "match after "))]
        for _, out, _ in outputs
    ]
    assert all(lines == shown[0] for lines in shown), shown
    one, after_one, two, totals = shown[0]
    assert after_one.startswith("match after 1 game: p0 (seat 0) "), after_one
    assert one.startswith("result: game 1: p0 (seat 0), ") and one.endswith("audit passed")
    assert two.startswith("result: game 2: p0 (seat 0), ") and two.endswith("audit passed")
    assert re.fullmatch(
        r"match after 2 games: p0 \(seat 0\) \d wins?, -?\d+ points; .*; .*", totals
    ), totals
    for i in range(3):
        records = sorted((tmp_path / f"p{i}" / "games").glob("*.cuttle"), key=lambda p: p.stem[-1])
        assert [r.stem[-6:] for r in records] == ["-game1", "-game2"], records
        for record in records:
            assert verify_text(record.read_text()).verdict == Verdict.VALID, record


@pytest.mark.parametrize(
    "args",
    [
        ("--game", "cuttle", "--players", "3"),  # Cuttle is for two
        ("--game", "unisson", "--players", "7"),
        ("--game", "unisson", "--players", "2"),
        ("--game", "unisson", "--players", "5", "--decks", "1"),  # 5 need two decks
        ("--game", "unisson", "--players", "3", "--decks", "3"),
    ],
)
def test_a_table_that_cannot_be_hosted_is_a_bad_command_line(
    tmp_path: Path, args: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    from cuttle_client.cli import main

    files = str(tmp_path)
    status = main(["host", "--port", "0", "--config-dir", files, "--data-dir", files, *args])
    assert status == 2
    assert capsys.readouterr().err.startswith("cuttle host: ")


def test_a_host_killed_mid_game_and_not_restarted_is_named_once_the_window_ends(
    tmp_path: Path,
) -> None:
    """The host's process dies mid-game and is not started again: each joiner dials it for
    the reconnect window (a host restarted from its journal would take it back), then names
    it, keeps its record of the moves played, and exits cleanly."""
    slow = ("--bot", "greedy", "--bot-delay", "0.2")
    host = cuttle(tmp_path, "p0", "host", "--port", "0", "--bind", "127.0.0.1",
                  "--game", "unisson", "--players", "3", *slow)  # fmt: skip
    joiners: list[subprocess.Popen[str]] = []
    try:
        assert host.stdout is not None
        deadline = time.monotonic() + WAIT
        port = None
        while time.monotonic() < deadline:
            line = host.stdout.readline()
            assert line, "the host ended early"
            if port is None and (found := re.search(r"\(port (\d+)\)", line)):
                port = found[1]
                for name in ("p1", "p2"):
                    dial = ("join", f"127.0.0.1:{port}", "--reconnect-window", "3")
                    joiners.append(cuttle(tmp_path, name, *dial, *slow))
            elif "game 1: you are seat 0" in line:
                break
        # Mid-game: the host's journal holds a move of its own (a fixed sleep here fell
        # within the deal on a loaded machine).
        wait_for_journal(tmp_path / "p0" / "journal", 1)
        host.kill()
        killed = time.monotonic()
        outputs = [(j.wait(timeout=WAIT), *j.communicate()) for j in joiners]
        assert time.monotonic() - killed >= 3  # the window was waited out
    finally:
        for p in (host, *joiners):
            if p.poll() is None:
                p.kill()
        host.communicate()
    for (status, out, err), name in zip(outputs, ("p1", "p2"), strict=True):
        assert "Traceback" not in err, err
        assert status == 1, (out, err)
        (line,) = [x for x in out.splitlines() if x.startswith("result: ")]
        assert re.search(r": p[12] and p[12] win: p0 \(seat 0\) left", line), line
        assert "connection lost and not back within 3 s" in line, line
        (record,) = (tmp_path / name / "games").glob("*.cuttle")
        report = verify_text(record.read_text())
        assert report.verdict == Verdict.UNAUDITED, report.problem  # what was played, signed
