"""The trio shell of a watcher (SPEC.md 3.15 *Watchers*): one connection to a table's
host, its entries checked by `table.watch.TableWatcher`, its games followed by
`table.follow.Follower`.

    async with watch_table("192.168.1.20", me) as table:
        verdicts = await follow_table(table, me.identity, show=print)

A watcher posts nothing but its chat lines, where the host takes them (`say`): it reads
until the table ends (the host's last entry, or a check that failed), then closes. A
connection lost (or a host that restarts from its journal, SPEC 4.6) is dialled again
for up to the reconnect window: the host sends the log from entry 0 again, and the
watcher skips what it holds (`TableWatcher.receive`).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ..errors import ErrorCode, RemoteProtocolError
from ..store import RecordNotSaved, games_dir, save_text
from ..store.identity import KnownPeers
from ..table.core import TableEnded
from ..table.follow import Follower, GameVerdict, Note
from ..table.watch import WATCH_CAP, WATCH_CHAT_CAP, TableWatcher
from ..wire.connection import LocalPlayer
from .peer import ConnectionEnded, EndReason, Peer, PeerSettings, Refusal, accept_any_rules, connect
from .table_shell import (
    ConnectionNews,
    HostLost,
    TableShell,
    TableTimeouts,
    WatchingAgain,
    _Link,
)

_NOT_WATCHABLE = Refusal(
    ErrorCode.PEER_QUIT,
    "we came to watch a table",
    "this host seats no watchers (a two-player game, or an older program)",
)


def _watchable(peer: Peer) -> Refusal | None:
    return None if WATCH_CAP in peer.info.caps else _NOT_WATCHABLE


class WatcherShell(TableShell):
    """A watcher's table: its events (`Started`, `Delivered`, `Watching`, `TableEnded`...)."""

    core: TableWatcher

    def __init__(self, core: TableWatcher, log: Callable[[ConnectionNews], None]) -> None:
        super().__init__(core, TableTimeouts(), log)
        self.opened = trio.Event()  # the seating came (the log is open), or the end did
        self._link: _Link | None = None  # the connection now, for our chat lines

    @property
    def can_chat(self) -> bool:
        """The host takes our chat (its hello said `watch-chat`)."""
        return self.core.chat

    @property
    def connected(self) -> bool:
        """A connection to the host is open now; else it is dialled again (a host killed
        and restarted, say), and we are named again only once it takes us back."""
        return self._link is not None

    def say(self, text: str) -> bool:
        """A chat line to the table: False (nothing sent) while `connected` is not, as
        `TableShell.say` when the table does not take it. Said while away, it would be
        signed over a log the host may no longer show us, with nothing to carry it."""
        return self.connected and super().say(text)

    def _route(self) -> None:
        for message in self.core.take_outgoing():  # our chat lines
            if self._link is not None:
                self._link.queue_in.send_nowait(message)

    async def serve(self, peer: Peer) -> None:
        """Read the host's entries until the table ends or the connection does (then the
        caller may dial again: `lost`); our chat lines go out on it meanwhile."""
        link = self._link = _Link(peer, self._before_send)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(link.write)
            try:
                await self._serve(peer)
            finally:
                self._link = None
                nursery.cancel_scope.cancel()

    async def _serve(self, peer: Peer) -> None:
        try:
            async for message in peer:
                self.core.receive(message)
                self._flush()
                if self.core.log is not None:
                    self.opened.set()
                if self.ended.is_set():
                    break
        except RemoteProtocolError as exc:
            await peer.aclose(exc.code, exc.message)
        except ConnectionEnded:
            pass
        if not self.ended.is_set() and not self.lost(peer.ended):
            ended = peer.ended
            why = ended.message if ended is not None else "the connection ended"
            self.core.fault(0, "left", f"the host went: {why}")
            self._flush()
        if self.core.log is None or self.ended.is_set():
            self.opened.set()
        await peer.aclose(ErrorCode.PEER_QUIT, "")

    def lost(self, ended: ConnectionEnded | None) -> bool:
        """Was the connection lost (worth dialling again), rather than closed by the host
        on purpose (the table ended, it refused us, it closed us)?"""
        if ended is None or self.core.log is None:
            return False
        if ended.reason is EndReason.PEER_CLOSED:
            return ended.code == ErrorCode.AWAY
        return ended.reason in (EndReason.NETWORK_ERROR, EndReason.TIMEOUT)


