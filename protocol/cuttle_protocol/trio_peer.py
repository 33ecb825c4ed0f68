"""The trio shell: a `Connection` driven over a trio stream, TCP listen and connect.

    async with connect("192.168.1.20", me) as peer:      # or: async with listener.accept(...)
        print(peer.info.sas, peer.trust)
        await peer.send(Move("draw"))
        reply = await peer.receive()

One reader task feeds the connection; writes go through one lock so frames leave in nonce
order; a keepalive pings a silent peer. However the connection ends, every waiting or later
call raises one `ConnectionEnded` saying why. The sans-I/O core never imports trio; this
module, `netgame`, `netplay` and `lan` are the shell around it.
"""

from __future__ import annotations

import math
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from enum import StrEnum

import trio

from .address import DEFAULT_PORT, parse_address
from .connection import (
    NEED_DATA,
    Connection,
    Event,
    HandshakeComplete,
    LocalPlayer,
    Rules,
    RulesProposed,
)
from .errors import ErrorCode, LocalProtocolError, ProtocolError
from .identity import KnownPeers, Trust
from .messages import Close, Message, Ping, Pong, display_safe
from .state import Role

CLOSE_GRACE = 1.0
"""Seconds allowed for our Close to leave before the stream is torn down."""


@dataclass(frozen=True)
class PeerSettings:
    """Timeouts (seconds) and buffer sizes of a peer connection."""

    handshake_timeout: float = 30.0
    reply_timeout: float = 20.0  # for a ping's answer, and for any write to complete
    keepalive_interval: float = 15.0  # silence after which we ping
    receive_chunk: int = 65_536
    inbox_size: int = 16  # game messages waiting for `receive`; beyond that we stop reading


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


class _PeerHungUp(Exception):
    pass


_NETWORK_ERRORS = (trio.BrokenResourceError, trio.ClosedResourceError, OSError, _PeerHungUp)


def _ending_for(exc: Exception, conn: Connection, timeout_context: str) -> ConnectionEnded:
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


class Peer:
    """A connected, authenticated peer. Build it with `open_peer`, `connect` or `Listener`."""

    def __init__(self, stream: trio.abc.Stream, conn: Connection, settings: PeerSettings) -> None:
        self._stream = stream
        self._conn = conn
        self._settings = settings
        self._write_lock = trio.Lock()
        self._write_broken = False
        self._inbox_in, self._inbox = trio.open_memory_channel[Message](settings.inbox_size)
        self._background = trio.CancelScope()
        self._last_heard = trio.current_time()
        self.ended: ConnectionEnded | None = None
        self._ended_event = trio.Event()
        self._info: HandshakeComplete | None = None
        self.trust: Trust | None = None
        """With a known-peers store: whether the peer's identity key is new, known or CHANGED."""

    @property
    def info(self) -> HandshakeComplete:
        """What the handshake settled: SAS, session id, peer name and key, rules, dealer."""
        if self._info is None:
            raise RuntimeError("the handshake has not completed")
        return self._info

    # --- public ---------------------------------------------------------------------------

    async def send(self, message: Message) -> None:
        """Send a game message; raise ConnectionEnded if the connection is over."""
        if self.ended is not None:
            raise self.ended
        try:
            self._conn.send(message)
            await self._flush()
        except (ProtocolError, trio.TooSlowError, *_NETWORK_ERRORS) as exc:
            await self._end(_ending_for(exc, self._conn, "the peer stopped reading"))
            raise self.ended from exc  # type: ignore[misc]

    async def receive(self) -> Message:
        """The next game message from the peer (Move, DeckPayload, Rematch...)."""
        try:
            return await self._inbox.receive()
        except trio.EndOfChannel:
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
        async with self._write_lock:
            data = self._conn.data_to_send()
            if data and not self._write_broken:
                try:
                    with trio.fail_after(self._settings.reply_timeout):
                        await self._stream.send_all(data)
                except BaseException:
                    # Part of a frame may have left: nothing more can follow it.
                    self._write_broken = True
                    raise

    async def _next_event(self) -> Event:
        """Feed the connection until it yields an event, writing whatever it queues."""
        while True:
            event = self._conn.next_event()  # on error, `_end` sends the queued Close
            await self._flush()  # replies queued by the connection (pongs, handshake)
            if event is not NEED_DATA:
                return event  # type: ignore[return-value]
            data = await self._stream.receive_some(self._settings.receive_chunk)
            if not data:
                raise _PeerHungUp
            self._last_heard = trio.current_time()
            self._conn.receive_data(data)

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

    async def _handshake(self, judge_rules: Callable[[Rules], str | None]) -> HandshakeComplete:
        timeout = self._settings.handshake_timeout
        try:
            with trio.fail_after(timeout):
                await self._flush()
                while True:
                    event = await self._next_event()
                    if isinstance(event, HandshakeComplete):
                        return event
                    if isinstance(event, RulesProposed):
                        refusal = judge_rules(event.rules)
                        if refusal is None:
                            self._conn.accept_rules()
                        else:
                            await self.aclose(ErrorCode.RULES_REFUSED, refusal)
                            raise self.ended  # type: ignore[misc]
                    elif isinstance(event, Close):
                        await self._end(_peer_closed(event))
                        raise self.ended  # type: ignore[misc]
        except (ProtocolError, trio.TooSlowError, *_NETWORK_ERRORS) as exc:
            context = f"no complete handshake within {timeout:g} s"
            await self._end(_ending_for(exc, self._conn, context))
            raise self.ended from exc  # type: ignore[misc]

    async def _run_background(self) -> None:
        with self._background:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._read)
                nursery.start_soon(self._keep_alive)

    async def _read(self) -> None:
        try:
            while True:
                event = await self._next_event()
                if isinstance(event, Close):
                    await self._end(_peer_closed(event))
                    return
                if not isinstance(event, Pong):
                    await self._inbox_in.send(event)  # type: ignore[arg-type]
        except (ProtocolError, trio.TooSlowError, *_NETWORK_ERRORS) as exc:
            await self._end(_ending_for(exc, self._conn, "the peer stopped reading"))

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
                self._conn.close(ErrorCode.TIMEOUT, f"no answer within {patience:g} s")
                message = f"the peer did not answer for {interval + patience:g} s"
                await self._end(ConnectionEnded(EndReason.TIMEOUT, ErrorCode.TIMEOUT, message))
                return


