"""A killed `cuttle join` or `cuttle host` of Cuttle (the 2-seat table) finds its unfinished
table in its journal and takes its seat back (SPEC 4.6): the game finishes, the same on both
sides, and both records verify; in a match, the restarted side counts the games before as
the other does. Real processes on loopback, headless bots: the process being killed is the
point. (A L'Unisson table's host killed at three points of a match, and a joiner too:
test_host_kill.py.)"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from .crash import Side, crash_and_resume, host_args, join_args, port_of, verify, wait_for_journal


def _results(side: Side) -> list[str]:
    return [line for line in side.text.splitlines() if line.startswith("result:")]


def _totals(side: Side) -> list[str]:
    return [line for line in side.text.splitlines() if line.startswith("match after")]


@pytest.mark.slow
@pytest.mark.parametrize("victim", ["join", "host"])
def test_a_side_killed_mid_game_resumes_it_when_started_again(tmp_path: Path, victim: str) -> None:
    """A match of two games (issue 26, defect 2), the kill in game 2: the restarted process
    counts game 1 from its own journal, so both print the same totals after game 2, and the
    match ends after its two games (a kill in game 1 resumes as game 2's does: the journal
    replays the same way, and game 1 is then the match's whole past)."""
    run = crash_and_resume(tmp_path, victim, games=2)
    host, joiner = run.sides["host"], run.sides["join"]
    assert host.finish() == 0, host.text
    assert joiner.finish() == 0, joiner.text
    restarted = run.sides[victim]
    survivor = run.sides["join" if victim == "host" else "host"]
    played = re.search(r"resuming the unfinished table of Cuttle \((\d+) moves played\)",
                       restarted.text)  # fmt: skip
    assert played and int(played[1]) > 0, restarted.text  # killed mid-game, not mid-deal
    # The survivor waited for the killed side: the host its window, the joiner its redials.
    if victim == "join":
        assert re.search(r"lost the connection to bob \(seat \d\) .*: waiting 60 s", host.text)
    else:
        assert re.search(r"lost the connection to the host .*: dialling again", joiner.text)
    # The same games, to the end, on both sides: game 1 as the killed process printed it,
    # game 2 as the restarted one did; the restarted side's journal is gone.
    results = _results(survivor)
    assert len(results) == 2 and all("audit passed" in r for r in results), survivor.text
    assert _results(run.killed) == results[:1], run.killed.text
    assert _results(restarted) == results[1:], restarted.text
    # Game 1 counted as before the kill: the same totals after game 2 on both sides.
    assert [t.split(":")[0] for t in _totals(run.killed)] == ["match after 1 game"]
    last = _totals(survivor)[-1]
    assert last.startswith("match after 2 games:"), survivor.text
    assert _totals(restarted) == [last], restarted.text
    assert "the match ended after" not in restarted.text, restarted.text
    for side in "ab":
        records = list((tmp_path / side / "games").glob("*.cuttle"))
        assert len(records) == 2, records
        for record in records:
            verified = verify(record)
            assert verified.returncode == 0, verified.stdout
        assert not list((tmp_path / side / "journal").glob("*.journal")), "a journal outlived it"
    for side in (host, joiner, run.killed):
        assert "Traceback" not in side.text
    print(f"{victim} killed: the host saw the seat back {run.resumed_after:.2f} s later")


def _both_killed_mid_game(tmp_path: Path) -> int:
    """A game in which both processes are killed: the port it was hosted on."""
    host = Side(host_args(tmp_path))
    port = port_of(host)
    joiner = Side(join_args(tmp_path, port))
    wait_for_journal(tmp_path / "b" / "journal")
    joiner.kill()
    host.kill()
    return port


def test_a_resume_a_fresh_host_cannot_honour_is_refused_at_once(tmp_path: Path) -> None:
    """The host's journal is lost, so a fresh host on the same port meets the restarted
    joiner: it refuses it at once (`no-table`) rather than seat it at its new table (and
    then wait its window for it). The joiner says why, keeps its journal and saves no
    record; the host goes on waiting for players. Neither ends in a traceback."""
    port = _both_killed_mid_game(tmp_path)
    shutil.rmtree(tmp_path / "a" / "journal")
    fresh_args = host_args(tmp_path)
    fresh_args[fresh_args.index("--port") + 1] = str(port)
    fresh = Side([*fresh_args, "--reconnect-window", "60"])
    port_of(fresh)  # listening
    records = set((tmp_path / "b" / "games").glob("*.cuttle"))
    again = Side(join_args(tmp_path, port))
    assert again.finish() == 1, again.text
    assert "resuming the unfinished table of Cuttle" in again.text
    assert "this host has no unfinished table of yours to resume" in again.text
    assert "our journal of the table is kept as" in again.text
    assert not _results(again), again.text
    assert set((tmp_path / "b" / "games").glob("*.cuttle")) == records
    assert list((tmp_path / "b" / "journal").glob("*.journal"))
    fresh.wait_for(r"refused bob .*no-table")
    assert fresh.proc.poll() is None  # still hosting its new table, seating no one
    fresh.kill()
    for side in (again, fresh):
        assert "Traceback" not in side.text, side.text


def test_a_damaged_journal_is_reported_and_kept_aside(tmp_path: Path) -> None:
    journal = tmp_path / "b" / "journal"
    journal.mkdir(parents=True, mode=0o700)
    (journal / "table-join-127.0.0.1-9.journal").write_bytes(b"\x00\x00\x01\x00garbage")
    joined = Side(join_args(tmp_path, 9))
    assert joined.finish() == 1
    assert "the unfinished table cannot be resumed" in joined.text
    assert "damaged length" in joined.text and "Traceback" not in joined.text
    assert (journal / "table-join-127.0.0.1-9.damaged").exists()


def test_a_restarted_joiner_whose_host_never_returns_ends_the_game(tmp_path: Path) -> None:
    """Both processes die and only the joiner comes back: once its reconnect window (2 s
    here) is over, the host forfeits for not being back (SPEC 4.6), the record is saved and
    the journal dropped, so the joiner is not stuck."""
    port = _both_killed_mid_game(tmp_path)
    again = Side([*join_args(tmp_path, port), "--reconnect-window", "2"])
    assert again.finish() == 1 and "Traceback" not in again.text
    assert "lost the connection to the host" in again.text
    (result,) = _results(again)
    found = re.search(r"bob wins: alice \(seat \d\) left the table: (.*);", result)
    assert found and found[1] == "connection lost and not back within 2 s", result
    assert len(list((tmp_path / "b" / "games").glob("*.cuttle"))) == 1
    assert not list((tmp_path / "b" / "journal").glob("*.journal"))
