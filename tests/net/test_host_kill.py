"""The host of a 3-seat L'Unisson match killed (SIGKILL) at one point of its journal — during
the deal, mid-game, between the games — and started again with the same data folder
(SPEC 4.6, *Tables*): it re-opens the table on its port, its joiners' redials resume with
it (none refuses its log), both games finish, every seat counts the same match, and every
record verifies. Mid-game, a joiner is then killed and started again too: it takes its seat
back. Real processes on loopback, headless bots; each kill waits on a journal, never on a
fixed sleep. (Cuttle, the 2-seat table: test_crash_resume.py.)"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from cuttle_protocol.store import JournalDamaged, read_table_journal

from cuttle_net.records.verify import Verdict, verify_text

from .crash import WAIT, Side, port_of, undelayed

MATCH = ("--games", "2", "--bot-delay", "0.15")  # slow enough for a kill mid-game


def _files(tmp: Path, name: str, *args: str) -> list[str]:
    files = str(tmp / name)
    return [*args, "--name", name, "--config-dir", files, "--data-dir", files]


def host(tmp: Path, again: bool = False) -> Side:
    """The host; `again`: started again after the kill, its bot no longer slowed."""
    args = ("host", "--port", "0", "--bind", "127.0.0.1", "--game", "unisson")
    side = _files(tmp, "p0", *args, "--players", "3", "--bot", "greedy", *MATCH)
    return Side(undelayed(side) if again else side)


def joiner(tmp: Path, name: str, port: int) -> Side:
    join = ("join", f"127.0.0.1:{port}", "--bot", "random", "--reconnect-window", "60")
    return Side(_files(tmp, name, *join, *MATCH))


def kinds(tmp: Path, name: str = "p0") -> list[str]:
    """The kinds of a seat's journal inputs so far (none while it has no journal)."""
    found = list((tmp / name / "journal").glob("*.journal"))
    try:
        return [e[0] for e in read_table_journal(found[0])[1]] if found else []
    except (JournalDamaged, FileNotFoundError):  # caught as it is made, or removed
        return []


KILL_AT: dict[str, Callable[[list[str]], bool]] = {
    # our code confirmed and a few inputs since (the others' confirmations, the deal's
    # first steps), no move played yet: the deal is under way
    "deal": lambda k: "confirm" in k and len(k) - k.index("confirm") > 6 and "play" not in k,
    "mid-game": lambda k: k.count("play") >= 2 and "rematch" not in k,
    # the host proposed game 2 (the joiners may or may not have agreed yet)
    "between": lambda k: "rematch" in k,
}


@pytest.mark.slow
@pytest.mark.parametrize("point", list(KILL_AT))
def test_a_table_host_killed_and_restarted_finishes_the_match_with_every_record_valid(
    tmp_path: Path, point: str
) -> None:
    sides: dict[str, Side] = {"p0": host(tmp_path)}
    try:
        port = port_of(sides["p0"])
        for n in (1, 2):
            sides[f"p{n}"] = joiner(tmp_path, f"p{n}", port)
        deadline = time.monotonic() + WAIT
        while not KILL_AT[point](k := kinds(tmp_path)):
            assert time.monotonic() < deadline, sides["p0"].text
            assert point != "deal" or "play" not in k, "the deal was over before the kill"
            assert not list((tmp_path / "p0" / "games").glob("*")) or point == "between", (
                "a game ended before the kill"
            )
            time.sleep(0.01)
        sides["p0"].kill()
        sides["p0"] = host(tmp_path, again=True)
        sides["p0"].wait_for("resuming the unfinished table")
        assert port_of(sides["p0"]) == port  # re-opened where the joiners dial again
        if point == "mid-game":  # the game goes on; then a joiner is killed and restarted
            moved = kinds(tmp_path, "p1").count("play") + 1
            deadline = time.monotonic() + WAIT
            while kinds(tmp_path, "p1").count("play") < moved:
                assert time.monotonic() < deadline, sides["p1"].text
                time.sleep(0.01)
            sides["p1"].kill()
            sides["p1"] = joiner(tmp_path, "p1", port)
            sides["p1"].wait_for("resuming the unfinished table")
        for side in sides.values():
            side.proc.wait(timeout=3 * WAIT)  # (a bound for a machine under load)
    finally:
        for side in sides.values():
            if side.proc.poll() is None:
                side.proc.kill()
    for name, side in sides.items():
        assert side.proc.returncode == 0, (name, side.text)
        assert "Traceback" not in side.text, side.text
        assert "signature does not fit" not in side.text, (name, side.text)
    totals = {name: side.wait_for("^match after 2 games")[1] for name, side in sides.items()}
    assert len(set(totals.values())) == 1, totals
    for name in sides:
        records = sorted((tmp_path / name / "games").glob("*.cuttle"))
        assert len(records) == 2, (name, records)
        for record in records:
            report = verify_text(record.read_text())
            assert report.verdict == Verdict.VALID, (name, record.name, report.problem)
        assert not list((tmp_path / name / "journal").glob("*.journal"))  # removed once saved
