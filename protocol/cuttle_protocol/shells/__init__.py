"""The trio and socket shells: the two-party `Peer` and its listener, dialling, this
machine's addresses, port mapping, LAN announcing and browsing over mDNS (`mdns`), and a
table's host, joiner and watcher connections.
Nothing here knows a game."""

from __future__ import annotations

from .addresses import HostAddress, host_addresses
from .dial import Attempt, Unreachable, dial
from .mdns import (
    JOIN_HINT,
    Announced,
    Browser,
    LanGame,
    LanUnavailable,
    NotAnnounced,
    browse_once,
    keep_announced,
)
from .peer import (
    ConnectionEnded,
    EndReason,
    Listener,
    ListenerLimits,
    Peer,
    PeerSettings,
    Reconnected,
    Reconnecting,
    connect,
    handshake,
    open_listener,
    open_peer,
    running,
)
from .portmap import MappingRemoved, NotMapped
from .table_shell import (
    NOT_BACK,
    TABLE_CAPS,
    GuestShell,
    HostShell,
    SeatAway,
    SeatBack,
    TableShell,
    TableTimeouts,
    host_table,
    join_table,
)
from .watch import Saved, follow_table, watch_table

__all__ = [
    "JOIN_HINT",
    "NOT_BACK",
    "TABLE_CAPS",
    "Announced",
    "Attempt",
    "Browser",
    "ConnectionEnded",
    "EndReason",
    "GuestShell",
    "HostAddress",
    "HostShell",
    "LanGame",
    "LanUnavailable",
    "Listener",
    "ListenerLimits",
    "MappingRemoved",
    "NotAnnounced",
    "NotMapped",
    "Peer",
    "PeerSettings",
    "Reconnected",
    "Reconnecting",
    "Saved",
    "SeatAway",
    "SeatBack",
    "TableShell",
    "TableTimeouts",
    "Unreachable",
    "browse_once",
    "connect",
    "dial",
    "follow_table",
    "handshake",
    "host_addresses",
    "host_table",
    "join_table",
    "keep_announced",
    "open_listener",
    "open_peer",
    "running",
    "watch_table",
]
