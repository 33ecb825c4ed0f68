"""A killed `cuttle join` or `cuttle host` finds its unfinished game in its journal and
resumes it with the same player: the game finishes and both records verify."""

from __future__ import annotations

from pathlib import Path

import pytest

from .crash import crash_and_resume, verify


@pytest.mark.parametrize("victim", ["join", "host"])
def test_a_side_killed_mid_game_resumes_it_when_started_again(tmp_path: Path, victim: str) -> None:
    run = crash_and_resume(tmp_path, victim)
    host, joiner = run.sides["host"], run.sides["join"]
    assert host.finish() == 0, host.text
    assert joiner.finish() == 0, joiner.text
    restarted = run.sides[victim]
    assert "resuming game 1 against" in restarted.text
    survivor = run.sides["host" if victim == "join" else "join"]
    assert "waiting for the other player to return" in survivor.text
    # The same game, to the end, on both sides; the restarted side's journal is gone.
    results = [line for line in host.text.splitlines() if line.startswith("result:")]
    assert results and "audit passed" in results[0]
    assert results == [ln for ln in joiner.text.splitlines() if ln.startswith("result:")]
    records = [
        *(tmp_path / "a" / "games").glob("*.cuttle"),
        *(tmp_path / "b" / "games").glob("*.cuttle"),
    ]
    assert len(records) == 2
    for record in records:
        verified = verify(record)
        assert verified.returncode == 0, verified.stdout
    for side in "ab":
        assert not list((tmp_path / side / "journal").glob("*")), "a journal outlived its game"
    print(f"{victim} killed: the game went on {run.resumed_after:.2f} s later")
