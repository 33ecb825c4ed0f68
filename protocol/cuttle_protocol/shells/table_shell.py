"""The trio shell of the N-player table (SPEC.md 3.15): the host's listener and relay, a
joiner's connection to it, timeouts and reconnection. The table itself is `table.core`.

    async with host_table(listener, me, TableSettings("unisson", (), 4)) as table:
        async for event in table.events:          # Lobby, CodeShown, Started, Delivered...
            if isinstance(event, CodeShown):
                table.confirm()                   # once the players compared the code
            elif isinstance(event, TableEnded):
                break

    async with join_table("192.168.1.20", me) as table: ...   # the same events and actions,
                                                  # and Reconnecting, Reconnected

The host's events also say when a joiner's connection is lost and waited for (`SeatAway`)
and when that seat is back (`SeatBack`): the table itself knows nothing of connections.

Actions (`post`, `confirm`, `leave`, `fault`) are plain calls: what they send is queued to
each connection's writer. Each connection runs the two-party handshake of 3.6 with the
capability `table`, beside the others: the host seats each joiner the moment it takes its
seat (its handshake completed and it answered the host's first ping: `Listener.seating`).
A joiner's lost connection is waited for (the reconnect window of 4.6) and resumed from
the log; a joiner back while the host still holds its dead connection takes that one over
at once (4.6, *Taking over*). A seat rebuilt from its journal (`store.seatjournal`) comes in as
its core (`core=`): a restarted host waits for every joiner as for lost ones (`restarted`),
a restarted joiner dials to resume (4.6, *A restarted table seat*).
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass

import trio

from ..errors import ErrorCode, RemoteProtocolError
from ..store.identity import KnownPeers, Trust
from ..table.core import (
    CodeShown,
    SeatInfo,
    Stage,
    TableEnded,
    TableEvent,
    TableGuest,
    TableHost,
    TableSettings,
    _Table,
)
from ..table.watch import WATCH_CAP, WATCH_CHAT_CAP, WatcherGate
from ..wire.connection import HandshakeComplete, LocalPlayer, Rules
from ..wire.messages import Message, Resume
from .peer import (
    CLOSE_GRACE,
    ConnectionEnded,
    EndReason,
    Listener,
    Peer,
    PeerSettings,
    Reconnected,
    Reconnecting,
    Refusal,
    accept_any_rules,
    connect,
    receive_promptly,
    running,
)

TABLE_CAPS = ("table",)
RESUME_CAP = "resume"
"""In a joiner's hello: it dials to take back its seat at a table in progress (SPEC 4.6), so
a host without that table refuses it at once (`no-table`) rather than seat it anew."""
NO_TABLE_REASON = "this host has no unfinished table of yours to resume (lost, or another one)"
WATCH_INTERVAL = 0.1
"""Seconds between two looks at the deadlines."""

# The close code a side uses on its connections once the table ended this way.
_CLOSE_CODES = {
    "timeout": ErrorCode.TIMEOUT,
    "left": ErrorCode.PEER_QUIT,
    "code-mismatch": ErrorCode.PEER_QUIT,
}


@dataclass(frozen=True)
class TableTimeouts:
    """Deadlines (seconds): a protocol step, a player's decision, a lost connection."""

    reply: float = 20.0
    move: float = 600.0
    window: float = 60.0


@dataclass(frozen=True)
class SeatAway:
    """Host: `seat`'s connection was lost (`why`); its player is waited for, for up to
    `window` seconds from now, before the table ends naming it (SPEC 3.15, 4.6). Said
    again, with a fresh window, when a connection that came back is lost before resuming."""

    seat: int
    why: str
    window: float


@dataclass(frozen=True)
class SeatBack:
    """Host: the player of `seat`, said away, is back (its new connection resumed, or took
    the seat over): the game goes on with it."""

    seat: int


ShellEvent = TableEvent | Reconnecting | Reconnected | SeatAway | SeatBack
"""What `TableShell.events` gives: the table's events; a joiner's link to the host lost and
won back; the host's links to its joiners lost and won back (the table itself knows
nothing of connections)."""


@dataclass(frozen=True)
class PlayerArrived:
    """Host: a player's connection passed the handshake: its `name`, key `fingerprint`, and
    `how`: "joined", "back" (its seat waited for it), "replaced" (in the lobby: the new
    connection keeps the place), "takeover" (mid-game: it takes the seat over if it
    resumes) or "watcher"."""

    name: str
    fingerprint: str
    how: str


@dataclass(frozen=True)
class SeatTakenOver:
    """Host: a seat's new connection took the seat over from its last one (None: no seat
    known for the key)."""

    seat: SeatInfo | None


@dataclass(frozen=True)
class WatcherClosed:
    """Host: a watcher's connection was closed for what it sent (`reason`, our words on the
    wire)."""

    reason: str


@dataclass(frozen=True)
class ConnectionLost:
    """Host: a seated joiner's connection is lost (`why`): its seat waits `window` s."""

    seat: SeatInfo | None
    why: str
    window: float


@dataclass(frozen=True)
class HostBusy:
    """Joiner: the host turned us away for now (its close `message`): dialling again."""

    message: str


@dataclass(frozen=True)
class HostLost:
    """Joiner or watcher: the connection to the host is lost (`message`): dialling again."""

    message: str


@dataclass(frozen=True)
class HostBack:
    """Joiner: the connection to the host is back (our `resume` was taken)."""


@dataclass(frozen=True)
class WatchingAgain:
    """Watcher: the connection to the host is back: it watches again."""


ConnectionNews = (
    PlayerArrived
    | SeatTakenOver
    | WatcherClosed
    | ConnectionLost
    | HostBusy
    | HostLost
    | HostBack
    | WatchingAgain
)
"""What a table's shell tells its ``log`` hook of its connections, as data (the client
words it: ``cuttle_client.progress``)."""

