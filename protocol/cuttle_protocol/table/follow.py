"""A watched table's games, followed as a third party (SPEC.md 3.15 *Watchers*), without I/O.

    follower = Follower(me.identity)             # the watcher's key signs its copies
    for event in watcher.take_events():          # a `table.watch.TableWatcher`'s events
        for note in follower.feed(event, watcher.settings):
            ...                                  # Began, Played, Watching, GameVerdict, Ended

Each game is followed as `cuttle verify` would (`records.follow.WatchedGame`): every deck
message, proof, share and move as it arrives, the spectator's view, and at the end the
audit's verdict and the watcher's copy of the record.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cuttle_net.records.follow import WatchedGame
from cuttle_net.records.verify import Report, verify_text

from .core import Chat, Delivered, Lobby, Muted, Started, TableEnded, TableEvent, Watching
from .seats import SeatOrder, game_header

# --- what a watcher sees -------------------------------------------------------------------


@dataclass(frozen=True)
class Began:
    """Game `number` began: the players in game seats, the dealer's game seat."""

    number: int
    names: tuple[str, ...]
    dealer: int


@dataclass(frozen=True)
class Played:
    """A move applied (game seat, None for chance; notation), checked as a third party."""

    number: int
    seat: int | None
    name: str
    text: str


@dataclass(frozen=True)
class GameVerdict:
    """Game `number` is over for the watcher: `report` is `cuttle verify`'s verdict on the
    watcher's copy of its record (`record`, the text to save)."""

    number: int
    names: tuple[str, ...]
    report: Report
    record: str
    note: str = ""


@dataclass(frozen=True)
class Said:
    """A word to the table: `name` (a seat's, display-safe, or a watcher's marked
    "NAME (watching)") said `text`; or, `muted`, the host dropped `name`'s chat for
    flooding."""

    name: str
    text: str
    muted: bool = False


@dataclass(frozen=True)
class Ended:
    """The table stopped: its words."""

    text: str


Note = Began | Played | Watching | Said | GameVerdict | Ended
"""What a watcher sees (`Watching`: the table's event, who watches now)."""


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class Follower:
    """The games of a watched table, followed as a third party."""

    def __init__(
        self,
        key: Ed25519PrivateKey,
        rules_token: str | None = None,
        *,
        date: Callable[[], str] = _now,
    ) -> None:
        self._key = key
        self._token = rules_token
        self._date = date
        self.game: WatchedGame | None = None
        self.order = SeatOrder(0, 1)
        self.number = 0
        self.verdicts: list[GameVerdict] = []
        self.seated: dict[int, str] = {}  # table seat -> name: who said a chat line

    def feed(self, event: TableEvent, settings: Any = None) -> list[Note]:
        """What `event` (of the watcher's table, whose `settings` are given once seated)
        shows."""
        notes: list[Note] = []
        if isinstance(event, Lobby | Started):
            players = event.players if isinstance(event, Lobby) else event.seats
            self.seated = {s.seat: s.name for s in players}
        if isinstance(event, Chat):
            notes.append(Said(event.who(self._name), event.text))
        elif isinstance(event, Muted):
            notes.append(Said(self._name(event.seat), "", True))
        elif isinstance(event, Started):
            assert settings is not None
            token = self._token if self._token is not None else "+".join(settings.options)
            self.order, names, header = game_header(settings, event, token)
            self.game, self.number = WatchedGame(header, names), event.number
            notes.append(Began(event.number, names, header.dealer))
        elif isinstance(event, Delivered) and self.game is not None and not self.game.over:
            game = self.game
            for seat, text in game.receive(self.order.game(event.seat), event.body):
                name = "chance" if seat is None else game.names[seat]
                notes.append(Played(self.number, seat, name, text))
            if game.over:
                notes.append(self._verdict(""))
        elif isinstance(event, Watching):
            notes.append(event)
        elif isinstance(event, TableEnded):
            text = f"the table ended: {self._why(event)}"
            if self.game is not None and not self.game.over:
                notes.append(self._verdict(text))
            notes.append(Ended(text))
        return notes

    def _name(self, seat: int) -> str:
        return self.seated.get(seat, f"seat {seat}")

    def _why(self, end: TableEnded) -> str:
        """Why the table ended, naming the seat: "Ann (seat 0) left: no more games"."""
        if end.culprit is None:
            return f"{end.kind}: {end.detail}"
        name = self.seated.get(end.culprit)
        who = f"{name} (seat {end.culprit})" if name else f"seat {end.culprit}"
        return f"{who} {end.kind}: {end.detail}"

    def _verdict(self, note: str) -> GameVerdict:
        game = self.game
        assert game is not None
        record = game.record(self._date(), self._key, note)
        verdict = GameVerdict(self.number, game.names, verify_text(record), record, note)
        self.verdicts.append(verdict)
        return verdict


__all__ = [
    "Began",
    "Ended",
    "Follower",
    "GameVerdict",
    "Note",
    "Played",
    "Said",
]
