"""A game's record on disk, and the seat's journal that stands in for it until it is there.

A record that cannot be written (a full disk, a ``games/`` folder that is gone, read-only or
a file) is never a traceback and never lost: the save says so as data (`RecordNotSaved`),
the seat's journal, which holds the whole session, is kept (`SeatJournal.unsaved`), and
once its table has ended the next start of that seat saves the record from it
(`save_unsaved`). A journal notes each record saved (`saved`, SPEC 4.6), so no record is
saved twice.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from cuttle_net.records.record import build_record, save_record
from cuttle_net.session import GameSession

from .dirs import games_dir
from .seatjournal import SeatJournal


@dataclass(frozen=True)
class RecordNotSaved:
    """Game `number`'s record could not be written in `folder`: `reason` (the system's
    words). `journal`: the seat's journal, kept until the record is saved from it (None:
    no journal holds the game)."""

    number: int | None  # None: a game of no table (a practice game)
    folder: Path
    reason: str
    journal: Path | None = None


class JournalKept(Exception):
    """A seat's table ended and the records of some of its games still cannot be saved:
    its journal is kept (`unsaved` says which games, where and why)."""

    def __init__(self, unsaved: list[RecordNotSaved]) -> None:
        super().__init__(f"{len(unsaved)} record(s) not saved")
        self.unsaved = unsaved


def save_text(text: str, folder: Path, stem: str, number: int | None) -> Path | RecordNotSaved:
    """Write the record `text` as `folder/stem.cuttle` (`save_record`): its path, or why not."""
    try:
        return save_record(text, folder, stem)
    except OSError as e:
        where = f" ({e.filename})" if e.filename and Path(e.filename) != folder else ""
        if folder.exists() and not folder.is_dir():  # (the system says "File exists")
            where = " (a file is there, not a folder)"
        return RecordNotSaved(number, folder, f"{e.strerror or type(e).__name__}{where}")


def keep_record(
    session: GameSession,
    names: tuple[str, ...],
    note: str,
    data_dir: Path | None,
    journal: SeatJournal | None = None,
) -> Path | RecordNotSaved:
    """Save the record of `session`'s game (`note`: why an unfinished game stopped) under
    `data_dir`, and let `journal` know: once saved, it notes so; else it is kept."""
    date = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    number = session.header.number
    text = build_record(session, names, date, "" if session.finished else note)
    stem = f"{date}-{'-'.join(names)}-game{number}"
    saved = save_text(text, games_dir(data_dir), stem, number)
    if journal is None:
        return saved
    if isinstance(saved, Path):
        journal.saved(number)
        return saved
    journal.not_saved(number)
    return replace(saved, journal=journal.path)


def save_unsaved(
    journal: SeatJournal, data_dir: Path | None
) -> list[tuple[int, Path | RecordNotSaved]]:
    """The seat rebuilt from `journal` (`rebuild`): save the record of each of its games
    that is over (the table ended: the last one too, stopped or not) and whose record was
    not saved, in order. Each game's number and what its save gave; the journal notes each
    one saved."""
    seat = journal.resumed
    assert seat is not None
    games = list(seat.earlier)
    if seat.session is not None and (seat.ended is not None or seat.session.finished):
        games.append((seat.session, seat.names))
    return [
        (session.header.number, keep_record(session, names, seat.note, data_dir, journal))
        for session, names in games
        if session.header.number not in seat.saved
    ]


__all__ = ["JournalKept", "RecordNotSaved", "keep_record", "save_text", "save_unsaved"]