@asynccontextmanager
async def watch_table(
    address: str,
    player: LocalPlayer,
    *,
    peer_settings: PeerSettings | None = None,
    known_peers: KnownPeers | None = None,
    log: Callable[[ConnectionNews], None] = lambda news: None,
    window: float = 60.0,
) -> AsyncIterator[WatcherShell]:
    """Watch the table hosted at `address` (HOST[:PORT] or an invitation) for the block.
    Raises `ConnectionEnded` if the connection fails, or the host takes no watchers.
    A connection lost later is dialled again for up to `window` seconds (the same host)."""
    dial = contextlib.asynccontextmanager(_dialler)
    connection = connect(
        address,
        player,
        judge_rules=accept_any_rules,
        judge_peer=_watchable,
        known_peers=known_peers,
        settings=peer_settings,
        caps=(WATCH_CAP, WATCH_CHAT_CAP),
    )
    async with connection as peer:
        chat = WATCH_CHAT_CAP in peer.info.caps
        shell = WatcherShell(TableWatcher(player, peer.info.peer_identity, chat=chat), log)
        shell.known_peers = known_peers
        if peer.trust is not None:
            shell.trust[peer.info.peer_identity] = peer.trust
        refused: ConnectionEnded | None = None
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_keep_watching, shell, peer, dial, address, player, window)
            await shell.opened.wait()
            if shell.core.log is None:  # refused after the handshake (no watchers, full...)
                ended = peer.ended
                why = ended.message if ended is not None else "the host closed"
                code = ended.code if ended is not None else ErrorCode.PEER_QUIT
                refused = ConnectionEnded(EndReason.PEER_CLOSED, code, why)
                nursery.cancel_scope.cancel()
            else:
                try:
                    yield shell
                finally:
                    nursery.cancel_scope.cancel()
    if refused is not None:
        raise refused


async def _dialler(address: str, player: LocalPlayer, host: bytes) -> AsyncIterator[Peer]:
    """A connection to the same host again (its key checked before it takes us in)."""

    def same_host(peer: Peer) -> Refusal | None:
        if peer.info.peer_identity != host:
            return Refusal(ErrorCode.WRONG_PLAYER, "you are not this table's host", "another host")
        return _watchable(peer)

    async with connect(
        address, player, judge_peer=same_host, caps=(WATCH_CAP, WATCH_CHAT_CAP)
    ) as peer:
        yield peer


async def _keep_watching(
    shell: WatcherShell,
    peer: Peer,
    dial: Callable[..., contextlib.AbstractAsyncContextManager[Peer]],
    address: str,
    player: LocalPlayer,
    window: float,
) -> None:
    """Serve the first connection, then dial again while it is lost, within `window`."""
    await shell.serve(peer)
    ended = peer.ended
    while shell.lost(ended) and not shell.ended.is_set():
        why = ended.message if ended is not None else "lost"
        shell._log(HostLost(why))
        ended = None
        with trio.move_on_after(window) as waiting:
            while ended is None:
                try:
                    async with dial(address, player, shell.core.host_identity) as again:
                        shell._log(WatchingAgain())
                        await shell.serve(again)
                        ended = again.ended
                except ConnectionEnded as exc:
                    if exc.reason is EndReason.PEER_CLOSED and exc.code != ErrorCode.AWAY:
                        ended = exc  # refused on purpose: stop
                    else:
                        await trio.sleep(1.0)
        if waiting.cancelled_caught:
            shell.core.fault(0, "left", f"the host is not back after {window:g} s")
            shell._flush()
            return
    shell.opened.set()


@dataclass(frozen=True)
class Saved:
    """The watcher's copy of game `number`'s record was saved at `path`."""

    number: int
    path: Path


def _today() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


async def follow_table(
    table: WatcherShell,
    key: Ed25519PrivateKey,
    *,
    show: Callable[[Note | Saved | RecordNotSaved], None] = lambda note: None,
    save: bool = True,
    data_dir: Path | None = None,
    follower: Follower | None = None,
) -> list[tuple[GameVerdict, Path | None]]:
    """Follow the watched table's games to the end: `show` each move, who watches, each
    game's verdict and where its record was saved (`save`: the watcher's copy), or why not.
    Returns the verdicts. `follower`: one of the caller's, to read the game's positions as
    it goes."""
    follower = follower or Follower(key)
    done: list[tuple[GameVerdict, Path | None]] = []
    async for event in table.events:
        for note in follower.feed(event, table.core.settings):
            show(note)
            if isinstance(note, GameVerdict):
                path = None
                if save:  # a record that cannot be written is said, never a traceback
                    stem = f"{_today()}-watched-{'-'.join(note.names)}-game{note.number}"
                    saved = save_text(note.record, games_dir(data_dir), stem, note.number)
                    path = saved if isinstance(saved, Path) else None
                    show(Saved(note.number, saved) if path is not None else saved)
                done.append((note, path))
        if isinstance(event, TableEnded):
            break
    return done


__all__ = ["Saved", "WatcherShell", "follow_table", "watch_table"]
