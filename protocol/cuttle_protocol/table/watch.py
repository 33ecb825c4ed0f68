"""A watcher at a table, without I/O (SPEC.md 3.15 *Watchers*).

A watcher dials the host like a joiner, announcing the capability `watch` instead of
`table`. The host sends it the log from entry 0 (every entry is public to the whole table:
the deck keeps each hidden card encrypted for its holder, SPEC 2.5), then each new entry,
and names it in a `watch` entry, so the seats see who watches. A watcher sends nothing
that touches the game: a `post` closes its connection, anything else but the connection's
own messages is dropped, and a flood of them closes it too (`WatcherGate`).

    watcher = TableWatcher(me, host_identity)       # checks every entry as a joiner does
    watcher.receive(message)                         # each message from the host
    watcher.take_events()                            # the table's events (Started, Delivered...)

`TableWatcher` is a joiner's table that sits at no seat: it checks the relay (every
signature, vouch and head, the equivocation proof) exactly as a seat does, and posts
nothing. `table.follow.Follower` follows its games as a third party.
"""

from __future__ import annotations

from typing import Any

from ..errors import ErrorCode, LocalProtocolError
from ..wire.messages import Entry, Message, Post
from .core import TableEnded, TableGuest, _Culprit

WATCH_CAP = "watch"
"""The capability a watcher announces instead of `table` (and a host that takes watchers)."""
MAX_DROPPED = 16
"""Messages a watcher may send that are dropped before the host closes its connection."""


class TableWatcher(TableGuest):
    """A watcher's table: a joiner's checks, no seat, nothing posted."""

    watching = True

    def _post(self, body: dict[str, Any], force: bool = False) -> None:
        return  # a watcher signs nothing: a fault it finds ends its own view only

    def confirm(self) -> None:
        raise LocalProtocolError(ErrorCode.UNEXPECTED_MESSAGE, "a watcher confirms nothing")

    def post(self, body: dict[str, Any]) -> None:
        raise LocalProtocolError(ErrorCode.UNEXPECTED_MESSAGE, "a watcher posts nothing")

    def rematch(self) -> None:
        raise LocalProtocolError(ErrorCode.UNEXPECTED_MESSAGE, "a watcher plays no game")

    def leave(self, code: str = ErrorCode.PEER_QUIT, reason: str = "") -> None:
        self.leaving = code
        self._end(TableEnded(None, "left", "you stopped watching"))

    def receive(self, message: Message) -> None:
        """A message from the host. After a reconnection (the host's, or ours) the host
        sends the log from entry 0 again: an entry we hold is skipped if it is the same;
        a different one is the host's `equivocation` if it signed it (the proof), else
        its `bad-relay`."""
        if type(message) is Entry and self.log is not None and message.n < len(self.log):
            e = self.log.entries[message.n]
            held = (e.seat, e.seen, e.head, e.vouch, e.body, e.sig)
            sent = (message.seat, message.seen, message.head, message.vouch, message.body)
            if (*sent, message.sig) == held and message.relay == self.log.relays[message.n + 1]:
                return
            try:
                self._entry_again(message)  # the proof, if the host signed the other one
            except _Culprit as proven:
                self._fail(proven)
                return
            self._fail(_Culprit(0, "bad-relay", f"entry {message.n} differs from the one sent"))
            return
        super().receive(message)


class WatcherGate:
    """The host's side of one watcher's connection: what it sent, and whether to close it.
    `judge` gives None (dropped: nothing reaches the table) or the close (code, reason)."""

    def __init__(self, limit: int = MAX_DROPPED) -> None:
        self.dropped = 0
        self._limit = limit

    def judge(self, message: Message) -> tuple[str, str] | None:
        if type(message) is Post:
            return ErrorCode.UNEXPECTED_MESSAGE, "a watcher posts nothing to the table"
        self.dropped += 1
        if self.dropped > self._limit:
            return ErrorCode.UNEXPECTED_MESSAGE, f"a watcher sent {self.dropped} messages"
        return None


__all__ = ["MAX_DROPPED", "WATCH_CAP", "TableWatcher", "WatcherGate"]
