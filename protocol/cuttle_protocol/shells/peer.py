"""The trio shell: a `Connection` driven over a trio stream, TCP listen and connect.

    async with connect("192.168.1.20", me) as peer:      # or: async with listener.accept(...)
        print(peer.info.sas, peer.trust)
        await peer.send(Move("draw"))
        reply = await peer.receive()

One reader task feeds the connection; writes go through one lock so frames leave in nonce
order; a keepalive pings a silent peer. However the connection ends, every waiting or later
call raises one `ConnectionEnded` saying why; after a failed write, only once what the peer
had already sent was read (its `close` may be there). The sans-I/O core never imports
trio; this module, `table_shell`, `play.meet` and `mdns` are the shell around it.

A `Listener` keeps accepting for as long as it is open: every connection gets its own
handshake, bounded in time and bytes, and whatever fails is closed and logged while the
host goes on waiting (SPEC 3.11).
"""

from __future__ import annotations

import contextlib
import errno
import ipaddress
import math
import os
import socket
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TypeVar

import trio

from ..errors import Declined, ErrorCode, LocalProtocolError, ProtocolError, RemoteProtocolError
from ..store.identity import KnownPeers, Trust
from ..wire import codec
from ..wire.address import DEFAULT_PORT, parse_address
from ..wire.codebudget import CodeAlarm, CodeBudget, CodeLimits
from ..wire.connection import (
    NEED_DATA,
    CodeGate,
    Connection,
    Event,
    HandshakeComplete,
    LocalPlayer,
    Rules,
    RulesProposed,
)
from ..wire.framing import MAX_FRAME_SIZE, PREFIX_SIZE, encode_frame
from ..wire.invitation import Invitation, fingerprint_text, is_invitation
from ..wire.messages import Close, Message, Ping, Pong, display_safe
from ..wire.state import Role, State
from .dial import NO_ANSWER, REFUSED, Unreachable, dial

T = TypeVar("T")

SEAT_PING = 0
"""The `n` of the host's seat check (`Peer._take_seat`); the keepalive counts from 1."""

CLOSE_GRACE = 1.0
"""Seconds allowed for our Close to leave before the stream is torn down, and for reading
what the peer had already sent once a write to it failed."""


@dataclass(frozen=True)
class PeerSettings:
    """Timeouts (seconds) and buffer sizes of a peer connection."""

    handshake_timeout: float = 20.0  # from the connection to the handshake's last message
    handshake_bytes: int = 65_536  # the most a peer may send before the handshake completes
    reply_timeout: float = 20.0  # for a ping's answer, and for any write to complete
    keepalive_interval: float = 15.0  # silence after which we ping
    receive_chunk: int = 65_536
    inbox_size: int = 16  # game messages waiting for `receive`; beyond that we stop reading
    # Read at most after a write failed, to find the peer's last words: its largest message
    # and then its close, or two of the largest frames.
    drain_bytes: int = 2 * (PREFIX_SIZE + MAX_FRAME_SIZE)


class EndReason(StrEnum):
    PEER_CLOSED = "peer-closed"  # the peer sent Close (its code says why)
    LOCAL_CLOSED = "local-closed"  # we sent Close
    TIMEOUT = "timeout"
    REMOTE_ERROR = "remote-error"  # the peer broke the protocol
    LOCAL_ERROR = "local-error"  # we did
    NETWORK_ERROR = "network-error"  # reset, EOF without Close, unreachable


class ConnectionEnded(Exception):
    """The connection is over; `reason`, `code` and `message` say why."""

    def __init__(self, reason: EndReason, code: str, message: str) -> None:
        super().__init__(f"connection closed ({reason}): {code}: {message}")
        self.reason = reason
        self.code = code
        self.message = message
        self.code_attempt = False
        """The handshake failed after both hellos went out: for a host, one try at matching
        the code (SPEC 3.5), which it counts and tells its player; for a joiner, a `busy`
        that it does not dial again for (SPEC 3.11)."""
        self.refused = False
        """Joiner: every address dialled refused the connection: nothing listens there now."""


@dataclass(frozen=True)
class Reconnecting:
    """A game's connection was lost (`why`) and is being won back (SPEC 4.6): the joiner
    dials again, the host waits for it, within the reconnect window."""

    why: str


@dataclass(frozen=True)
class Reconnected:
    """The connection lost is back: the game goes on where it stopped."""


class _PeerHungUp(Exception):
    pass


_NETWORK_ERRORS = (trio.BrokenResourceError, trio.ClosedResourceError, OSError, _PeerHungUp)


def _ending_for(exc: Exception, conn: Connection, timeout_context: str) -> ConnectionEnded:
    if isinstance(exc, Declined):
        return ConnectionEnded(EndReason.LOCAL_CLOSED, exc.code, exc.message)
    if isinstance(exc, ProtocolError):
        local = isinstance(exc, LocalProtocolError)
        reason = EndReason.LOCAL_ERROR if local else EndReason.REMOTE_ERROR
        return ConnectionEnded(reason, exc.code, exc.message)
    if isinstance(exc, trio.TooSlowError):
        return ConnectionEnded(EndReason.TIMEOUT, ErrorCode.TIMEOUT, timeout_context)
    if isinstance(exc, _PeerHungUp):
        where = " mid-frame" if conn.buffered else ""
        message = f"the peer closed the connection{where} without a Close message"
    else:
        message = f"connection lost: {exc or type(exc).__name__}"
    return ConnectionEnded(EndReason.NETWORK_ERROR, "network-error", message)


def accept_any_rules(rules: Rules) -> str | None:
    """The default rules judge: accept whatever the host proposes."""
    return None


