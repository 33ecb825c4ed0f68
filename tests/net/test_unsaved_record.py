"""A record that could not be saved loses nothing (SPEC 4.6, *Tables*): the seat says so in
one line naming the folder, the reason and its journal, which it keeps (the other seats end
as usual); the next start of that seat saves the record from the journal (it verifies) and
only then removes it; a record saved already is never saved again."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from cuttle_client.cli_table import _unfinished, journal_words
from cuttle_client.progress import unsaved_words
from cuttle_protocol.play import TableMatch
from cuttle_protocol.store import JournalKept, RecordNotSaved, read_table_journal
from cuttle_protocol.store import records as store_records
from cuttle_protocol.store.journal import _record
from cuttle_protocol.store.seatjournal import _header_wire

from cuttle_net.records.record import parse_record
from tests.inprocess import run_cuttle
from tests.net.test_host_join import finish, join_args, start_host
from tests.net.test_seatjournal import journaled_table


def _disk_full(monkeypatch: pytest.MonkeyPatch, under: Path, times: int = 1) -> list[Path]:
    """The next `times` records saved under `under` fail as on a full disk (the folders
    of the others save as usual). The folders it failed in."""
    real, failed = store_records.save_record, []

    def save(text: str, directory: Path, stem: str) -> Path:
        if directory.is_relative_to(under) and len(failed) < times:
            failed.append(directory)
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(directory))
        return real(text, directory, stem)

    monkeypatch.setattr(store_records, "save_record", save)
    return failed


def _records(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.cuttle"))


@pytest.mark.trio
@pytest.mark.parametrize(
    ("seats", "game", "token"), [(3, "unisson", "one-deck"), (2, "cuttle", "classic")]
)
async def test_a_record_that_cannot_be_written_is_kept_in_the_journal_and_saved_next_start(
    tmp_path: Path, seats: int, game: str, token: str
) -> None:
    games_dir = tmp_path / "p1" / "games"
    games_dir.parent.mkdir()
    games_dir.write_text("")  # a file where the records folder should be: unusable
    played, journals, keys = await journaled_table(tmp_path, seats, game, token)
    lost, journal = played[1], journals[1]
    assert lost.result is not None and lost.clean  # the result is still there to show
    assert lost.record is None and lost.unsaved is not None
    assert lost.unsaved.folder == games_dir and lost.unsaved.journal == journal.path
    words = unsaved_words(lost.unsaved)
    assert words.startswith(f"the record of game 1 could not be saved in {games_dir}: ")
    assert "(a file is there, not a folder)" in words, words
    assert f"kept in its journal {journal.path}" in words and "run the same" in words
    assert journal.keeps_game  # the table ended, and the journal is all there is of the game
    for seat in set(played) - {1}:  # every other seat ended as usual
        assert played[seat].record is not None and played[seat].record.exists()
        assert played[seat].unsaved is None and not journals[seat].keeps_game
    for j in journals.values():
        j.close()  # (as `sit_at_table` lets a seat go)

    said: list[str] = []
    with pytest.raises(JournalKept) as still:  # started again, the folder still unusable
        _unfinished(journal.path, keys[1], said.append, tmp_path / "p1")
    line = journal_words(still.value)
    assert line.startswith(f"the record of game 1 still cannot be saved in {games_dir}"), line
    assert journal.path.exists() and said == []

    games_dir.unlink()  # the player fixed it: the next start saves the record
    assert _unfinished(journal.path, keys[1], said.append, tmp_path / "p1") is None
    [record] = _records(games_dir)
    assert said == [f"the record of game 1, which ended, was saved as {record}"]
    assert not journal.path.exists()
    assert run_cuttle("verify", str(record)).returncode == 0
    mine, theirs = parse_record(record.read_text()), parse_record(played[0].record.read_text())
    assert mine.moves == theirs.moves and mine.tags["Ending"] == theirs.tags["Ending"]

    # A seat whose record was saved (its process died before the journal went): not again.
    before = _records(tmp_path / "p0" / "games")
    assert _unfinished(journals[0].path, keys[0], said.append, tmp_path / "p0") is None
    assert _records(tmp_path / "p0" / "games") == before and len(said) == 1
    assert not journals[0].path.exists()


@pytest.mark.trio
async def test_a_match_saves_each_game_as_it_ends_and_one_that_failed_on_the_next_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Game 1's record fails at seat 2 (a full disk, once): the match goes on, game 2's
    record is saved, the journal is kept; the next start saves game 1's alone."""
    failed = _disk_full(monkeypatch, tmp_path / "p2")
    matches: dict[int, TableMatch] = {}
    _, journals, keys = await journaled_table(tmp_path, 3, games=2, matches=matches)
    assert len(failed) == 1
    first, second = matches[2].games
    assert first.unsaved is not None and first.unsaved.number == 1 and first.record is None
    assert "No space left on device" in unsaved_words(first.unsaved)
    assert second.record is not None and second.unsaved is None
    assert journals[2].keeps_game and not journals[1].keeps_game
    inputs = read_table_journal(journals[2].path)[1]
    assert ["saved", 2] in inputs and ["saved", 1] not in inputs
    for j in journals.values():
        j.close()

    said: list[str] = []
    assert _unfinished(journals[2].path, keys[2], said.append, tmp_path / "p2") is None
    records = _records(tmp_path / "p2" / "games")
    assert len(records) == 2 and second.record in records  # game 1's is the new one
    [new] = set(records) - {second.record}
    assert said == [f"the record of game 1, which ended, was saved as {new}"]
    hosts = matches[0].games[0].record  # the host's record of game 1: the same game
    assert hosts is not None
    assert parse_record(new.read_text()).moves == parse_record(hosts.read_text()).moves
    assert run_cuttle("verify", str(new)).returncode == 0
    assert not journals[2].path.exists()


