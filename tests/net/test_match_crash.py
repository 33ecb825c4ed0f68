"""A match of Cuttle survives a killed seat (issue 26, defect 2): `cuttle host --games 2`
and `cuttle join --games 2`, one of them killed (SIGKILL) in game 2 and started again. The
restarted process counts game 1 from its own journal: both print the same match totals
after game 2, and the match ends after its two games. Real processes on loopback."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from cuttle_protocol.store import JournalDamaged, read_table_journal

from .crash import BOT_DELAY, WAIT, Side, port_of
from .test_host_join import host_args, join_args

GAMES = ("--games", "2", "--bot", "random", "--bot-delay", BOT_DELAY)


def _in_game_two(directory: Path) -> bool:
    """The seat's journal holds a move of its player after its agreement to game 2."""
    found = list(directory.glob("*.journal")) if directory.exists() else []
    try:
        kinds = [e[0] for e in read_table_journal(found[0])[1]] if found else []
    except JournalDamaged:  # caught between the file's creation and its header
        return False
    return "rematch" in kinds and "play" in kinds[kinds.index("rematch") :]


def _totals(side: Side) -> list[str]:
    return [line for line in side.text.splitlines() if line.startswith("match after")]


@pytest.mark.slow
@pytest.mark.parametrize("victim", ["join", "host"])
def test_a_seat_killed_in_game_two_counts_game_one_as_before(tmp_path: Path, victim: str) -> None:
    sides = {"host": Side(host_args(tmp_path, "--no-announce", *GAMES))}
    try:
        port = port_of(sides["host"])
        sides["join"] = Side(join_args(tmp_path, port, *GAMES))
        journal = tmp_path / ("a" if victim == "host" else "b") / "journal"
        deadline = time.monotonic() + WAIT
        while not _in_game_two(journal):
            assert time.monotonic() < deadline, sides[victim].text
            assert len(list(journal.parent.glob("games/*.cuttle"))) < 2, "over before the kill"
            time.sleep(0.02)
        before = _totals(sides[victim])
        assert len(before) == 1 and before[0].startswith("match after 1 game:"), before
        sides[victim].kill()
        # (a host started again with port 0 re-opens its unfinished table on its port)
        sides[victim] = Side(sides[victim].args)
        for side in sides.values():
            assert side.finish() == 0, side.text
    finally:
        for side in sides.values():
            if side.proc.poll() is None:
                side.proc.kill()
    restarted, survivor = sides[victim], sides["join" if victim == "host" else "host"]
    assert "resuming the unfinished table" in restarted.text, restarted.text
    last = _totals(survivor)[-1]
    assert last.startswith("match after 2 games:"), survivor.text
    assert _totals(restarted) == [last], restarted.text  # game 1 counted, as the other's
    assert "the match ended after" not in restarted.text, restarted.text
    for side in sides.values():
        assert "Traceback" not in side.text