async def receive_promptly(channel: trio.MemoryReceiveChannel[T]) -> T:
    """`channel.receive()`, without the task switch it makes even for an item already in
    (what one read brings would cost a switch an item)."""
    try:
        return channel.receive_nowait()
    except trio.WouldBlock:
        return await channel.receive()


class Peer:
    """A connected, authenticated peer. Build it with `open_peer`, `connect` or `Listener`."""

    def __init__(self, stream: trio.abc.Stream, conn: Connection, settings: PeerSettings) -> None:
        self._stream = stream
        self._conn = conn
        self._settings = settings
        self._write_lock = trio.Lock()
        self._write_broken = False
        self._write_failure: ConnectionEnded | None = None
        """How the connection ends after a write failed, unless the peer said otherwise
        in what it had already sent: that is read first (`_drain`)."""
        self._reading: trio.CancelScope | None = None  # the reader task's, while it reads
        self._draining = False
        self._in_hand: Event | None = None  # taken from the connection, not yet acted on
        self._inbox_in, self._inbox = trio.open_memory_channel[Message](settings.inbox_size)
        self._overflow: deque[Message] = deque()  # drained messages the full inbox refused
        self._background = trio.CancelScope()
        self._last_heard = trio.current_time()
        self._unread_allowance: float = settings.handshake_bytes  # unbounded once handshaken
        self.ended: ConnectionEnded | None = None
        self._ended_event = trio.Event()
        self._info: HandshakeComplete | None = None
        self.trust: Trust | None = None
        """With a known-peers store: whether the peer's identity key is new, known or CHANGED."""
        self.verified = False
        """The peer's identity key is the one named by the invitation we joined with."""
        self.remote = ""
        """The address the connection was made to (joiner) or came from (host)."""

    @property
    def info(self) -> HandshakeComplete:
        """What the handshake settled: SAS, session id, peer name and key, rules, dealer."""
        if self._info is None:
            raise RuntimeError("the handshake has not completed")
        return self._info

    # --- public ---------------------------------------------------------------------------

    async def send(self, message: Message, *more: Message) -> None:
        """Send a game message (and `more` after it, in one write); raise ConnectionEnded
        if the connection is over."""
        if self.ended is None and (
            self._conn.their_state is State.CLOSED or self._write_failure is not None
        ):
            # The peer's Close was read and the reader is recording it, or a write failed
            # and what the peer sent before is being read: that decides how the connection
            # ends, not our own error for sending after it.
            await self._ended_event.wait()
        if self.ended is not None:
            raise self.ended
        try:
            for each in (message, *more):
                self._conn.send(each)
        except ProtocolError as exc:
            await self._end(_ending_for(exc, self._conn, ""))
            raise self.ended from exc  # type: ignore[misc]
        try:
            await self._flush()
        except (trio.TooSlowError, *_NETWORK_ERRORS) as exc:
            await self._after_write_failure()
            raise self.ended from exc  # type: ignore[misc]
        if self._write_failure is not None:  # another task's write failed before ours left
            await self._after_write_failure()
            raise self.ended  # type: ignore[misc]

    async def receive(self) -> Message:
        """The next game message from the peer (Move, DeckPayload, Rematch...)."""
        try:
            return await receive_promptly(self._inbox)  # the frames of one read, one step
        except trio.EndOfChannel:
            if self._overflow:
                return self._overflow.popleft()
            assert self.ended is not None
            raise self.ended from None

    def __aiter__(self) -> AsyncIterator[Message]:
        """Iterate over game messages until the connection ends (then see `ended`)."""
        return self._messages()

    async def _messages(self) -> AsyncIterator[Message]:
        while True:
            try:
                yield await self.receive()
            except ConnectionEnded:
                return

    async def wait_ended(self) -> ConnectionEnded:
        """Wait until the connection is over, however it ends; return why."""
        await self._ended_event.wait()
        assert self.ended is not None
        return self.ended

    async def aclose(self, code: ErrorCode | str = ErrorCode.PEER_QUIT, reason: str = "") -> None:
        """Tell the peer we are leaving (with `code`), then close the stream."""
        if self.ended is None:
            self._conn.close(code, reason)
            await self._end(ConnectionEnded(EndReason.LOCAL_CLOSED, str(code), reason))

    # --- internals ------------------------------------------------------------------------

    async def _flush(self) -> None:
        """Write what the connection queued. A failure is remembered as how the connection
        ends, and stops the reader's usual reading: it reads what the peer already sent
        before the end is decided (`_drain`)."""
        # The lock taken without a yield when free (nearly always): the write's own
        # `send_all` is the checkpoint; a trio `acquire` would yield once more each write.
        try:
            self._write_lock.acquire_nowait()
        except trio.WouldBlock:
            await self._write_lock.acquire()
        try:
            data = self._conn.data_to_send()
            if not data:
                return
            try:
                if self._write_broken:  # a cancelled write: the stream may end mid-frame
                    raise trio.BrokenResourceError("an earlier write was interrupted")
                # `trio.fail_after` is this scope in a generator context manager, whose
                # enter and exit cost more than the scope itself: several writes a move.
                with trio.CancelScope(relative_deadline=self._settings.reply_timeout) as scope:
                    await self._stream.send_all(data)
                if scope.cancelled_caught:
                    raise trio.TooSlowError
            except BaseException as exc:
                # Part of a frame may have left: nothing more can follow it.
                self._write_broken = True
                failed = isinstance(exc, (trio.TooSlowError, *_NETWORK_ERRORS))
                if failed and self.ended is None and self._write_failure is None:
                    self._write_failure = _ending_for(exc, self._conn, "the peer stopped reading")
                    if self._reading is not None:
                        self._reading.cancel()
                raise
        finally:
            self._write_lock.release()

    async def _after_write_failure(self) -> None:
        """Our write failed: wait until the connection ended, after the reader task read
        what the peer had sent, or read it here if no task reads."""
        if self._reading is not None or self._draining:
            await self._ended_event.wait()
        elif self.ended is None:
            await self._drain()

    async def _next_event(self) -> Event:
        """Feed the connection until it yields an event, writing whatever it queues."""
        while True:
            event = self._conn.next_event()  # on error, `_end` sends the queued Close
            self._in_hand = None if event is NEED_DATA else event  # `_drain` handles it
            if self._conn.sending:  # replies queued by the connection (pongs, handshake)
                await self._flush()
            if event is not NEED_DATA:
                return event  # type: ignore[return-value]
            chunk = min(self._settings.receive_chunk, self._unread_allowance)
            if chunk <= 0:
                limit = self._settings.handshake_bytes
                message = f"more than {limit} bytes before the handshake completed"
                if self._info is not None:  # the host's seat check (`_take_seat`)
                    message = f"more than {limit} bytes before answering our ping"
                self._conn.close(ErrorCode.FRAME_TOO_LARGE, message)
                raise RemoteProtocolError(ErrorCode.FRAME_TOO_LARGE, message)
            await self._receive_some(chunk)

    async def _receive_some(self, limit: int) -> int:
        """Feed the connection one read of at most `limit` bytes; return how many came."""
        data = await self._stream.receive_some(limit)
        if not data:
            raise _PeerHungUp
        self._unread_allowance -= len(data)
        self._last_heard = trio.current_time()
        self._conn.receive_data(data)
        return len(data)

    async def _drain(self) -> None:
        """A write failed: read what the peer had sent before deciding how we ended.

        A peer that closes its connection often says why first (SPEC 3.9: a fault, `away`,
        `peer-quit`); our write may cross that `close` and fail on the reset that follows.
        On Linux the bytes that arrived before a reset stay readable: a read after our
        failed write returns them, then the end of the stream (the write consumed the
        reset's error). So we go on reading, for CLOSE_GRACE and `drain_bytes` at most:
        game messages reach `receive` in order, and a `close` among them is how the
        connection ended; else it ended as the write failed.
        """
        self._draining = True
        assert self._write_failure is not None
        ending = self._write_failure
        budget = self._settings.drain_bytes
        event, self._in_hand = self._in_hand, None
        try:
            with trio.move_on_after(CLOSE_GRACE):
                while True:
                    if event is NEED_DATA:
                        chunk = min(self._settings.receive_chunk, budget, self._unread_allowance)
                        if chunk <= 0:
                            break
                        budget -= await self._receive_some(chunk)
                    elif isinstance(event, Close):
                        ending = _peer_closed(event)
                        break
                    elif isinstance(event, Message) and not isinstance(event, Pong):
                        self._deliver(event)
                    event = self._conn.next_event()
        except ProtocolError as exc:
            ending = _ending_for(exc, self._conn, "")
        except _NETWORK_ERRORS:
            pass  # the rest of the stream is gone: the write's failure stands
        finally:  # even if cancelled: tasks wait for this end (`_end` shields its I/O)
            await self._end(ending)

    def _deliver(self, message: Message) -> None:
        """Hand a drained message to `receive` without waiting for room in the inbox."""
        if not self._overflow:
            try:
                self._inbox_in.send_nowait(message)
                return
            except trio.WouldBlock:
                pass
        self._overflow.append(message)

    async def _end(self, ending: ConnectionEnded) -> None:
        """Record why we ended (the first reason wins), send what is queued, close."""
        if self.ended is not None:
            return
        self.ended = ending
        self._ended_event.set()
        with trio.CancelScope(shield=True), trio.move_on_after(CLOSE_GRACE):
            try:
                await self._flush()
            except (trio.TooSlowError, trio.BusyResourceError, *_NETWORK_ERRORS):
                pass  # the peer will learn from the closed stream instead
        with trio.CancelScope(shield=True):
            await trio.aclose_forcefully(self._stream)
        self._inbox_in.close()
        self._background.cancel()

    async def _bounded(self, timeout: float, context: str, steps: Callable[[], Awaitable[T]]) -> T:
        """Run an opening step (the handshake, the host's seat check) within `timeout`: on
        any failure the peer is told why where the protocol allows, the connection ends and
        `ConnectionEnded` is raised, marked as a try at the code if our hello went out."""
        try:
            with trio.fail_after(timeout):
                return await steps()
        except (ProtocolError, trio.TooSlowError, *_NETWORK_ERRORS) as exc:
            if self._write_failure is not None:
                await self._after_write_failure()  # the peer may have said why it went
                raise self.ended from exc  # type: ignore[misc]
            if isinstance(exc, trio.TooSlowError):
                self._conn.close(ErrorCode.TIMEOUT, context)  # said before we hang up
            await self._end(_ending_for(exc, self._conn, context))
            raise self.ended from exc  # type: ignore[misc]
        finally:
            if self.ended is not None:
                self.ended.code_attempt = self._conn.code_exposed

    async def _closed_by_peer(self, close: Close) -> None:
        await self._end(_peer_closed(close))
        raise self.ended  # type: ignore[misc]

    async def _handshake(self, judge_rules: Callable[[Rules], str | None]) -> HandshakeComplete:
        async def steps() -> HandshakeComplete:
            await self._flush()
            while True:
                event = await self._next_event()
                if isinstance(event, HandshakeComplete):
                    self._unread_allowance = math.inf
                    return event
                if isinstance(event, RulesProposed):
                    refusal = judge_rules(event.rules)
                    if refusal is None:
                        self._conn.accept_rules()
                    else:
                        await self.aclose(ErrorCode.RULES_REFUSED, refusal)
                        raise self.ended  # type: ignore[misc]
                elif isinstance(event, Close):
                    await self._closed_by_peer(event)

        timeout = self._settings.handshake_timeout
        return await self._bounded(timeout, f"no complete handshake within {timeout:g} s", steps)

    async def _take_seat(self) -> None:
        """Host, once the handshake completed: send `ping` and wait for the joiner's `pong`.

        Only that answer takes the seat (SPEC 3.11, *The seat*): a joiner checks the host
        (an invitation's key, the game) before it answers, so one that refuses, closes,
        breaks the protocol or stays silent first ends here, and the host goes on waiting.
        What the joiner sends before its `pong` (its first deck message) is kept for the
        game, within the handshake's byte bound and the inbox.
        """

        async def steps() -> None:
            self._conn.send(Ping(n=SEAT_PING))
            await self._flush()
            while True:
                event = await self._next_event()
                if isinstance(event, Pong):
                    if event.n == SEAT_PING:
                        return
                elif isinstance(event, Close):
                    await self._closed_by_peer(event)
                elif isinstance(event, Message):
                    try:
                        self._inbox_in.send_nowait(event)
                    except trio.WouldBlock:
                        many = f"more than {self._settings.inbox_size} messages before its pong"
                        self._conn.close(ErrorCode.UNEXPECTED_MESSAGE, many)  # said, then closed
                        raise RemoteProtocolError(ErrorCode.UNEXPECTED_MESSAGE, many) from None

        self._unread_allowance = self._settings.handshake_bytes
        timeout = self._settings.reply_timeout
        await self._bounded(timeout, f"no answer to our ping within {timeout:g} s", steps)
        self._unread_allowance = math.inf

    async def _run_background(self) -> None:
        with self._background:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._read)
                nursery.start_soon(self._keep_alive)

    async def _read(self) -> None:
        """Read until the connection ends. Once a write fails (any task's: it cancels
        `_reading`), the usual reading stops wherever it waits, the inbox included, and
        `_drain` reads on from there."""
        if self._draining or self.ended is not None:
            return  # a write failed before we started, and its task reads what is left
        ending: ConnectionEnded | None = None
        with trio.CancelScope() as self._reading:
            try:
                while ending is None:
                    event = await self._next_event()
                    if isinstance(event, Close):
                        ending = _peer_closed(event)
                    elif not isinstance(event, Pong):
                        try:  # no yield while the inbox has room: the read's next frame
                            self._inbox_in.send_nowait(event)  # type: ignore[arg-type]
                        except trio.WouldBlock:
                            await self._inbox_in.send(event)  # type: ignore[arg-type]
                    self._in_hand = None
            except (ProtocolError, trio.TooSlowError, *_NETWORK_ERRORS) as exc:
                ending = _ending_for(exc, self._conn, "the peer stopped reading")
        self._reading = None
        if ending is None or (self._write_failure and ending.reason != EndReason.PEER_CLOSED):
            await self._drain()  # a write failed: the peer may have said why before it went
        else:
            await self._end(ending)

    async def _keep_alive(self) -> None:
        interval, patience = self._settings.keepalive_interval, self._settings.reply_timeout
        sequence = 0
        while True:
            await trio.sleep_until(self._last_heard + interval)
            if trio.current_time() < self._last_heard + interval:
                continue  # heard from the peer while asleep
            sequence += 1
            asked = trio.current_time()
            try:
                await self.send(Ping(n=sequence % 2**32))
            except ConnectionEnded:
                return
            await trio.sleep_until(asked + patience)
            if self._last_heard < asked:
                # We hang up without a `close`: a peer that was only frozen (a suspended
                # laptop) reads a lost connection, which a game resumes (SPEC 4.6), not a
                # `close`, which would end its game while we wait for it to come back.
                message = f"the peer did not answer for {interval + patience:g} s"
                await self._end(ConnectionEnded(EndReason.TIMEOUT, ErrorCode.TIMEOUT, message))
                return


