"""Practice games are saved as records, marked as practice; verify replays them and says
what a deal made on one machine cannot prove (SPEC.md §5.5)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from cuttle_client.controller import PracticeController

from cuttle_net.games.cuttle.moves import CONCEDE
from cuttle_net.games.cuttle.rules import Rules
from cuttle_net.records.record import parse_record
from cuttle_net.records.verify import Verdict, verify_text


def finished(tmp_path: Path, concede: bool = False) -> tuple[PracticeController, str]:
    c = PracticeController("random", Rules.parse("standard"), seed=7, bot_delay=0, records=tmp_path)
    c.start()
    if concede:
        c.concede()
    while c.ending is None:
        c.submit(c.view.legal_moves()[0])
    assert c.saved is not None and c.saved.parent == tmp_path
    return c, c.saved.read_text()


def test_a_practice_game_is_saved_and_verifies_with_its_limits(tmp_path: Path) -> None:
    c, text = finished(tmp_path)
    record = parse_record(text)
    assert record.tags["Practice"] == "random" and not record.transcript
    assert [(s, t) for s, t, _ in record.moves] == c.moves
    report = verify_text(text)
    assert report.verdict == Verdict.VALID and report.practice, report.problem
    r = subprocess.run(
        [sys.executable, "-m", "cuttle_client", "verify", str(c.saved)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0 and "proves nothing more: one machine shuffled it" in r.stdout


def test_a_conceded_practice_game_is_saved(tmp_path: Path) -> None:
    c, text = finished(tmp_path, concede=True)
    assert '[Ending "concede"]' in text and '[Result "1"]' in text
    assert c.moves == [(0, str(CONCEDE))]
    assert verify_text(text).verdict == Verdict.VALID


def test_a_changed_practice_record_is_caught(tmp_path: Path) -> None:
    _, text = finished(tmp_path)
    moves = [line for line in text.splitlines() if line[:1].isdigit()]
    for changed in (
        text.replace('[Result "', '[Result "x', 1),
        text.replace("[Ending ", '[Ending "passes"]\n[Extra ', 1),
        text.replace(moves[1], moves[1].replace(moves[1].split(" ", 2)[2], "pass")),
        text.replace('[Practice "random"]', '[Practice "random"]\n[Seat0Key "00"]'),
        text.replace("\n\n[Transcript]\n", "\n\n[Transcript]\nop kaRkZWFs\n"),
        text.replace('[Deal "', '[Deal "AS ', 1),
    ):
        assert changed != text
        assert verify_text(changed).verdict in (Verdict.INVALID, Verdict.UNREADABLE)
