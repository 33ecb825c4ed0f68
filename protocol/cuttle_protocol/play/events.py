"""What a seat at a table tells its player as the table goes, as data: the client alone
chooses the words (``cuttle_client.progress`` for the terminal client and the headless
``cuttle`` alike).

`play_at_table`'s ``tell`` hook gets, beside the table's own `Lobby` (who sits at the table
so far) and `Watching` (who watches it):

- `SeatKey`: once every seat is taken, each other player's name, key and what trust on first
  use says of it, to read beside the code;
- `CodeToCompare`: the table's code, or that it needs no comparing (`verified`);
- `GameBegins`: a game was dealt: its number, our seat, the dealer's;
- `GameStopped`: the game was interrupted (Ctrl+C, a signal, a cancel): its result line and
  where its record went.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..store.identity import Trust
from ..table.core import Lobby, Watching


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
    """The game was interrupted before its end: its result line, and its record if saved."""

    line: str
    record: Path | None = None


Progress = Lobby | Watching | SeatKey | CodeToCompare | GameBegins | GameStopped
Tell = Callable[[Progress], None]
"""Hears a seat's progress (`play_at_table`'s ``tell``)."""