def _peer_closed(close: Close) -> ConnectionEnded:
    return ConnectionEnded(EndReason.PEER_CLOSED, close.code, display_safe(close.reason))


async def handshake(
    stream: trio.abc.Stream,
    role: Role,
    player: LocalPlayer,
    *,
    rules: Rules | None = None,
    judge_rules: Callable[[Rules], str | None] = accept_any_rules,
    settings: PeerSettings | None = None,
    random_bytes: Callable[[int], bytes] = os.urandom,
    caps: tuple[str, ...] = (),
    code_gate: CodeGate | None = None,
) -> Peer:
    """Handshake over `stream` and return the authenticated `Peer`, not yet reading.

    Bounded by `settings.handshake_timeout` and `settings.handshake_bytes`. On failure the
    peer is told why where the protocol allows (a `close`), the stream is closed and
    `ConnectionEnded` raised; if cancelled, the peer is told we left. Then `running(peer)`.
    A host's `code_gate` may refuse to show its hello
    (`Connection`): the handshake then ends as `LOCAL_CLOSED`.
    """
    conn = Connection(
        role,
        player,
        rules=rules,
        random_bytes=random_bytes,
        caps=caps,
        code_gate=code_gate,
    )
    peer = Peer(stream, conn, settings or PeerSettings())
    try:
        peer._info = await peer._handshake(judge_rules)
    except BaseException:
        await peer.aclose()  # a no-op if the handshake already ended it
        raise
    return peer


