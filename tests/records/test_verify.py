"""Game records: every rule set verifies; every kind of change is caught and named."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from cuttle_net.games.cuttle.cards import card_text, parse_card
from cuttle_net.games.cuttle.rules import VARIANTS, Rules
from cuttle_net.records.record import (
    FORMAT,
    FORMAT_3,
    GameRecord,
    TranscriptEntry,
    build_record,
    parse_record,
    record_digest,
)
from cuttle_net.records.verify import Verdict, verify_text
from tests.session.link import Link

DATE = "2026-11-21T12:00:00Z"


def played(rules: str = "classic", seed: int = 3) -> Link:
    link = Link(Rules.parse(rules), seed, bots=("greedy", "random"))
    link.play()
    return link


def resign(link: Link, record: GameRecord) -> str:
    """What a dishonest saver could do: change the record, then sign it again."""
    session = link.sessions[int(record.tags["Signer"])]
    tags = {k: v for k, v in record.tags.items() if k != "Signature"}
    unsigned = GameRecord(tags, record.moves, record.transcript).to_text()
    tags["Signature"] = session.sign(record_digest(unsigned)).hex()
    return GameRecord(tags, record.moves, record.transcript).to_text()


@pytest.mark.parametrize(
    "rules",
    ["classic", "standard", *(f"classic+{v}" for v in VARIANTS), "standard+joker+random-fours"],
)
def test_a_record_from_every_rule_set_verifies(rules: str) -> None:
    link = played(rules)
    for seat in (0, 1):
        text = build_record(link.sessions[seat], ("ann", "bob"), DATE)
        report = verify_text(text)
        assert report.verdict == Verdict.VALID, report.problem
        assert parse_record(text).to_text() == text
        for line in text.split("\n\n")[1].splitlines():  # seen notes: ascending card order
            for note in line.partition(" | ")[2].split():
                cards = [parse_card(c) for c in note[2:].split(",")]
                assert cards == sorted(cards), line


def test_both_sides_keep_the_same_game() -> None:
    link = played()
    a, b = (parse_record(build_record(s, ("ann", "bob"), DATE)) for s in link.sessions)
    assert a.moves == b.moves and a.transcript == b.transcript
    assert {k: v for k, v in a.tags.items() if k not in ("Signer", "Signature")} == {
        k: v for k, v in b.tags.items() if k not in ("Signer", "Signature")
    }


@pytest.fixture(scope="module")
def game() -> tuple[Link, str]:
    """A standard game in which some card was drawn or revealed (most are)."""
    for seed in range(5, 60):
        link = played("standard", seed=seed)
        text = build_record(link.sessions[0], ("ann", "bob"), DATE)
        if any(seen for _, _, seen in parse_record(text).moves):
            return link, text
    raise AssertionError("no game showed a card")


@pytest.mark.parametrize(
    "change",
    [
        lambda t: t.replace('[Seat1 "bob"]', '[Seat1 "eve"]'),
        lambda t: t.replace("2. 1 ", "2. 0 ", 1),
        lambda t: t.replace("[Transcript]\nop ", "[Transcript]\nop  ", 1),
        lambda t: "\n".join(reversed(t.splitlines()[-3:-1])).join(
            t.rsplit("\n".join(t.splitlines()[-3:-1]), 1)
        ),
        lambda t: t.replace('[Result "', '[Result "x', 1),
    ],
    ids=["a tag", "a move's seat", "a transcript line", "the order of lines", "the result"],
)
def test_any_unsigned_change_is_caught(game, change) -> None:
    _, text = game
    changed = change(text)
    assert changed != text
    report = verify_text(changed)
    assert report.verdict in (Verdict.INVALID, Verdict.UNREADABLE)
    assert report.problem


def test_a_changed_signature_is_caught(game) -> None:
    _, text = game
    record = parse_record(text)
    sig = record.tags["Signature"]
    changed = text.replace(sig, ("0" if sig[0] != "0" else "1") + sig[1:])
    report = verify_text(changed)
    assert report.verdict == Verdict.INVALID and "record's signature" in report.problem


def test_a_resigned_changed_move_is_caught_by_its_players_signature(game) -> None:
    link, text = game
    record = parse_record(text)
    i = next(i for i, e in enumerate(record.transcript) if e.kind == "move")
    e = record.transcript[i]
    other = "pass" if e.text != "pass" else "draw"
    record.transcript[i] = TranscriptEntry("move", seat=e.seat, signature=e.signature, text=other)
    report = verify_text(resign(link, record))
    assert report.verdict == Verdict.INVALID and f"signature of move '{other}'" in report.problem


def test_a_resigned_changed_card_is_caught_by_the_replay(game) -> None:
    link, text = game
    record = parse_record(text)
    i = next(i for i, (_, _, seen) in enumerate(record.moves) if seen)
    seat, move, seen = record.moves[i]
    s = next(s for s, cards in enumerate(seen) if cards)
    shifted = tuple(card_text((parse_card(c) + 1) % 52) for c in seen[s])
    record.moves[i] = (seat, move, (*seen[:s], shifted, *seen[s + 1 :]))
    report = verify_text(resign(link, record))
    assert report.verdict == Verdict.INVALID and "the seats saw" in report.problem


def test_a_resigned_changed_result_is_caught(game) -> None:
    link, text = game
    record = parse_record(text)
    record.tags["Result"] = "0" if record.tags["Result"] != "0" else "1"
    report = verify_text(resign(link, record))
    assert report.verdict == Verdict.INVALID and "Result" in report.problem


def test_resigned_swapped_transcript_lines_are_caught(game) -> None:
    link, text = game
    record = parse_record(text)
    msgs = [i for i, e in enumerate(record.transcript) if e.kind == "msg"]
    a, b = msgs[2], msgs[3]
    record.transcript[a], record.transcript[b] = record.transcript[b], record.transcript[a]
    report = verify_text(resign(link, record))
    assert report.verdict == Verdict.INVALID and "transcript entry" in report.problem


def test_a_resigned_extra_deck_operation_is_caught(game) -> None:
    link, text = game
    record = parse_record(text)
    i = next(i for i, e in enumerate(record.transcript) if e.kind == "move")
    record.transcript.insert(i + 1, TranscriptEntry("op", ["reveal_deck", 1]))
    report = verify_text(resign(link, record))
    assert report.verdict == Verdict.INVALID


def test_a_conceded_game_is_valid_as_far_as_it_goes() -> None:
    link = Link(Rules(), 2)
    for s in (0, 1):
        link.post(s, link.sessions[s].start())
    link.pump()
    link.post(1, link.sessions[1].concede())
    link.pump()
    report = verify_text(build_record(link.sessions[0], ("ann", "bob"), DATE))
    assert report.verdict == Verdict.UNAUDITED and "never audited" in report.problem


def cuttle(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cuttle_client", *args], capture_output=True, text=True, timeout=60
    )


def cuttle_here(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """The command run in this process (a process of its own costs a second of imports):
    its status, stdout and stderr. A traceback would be an exception raised here."""
    from cuttle_client.cli import main

    status = main(list(args))
    said = capsys.readouterr()
    return status, said.out, said.err


def test_the_commands_on_good_truncated_and_garbage_files(
    game, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, text = game
    good = tmp_path / "good.cuttle"
    good.write_text(text)
    ok = cuttle("verify", str(good))  # once as the command a person types
    assert ok.returncode == 0 and "verdict: valid" in ok.stdout
    # The winner by name, as the record states it, not "seat 1 wins" (issue 26).
    won = verify_text(text).outcome
    assert won is not None and len(won.winners) == 1
    name = ("ann", "bob")[won.winners[0]]
    assert f"{name} (seat {won.winners[0]}) wins" in ok.stdout
    status, exported, _ = cuttle_here(capsys, "export", str(good))  # JSON is the default
    assert cuttle_here(capsys, "export", str(good), "--json")[1] == exported
    data = json.loads(exported)
    assert status == 0 and data["tags"]["Rules"] == "standard"
    assert [m["move"] for m in data["moves"]] == [m for _, m, _ in parse_record(text).moves]
    truncated = tmp_path / "cut.cuttle"
    truncated.write_text(text[: len(text) // 2])
    garbage = tmp_path / "garbage.cuttle"
    garbage.write_bytes(bytes(range(256)) * 4)
    for path in (truncated, garbage, tmp_path / "missing.cuttle"):
        for command in ("verify", "export", "replay"):
            status, out, err = cuttle_here(capsys, command, str(path))
            assert status in (1, 2), (path, command, out)
            assert out.strip() or err.strip()
    binary = cuttle("verify", str(garbage))
    assert binary.returncode == 2 and "not a game record: not UTF-8 text" in binary.stderr
    assert "codec" not in binary.stderr and "Traceback" not in binary.stderr


@pytest.mark.parametrize("command", ["verify", "export", "replay"])
def test_a_file_that_is_no_record_is_said_once_with_status_2(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 26: 'not a game record: not a game record:' (defect 8), and replay's status 1
    where verify and export say 2 (defect 13)."""
    from cuttle_client.cli import main

    notes = tmp_path / "notes.txt"
    notes.write_text("hello\n")
    assert main([command, str(notes)]) == 2
    said = capsys.readouterr()
    assert (said.out + said.err).count("not a game record") == 1


