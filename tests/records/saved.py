"""Finding the records a test's players saved."""

from __future__ import annotations

from pathlib import Path

from cuttle_net.records.record import parse_record


def records_in_play_order(directory: Path) -> list[Path]:
    """The record files in ``directory``, in the order their games were played.

    A file's name starts with the second it was saved and then the seat-0 player's name, so
    two games saved within one second may sort by name the other way round; the ``Number``
    tag is the game's place in its connection.
    """
    paths = list(directory.glob("*.cuttle"))
    return sorted(paths, key=lambda p: int(parse_record(p.read_text()).tags["Number"]))