@asynccontextmanager
async def running(peer: Peer) -> AsyncIterator[Peer]:
    """Read from and keep alive a handshaken `peer` for the block; close it on exit."""
    async with _beside(peer._run_background):
        try:
            yield peer
        finally:
            with trio.CancelScope(shield=True):
                await peer.aclose()


@asynccontextmanager
async def _beside(task: Callable[[], Awaitable[object]]) -> AsyncIterator[None]:
    """Run `task` beside the caller's block, cancelled once the block is over.

    `task` ends quietly, so a lone exception is the block's own: it comes back unwrapped,
    as if no nursery were here.
    """
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(task)
            try:
                yield
            finally:
                nursery.cancel_scope.cancel()
    except BaseExceptionGroup as group:
        if len(group.exceptions) != 1:
            raise
        (exc,) = group.exceptions
        raise exc from exc.__cause__


@dataclass(frozen=True)
class Refusal:
    """Why a joiner will not play with the host it handshook with: the `close` the host
    gets (`code`, `reason`), and what our player is told (`message`)."""

    code: str
    reason: str
    message: str = ""


JudgePeer = Callable[["Peer"], "Refusal | None"]
"""Looks at a handshaken peer before the connection starts: a `Refusal`, or None to play."""


@asynccontextmanager
async def open_peer(
    stream: trio.abc.Stream,
    role: Role,
    player: LocalPlayer,
    *,
    rules: Rules | None = None,
    judge_rules: Callable[[Rules], str | None] = accept_any_rules,
    judge_peer: JudgePeer | None = None,
    known_peers: KnownPeers | None = None,
    settings: PeerSettings | None = None,
    random_bytes: Callable[[int], bytes] = os.urandom,
    caps: tuple[str, ...] = (),
) -> AsyncIterator[Peer]:
    """Handshake over `stream`, then yield the `Peer`; close it on exit.

    The host passes `rules`; the joiner may pass `judge_rules`, which returns a refusal
    reason or None to accept. `judge_peer` then looks at the handshaken peer before
    anything is read from it: a listening host takes its seat only once we answer its
    first `ping` (SPEC 3.11, *The seat*), so a refusal here (closed with it, and raised as
    `ConnectionEnded`) leaves that host waiting for its player. With `known_peers`,
    `peer.trust` tells whether the peer's key is new, known, CHANGED or RENAMED (warning
    the player is the caller's job).
    """
    peer = await handshake(
        stream,
        role,
        player,
        rules=rules,
        judge_rules=judge_rules,
        settings=settings,
        random_bytes=random_bytes,
        caps=caps,
    )
    try:
        refusal = judge_peer(peer) if judge_peer is not None else None
    except BaseException:
        await peer.aclose()
        raise
    if refusal is not None:
        await peer.aclose(refusal.code, refusal.reason)
        message = refusal.message or refusal.reason
        raise ConnectionEnded(EndReason.LOCAL_CLOSED, refusal.code, message)
    async with running(peer):  # closed even if the known peers fail
        if known_peers is not None:
            peer.trust = known_peers.check(peer.info.peer_name, peer.info.peer_identity)
        yield peer