Tell = Callable[[ConnectionNews], None]
"""Hears a table shell's `ConnectionNews` (`host_table`'s and `join_table`'s ``log``)."""

Owes = Callable[[], tuple[int, bool] | None]
"""The game's answer to "who must act now?": (seat, True if a player's decision) or None."""


NOT_BACK = "connection lost and not back within"
"""How a `left` verdict for a lost connection not won back in the window begins (SPEC 3.15);
the window follows (`60 s`). Clients recognise the case by it, to say it plainly."""
REPLACED_REASON = "another connection with your identity key took your seat"
BUSY_REASON = "you are at this table already, on another connection"


def _resumed(first: Message) -> Resume:
    """`first`, the `resume` a table's reconnection begins with; RemoteProtocolError if it
    is not one, or if its `game` is not 0 (SPEC 3.15: a table resumes its whole log)."""
    if type(first) is not Resume:
        why = f"{first.TYPE} where resume was due"
    elif first.game != 0:
        why = f"resume of game {first.game}: a table resumes its whole log, as game 0"
    else:
        return first
    raise RemoteProtocolError(ErrorCode.UNEXPECTED_MESSAGE, why)


class _Link:
    """One connection of the table: its peer and the queue its one writer drains.
    `before_send` is called before each write (the core's `before_send`)."""

    def __init__(self, peer: Peer, before_send: Callable[[], Awaitable[None]]) -> None:
        self.peer = peer
        self.before_send = before_send
        self.queue_in, self.queue_out = trio.open_memory_channel[Message](math.inf)
        self.written = trio.Event()  # the writer is done: the queue was closed and drained
        self.resuming = False
        """Host: our `resume` is out and the joiner's is awaited. Nothing is routed here
        meanwhile: its `resume` says which entries it lacks, and they all go then."""
        self.replaced = False
        """Host: a newer connection with the same key took over: read nothing more here."""
        self.serving = trio.CancelScope()  # cancelled when the link is replaced

    async def write(self) -> None:
        try:
            async for message in self.queue_out:
                await self.before_send()  # a journaled seat writes what it took first
                # What else is queued goes in the same write: one system call, and one
                # wake-up of the reader at the other end, for a move and its deck step.
                more: list[Message] = []
                with contextlib.suppress(trio.WouldBlock, trio.EndOfChannel):
                    while True:
                        more.append(self.queue_out.receive_nowait())
                try:
                    await self.peer.send(message, *more)
                except ConnectionEnded:
                    return
        finally:
            self.written.set()

    async def finish(self, code: str, reason: str, grace: float) -> None:
        """Let the writer send what is queued, then close with `code`. `grace` (the reply
        timeout) bounds only a peer that reads nothing: a grace of a second lost a host's
        last entry (its `leave`, with its words) on a loaded machine, the close overtaking
        it."""
        self.queue_in.close()
        with trio.move_on_after(grace):
            await self.written.wait()
        await self.peer.aclose(code, reason)


class _Promptly:
    """Iterates over a channel's items by `receive_promptly`: an item already in comes
    without a task switch."""

    def __init__(self, channel: trio.MemoryReceiveChannel[ShellEvent]) -> None:
        self._channel = channel

    def __aiter__(self) -> _Promptly:
        return self

    async def __anext__(self) -> ShellEvent:
        try:
            return await receive_promptly(self._channel)
        except trio.EndOfChannel:
            raise StopAsyncIteration from None


