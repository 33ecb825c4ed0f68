"""A killed `cuttle join` or `cuttle host` finds its unfinished game in its journal and
resumes it with the same player: the game finishes and both records verify."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .crash import Side, crash_and_resume, host_args, join_args, verify, wait_for_journal


@pytest.mark.parametrize("victim", ["join", "host"])
def test_a_side_killed_mid_game_resumes_it_when_started_again(tmp_path: Path, victim: str) -> None:
    run = crash_and_resume(tmp_path, victim)
    host, joiner = run.sides["host"], run.sides["join"]
    assert host.finish() == 0, host.text
    assert joiner.finish() == 0, joiner.text
    restarted = run.sides[victim]
    played = re.search(r"resuming game 1 against \w+ \((\d+) moves played\)", restarted.text)
    assert played and int(played[1]) > 0, restarted.text  # killed mid-game, not mid-deal
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


def test_a_resume_the_other_side_cannot_honour_ends_the_game_unfinished_on_both(
    tmp_path: Path,
) -> None:
    """Both processes die; the host's journal is lost, so a fresh host meets the restarted
    joiner: neither is blamed, both say why and keep an unfinished record."""
    host = Side(host_args(tmp_path))
    port = int(host.wait_for(r"\(port (\d+)\)")[1].split("(port ")[1].rstrip(")"))
    joiner = Side(join_args(tmp_path, port))
    wait_for_journal(tmp_path / "b" / "journal")
    joiner.kill()
    host.kill()
    shutil.rmtree(tmp_path / "a" / "journal")
    fresh = Side([*host_args(tmp_path)[:2], str(port), *host_args(tmp_path)[3:]])
    again = Side(join_args(tmp_path, port))
    assert again.finish() == 1 and fresh.finish() == 1
    assert "resuming game 1 against alice" in again.text
    # Whichever side closes first: its own reading, or the host's close reason.
    assert re.search(r"no longer has (game 1|it)", again.text), again.text
    assert "asked to resume game 1" in fresh.text, fresh.text
    for side in (again, fresh):
        assert "unfinished" in side.text and "Traceback" not in side.text
    assert not list((tmp_path / "b" / "journal").glob("*.journal"))


def test_a_damaged_journal_is_reported_and_kept_aside(tmp_path: Path) -> None:
    journal = tmp_path / "b" / "journal"
    journal.mkdir(parents=True, mode=0o700)
    (journal / "join-127.0.0.1-9.journal").write_bytes(b"\x00\x00\x01\x00garbage")
    joined = Side(join_args(tmp_path, 9))
    assert joined.finish() == 1
    assert "the unfinished game cannot be resumed" in joined.text
    assert "damaged length" in joined.text and "Traceback" not in joined.text
    assert (journal / "join-127.0.0.1-9.damaged").exists()


def test_a_restarted_side_whose_player_never_returns_ends_the_game_unfinished(
    tmp_path: Path,
) -> None:
    """Both processes die and only the joiner comes back: after the window (shortened here
    to 2 s) it saves the game as unfinished and drops the journal, so it is not stuck."""
    host = Side(host_args(tmp_path))
    port = int(host.wait_for(r"\(port (\d+)\)")[1].split("(port ")[1].rstrip(")"))
    joiner = Side(join_args(tmp_path, port))
    wait_for_journal(tmp_path / "b" / "journal")
    joiner.kill()
    host.kill()
    short_window = (
        "import sys, cuttle_protocol.netplay as n; n.RESUME_WINDOW = 2.0; "
        "from cuttle_client.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    again = subprocess.run(
        [sys.executable, "-c", short_window, *join_args(tmp_path, port)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert again.returncode == 1 and "Traceback" not in again.stderr
    assert "unfinished: the connection ended: the host is not back" in again.stdout, again.stdout
    assert len(list((tmp_path / "b" / "games").glob("*.cuttle"))) == 1
    assert not list((tmp_path / "b" / "journal").glob("*.journal"))