@asynccontextmanager
async def connect(
    address: str,
    player: LocalPlayer,
    *,
    judge_rules: Callable[[Rules], str | None] = accept_any_rules,
    judge_peer: JudgePeer | None = None,
    known_peers: KnownPeers | None = None,
    settings: PeerSettings | None = None,
    caps: tuple[str, ...] = (),
) -> AsyncIterator[Peer]:
    """Join the game hosted at `HOST[:PORT]` (port 4454 by default), or at the addresses of
    an invitation (``cuttle:…``, SPEC 3.14): then the host must prove the invitation's key,
    and `peer.verified` says it did; any other key is refused (`wrong-player`). Then
    `judge_peer`, as in `open_peer`: refused before the host takes us in."""
    settings = settings or PeerSettings()
    invitation = Invitation.decode(address) if is_invitation(address) else None
    targets = list(invitation.addresses) if invitation else [parse_address(address)]
    shown_as = "the invitation's addresses" if invitation else address
    try:
        stream, where = await dial(targets, settings.handshake_timeout)
    except Unreachable as exc:
        message = f"could not connect to {shown_as}: {exc}"
        if all(a.outcome == NO_ANSWER for a in exc.attempts):
            raise ConnectionEnded(EndReason.TIMEOUT, ErrorCode.TIMEOUT, message) from None
        failed = ConnectionEnded(EndReason.NETWORK_ERROR, "network-error", message)
        failed.refused = all(a.outcome == REFUSED for a in exc.attempts)
        raise failed from None

    def judge(peer: Peer) -> Refusal | None:
        peer.remote = where
        if invitation is not None:
            if not invitation.matches(peer.info.peer_identity):
                return Refusal(
                    ErrorCode.WRONG_PLAYER,
                    "your key is not the invitation's",
                    f"REFUSED: the host at {where} has the key {peer.info.peer_fingerprint}, "
                    f"not the invitation's {fingerprint_text(invitation.fingerprint)}: it is "
                    "not the player who invited you (a wrong address, or someone in between)",
                )
            peer.verified = True
        return judge_peer(peer) if judge_peer is not None else None

    async with open_peer(
        stream,
        Role.JOINER,
        player,
        judge_rules=judge_rules,
        judge_peer=judge,
        known_peers=known_peers,
        settings=settings,
        caps=caps,
    ) as peer:
        yield peer