class TableShell:
    """What host and joiner share: the table, its events, the actions and the deadlines."""

    def __init__(self, core: _Table, timeouts: TableTimeouts, log: Tell) -> None:
        self.core = core
        self.timeouts = timeouts
        self._log = log
        self._events_in, self.events = trio.open_memory_channel[ShellEvent](math.inf)
        self.owes: Owes = lambda: None
        """Set by the game: who owes the next step once the game runs."""
        self.host_verified = False
        """Joiner: the handshake proved the host's key named by an invitation (SPEC 3.14)."""
        self.ended = trio.Event()
        self.done = trio.Event()
        """`run` is over (or was cancelled): our connections are closed for good, and
        nothing here will end the table any more."""
        self._progress = trio.current_time()  # when the log last grew
        self._length = 0
        self.trust: dict[bytes, Trust] = {}
        """Identity key -> what trust on first use said about it (with known peers)."""
        self.known_peers: KnownPeers | None = None

    def each_event(self) -> AsyncIterator[ShellEvent]:
        """`events`, one by one, as `async for event in table.events` gives them, but those
        already in without a task switch each (a game's driver, which posts its answers:
        they then leave together)."""
        return _Promptly(self.events)

    # --- actions ---------------------------------------------------------------------------

    def post(self, body: dict) -> None:
        self.core.post(body)
        self._flush()

    def confirm(self) -> None:
        self.core.confirm()
        self._flush()

    def keys_accepted(self) -> None:
        """The player compared the table code, shown beside a changed key's warning, and
        found it the same: each changed key is pinned under its name (SPEC 3.11)."""
        if self.known_peers is None:
            return
        for seat in self.core.seats:
            if seat.seat != self.core.me and self.trust.get(seat.identity) is Trust.CHANGED:
                self.known_peers.remember(seat.name, seat.identity)

    def leave(self, code: str = ErrorCode.PEER_QUIT, reason: str = "") -> None:
        self.core.leave(code, reason)
        self._flush()

    async def wait_ended(self, patience: float) -> None:
        """Until the table has ended (our `leave` relayed, say), at most `patience` seconds,
        and only while `run` goes on: once it has stopped (cancelled with the seat's task,
        as an app quits), no relay can come, and waiting out the patience would be for
        nothing (a joiner did, twice over: 40 s with the default reply timeout)."""
        with trio.move_on_after(patience):
            async with trio.open_nursery() as nursery:

                async def first(event: trio.Event) -> None:
                    await event.wait()
                    nursery.cancel_scope.cancel()

                nursery.start_soon(first, self.ended)
                nursery.start_soon(first, self.done)

    def say(self, text: str) -> bool:
        """A chat line to the table (SPEC 3.15): False if not sent (see `_Table.say`)."""
        said = self.core.say(text)
        self._flush()
        return said

    def rematch(self) -> None:
        """Host: propose the next game (the one under way is over); joiner: agree to it."""
        self.core.rematch()
        self._flush()

    def fault(self, culprit: int, kind: str, detail: str) -> None:
        self.core.fault(culprit, kind, detail)
        self._flush()

    def overdue(self, deciding: bool) -> bool:
        """Has the step due now (a player's decision, or a protocol message) been due past
        its timeout on our clock? A `timeout` verdict from another seat convicts only then
        (SPEC 3.15). The slack (a reply timeout, at most half the step's) covers the seats
        having received the entry that made the step due at slightly different times."""
        timeout = self.timeouts.move if deciding else self.timeouts.reply
        slack = min(self.timeouts.reply, timeout / 2)
        return trio.current_time() >= self._progress + timeout - slack

    def move_clock(self, ours: bool = False) -> tuple[int, float] | None:
        """The table seat whose decision the table waits for, and the seconds left of its
        move timeout on our clock (a UI's move clock); None while no move is owed. Our
        own decision (``ours``: the game says it is due) is timed by the others' clocks,
        from the same entry."""
        if ours:
            return self.core.me, self._progress + self.timeouts.move - trio.current_time()
        owed = self._owed()
        if owed is None or owed[2] != "move":
            return None
        return owed[0], self._progress + owed[1] - trio.current_time()

    # --- internals -------------------------------------------------------------------------

    async def _before_send(self) -> None:
        if self.core.unwritten:  # (a joiner's core comes with its first connection)
            # Its fsync holds the loop up for milliseconds: the seat's own game takes what
            # came first (that sends nothing), and its answer leaves with this write.
            await trio.lowlevel.checkpoint()
        self.core.before_send()

    def _route(self) -> None:
        raise NotImplementedError

    def _flush(self) -> None:
        self._route()
        log = self.core.log
        moved = self.core.steps
        if log is not None and moved != self._length and self.core.stage is not Stage.ENDED:
            # Not the entry that ended the table: `overdue` judges a verdict against the
            # time the step became due. (Chat and watchers are no steps: talking buys no time.)
            self._length = moved
            self._progress = trio.current_time()
        for event in self.core.take_events():
            if isinstance(event, CodeShown):
                self._check_keys()
            self._events_in.send_nowait(event)
            if isinstance(event, TableEnded):
                self.ended.set()

    def _check_keys(self) -> None:
        """Trust on first use of every key at the table (SPEC 3.11), once they are seated:
        each player's key came through the host, signed by nobody yet but bound by the code."""
        if self.known_peers is None:
            return
        for seat in self.core.seats:
            if seat.seat != self.core.me and seat.identity not in self.trust:
                self.trust[seat.identity] = self.known_peers.check(seat.name, seat.identity)

    def _owed(self) -> tuple[int, float, str] | None:
        """(seat, deadline, what) of the step the table waits for, if any."""
        stage = self.core.stage
        if stage in (Stage.COMMIT, Stage.REVEAL, Stage.CONFIRM, Stage.BETWEEN):
            waiting = self.core.waiting_for()
            if not waiting:
                return None
            if stage is Stage.CONFIRM:
                return waiting[0], self.timeouts.move, "confirmation of the code"
            if stage is Stage.BETWEEN:  # a player's decision, like the code's confirmation
                return waiting[0], self.timeouts.move, "answer to the rematch"
            return waiting[0], self.timeouts.reply, f"{stage.value} message"
        if stage is Stage.GAME:
            owed = self.owes()
            if owed is not None:
                seat, deciding = owed
                if deciding:
                    return seat, self.timeouts.move, "move"
                return seat, self.timeouts.reply, "message"
        return None

    def _close_code(self) -> tuple[str, str]:
        ended = self.core.ended
        if ended is None:
            return ErrorCode.PEER_QUIT, ""
        if ended.culprit in (None, self.core.me) or ended.reporter is not None:
            return ErrorCode.PEER_QUIT, "the table ended"
        code = _CLOSE_CODES.get(ended.kind, ErrorCode.CHEAT_DETECTED)
        return code, f"{ended.kind}: {ended.detail}"


