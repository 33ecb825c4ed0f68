"""The N-party table, sans I/O (SPEC 3.15): the host's relay and a joiner's view of it
(`core`), the signed relay log, which table seat is which game seat, and a watcher's checks
and the games it follows. Built on `wire`; the trio shell is `shells.table_shell`."""

from __future__ import annotations

from .core import (
    MAX_CHAT_LEN,
    Chat,
    CodeShown,
    Delivered,
    Lobby,
    Muted,
    Rematch,
    SeatInfo,
    Stage,
    Started,
    TableEnded,
    TableGuest,
    TableHost,
    TableSettings,
    Watching,
)
from .follow import Began, Ended, Follower, GameVerdict, Played, Said
from .log import LogEntry, RelayLog
from .watch import TableWatcher, WatcherGate

__all__ = [
    "MAX_CHAT_LEN",
    "Began",
    "Chat",
    "CodeShown",
    "Delivered",
    "Ended",
    "Follower",
    "GameVerdict",
    "Lobby",
    "LogEntry",
    "Muted",
    "Played",
    "RelayLog",
    "Rematch",
    "Said",
    "SeatInfo",
    "Stage",
    "Started",
    "TableEnded",
    "TableGuest",
    "TableHost",
    "TableSettings",
    "TableWatcher",
    "WatcherGate",
    "Watching",
]