def _peer_closed(close: Close) -> ConnectionEnded:
    return ConnectionEnded(EndReason.PEER_CLOSED, close.code, display_safe(close.reason))


@asynccontextmanager
async def open_peer(
    stream: trio.abc.Stream,
    role: Role,
    player: LocalPlayer,
    *,
    rules: Rules | None = None,
    judge_rules: Callable[[Rules], str | None] = accept_any_rules,
    known_peers: KnownPeers | None = None,
    settings: PeerSettings | None = None,
    random_bytes: Callable[[int], bytes] = os.urandom,
) -> AsyncIterator[Peer]:
    """Handshake over `stream`, then yield the `Peer`; close it on exit.

    The host passes `rules`; the joiner may pass `judge_rules`, which returns a refusal
    reason or None to accept. With `known_peers`, `peer.trust` tells whether the peer's key
    is new, known or CHANGED (warning the player is the caller's job).
    """
    conn = Connection(role, player, rules=rules, random_bytes=random_bytes)
    peer = Peer(stream, conn, settings or PeerSettings())
    peer._info = await peer._handshake(judge_rules)
    if known_peers is not None:
        peer.trust = known_peers.check(peer.info.peer_name, peer.info.peer_identity)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(peer._run_background)
            try:
                yield peer
            finally:
                with trio.CancelScope(shield=True):
                    await peer.aclose()
    except BaseExceptionGroup as group:
        # Our background tasks end quietly, so a lone exception is the caller's own: give it
        # back unwrapped, as if no nursery were here.
        if len(group.exceptions) != 1:
            raise
        (exc,) = group.exceptions
        raise exc from exc.__cause__


@asynccontextmanager
async def connect(
    address: str,
    player: LocalPlayer,
    *,
    judge_rules: Callable[[Rules], str | None] = accept_any_rules,
    known_peers: KnownPeers | None = None,
    settings: PeerSettings | None = None,
) -> AsyncIterator[Peer]:
    """Join the game hosted at `HOST[:PORT]` (port 4454 by default)."""
    settings = settings or PeerSettings()
    host, port = parse_address(address)
    try:
        with trio.fail_after(settings.handshake_timeout):
            stream = await trio.open_tcp_stream(host, port)
    except trio.TooSlowError:
        message = f"could not reach {address} within {settings.handshake_timeout:g} s"
        raise ConnectionEnded(EndReason.TIMEOUT, ErrorCode.TIMEOUT, message) from None
    except OSError as exc:
        message = f"could not connect to {address}: {exc.strerror or exc}"
        raise ConnectionEnded(EndReason.NETWORK_ERROR, "network-error", message) from None
    async with open_peer(
        stream,
        Role.JOINER,
        player,
        judge_rules=judge_rules,
        known_peers=known_peers,
        settings=settings,
    ) as peer:
        yield peer


class Listener:
    """A listening TCP socket; `accept` waits for a joiner and handshakes with it."""

    def __init__(self, listener: trio.SocketListener) -> None:
        self._listener = listener

    @property
    def address(self) -> tuple[str, int]:
        """The bound (host, port): the port is the real one when 0 was asked for."""
        host, port, *_ = self._listener.socket.getsockname()
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
    ) -> AsyncIterator[Peer]:
        """Wait (until the trio clock's ``deadline``) for a joiner, then handshake."""
        stream = None
        with trio.move_on_at(deadline):
            stream = await self._listener.accept()
        if stream is None:
            raise ConnectionEnded(EndReason.TIMEOUT, ErrorCode.TIMEOUT, "nobody connected in time")
        async with open_peer(
            stream, Role.HOST, player, rules=rules, known_peers=known_peers, settings=settings
        ) as peer:
            yield peer

    async def aclose(self) -> None:
        await self._listener.aclose()


async def open_listener(port: int = DEFAULT_PORT, host: str = "0.0.0.0") -> Listener:
    """Listen on `host:port` (port 0: any free port, see `Listener.address`).

    One socket only, so port 0 yields one port; pass host="::" to listen on IPv6.
    """
    (listener,) = await trio.open_tcp_listeners(port, host=host)
    return Listener(listener)