class HostShell(TableShell):
    """The host: seats joiners as they connect, relays, and waits for lost ones."""

    core: TableHost

    def __init__(
        self,
        listener: Listener,
        core: TableHost,
        timeouts: TableTimeouts,
        settings: PeerSettings,
        known_peers: KnownPeers | None,
        log: Tell,
    ) -> None:
        super().__init__(core, timeouts, log)
        self._listener = listener
        self._settings = settings
        self.known_peers = known_peers
        self._links: dict[bytes, _Link] = {}
        self._watcher_links: dict[bytes, _Link] = {}  # watchers' connections (tablewatch)
        self._nursery: trio.Nursery | None = None  # where joiners are served (`run`)
        self._lost: dict[bytes, float] = {}  # identity -> when its reconnect window ends
        self._away: set[bytes] = set()  # said `SeatAway` and not yet `SeatBack`
        self.restarted: list[bytes] = []  # a table rebuilt from a journal: joiners to wait for
        assert core.settings is not None
        self._rules = Rules(core.settings.game, core.settings.options)

    def _route(self) -> None:
        for identity, message in self.core.take_outgoing():
            link = self._links.get(identity) or self._watcher_links.get(identity)
            if link is not None and not link.resuming:
                link.queue_in.send_nowait(message)

    @property
    def _watch_chat(self) -> tuple[str, ...]:
        """In our hello: we take our watchers' chat (SPEC 3.15 *Watchers*)."""
        return (WATCH_CHAT_CAP,) if self.core.watcher_chat else ()

    async def run(self, nursery: trio.Nursery) -> None:
        """Seat joiners as they take their seats, all at once, until the table ends
        (after the seating, only a player coming back is let in)."""
        self._nursery = nursery
        for identity in self.restarted:
            # A table rebuilt from the host's journal: every joiner is waited for, as if its
            # connection had just been lost (SPEC 4.6, *A restarted table seat*).
            self._went_away(identity, "the host restarted")
        nursery.start_soon(self._watch)
        try:
            async with self._listener.seating(
                self.core._player,
                self._rules,
                self._admit,
                settings=self._settings,
                caps=(*TABLE_CAPS, WATCH_CAP, RESUME_CAP, *self._watch_chat),
                shut=(ErrorCode.BUSY, "this table has ended"),
                codes=lambda: self.core.stage is Stage.LOBBY,  # the table's code comes after it
            ):
                await trio.sleep_forever()  # cancelled as the table closes
        finally:
            self.done.set()

    def _refusal(self, info: HandshakeComplete) -> tuple[str, str] | None:
        """Why a handshaken peer gets no seat now (a close code and the reason), or None."""
        identity = info.peer_identity
        if WATCH_CAP in info.caps and "table" not in info.caps:
            return None  # a watcher (`_admit`)
        if "table" not in info.caps:
            reason = "this host seats a table of several players: your program cannot"
            return ErrorCode.RULES_REFUSED, reason
        if identity == self.core.identity:
            return ErrorCode.WRONG_PLAYER, "that is the host's own identity key"
        stage = self.core.stage
        if stage is Stage.ENDED:
            return ErrorCode.BUSY, "this table has ended"
        if identity in self._lost or identity in self._links:
            return None  # a player coming back, or one taking over its seat
        if RESUME_CAP in info.caps:
            # Its journal holds a table we do not (ours was lost, or is another): seating
            # it anew would start a table it cannot play, and leave us waiting for it.
            return ErrorCode.NO_TABLE, NO_TABLE_REASON
        if stage is Stage.LOBBY:
            return None  # a newcomer
        full = f"this table is full: its {len(self.core.seats)} seats are taken"
        return ErrorCode.BUSY, full + (" and its game has started" if stage is Stage.GAME else "")

    def _admit(self, peer: Peer) -> tuple[str, str] | None:
        """A joiner took its seat (its handshake completed, it answered our first ping):
        seat it (or take it back) at once, or refuse it. Called as each one does, so places
        go in that order, with no wait."""
        info = peer.info
        identity = info.peer_identity
        refusal = self._refusal(info)
        if refusal is not None:
            return refusal
        if "table" not in info.caps:
            return self._admit_watcher(peer)
        link = _Link(peer, self._before_send)
        old = self._links.get(identity)
        name, fingerprint = info.peer_name, info.peer_fingerprint
        assert self._nursery is not None
        if old is not None and self.core.stage is not Stage.LOBBY:
            # The same player (the handshake proved its key) while we still hold its last
            # connection: that one is dead, or another instance of the player. The new one
            # takes the seat once its `resume` shows it carries the game on (SPEC 4.6).
            self._log(PlayerArrived(name, fingerprint, "takeover"))
            self._nursery.start_soon(self._joined, link, identity, "takeover")
            return None
        back = identity in self._lost
        if old is not None:  # in the lobby: a new instance keeps the place
            self._replace(old)
        elif back:
            del self._lost[identity]
            link.resuming = True
            link.queue_in.send_nowait(Resume(0, self.core.posts_received(identity)))
        self._links[identity] = link  # before the lobby status is routed to it
        if old is not None:
            self.core.show_lobby()  # the new connection learns its place
        elif not back:
            place = self.core.add_joiner(info.peer_name, identity)
            assert place is not None  # the lobby has a free place for a new key
        how = "replaced" if old else "back" if back else "joined"
        self._log(PlayerArrived(name, fingerprint, how))
        self._nursery.start_soon(self._joined, link, identity, "back" if back else "new")
        self._flush()
        return None

    def _admit_watcher(self, peer: Peer) -> tuple[str, str] | None:
        """A watcher completed its handshake: it watches from now on, or is refused."""
        info = peer.info
        why = self.core.add_watcher(info.peer_name, info.peer_identity)
        if why is not None:
            return ErrorCode.BUSY, why
        link = _Link(peer, self._before_send)
        self._watcher_links[info.peer_identity] = link
        self._log(PlayerArrived(info.peer_name, info.peer_fingerprint, "watcher"))
        assert self._nursery is not None
        self._nursery.start_soon(self._watched, link, info.peer_identity)
        self._flush()
        return None

    async def _watched(self, link: _Link, identity: bytes) -> None:
        """Serve a watcher: the log goes out; its chat line is relayed (where we take
        it); anything else it sends is dropped, or closes it."""
        gate = WatcherGate(hear=lambda post: self.core.hear_watcher(identity, post))

        def gone() -> None:  # nothing more is routed to it (its queue closes)
            if self._watcher_links.get(identity) is link:
                del self._watcher_links[identity]
                self.core.remove_watcher(identity)
                self._flush()

        async with running(link.peer) as peer, trio.open_nursery() as nursery:
            nursery.start_soon(link.write)
            try:
                async for message in peer:
                    verdict = gate.judge(message)
                    self._flush()  # a line it said goes out to every seat and watcher
                    if verdict is not None:
                        self._log(WatcherClosed(verdict[1]))
                        gone()
                        await link.finish(*verdict, self.timeouts.reply)
                        break
            except (ConnectionEnded, RemoteProtocolError):
                pass
            finally:
                gone()
            nursery.cancel_scope.cancel()

    @staticmethod
    def _replace(old: _Link) -> None:
        """A newer connection of the same player takes over from `old`: from now on
        nothing read there counts, and it is closed with `replaced`."""
        old.replaced = True
        old.serving.cancel()

    async def _joined(self, link: _Link, identity: bytes, how: str) -> None:
        async with running(link.peer) as peer:
            if self.known_peers is not None:
                peer.trust = self.known_peers.check(peer.info.peer_name, identity)
            if peer.trust is not None:
                self.trust[identity] = peer.trust
            if how == "takeover" and not await self._take_over(link, identity):
                return
            await self._serve(link, identity, resuming=how == "back")

    async def _take_over(self, link: _Link, identity: bytes) -> bool:
        """Wait for the new connection's `resume`, then give it the seat at once: the old
        connection stops counting at that moment, so our `resume` counts every post it
        delivered and nothing is lost or taken twice. Without a `resume` (another instance
        of the player that cannot carry the game on: one with no journal of this seat) it
        is refused and the old connection keeps the seat."""
        peer = link.peer
        first: Message | None = None
        with contextlib.suppress(ConnectionEnded), trio.move_on_after(self.timeouts.reply):
            first = await peer.receive()
        if self.core.stage is Stage.ENDED:
            await peer.aclose(ErrorCode.BUSY, "this table has ended")
            return False
        if first is None:
            await peer.aclose(ErrorCode.BUSY, BUSY_REASON)
            return False
        try:
            resume = _resumed(first)
        except RemoteProtocolError as exc:
            await peer.aclose(exc.code, exc.message)
            return False
        old = self._links.get(identity)
        if old is not None:
            self._replace(old)
        self._lost.pop(identity, None)
        self._links[identity] = link
        link.queue_in.send_nowait(Resume(0, self.core.posts_received(identity)))
        try:
            self.core.resend(identity, resume.received)
        except RemoteProtocolError as exc:
            await peer.aclose(exc.code, exc.message)  # its end is handled as any other
        else:
            self._came_back(identity)
        self._log(SeatTakenOver(self._seated(identity)))
        return True

    def _seated(self, identity: bytes) -> SeatInfo | None:
        return next((s for s in self.core.seats if s.identity == identity), None)

    def _went_away(self, identity: bytes, why: str) -> None:
        """A seated joiner's connection is lost: wait for it (the reconnect window), and
        say so."""
        window, seat = self.timeouts.window, self._seated(identity)
        self._log(ConnectionLost(seat, why, window))
        self._lost[identity] = trio.current_time() + window
        if seat is not None:
            self._away.add(identity)
            self._events_in.send_nowait(SeatAway(seat.seat, why, window))

    def _came_back(self, identity: bytes) -> None:
        """A joiner said away resumed on a new connection (or took its seat over)."""
        seat = self._seated(identity)
        if identity in self._away and seat is not None and not self.ended.is_set():
            self._away.discard(identity)
            self._events_in.send_nowait(SeatBack(seat.seat))

    async def _serve(self, link: _Link, identity: bytes, *, resuming: bool) -> None:
        peer = link.peer
        broke: RemoteProtocolError | None = None  # a table message out of place
        self._flush()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(link.write)
            with link.serving:
                try:
                    await self._read(link, identity, resuming=resuming)
                except RemoteProtocolError as exc:
                    broke = exc
                    await peer.aclose(exc.code, exc.message)
                except ConnectionEnded:
                    pass  # how it ended is in `peer.ended`
            nursery.cancel_scope.cancel()
        if link.replaced:
            # Said, so that another instance of the same player stops rather than dialling
            # again and taking the seat back (SPEC 4.6).
            with trio.CancelScope(shield=True):
                await peer.aclose(ErrorCode.REPLACED, REPLACED_REASON)
            return
        if self._links.get(identity) is link:
            del self._links[identity]
        if self.ended.is_set():
            return
        ended = peer.ended
        why = ended.message if ended is not None else "the connection ended"
        if self.core.stage is Stage.LOBBY:
            self.core.remove_joiner(identity, why)
        elif ended is not None and ended.reason is EndReason.PEER_CLOSED and ended.code != "away":
            self.core.remove_joiner(identity, f"closed with {ended.code}: {why}")
        elif broke is not None:
            # The joiner broke the table's rules on the wire (a `rematch` mid-game, say):
            # as any wire fault, not a lost connection to wait for.
            self.core.remove_joiner(identity, f"{_wire_kind(broke.code)}: {broke.message}")
        elif ended is not None and ended.reason in (EndReason.REMOTE_ERROR, EndReason.LOCAL_ERROR):
            self.core.remove_joiner(identity, f"{_wire_kind(ended.code)}: {why}")
        else:
            self._went_away(identity, why)
        self._flush()

    async def _read(self, link: _Link, identity: bytes, *, resuming: bool) -> None:
        """Feed the table what the joiner sends, until its connection ends or is replaced.
        Once replaced, nothing more read here counts (a message may already be on its way
        to us): the new connection's `resume` counted the posts taken so far, and the
        joiner sends the rest again there."""
        peer = link.peer
        if resuming:
            first = await peer.receive()
            if link.replaced:
                return
            resume = _resumed(first)
            link.resuming = False
            self.core.resend(identity, resume.received)
            self._came_back(identity)
            self._flush()
        async for message in peer:  # after the end: until `close_all` closes it
            if link.replaced:
                return
            self.core.receive(identity, message)
            self._flush()

    async def _watch(self) -> None:
        while not self.ended.is_set():
            await trio.sleep(WATCH_INTERVAL)
            now = trio.current_time()
            for identity, deadline in list(self._lost.items()):
                if now > deadline:
                    del self._lost[identity]
                    self._away.discard(identity)  # the table ends, naming it
                    window = f"{self.timeouts.window:g} s"
                    self.core.remove_joiner(identity, f"{NOT_BACK} {window}", "left")
            owed = self._owed()
            if owed is not None:
                seat, timeout, what = owed
                lost = self.core.seats[seat].identity in self._lost
                if not lost and now > self._progress + timeout:
                    self.core.fault(seat, "timeout", f"no {what} in {timeout:g} s")
            self._flush()

    async def close_all(self) -> None:
        code, reason = self._close_code()
        async with trio.open_nursery() as nursery:
            for link in [*self._links.values(), *self._watcher_links.values()]:
                nursery.start_soon(link.finish, code, reason, self.timeouts.reply)