@dataclass(frozen=True)
class ListenerLimits:
    """What strangers may take from a listening host (SPEC 3.11): a flood from one address
    or many costs a bounded number of file descriptors, bytes and handshakes."""

    connections: int = 64  # held at once, not counting the game's: handshakes and refusals
    pending: int = 32  # handshakes under way at once...
    pending_per_address: int = 5  # ...and from one address (IPv6: one /64): a table's five
    # joiners may share one (a household behind one NAT) and all arrive at once
    burst: int = 10  # connections one address may open in a row...
    per_second: float = 2.0  # ...and then on average
    addresses: int = 1024  # addresses remembered for the rate limit (the stalest go first)
    refusal_timeout: float = 1.0  # seconds to deliver a refusal and see the peer hang up
    # Tries at a wait's code, from every address at once (codebudget.py).
    codes: CodeLimits = field(default_factory=CodeLimits)


# accept() failures that mean "out of descriptors or memory for now": wait, then go on.
_OUT_OF_RESOURCES = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
_OUT_OF_RESOURCES_PAUSE = 0.1
_REFUSAL_DRAIN = 65_536  # bytes read (and dropped) at most from a refused connection


Admit = Callable[["Peer"], tuple[str, str] | None]
"""Decides on a handshaken peer at once: None takes it (it is then the caller's, to run with
`running` and close), or (close code, reason) refuses it."""


@dataclass
class _Door:
    """Open while `accept` or `seating` runs: how connections handshake, and who decides."""

    player: LocalPlayer
    rules: Rules
    settings: PeerSettings
    caps: tuple[str, ...]
    admit: Admit
    shut: tuple[str, str]  # the refusal of a handshake that completes once the door closed
    # Whether a code is still to be compared, so that a hello shown is a try at it (SPEC
    # 3.11); not once players are known by their keys alone.
    codes: Callable[[], bool]
    budget: CodeBudget  # the tries at this wait's code


class _RateLimit:
    """A token bucket per address: `burst` connections in a row, then `per_second`."""

    def __init__(self, limits: ListenerLimits) -> None:
        self._limits = limits
        self._buckets: dict[str, tuple[float, float]] = {}  # address -> (tokens, when)

    def allow(self, address: str, now: float) -> bool:
        burst, rate = self._limits.burst, self._limits.per_second
        tokens, when = self._buckets.pop(address, (burst, now))
        tokens = min(burst, tokens + (now - when) * rate)
        allowed = tokens >= 1
        self._buckets[address] = (tokens - allowed, now)  # re-inserted: the freshest last
        while len(self._buckets) > self._limits.addresses:
            del self._buckets[next(iter(self._buckets))]
        return allowed


def _unmapped(ip: str) -> str:
    """An IPv4 peer of a dual-stack socket as IPv4 (``::ffff:192.0.2.7`` -> ``192.0.2.7``)."""
    if ip.startswith("::ffff:"):
        with contextlib.suppress(ValueError):
            mapped = ipaddress.IPv6Address(ip).ipv4_mapped
            return str(mapped) if mapped is not None else ip
    return ip


def _rate_key(ip: str) -> str:
    """Who a connection counts against: its IPv4 address, or its IPv6 /64 network (one
    host usually holds a whole /64)."""
    try:
        address = ipaddress.ip_address(ip.split("%")[0])
    except ValueError:
        return ip
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


@dataclass(frozen=True)
class CannotAccept:
    """The system will not accept a connection for now (out of file descriptors or
    memory, `reason`): the listener pauses and tries again."""

    reason: str


@dataclass(frozen=True)
class Flooded:
    """The connection from `where` is one of too many from `key` (its address, or its
    IPv6 /64): they are refused for a while (told once per flood)."""

    where: str
    key: str


@dataclass(frozen=True)
class TurnedAway:
    """The connection from `where` was refused with `code` and `reason` (our words on the
    wire): before the handshake (`name` and `fingerprint` empty), or once handshaken, the
    peer its `name` and key `fingerprint` claim."""

    where: str
    code: str
    reason: str
    name: str = ""
    fingerprint: str = ""


@dataclass(frozen=True)
class NotSeated:
    """The connection from `where` ended before taking the seat (`message`, `code`): in
    its handshake (`name` empty), or after, the peer its `name` and key `fingerprint`
    claim. `attempt`: its try at the code and the tries a wait allows, if it saw our hello
    while a code was to be compared (SPEC 3.11)."""

    where: str
    message: str
    code: str
    name: str = ""
    fingerprint: str = ""
    attempt: tuple[int, int] | None = None


ListenerNews = CannotAccept | Flooded | TurnedAway | NotSeated | CodeAlarm
"""What a `Listener` tells its ``log`` hook of the connections it refused or lost and of
the tries at its code, as data (the client words it: ``cuttle_client.progress``)."""


def _refusal_frame(code: ErrorCode, reason: str) -> bytes:
    """A plaintext `close`: what a host sends instead of its `hello` to a connection it
    will not handshake with (SPEC 3.6)."""
    return encode_frame(codec.pack(Close(code=str(code), reason=reason).to_wire()))


