"""SIGTERM and SIGHUP stop a headless ``cuttle host`` / ``cuttle join`` as Ctrl+C does: the
player leaves (close ``away``: the other side waits, it does not time out), the journal is
kept, and the same command started again takes the game back. A seat at a table leaves as
with ``l``. The exit status is 128 + the signal's number, with no traceback."""

from __future__ import annotations

import re
import signal
from pathlib import Path

import pytest

from .crash import Side, crash_and_resume

LEFT = "the other player left; they may come back"


@pytest.mark.parametrize(
    ("victim", "signum"),
    [("join", signal.SIGTERM), ("host", signal.SIGHUP), ("join", signal.SIGINT)],
    ids=["join-TERM", "host-HUP", "join-INT"],  # INT: Ctrl+C ended in a traceback before
)
def test_a_stopped_side_leaves_the_game_and_takes_it_back(
    tmp_path: Path, victim: str, signum: int
) -> None:
    run = crash_and_resume(tmp_path, victim, signum)
    stopped = run.killed
    assert stopped.proc.returncode == 128 + signum, stopped.text
    assert "Traceback" not in stopped.text
    assert "unfinished: the connection ended: you left the game" in stopped.text
    survivor = run.sides["host" if victim == "join" else "join"]
    # The close was read (its words, not a lost connection) and the survivor waited.
    assert f"connection lost ({LEFT}): waiting for the other player" in survivor.text
    restarted = run.sides[victim]
    played = re.search(r"resuming game 1 against \w+ \((\d+) moves played\)", restarted.text)
    assert played and int(played[1]) > 0, restarted.text  # the journal was kept
    host, joiner = run.sides["host"], run.sides["join"]
    assert host.finish() == 0, host.text
    assert joiner.finish() == 0, joiner.text
    results = [line for line in host.text.splitlines() if line.startswith("result:")]
    assert results and "audit passed" in results[0]
    assert results == [ln for ln in joiner.text.splitlines() if ln.startswith("result:")]


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