class GuestShell(TableShell):
    """A joiner: one connection to the host, redialled when it is lost."""

    core: TableGuest

    def __init__(
        self,
        address: str,
        player: LocalPlayer,
        timeouts: TableTimeouts,
        settings: PeerSettings,
        known_peers: KnownPeers | None,
        judge: Callable[[Rules], str | None],
        log: Tell,
        random_bytes: Callable[[int], bytes],
    ) -> None:
        super().__init__(None, timeouts, log)  # type: ignore[arg-type] - the core comes with the host's key
        self._address = address
        self._player = player
        self._settings = settings
        self.known_peers = known_peers
        self._judge = judge
        self._random = random_bytes
        self._link: _Link | None = None
        self._unrelayed_since: float | None = None
        self._given: Peer | None = None
        self._redial: trio.CancelScope | None = None  # a redial under way
        self.away = False
        """The connection to the host was lost and is being won back (`Reconnecting` was
        said, `Reconnected` not yet)."""
        self._task_status: trio.TaskStatus[None] | None = None  # `run` until we are placed
        self._holding = False
        """Rebuilt from our journal: `run` is not started until the host took our resume
        or could not be reached (a host without our table raises instead, `no-table`)."""
        self.new_core: Callable[[HandshakeComplete], TableGuest] | None = None
        """Makes the table core at the first connection (a journaled one, say)."""

    def _flush(self) -> None:
        super()._flush()
        if self._task_status is not None and self._placed and not self._holding:
            self._task_status.started()
            self._task_status = None
        if self.ended.is_set() and self._link is None and self._redial is not None:
            # The table ended while the host was out of reach (the game ended as the host
            # closed, say): nothing is left to send, so stop dialling at once.
            self._redial.cancel()

    def leave(self, code: str = ErrorCode.PEER_QUIT, reason: str = "") -> None:
        self.core.leave(code, reason)
        if self._link is None and self.core.stage is not Stage.ENDED:
            # The host is out of reach: our `leave` would wait for the connection to come
            # back, and the player for the reconnect window. We leave now; the others learn
            # it as the host's window for us runs out.
            self.core.left_unrelayed()
        self._flush()

    def _route(self) -> None:
        for message in self.core.take_outgoing():
            if self._link is not None:
                self._link.queue_in.send_nowait(message)

    @property
    def _placed(self) -> bool:
        """The host gave us a place (a lobby status came): from then on we stay."""
        return self.core is not None and self.core.settings is not None

    async def run(self, *, task_status=trio.TASK_STATUS_IGNORED) -> None:
        try:
            await self._run(task_status)
        finally:
            self.done.set()

    async def _run(self, task_status) -> None:
        self._task_status = task_status  # `started()` once the host gives us a place
        give_up = trio.current_time() + self._settings.handshake_timeout
        window_end = math.inf
        self._holding = self._placed and not self.ended.is_set()  # rebuilt: dial to resume
        pause = 0.1
        while not self.ended.is_set():
            resuming = self._placed
            connection: contextlib.AbstractAsyncContextManager[Peer] = connect(
                self._address,
                self._player,
                judge_rules=self._judge,
                judge_peer=self._our_host if resuming else _a_table,
                known_peers=None if resuming else self.known_peers,
                settings=self._settings,
                caps=(*TABLE_CAPS, RESUME_CAP) if resuming else TABLE_CAPS,
            )
            if self._given is not None:  # a connection the caller made (and will close)
                given, self._given = self._given, None
                refusal = self._our_host(given) if resuming else None
                if refusal is not None:  # our journal's table has another host
                    await given.aclose(refusal.code, refusal.reason)
                    raise ConnectionEnded(EndReason.LOCAL_CLOSED, refusal.code, refusal.message)
                connection = contextlib.nullcontext(given)
            greeted = False  # the handshake completed: the host answers *us* from then on
            # A redial ends with the window, even in the middle of a handshake that hangs.
            with trio.CancelScope(deadline=window_end if resuming else math.inf) as attempt:
                self._redial = attempt if resuming else None
                try:
                    async with connection as peer:
                        attempt.deadline = math.inf  # connected: the window counts no more
                        greeted = True
                        if not resuming:
                            await self._seat(peer)
                        pause, window_end = 0.1, math.inf
                        ended = await self._serve(peer, resuming=resuming)
                except ConnectionEnded as exc:
                    ended = exc
            if attempt.cancelled_caught and not self.ended.is_set():  # the window ran out
                ended = ConnectionEnded(
                    EndReason.TIMEOUT, ErrorCode.TIMEOUT, "the host is not back"
                )
            self._redial = None
            if self._holding:
                if ended is not None and ended.code == ErrorCode.NO_TABLE:
                    raise ended  # before `run` started: `join_table` raises it
                self._holding = False  # out of reach for now: play on, dialling again
                self._flush()
            if not self._placed:
                self._unplaced(ended, greeted, give_up)
                self._log(HostBusy(ended.message if ended else ""))
            elif self.ended.is_set() or not self._resumable(ended):
                return
            else:
                now = trio.current_time()
                if window_end == math.inf:
                    window_end = now + self.timeouts.window
                    self._log(HostLost(ended.message))
                if not self.away:
                    self.away = True
                    self._events_in.send_nowait(Reconnecting(ended.message))
                if now >= window_end:
                    window = f"{self.timeouts.window:g} s"
                    self.fault(0, "left", f"{NOT_BACK} {window}")
                    return
            with trio.move_on_after(pause):
                await self.ended.wait()  # the game may end the table while we are away
            pause = min(1.0, pause * 2)

    def _unplaced(self, ended: ConnectionEnded | None, greeted: bool, give_up: float) -> None:
        """The connection ended before the host gave us a place: raise why, unless the host
        was only too busy to handshake (its limits, SPEC 3.11), for a while. A refusal after
        the handshake is the host's answer to us: a full table, a game under way..."""
        if self.ended.is_set():  # the host's first words broke the rules
            assert self.core.ended is not None
            why = f"{self.core.ended.kind}: {self.core.ended.detail}"
            raise ConnectionEnded(EndReason.REMOTE_ERROR, ErrorCode.UNEXPECTED_MESSAGE, why)
        if ended is None:
            ended = ConnectionEnded(
                EndReason.NETWORK_ERROR, "network-error", "the host closed before seating us"
            )
        if greeted or ended.code != ErrorCode.BUSY or trio.current_time() > give_up:
            raise ended

    def _our_host(self, peer: Peer) -> Refusal | None:
        """Dialling again: only our table's host (refused before it takes us in)."""
        if peer.info.peer_identity == self.core.host_identity:
            return None
        return Refusal(ErrorCode.WRONG_PLAYER, "you are not this table's host", "another host")

    async def _seat(self, peer: Peer) -> None:
        """A first connection, to a table's host (`_a_table`): our table starts here."""
        info = peer.info
        if "table" not in info.caps:  # a connection the caller made (`join_table`'s `peer`)
            await peer.aclose(ErrorCode.PEER_QUIT, _NOT_A_TABLE.reason)
            raise ConnectionEnded(EndReason.LOCAL_CLOSED, ErrorCode.PEER_QUIT, _NOT_A_TABLE.message)
        self.core = (
            TableGuest(
                self._player,
                info.peer_identity,
                game=info.rules.rules,
                options=info.rules.variants,
                random_bytes=self._random,
                clock=trio.current_time,
            )
            if self.new_core is None
            else self.new_core(info)
        )
        self.host_info = info
        if peer.trust is not None:
            self.trust[info.peer_identity] = peer.trust

    def _resumable(self, ended: ConnectionEnded | None) -> bool:
        """After a connection ended: may we dial again? If not, the table ends here."""
        if ended is None:
            return False
        if ended.reason is EndReason.PEER_CLOSED and ended.code == ErrorCode.REPLACED:
            # Our key sits at the table on a newer connection (another instance of us): it
            # plays on there; dialling again would only take the seat back and forth.
            self.core.replaced(f"the host says: {ended.message}")
        elif self.core.leaving is not None:
            # We left (our game was over, say): nothing more is owed to us, and the host
            # tells the others, or they learn that it is gone.
            self.core.left_unrelayed()
        elif self.core.stage is Stage.LOBBY:
            self.core.fault(0, "left", f"the host went: {ended.message}")
        elif ended.reason is EndReason.PEER_CLOSED and ended.code not in ("away", "busy"):
            # `busy`: the host still holds our last connection, until it sees it is gone
            self.core.fault(0, "left", f"closed with {ended.code}: {ended.message}")
        elif ended.reason in (EndReason.REMOTE_ERROR, EndReason.LOCAL_ERROR):
            self.core.fault(0, _wire_kind(ended.code), ended.message)
        else:
            # Lost (a reset, an end without close, a refused redial: the host may be
            # restarting from its journal, SPEC 4.6): dial again until the window ends.
            return True
        self._flush()
        return False

    async def _serve(self, peer: Peer, *, resuming: bool) -> ConnectionEnded | None:
        link = _Link(peer, self._before_send)
        self._link = link
        self._unrelayed_since = None  # the time away is not the host's to answer for
        try:
            return await self._served(peer, link, resuming)
        finally:
            # However it ended (cancelled too), the link's writer is gone: what is routed
            # from now on would be lost, and `leave` would wait for a relay that never comes.
            self._link = None

    async def _served(self, peer: Peer, link: _Link, resuming: bool) -> ConnectionEnded | None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(link.write)
            nursery.start_soon(self._watch, peer)
            nursery.start_soon(self._finish_when_ended, link)
            try:
                if resuming:
                    link.queue_in.send_nowait(Resume(0, self.core.received))
                    first = await peer.receive()
                    self.core.resend(_resumed(first).received)
                    self._holding = False  # the host took our resume: `run` is started
                    if self.away:
                        self.away = False
                        self._log(HostBack())
                        self._events_in.send_nowait(Reconnected())
                self._flush()
                async for message in peer:  # after the end, until the connection closes
                    self.core.receive(message)
                    self._flush()
            except RemoteProtocolError as exc:
                await peer.aclose(exc.code, exc.message)
            except ConnectionEnded:
                pass
            if self.ended.is_set():
                await link.finish(*self._close_code(), self.timeouts.reply)
            nursery.cancel_scope.cancel()
        return peer.ended

    async def _finish_when_ended(self, link: _Link) -> None:
        """Once the table ended, send what is queued (our report, or our leaving) and wait
        until the host relayed it: a connection we closed at once could end at the host
        before it read our last post. Then close."""
        await self.ended.wait()
        with trio.move_on_after(self.timeouts.reply):
            while self.core.unrelayed and link.peer.ended is None:
                await trio.sleep(WATCH_INTERVAL / 10)
        await link.finish(*self._close_code(), self.timeouts.reply)

    async def _watch(self, peer: Peer) -> None:
        """The host must relay our posts, and give a verdict when someone stalls."""
        while True:
            await trio.sleep(WATCH_INTERVAL)
            now = trio.current_time()
            if self.core.unrelayed == 0:
                self._unrelayed_since = None
            elif self._unrelayed_since is None:
                self._unrelayed_since = now
            elif now > self._unrelayed_since + self.timeouts.reply:
                limit = f"{self.timeouts.reply:g} s"
                self.fault(0, "timeout", f"the host did not relay our message in {limit}")
            owed = self._owed()
            # The host may be waiting for a seat's lost connection (the window) first.
            patience = max(owed[1], self.timeouts.window) if owed is not None else 0.0
            if owed is not None and now > self._progress + patience + 2 * self.timeouts.reply:
                self.fault(0, "timeout", "the host relayed nothing, and gave no verdict")
            if self.ended.is_set():
                return