class Listener:
    """A listening TCP socket and the task that accepts on it for as long as it is open.

    While `accept` waits for a joiner (or `seating` seats a table's), the door is open: every
    incoming connection handshakes on its own, at the same time as the others, within the
    `ListenerLimits`; as each joiner takes its seat (its handshake completed, it answered
    our first ping: `Peer._take_seat`), the door decides at once whether it takes that
    peer. Connections that fail, are refused or end before taking the seat are closed with
    a `close` saying why where the protocol allows, and logged; the wait goes on. While
    the door is shut (a game in progress) every connection is refused as `busy`. Each wait
    has a budget of tries at its code across every address (`CodeBudget`): past it, `busy`
    instead of our hello, and the `alarm` tells the player.
    """

    def __init__(
        self,
        listeners: list[trio.SocketListener],
        limits: ListenerLimits,
        log: Callable[[ListenerNews], None],
        alarm: Callable[[CodeAlarm], None],
    ) -> None:
        self._listeners = listeners
        self._limits = limits
        self._log = log
        self._door: _Door | None = None
        self._held = 0  # connections open here, handshaking or being refused
        self._pending: dict[str, int] = {}  # handshakes under way, by rate key
        self._rate = _RateLimit(limits)
        self._throttled: set[str] = set()  # rate keys already logged as over their rate
        self._alarm = alarm
        self.unseated = 0
        """Joiners whose handshake completed but that ended before answering our seat
        check (`Peer._take_seat`): a refusal, a close, a hang-up. Each is logged and
        dropped, and the wait goes on."""
        self._budget = CodeBudget(limits.codes, trio.current_time())

    def _new_budget(self) -> CodeBudget:
        self._budget = CodeBudget(self._limits.codes, trio.current_time())
        return self._budget

    @property
    def code_attempts(self) -> int:
        """Hellos shown while a code was to be compared in the current (or last) wait:
        each was a try at the code (SPEC 3.11), those that failed logged with their number."""
        return self._budget.tries

    @property
    def address(self) -> tuple[str, int]:
        """The bound (host, port): the port is the real one when 0 was asked for."""
        host, port, *_ = self._listeners[0].socket.getsockname()
        return host, port

    @asynccontextmanager
    async def accept(
        self,
        player: LocalPlayer,
        rules: Rules,
        *,
        known_peers: KnownPeers | None = None,
        settings: PeerSettings | None = None,
        deadline: float = math.inf,
        caps: tuple[str, ...] = (),
    ) -> AsyncIterator[Peer]:
        """Wait (until the trio clock's `deadline`) for a joiner to take the seat: the first
        to complete a handshake and answer our first ping takes it (SPEC 3.11, *The seat*).
        `known_peers` is consulted for the admitted peer only. (A table seats its players
        with `seating`; a seat taken back after a lost connection is the table's to judge.)
        """
        taken: list[Peer] = []
        filled = trio.Event()
        no_longer_free = (ErrorCode.BUSY, "the seat is no longer free")

        def admit(peer: Peer) -> tuple[str, str] | None:
            if taken:
                return no_longer_free
            taken.append(peer)
            filled.set()
            return None

        door = _Door(
            player,
            rules,
            settings or PeerSettings(),
            caps,
            admit,
            no_longer_free,
            lambda: True,  # a code is compared with whoever takes the seat
            self._new_budget(),
        )
        try:
            with self._opened(door), trio.move_on_at(deadline):
                await filled.wait()
        except BaseException:
            if taken:
                with trio.CancelScope(shield=True):
                    await taken[0].aclose()
            raise
        if not taken:
            raise ConnectionEnded(EndReason.TIMEOUT, ErrorCode.TIMEOUT, "nobody connected in time")
        async with running(taken[0]) as peer:  # closed even if the known peers fail
            if known_peers is not None:
                peer.trust = known_peers.check(peer.info.peer_name, peer.info.peer_identity)
            yield peer

    @asynccontextmanager
    async def seating(
        self,
        player: LocalPlayer,
        rules: Rules,
        admit: Admit,
        *,
        settings: PeerSettings | None = None,
        caps: tuple[str, ...] = (),
        shut: tuple[str, str] = (ErrorCode.BUSY, "the host no longer seats anyone"),
        codes: Callable[[], bool] = lambda: True,
    ) -> AsyncIterator[None]:
        """Keep the door open for the block, for several players (a table, SPEC 3.15).

        Every connection handshakes on its own, so a slow or silent one delays nobody else;
        `admit` is called as each joiner takes its seat (its handshake completed and it
        answered our first ping), in that order, and
        decides at once (it must not block): a peer it takes is then the caller's to run
        with `running` and close. A handshake that completes after the block is refused with
        `shut`. `codes` says whether a code is still to be compared (counting tries at it).
        """
        settings = settings or PeerSettings()
        budget = self._new_budget()
        door = _Door(player, rules, settings, caps, admit, shut, codes, budget)
        with self._opened(door):
            yield

    @contextlib.contextmanager
    def _opened(self, door: _Door) -> Iterator[None]:
        if self._door is not None:
            raise RuntimeError("this listener is already waiting for a player")
        self._door = door
        try:
            yield
        finally:
            self._door = None

    # --- the accepting task --------------------------------------------------------------

    async def _serve(self) -> None:
        async with trio.open_nursery() as nursery:
            for listener in self._listeners:
                nursery.start_soon(self._accept_on, listener, nursery)

    async def _accept_on(self, listener: trio.SocketListener, nursery: trio.Nursery) -> None:
        while True:
            try:
                stream = await listener.accept()
            except OSError as exc:
                if exc.errno not in _OUT_OF_RESOURCES:
                    raise
                self._log(CannotAccept(exc.strerror or str(exc)))
                await trio.sleep(_OUT_OF_RESOURCES_PAUSE)
                continue
            await self._dispatch(nursery, stream)

    async def _dispatch(self, nursery: trio.Nursery, stream: trio.SocketStream) -> None:
        """Handshake with a new connection, refuse it, or (past every bound) drop it."""
        try:
            ip, port, *_ = stream.socket.getpeername()
        except OSError:  # already reset
            await trio.aclose_forcefully(stream)
            return
        ip = _unmapped(ip)
        where = f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"
        key = _rate_key(ip)
        limits = self._limits
        if self._held >= limits.connections:
            await trio.aclose_forcefully(stream)  # no room even to say why
        elif not self._rate.allow(key, trio.current_time()):
            if key not in self._throttled:
                self._throttled.add(key)
                self._log(Flooded(where, key))
            reason = "too many connections from your address: try again in a few seconds"
            self._start(nursery, self._refuse, stream, None, where, ErrorCode.BUSY, reason)
        elif self._door is None:
            reason = "a game is in progress here"
            self._start(nursery, self._refuse, stream, key, where, ErrorCode.BUSY, reason)
        elif (
            sum(self._pending.values()) >= limits.pending
            or self._pending.get(key, 0) >= limits.pending_per_address
        ):
            reason = "too many handshakes under way: try again in a few seconds"
            self._start(nursery, self._refuse, stream, key, where, ErrorCode.BUSY, reason)
        else:
            self._throttled.discard(key)
            self._pending[key] = self._pending.get(key, 0) + 1
            self._start(nursery, self._greet, stream, key, where, self._door)

    def _start(self, nursery: trio.Nursery, task: Callable[..., Awaitable[None]], *args) -> None:
        self._held += 1
        nursery.start_soon(task, *args)

    async def _refuse(
        self, stream: trio.SocketStream, key: str | None, where: str, code: ErrorCode, reason: str
    ) -> None:
        """Send a plaintext `close` instead of our hello; wait a moment for the peer to hang
        up (so that closing does not reset the connection before it reads why)."""
        if key is not None:
            self._log(TurnedAway(where, code, reason))
        try:
            with trio.move_on_after(self._limits.refusal_timeout):
                await stream.send_all(_refusal_frame(code, reason))
                await stream.send_eof()
                discarded = 0
                while discarded < _REFUSAL_DRAIN:
                    data = await stream.receive_some(4096)
                    if not data:
                        break
                    discarded += len(data)
        except _NETWORK_ERRORS:
            pass
        finally:
            self._held -= 1
            await trio.aclose_forcefully(stream)

    async def _greet(self, stream: trio.SocketStream, key: str, where: str, door: _Door) -> None:
        """Handshake with one connection; then the door takes the peer or says why not."""
        taken = False
        peer: Peer | None = None
        number: int | None = None  # its try at the code, if it saw our hello for one
        turned_away = False  # by the code's budget: its alarms say so, not each refusal

        def gate() -> tuple[str, str] | None:
            nonlocal number, turned_away
            if not door.codes():
                return None
            spent = door.budget.spend(trio.current_time())
            if spent.alarm is not None:
                self._alarm(spent.alarm)
            number = spent.number
            turned_away = number is None
            return (ErrorCode.BUSY, spent.refusal) if turned_away else None

        try:
            peer = await handshake(
                stream,
                Role.HOST,
                door.player,
                rules=door.rules,
                settings=door.settings,
                caps=door.caps,
                code_gate=gate,
            )
            await peer._take_seat()  # until the joiner answers, it is not playing here
            refusal = door.admit(peer) if self._door is door else door.shut
            if refusal is None:
                taken = True
                return
            code, reason = refusal
            info = peer.info
            self._log(TurnedAway(where, code, reason, info.peer_name, info.peer_fingerprint))
            await peer.aclose(code, reason)
        except ConnectionEnded as ended:
            if turned_away:
                return
            attempt = None
            if ended.code_attempt and number is not None:
                attempt = (number, door.budget.limits.per_wait)
            if peer is None:
                self._log(NotSeated(where, ended.message, ended.code, attempt=attempt))
            else:  # the seat stays free: the wait goes on (SPEC 3.11, *The seat*)
                self.unseated += 1
                info = peer.info
                claim = (info.peer_name, info.peer_fingerprint)
                self._log(NotSeated(where, ended.message, ended.code, *claim, attempt))
        finally:
            self._pending[key] -= 1
            if not self._pending[key]:
                del self._pending[key]
            self._held -= 1
            if not taken:
                await trio.aclose_forcefully(stream)