def test_cuttle_join_keeps_the_journal_of_a_record_it_could_not_save_and_saves_it_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """End to end: `cuttle host` (a process) and `cuttle join` (in this process, its disk
    full at the game's end): the joiner says so in one line, exits 1, keeps its journal;
    the same `cuttle join` again saves the record and removes the journal."""
    host, port = start_host(tmp_path, "--bot", "greedy")
    _disk_full(monkeypatch, tmp_path / "b")
    joined = run_cuttle(*join_args(tmp_path, port, "--bot", "random"))
    code, out, err = finish(host)
    text = joined.stdout + joined.stderr
    assert code == 0 and "record saved:" in out, out + err  # the host's game ended as usual
    assert joined.returncode == 1 and "Traceback" not in text, text
    assert any(line.startswith("result:") for line in joined.stdout.splitlines()), text
    [journal] = (tmp_path / "b" / "journal").glob("table-join-*.journal")
    games_dir = tmp_path / "b" / "games"
    line = next(line for line in text.splitlines() if "could not be saved" in line)
    assert f"in {games_dir}: No space left on device" in line and str(journal) in line, line
    assert _records(games_dir) == []

    monkeypatch.undo()  # room made: the same command again
    again = run_cuttle(*join_args(tmp_path, port, "--bot", "random"))
    [record] = _records(games_dir)
    assert (
        f"the record of game 1, which ended, was saved as {record}" in again.stdout + again.stderr
    )
    assert not journal.exists()
    assert run_cuttle("verify", str(record)).returncode == 0