def _wire_kind(code: str) -> str:
    """The fault kind of a wire error code (SPEC 4.4): `wire_` and the code, `_` for `-`."""
    return f"wire_{code.replace('-', '_')}"


_NOT_A_TABLE = Refusal(
    ErrorCode.PEER_QUIT,
    "we came to sit at a table",
    "this host plays a two-player game, not a table",
)


def _a_table(peer: Peer) -> Refusal | None:
    """A first connection: the host must seat a table (refused before it takes us in)."""
    return None if "table" in peer.info.caps else _NOT_A_TABLE


@asynccontextmanager
async def host_table(
    listener: Listener,
    player: LocalPlayer,
    settings: TableSettings,
    *,
    timeouts: TableTimeouts | None = None,
    peer_settings: PeerSettings | None = None,
    known_peers: KnownPeers | None = None,
    log: Tell = lambda news: None,
    random_bytes: Callable[[int], bytes] = os.urandom,
    core: TableHost | None = None,
    restarted: Sequence[bytes] = (),
    max_watchers: int | None = None,
    watcher_chat: bool = False,
) -> AsyncIterator[HostShell]:
    """Host a table on `listener` for the block: joiners are seated as they come.

    `core`: the table's core, made by the caller (a journaled one); `restarted`: the
    joiners of a table rebuilt from the host's journal, waited for as lost ones;
    `max_watchers`: how many watchers it takes (0: none; default `MAX_WATCHERS`);
    `watcher_chat`: its watchers may say a line to the table (SPEC 3.15 *Watchers*)."""
    core = core or TableHost(player, settings, random_bytes=random_bytes, clock=trio.current_time)
    if max_watchers is not None:
        core.max_watchers = max_watchers
    core.watcher_chat = watcher_chat
    shell = HostShell(
        listener,
        core,
        timeouts or TableTimeouts(),
        peer_settings or PeerSettings(),
        known_peers,
        log,
    )
    shell.restarted = list(restarted)
    shell._flush()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(shell.run, nursery)
        try:
            yield shell
        finally:
            with trio.CancelScope(shield=True):
                if not shell.ended.is_set():
                    core.leave(ErrorCode.PEER_QUIT, "the host left")
                    shell._flush()
                await shell.close_all()
            nursery.cancel_scope.cancel()


