"""SIGTERM and SIGHUP stop a headless ``cuttle host`` / ``cuttle join`` as Ctrl+C does: the
seat leaves the table as with ``l`` (every other seat is told at once and the game stops
for them; a killed process, by contrast, resumes: test_crash_resume.py), and keeps its
record. The exit status is 128 + the signal's number, with no traceback."""

from __future__ import annotations

import re
import signal
from pathlib import Path

import pytest

from .crash import Side, host_args, join_args, port_of, wait_for_journal


@pytest.mark.parametrize(
    ("victim", "signum"),
    [("join", signal.SIGTERM), ("host", signal.SIGHUP), ("join", signal.SIGINT)],
    ids=["join-TERM", "host-HUP", "join-INT"],  # INT: Ctrl+C ended in a traceback before
)
def test_a_stopped_side_leaves_the_two_seat_table_and_keeps_its_record(
    tmp_path: Path, victim: str, signum: int
) -> None:
    """Cuttle (the 2-seat table): the stopped side leaves as with ``l``; the other is told
    at once (no window, no timeout) and wins; both keep their record."""
    host = Side(host_args(tmp_path))
    joiner = Side(join_args(tmp_path, port_of(host)))
    sides = {"host": host, "join": joiner}
    wait_for_journal(tmp_path / ("a" if victim == "host" else "b") / "journal")
    stopped = sides[victim]
    stopped.kill(signum)
    assert stopped.proc.returncode == 128 + signum, stopped.text
    assert "Traceback" not in stopped.text
    assert re.search(r"result: .*: unfinished: you left the table", stopped.text), stopped.text
    other = sides["join" if victim == "host" else "host"]
    assert other.finish() == 1, other.text  # a game stopped by a seat is not clean
    who, winner = ("bob", "alice") if victim == "join" else ("alice", "bob")
    found = re.search(rf"result: .*: {winner} wins: {who} \(seat \d\) left the table: (.*?);",
                      other.text)  # fmt: skip
    assert found and found[1] == "closed with peer-quit", other.text
    assert "lost the connection" not in other.text  # the close was read: no wait
    for side in "ab":
        assert len(list((tmp_path / side / "games").glob("*.cuttle"))) == 1
        assert not list((tmp_path / side / "journal").glob("*.journal"))  # nothing to resume


def test_a_stopped_seat_leaves_the_table(tmp_path: Path) -> None:
    """At a table of three, SIGTERM to a joiner mid-game: it leaves as with ``l`` (every
    seat is told at once: no timeout), and keeps its record."""

    def seat(name: str, *args: str) -> Side:
        files = str(tmp_path / name)
        return Side([*args, "--name", name, "--config-dir", files, "--data-dir", files])

    host = seat(
        "p0",
        *("host", "--port", "0", "--bind", "127.0.0.1", "--game", "unisson"),
        *("--players", "3", "--bot", "greedy", "--no-announce", "--bot-delay", "0.2"),
    )
    port = host.wait_for(r"\(port (\d+)\)")[1].split("(port ")[1].rstrip(")")
    join = ("join", f"127.0.0.1:{port}", "--bot", "random", "--bot-delay", "0.2")
    p1, p2 = seat("p1", *join), seat("p2", *join)
    p1.wait_for("game 1: you are seat")
    p1.kill(signal.SIGTERM)
    assert p1.proc.returncode == 143, p1.text
    assert "Traceback" not in p1.text
    assert re.search(r"result: .*unfinished: you left the table", p1.text), p1.text
    assert len(list((tmp_path / "p1" / "games").glob("*.cuttle"))) == 1
    for other in (host, p2):
        assert other.finish() == 1, other.text  # a game stopped by a seat is not clean
        assert re.search(r"p1 \(seat \d\) left the table: closed with peer-quit", other.text)
