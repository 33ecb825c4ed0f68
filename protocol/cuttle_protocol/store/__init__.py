"""Files on disk: where they live (`dirs`), the identity key, known peers (`identity`),
the crash journal of a table seat (`journal`, `seatjournal`, SPEC 4.6), and a game's record
kept whatever the disk does (`records`). No sockets, no trio."""

from __future__ import annotations

from .dirs import data_dir, games_dir
from .identity import (
    ConfigError,
    KnownPeers,
    Trust,
    default_config_dir,
    load_or_create_identity,
    write_private,
)
from .journal import JournalDamaged, JournalInUse, check_folders, release
from .records import JournalKept, RecordNotSaved, keep_record, save_text, save_unsaved
from .seatjournal import (
    JournaledGuest,
    JournaledHost,
    SeatJournal,
    TableHeader,
    find_host_table,
    host_table_path,
    join_table_path,
    open_journal,
    read_table_journal,
    rebuild,
    unfinished_tables,
)

__all__ = [
    "ConfigError",
    "JournalDamaged",
    "JournalInUse",
    "JournalKept",
    "JournaledGuest",
    "JournaledHost",
    "KnownPeers",
    "RecordNotSaved",
    "SeatJournal",
    "TableHeader",
    "Trust",
    "check_folders",
    "data_dir",
    "default_config_dir",
    "find_host_table",
    "games_dir",
    "host_table_path",
    "join_table_path",
    "keep_record",
    "load_or_create_identity",
    "open_journal",
    "read_table_journal",
    "rebuild",
    "release",
    "save_text",
    "save_unsaved",
    "unfinished_tables",
    "write_private",
]