@asynccontextmanager
async def join_table(
    address: str,
    player: LocalPlayer,
    *,
    judge_rules: Callable[[Rules], str | None] = accept_any_rules,
    timeouts: TableTimeouts | None = None,
    peer_settings: PeerSettings | None = None,
    known_peers: KnownPeers | None = None,
    log: Tell = lambda news: None,
    random_bytes: Callable[[int], bytes] = os.urandom,
    peer: Peer | None = None,
    core: TableGuest | None = None,
    new_core: Callable[[HandshakeComplete], TableGuest] | None = None,
) -> AsyncIterator[GuestShell]:
    """Join the table hosted at `address` (as `connect`) for the block. Raises
    `ConnectionEnded` if the first connection fails or the host is not a table.

    `peer`: a connection to that host already made (with the capability `table`, e.g. by a
    `cuttle join` that did not know it was a table): it is used first; `address` is
    where to dial again if it is lost. `core`: our seat rebuilt from its journal (we dial to
    resume it); `new_core`: makes the core at the first connection (a journaled one)."""
    shell = GuestShell(
        address,
        player,
        timeouts or TableTimeouts(),
        peer_settings or PeerSettings(),
        known_peers,
        judge_rules,
        log,
        random_bytes,
    )
    shell._given = peer
    shell.new_core = new_core
    if core is not None:
        shell.core = core
    async with trio.open_nursery() as nursery:
        try:
            await nursery.start(shell.run)
        except ConnectionEnded as exc:  # re-raised below, not inside an exception group
            refused = exc
        else:
            refused = None
            try:
                yield shell
            finally:
                with trio.CancelScope(shield=True):
                    patience = shell.timeouts.reply
                    if not shell.ended.is_set():
                        shell.leave(ErrorCode.PEER_QUIT, "")  # ends once the host relays it
                        await shell.wait_ended(patience)
                    with trio.move_on_after(patience + CLOSE_GRACE):
                        await shell.done.wait()  # our last posts out, the connection closed
                nursery.cancel_scope.cancel()
    if refused is not None:
        raise refused


__all__ = [
    "RESUME_CAP",
    "TABLE_CAPS",
    "GuestShell",
    "HostShell",
    "SeatAway",
    "SeatBack",
    "ShellEvent",
    "TableTimeouts",
    "host_table",
    "join_table",
]