@asynccontextmanager
async def open_listener(
    port: int = DEFAULT_PORT,
    host: str = "0.0.0.0",
    *,
    limits: ListenerLimits | None = None,
    log: Callable[[ListenerNews], None] = lambda news: None,
    alarm: Callable[[CodeAlarm], None] | None = None,
) -> AsyncIterator[Listener]:
    """Listen on `host:port` for the block (port 0: any free port, see `Listener.address`).

    ``host="::"`` (what ``cuttle host`` does by default) listens on IPv6 and IPv4 on one
    port: one dual-stack socket where the system allows it, else one socket per version;
    on a machine without IPv6, IPv4 only. `log` hears of each connection refused or
    failed (and once of each flooding address), as `ListenerNews`; `alarm` each warning
    that tries at the code pile up (by default: `log` does).
    """
    sockets = await _listening_sockets(port, host)
    alarms = alarm or log
    listener = Listener(sockets, limits or ListenerLimits(), log, alarms)
    try:
        async with _beside(listener._serve):
            yield listener
    finally:
        with trio.CancelScope(shield=True):
            for socket_listener in sockets:
                await socket_listener.aclose()


async def _listening_sockets(port: int, host: str) -> list[trio.SocketListener]:
    if host != "::":
        return await trio.open_tcp_listeners(port, host=host)
    try:
        sock = trio.socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    except OSError:  # no IPv6 here at all
        return await trio.open_tcp_listeners(port, host="0.0.0.0")
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:  # both versions on this one socket (the default on Linux, refused on OpenBSD)
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
            dual = True
        except OSError:
            dual = False
        await sock.bind(("::", port))
        sock.listen(socket.SOMAXCONN)
    except OSError as exc:
        sock.close()
        if exc.errno in (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT):  # IPv6 disabled
            return await trio.open_tcp_listeners(port, host="0.0.0.0")
        raise
    listeners = [trio.SocketListener(sock)]
    if not dual:
        try:
            listeners += await trio.open_tcp_listeners(sock.getsockname()[1], host="0.0.0.0")
        except OSError:
            sock.close()
            raise
    return listeners
