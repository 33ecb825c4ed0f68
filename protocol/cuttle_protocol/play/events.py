"""What a seat at a table tells its player as the table goes, as data: the client alone
chooses the words (``cuttle_client.progress`` for the terminal client and the headless
``cuttle`` alike).

Meeting a table's host (`open_game_peer`'s ``tell``):

- `Dialling`: where, and for how long before giving up;
- `HostMet`: who answered and what its key proves (trust on first use, the invitation).

A host's port mapping (`map_port`'s ``tell``): `PortMapped`, or `NotMapped`, then
`MappingRemoved`; its LAN announcement (`shells.keep_announced`): `Announced` or
`NotAnnounced`.

A table's shell tells its connections' news (`shells.ConnectionNews`: who joined, who is
back, the host lost and won back...) through its ``log`` hook, which takes a ``Tell``; a
host's listener (`shells.open_listener`'s ``log``) the connections it refused or lost before
they took a seat, and the tries at its code (`shells.ListenerNews`).

`play_at_table`'s ``tell`` hook gets, beside the table's own `Lobby` (who sits at the table
so far) and `Watching` (who watches it):

- `SeatKey`: once every seat is taken, each other player's name, key and what trust on first
  use says of it, to read beside the code;
- `CodeToCompare`: the table's code, or that it needs no comparing (`verified`);
- `GameBegins`: a game was dealt: its number, our seat, the dealer's;
- `GameStopped`: the game was interrupted (Ctrl+C, a signal, a cancel): its result (a
  `GameResult`, which the client words as SPEC 4.5's result line) and where its record went.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..shells.mdns import Announced, NotAnnounced
from ..shells.peer import ListenerNews
from ..shells.portmap import MappingRemoved, NotMapped
from ..shells.table_shell import ConnectionNews
from ..store import RecordNotSaved
from ..store.identity import Trust
from ..table.core import Lobby, Watching
from .result import GameResult


@dataclass(frozen=True)
class Dialling:
    """Connecting to the host at `address` (as the player gave it), for up to
    `give_up_after` seconds."""

    address: str
    give_up_after: float


@dataclass(frozen=True)
class HostMet:
    """The table's host answered and the handshake held: its name, where it answered from
    (may be empty), its key's fingerprint, what trust on first use says of it, and whether
    the handshake proved the key an invitation named (SPEC 3.14). For a changed key, the
    fingerprint we knew under that name; for a renamed one, the name we knew the key by.
    The table's one code comes later (SPEC 3.15): this connection's own is never told."""

    name: str
    remote: str
    fingerprint: str
    trust: Trust | None = None
    verified: bool = False
    known_fingerprint: str | None = None
    known_as: str | None = None


@dataclass(frozen=True)
class PortMapped:
    """The router forwards our port: the `address` to join from the internet (HOST:PORT),
    how it was mapped (`method`: UPnP or NAT-PMP), and the invitation naming that address
    first (SPEC 3.14)."""

    address: str
    method: str
    invitation: str


@dataclass(frozen=True)
class SeatKey:
    """Another player at the table, shown beside the code (SPEC 3.15): its table seat,
    name, key fingerprint, what trust on first use says of the key (None: not judged), and
    the name we knew that key by when it comes under a new one."""

    seat: int
    name: str
    fingerprint: str
    trust: Trust | None = None
    known_as: str | None = None


@dataclass(frozen=True)
class CodeToCompare:
    """The table's code. `verified`: the only other key is the host's, which the invitation
    named and the handshake proved (SPEC 3.14): nothing to compare."""

    code: str
    verified: bool = False


@dataclass(frozen=True)
class GameBegins:
    """Game `number` of the table was dealt: we are game seat `seat`, `dealer` deals."""

    number: int
    seat: int
    dealer: int


@dataclass(frozen=True)
class GameStopped:
    """The game was interrupted before its end: its result, and its record if saved."""

    result: GameResult
    record: Path | None = None
    unsaved: RecordNotSaved | None = None  # the record could not be saved: why, and where kept


Progress = (
    Dialling
    | HostMet
    | PortMapped
    | NotMapped
    | MappingRemoved
    | Announced
    | NotAnnounced
    | Lobby
    | Watching
    | SeatKey
    | CodeToCompare
    | GameBegins
    | GameStopped
    | ConnectionNews
    | ListenerNews
)
Tell = Callable[[Progress], None]
"""Hears a seat's progress (`open_game_peer`'s and `play_at_table`'s ``tell``)."""
