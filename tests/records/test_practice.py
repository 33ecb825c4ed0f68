"""Practice games, of Cuttle and of L'Unisson, are saved as records marked as practice;
verify replays them and says what a deal made on one machine cannot prove, replay and
export read them (SPEC.md §5.5)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from cuttle_client.cli import main
from cuttle_client.cuttle.controller import PracticeController
from cuttle_client.unisson.controller import PracticeController as UnissonPractice

from cuttle_net.games.cuttle.moves import CONCEDE
from cuttle_net.games.cuttle.rules import Rules
from cuttle_net.records.positions import positions
from cuttle_net.records.record import FORMAT, FORMAT_3, parse_record
from cuttle_net.records.verify import Verdict, verify_text


def finished(tmp_path: Path, concede: bool = False) -> tuple[PracticeController, str]:
    c = PracticeController(
        "random", Rules.parse("standard"), seed=7, bot_delay=0, records=tmp_path, player="Ann"
    )
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
    # The person is named, not the table's "You" (issue 26, defect 13).
    assert (record.tags["Seat0"], record.tags["Seat1"]) == ("Ann", "Random bot")
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
        text.replace('[Game "cuttle"]', '[Game "unisson"]'),
        text.replace('[Players "2"]', '[Players "3"]'),
        text.replace('[Dealer "1"]', '[Dealer "0"]'),
    ):
        assert changed != text
        assert verify_text(changed).verdict in (Verdict.INVALID, Verdict.UNREADABLE)


def test_a_practice_record_of_the_previous_format_still_verifies(tmp_path: Path) -> None:
    # cuttle-record/3 practice records: Cuttle between two seats, without Game, Players and
    # Dealer tags.
    _, text = finished(tmp_path)
    new_tags = ('[Game "cuttle"]\n', '[Players "2"]\n', '[Dealer "1"]\n')
    old = text.replace(FORMAT, FORMAT_3, 1)
    for tag in new_tags:
        old = old.replace(tag, "", 1)
    report = verify_text(old)
    assert report.verdict == Verdict.VALID and report.practice, report.problem
    assert verify_text(old.replace("[Rules ", '[Game "cuttle"]\n[Rules ', 1)).verdict == (
        Verdict.INVALID
    )


def test_a_lunisson_practice_game_is_saved_verifies_replays_and_exports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Five seats play with two decks: the deal names each face twice.
    c = UnissonPractice("random", 5, seed=3, bot_delay=0, records=tmp_path, player="Ann")
    c.start()
    while c.ending is None:
        c.submit(c.view.legal_moves()[0])
    assert c.saved is not None and c.ending.text.endswith(f" · record saved: {c.saved}")
    text = c.saved.read_text()
    record = parse_record(text)
    assert record.tags["Game"] == "unisson" and record.tags["Rules"] == "two-decks"
    assert record.tags["Dealer"] == str(c.dealer) and record.tags["Seat0"] == "Ann"
    assert [(s, t) for s, t, _ in record.moves] == c.moves
    report = verify_text(text)
    assert report.verdict == Verdict.VALID and report.practice, report.problem
    assert [s.total for s in c.ending.scores] == list(report.outcome.scores)
    replayed = positions(text)  # what cuttle replay shows (tests/client/test_replay.py)
    assert replayed.full and replayed.practice and replayed.names[0] == "Ann"
    assert len(replayed.states) == len(c.moves) + 1
    assert replayed.states[-1].hand(1) == c.game.hand(1)
    assert main(["export", str(c.saved)]) == 0
    exported = json.loads(capsys.readouterr().out)
    assert exported["tags"]["Deal"].count(" ") == 63 and len(exported["moves"]) == len(c.moves)
    # A deal that names a face a third time is not two decks.
    changed = text.replace('[Deal "', '[Deal "' + record.tags["Deal"][:3], 1)
    assert "Deal: the deck" in verify_text(changed).problem