def test_the_example_records_are_up_to_date_and_quoted_by_the_spec() -> None:
    root = Path(__file__).resolve().parents[2]
    vectors = root / "protocol" / "vectors" / "record"
    spec_loader = importlib.util.spec_from_file_location("rv", vectors / "record_vectors.py")
    module = importlib.util.module_from_spec(spec_loader)
    spec_loader.loader.exec_module(module)
    assert module.main(["--check"]) == 0
    text = (vectors / "example.cuttle").read_text()
    assert verify_text(text).verdict == Verdict.VALID
    assert verify_text((vectors / "example-conceded.cuttle").read_text()).verdict == (
        Verdict.UNAUDITED
    )
    watcher = (vectors / "example-watcher.cuttle").read_text()
    assert verify_text(watcher).verdict == Verdict.VALID and '[Signer "watcher"]' in watcher
    practice = verify_text((vectors / "example-practice.cuttle").read_text())
    assert practice.verdict == Verdict.VALID and practice.practice
    spec = (root / "SPEC.md").read_text()
    for line in text.splitlines()[:15]:  # the header lines SPEC quotes whole
        assert f"    {line}" in spec


def test_a_record_of_the_previous_formats_still_verifies() -> None:
    # cuttle-record/4 (and /3, the same for a game) holds deck protocol version 2, one step a
    # round: a three-seat L'Unisson record made before rounds still verifies, audit and all.
    old = (Path(__file__).parent / "record-4-unisson.cuttle").read_text()
    assert old.startswith('[Format "cuttle-record/4"]') and '"v": 2' not in old
    report = verify_text(old)
    assert report.verdict == Verdict.VALID, report.problem
    # A record's deck messages are of its format's version: /5's relabelled /3 do not verify.
    link = played()
    record = parse_record(build_record(link.sessions[0], ("ann", "bob"), DATE))
    assert verify_text(resign(link, record)).verdict == Verdict.VALID
    record.tags["Format"] = FORMAT_3
    relabelled = verify_text(resign(link, record))
    assert relabelled.verdict == Verdict.INVALID and "v: unsupported version 3" in str(
        relabelled.problem
    )
    newer = verify_text(resign(link, record).replace(FORMAT_3, "cuttle-record/9", 1))
    assert newer.verdict == Verdict.UNREADABLE
    reads = f"this program reads {FORMAT}, cuttle-record/4, {FORMAT_3}"
    assert newer.problem == f"a 'cuttle-record/9' record: {reads}"