@pytest.mark.trio
async def test_a_record_saved_from_the_journal_states_the_verdict_the_seat_reached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seat 2 leaves mid-game: seat 1's record (its disk full) is saved on its next start
    with the ending the live seats recorded (the verdict on the table's end is journaled),
    not as an unfinished game."""
    _disk_full(monkeypatch, tmp_path / "p1")
    played, journals, keys = await journaled_table(tmp_path, 3, leaver=2)
    assert played[1].unsaved is not None and played[1].session is not None
    live = played[1].session.ending()
    assert live.form == "closed" and live.seat == 2, live
    for j in journals.values():
        j.close()
    inputs = read_table_journal(journals[1].path)[1]
    assert len([e for e in inputs if e[0] == "verdict"]) == 1  # (seat 2's leaving)
    monkeypatch.undo()
    said: list[str] = []
    assert _unfinished(journals[1].path, keys[1], said.append, tmp_path / "p1") is None
    [record] = _records(tmp_path / "p1" / "games")
    host = played[0].record
    assert host is not None
    mine, hosts = parse_record(record.read_text()), parse_record(host.read_text())
    assert mine.tags["Ending"] == hosts.tags["Ending"] and mine.moves == hosts.moves, mine.tags
    # Stopped before its audit: valid as far as it went (3), as the host's own copy.
    checked = run_cuttle("verify", str(record))
    assert checked.returncode == run_cuttle("verify", str(host)).returncode == 3, checked.stdout


def test_a_practice_game_whose_record_cannot_be_written_says_so_beside_its_result(
    tmp_path: Path,
) -> None:
    from cuttle_client.cuttle.controller import PracticeController

    from cuttle_net.games.cuttle.rules import Rules

    folder = tmp_path / "games"
    folder.write_text("")  # a file where the records folder should be
    c = PracticeController("random", Rules.parse("standard"), seed=7, bot_delay=0, records=folder)
    c.start()
    c.concede()
    assert isinstance(c.saved, RecordNotSaved) and c.saved.folder == folder
    assert c.ending is not None
    assert f" · the record of this game could not be saved in {folder}: " in c.ending.text


@pytest.mark.trio
async def test_a_watcher_whose_record_cannot_be_written_says_so_and_follows_on(
    tmp_path: Path, memory_net: object, autojump_clock: object
) -> None:
    from cuttle_client.watching import note_line

    from tests.net.test_table_watch import watched_table, watcher_at

    (tmp_path / "w").mkdir()
    (tmp_path / "w" / "games").write_text("")
    games, (notes, verdicts, _) = await watched_table(
        tmp_path, 2, "cuttle", "standard", watcher_at(tmp_path)
    )
    assert all(g.clean for g in games.values())
    [(verdict, path)] = verdicts
    assert path is None and verdict.report.verdict.name == "VALID"
    [unsaved] = [n for n in notes if isinstance(n, RecordNotSaved)]
    line = note_line(unsaved)
    assert line.startswith(f"the record of game 1 could not be saved in {tmp_path / 'w' / 'games'}")


@pytest.mark.trio
async def test_a_journal_of_the_previous_format_is_still_read_and_its_records_count_as_saved(
    tmp_path: Path,
) -> None:
    """A `cuttle-table-journal/2` journal (no `saved`, no `verdict`) whose table ended: its
    game's record was saved as it ended, so the next start saves none, and removes it."""
    _, journals, keys = await journaled_table(tmp_path, 2, "cuttle", "classic")
    journal = journals[1]
    journal.close()
    header, inputs = read_table_journal(journal.path)
    old = {**_header_wire(header), "format": "cuttle-table-journal/2"}
    kept = [e for e in inputs if e[0] not in ("saved", "verdict")]
    assert len(kept) < len(inputs)  # this format noted the record saved
    journal.path.write_bytes(b"".join(_record(x) for x in [old, *kept]))
    before = _records(tmp_path / "p1" / "games")
    said: list[str] = []
    assert _unfinished(journal.path, keys[1], said.append, tmp_path / "p1") is None
    assert said == [] and _records(tmp_path / "p1" / "games") == before
    assert not journal.path.exists()


@pytest.mark.trio
async def test_a_journal_of_the_previous_format_taken_on_keeps_a_record_it_could_not_save(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A seat whose journal an older cuttle began (`cuttle-table-journal/2`), taken on by
    this one, whose record cannot be written: noted `unsaved`, it is saved on the next start."""
    _disk_full(monkeypatch, tmp_path / "p1")
    _, journals, keys = await journaled_table(tmp_path, 2, "cuttle", "classic")
    journal = journals[1]
    journal.close()
    header, inputs = read_table_journal(journal.path)
    assert ["unsaved", 1] in inputs
    old = {**_header_wire(header), "format": "cuttle-table-journal/2"}
    journal.path.write_bytes(b"".join(_record(x) for x in [old, *inputs]))
    monkeypatch.undo()
    said: list[str] = []
    assert _unfinished(journal.path, keys[1], said.append, tmp_path / "p1") is None
    [record] = _records(tmp_path / "p1" / "games")
    assert said == [f"the record of game 1, which ended, was saved as {record}"]
    assert not journal.path.exists()


@pytest.mark.trio
async def test_a_seat_rebuilt_mid_match_saves_the_record_an_earlier_game_could_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Game 1's record failed at seat 2, whose process is then killed in game 2: rebuilt,
    the match reports game 1 with its record saved now (and noted, so never again)."""
    from cuttle_protocol.play import game_session
    from cuttle_protocol.play.match import _replayed
    from cuttle_protocol.store import open_journal, rebuild

    _disk_full(monkeypatch, tmp_path / "p2")
    matches: dict[int, TableMatch] = {}
    _, journals, keys = await journaled_table(tmp_path, 3, games=2, matches=matches)
    journal = journals[2]
    journal.close()
    header, inputs = read_table_journal(journal.path)
    second = inputs.index(["began", 2])
    cut = next(i for i in range(second, len(inputs)) if inputs[i][0] == "play") + 1
    journal.path.write_bytes(b"".join(_record(x) for x in [_header_wire(header), *inputs[:cut]]))
    monkeypatch.undo()
    before = _records(tmp_path / "p2" / "games")  # game 2's, saved live

    again = open_journal(journal.path)
    rebuild(again, keys[2], game_session)
    [first] = _replayed(again, {"data_dir": tmp_path / "p2"})
    assert first.unsaved is None and first.record is not None
    assert _records(tmp_path / "p2" / "games") == sorted([*before, first.record])
    again.close()
    assert read_table_journal(journal.path)[1][-1] == ["saved", 1]
    assert run_cuttle("verify", str(first.record)).returncode == 0
