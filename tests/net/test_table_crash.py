"""A table host and a joiner killed (SIGKILL) mid-game and started again with the same
data folder (SPEC 4.6, *Tables*): the host re-opens the table on its port, the joiners'
redials resume, the restarted joiner takes its seat back, the game finishes, and every
seat's record verifies. Real processes on loopback, headless bots."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from cuttle_protocol.store import JournalDamaged, read_table_journal

from cuttle_net.records.verify import Verdict, verify_text

from .crash import WAIT, Side

SLOW = ("--bot-delay", "0.3")  # slow enough for two kills in one game


def _files(tmp: Path, name: str, *args: str) -> list[str]:
    files = str(tmp / name)
    return [*args, "--name", name, "--config-dir", files, "--data-dir", files]


def start_host(tmp: Path, game: str, seats: int) -> Side:
    host = ("host", "--port", "0", "--bind", "127.0.0.1", "--game", game)
    return Side(_files(tmp, "p0", *host, "--players", str(seats), "--bot", "greedy", *SLOW))


def start_joiner(tmp: Path, name: str, port: int) -> Side:
    join = ("join", f"127.0.0.1:{port}", "--bot", "random", "--reconnect-window", "60")
    return Side(_files(tmp, name, *join, *SLOW))


def port_of(side: Side) -> int:
    _, line = side.wait_for(r"\(port \d+\)")
    found = re.search(r"\(port (\d+)\)", line)
    assert found
    return int(found[1])


def plays(tmp: Path, name: str) -> int:
    """The moves a seat's journal holds (0 while it has none)."""
    found = list((tmp / name / "journal").glob("*.journal"))
    try:
        return sum(e[0] == "play" for e in read_table_journal(found[0])[1]) if found else 0
    except JournalDamaged:  # caught between the file's creation and its header
        return 0


def wait_for_plays(tmp: Path, name: str, moves: int) -> None:
    """Until the seat's journal holds `moves` moves of its player: the game is under way
    (read as the resume reads it, so a slow machine cannot move the kill into the deal)."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if plays(tmp, name) >= moves:
            return
        if any((tmp / name / "games").glob("*")):
            raise AssertionError("the game ended before the kill: slow the bots down")
        time.sleep(0.02)
    raise AssertionError(f"{name}'s journal never reached {moves} moves")


@pytest.mark.slow
@pytest.mark.parametrize(("game", "seats"), [("unisson", 3)])  # Cuttle: test_crash_resume.py
def test_a_killed_table_host_and_joiner_resume_and_every_record_verifies(
    tmp_path: Path, game: str, seats: int
) -> None:
    host = start_host(tmp_path, game, seats)
    sides: dict[str, Side] = {"p0": host}
    try:
        port = port_of(host)
        for n in range(1, seats):
            sides[f"p{n}"] = start_joiner(tmp_path, f"p{n}", port)
        wait_for_plays(tmp_path, "p0", 1)
        host.kill()
        sides["p0"] = start_host(tmp_path, game, seats)
        sides["p0"].wait_for("resuming the unfinished table")
        assert port_of(sides["p0"]) == port  # re-opened where the joiners dial again

        wait_for_plays(tmp_path, "p1", plays(tmp_path, "p1") + 1)  # the game goes on
        sides["p1"].kill()
        sides["p1"] = start_joiner(tmp_path, "p1", port)
        sides["p1"].wait_for("resuming the unfinished table")

        for side in sides.values():
            side.finish()
    finally:
        for side in sides.values():
            if side.proc.poll() is None:
                side.proc.kill()
    results = {name: side.wait_for("^result: ")[1] for name, side in sides.items()}
    assert len(set(results.values())) == 1, results
    assert "audit passed" in results["p0"], results
    for name, side in sides.items():
        assert side.proc.returncode == 0, side.text
        assert "Traceback" not in side.text, side.text
        (record,) = (tmp_path / name / "games").glob("*.cuttle")
        report = verify_text(record.read_text())
        assert report.verdict == Verdict.VALID, (name, report.problem)
        assert not list((tmp_path / name / "journal").glob("*.journal"))  # removed once saved
