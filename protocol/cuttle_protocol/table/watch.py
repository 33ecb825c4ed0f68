"""A watcher at a table, without I/O (SPEC.md 3.15 *Watchers*).

A watcher dials the host like a joiner, announcing the capability `watch` instead of
`table`. The host sends it the log from entry 0 (every entry is public to the whole table:
the deck keeps each hidden card encrypted for its holder, SPEC 2.5), then each new entry,
and names it in a `watch` entry, so the seats see who watches. A watcher sends nothing
that touches the game. If the host takes its watchers' chat (it announces `watch-chat`),
a watcher may post a chat line, signed with its key, which the host checks and relays in
a `watcher-chat` entry (`TableHost.hear_watcher`); otherwise a `post` closes its
connection. Anything else but the connection's own messages is dropped, and a flood of
them closes it too (`WatcherGate`).

    watcher = TableWatcher(me, host_identity)       # checks every entry as a joiner does
    watcher.receive(message)                         # each message from the host
    watcher.take_events()                            # the table's events (Started, Delivered...)

`TableWatcher` is a joiner's table that sits at no seat: it checks the relay (every
signature, vouch and head, the equivocation proof) exactly as a seat does, and posts
nothing. `table.follow.Follower` follows its games as a third party.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cuttle_net.identity_key import sign

from ..errors import ErrorCode, LocalProtocolError
from ..wire.connection import LocalPlayer
from ..wire.messages import Entry, Message, Post
from .core import Stage, TableEnded, TableGuest, _Culprit
from .log import watcher_digest

WATCH_CAP = "watch"
"""The capability a watcher announces instead of `table` (and a host that takes watchers)."""
WATCH_CHAT_CAP = "watch-chat"
"""A host's capability: it relays its watchers' chat lines (`--watcher-chat`)."""
MAX_DROPPED = 16
"""Messages a watcher may send that are dropped before the host closes its connection."""


class TableWatcher(TableGuest):
    """A watcher's table: a joiner's checks, no seat, nothing posted but its chat lines
    where the host takes them (`chat`: its `hello` announced `watch-chat`)."""

    watching = True

    def __init__(
        self, player: LocalPlayer, host_identity: bytes, *, chat: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(player, host_identity, **kwargs)
        self.chat = chat

    @property
    def may_say(self) -> bool:
        """The host takes our chat, and names us in its log (it does once a game starts)."""
        named = any(k == self.identity for _, k in self.watchers)
        return self.chat and named and self.stage in (Stage.GAME, Stage.BETWEEN)

    def say(self, text: str) -> bool:
        """A chat line, signed as a watcher's: it comes back as `Chat` (with `watcher`)
        once the host relays it. False (nothing sent) unless `may_say`, or as a seat's."""
        return self.may_say and super().say(text)

    def _post(self, body: dict[str, Any], force: bool = False) -> None:
        # A watcher signs nothing but its chat: a fault it finds ends its own view only.
        if body["t"] != "chat" or self.log is None:
            return
        data = self._encode(body)
        seen, head = len(self.log), self.log.head
        digest = watcher_digest(self.log.table_id, self.identity, seen, head, data)
        post = Post(seen, head, self.log.relays[seen], data, sign(self._player.identity, digest))
        self._outgoing.append(post)

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

    def __init__(
        self, limit: int = MAX_DROPPED, hear: Callable[[Post], str | None] | None = None
    ) -> None:
        """`hear`: the host's judge of a `post` (`TableHost.hear_watcher`, bound to this
        watcher): None, or why it closes. Without it every post closes the connection."""
        self.dropped = 0
        self._limit = limit
        self._hear = hear or (lambda post: "a watcher posts nothing to the table")

    def judge(self, message: Message) -> tuple[str, str] | None:
        if type(message) is Post:
            why = self._hear(message)
            return None if why is None else (ErrorCode.UNEXPECTED_MESSAGE, why)
        self.dropped += 1
        if self.dropped > self._limit:
            return ErrorCode.UNEXPECTED_MESSAGE, f"a watcher sent {self.dropped} messages"
        return None


__all__ = ["MAX_DROPPED", "WATCH_CAP", "WATCH_CHAT_CAP", "TableWatcher", "WatcherGate"]
