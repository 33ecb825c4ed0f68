"""Games over a connected peer: the trio loop around ``cuttle_net.session.GameSession``.

One task owns the session.  Messages from the peer and intents from the local player (the
terminal client, or nothing when a bot plays) meet in one inbox, so the session is only ever
touched from one place.  Deadlines: ``move_timeout`` while the peer must decide,
``reply_timeout`` while a deck-protocol step is due.

A connection lost during a game (a reset, a silence) is not the end: with a ``reconnect``
the link waits up to ``reconnect_window`` for the same player (same identity key) to come
back, then both sides say how many game messages they received (``Resume``) and re-send the
rest.  The sessions never notice.  A host keeps its door open for the whole match, so that
a joiner which noticed a silent loss first takes its game over on a new connection at once,
before the host's keepalive notices the old one died (SPEC 4.6, *Taking over*).
"""

from __future__ import annotations

import contextlib
import itertools
import math
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, Self, TypeVar

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cuttle_net.drbg import new_seed, seeded_rng
from cuttle_net.games.cuttle.bots import Bot
from cuttle_net.games.cuttle.engine import Game, IllegalMove
from cuttle_net.games.cuttle.moves import Move
from cuttle_net.games.cuttle.rules import Rules
from cuttle_net.records.header import GameHeader
from cuttle_net.session import Fault, GameSession, MovePlayed, Output, SendMove

from . import journal as jn
from .errors import ErrorCode
from .messages import DeckPayload, Message, RematchAnswer, RematchRequest, Resume
from .messages import Move as WireMove
from .state import Role
from .trio_peer import ConnectionEnded, EndReason, Peer, Reconnected, Reconnecting


@dataclass(frozen=True)
class GameSettings:
    move_timeout: float = 600.0  # seconds a player may take over one decision
    reply_timeout: float = 20.0  # seconds for a deck-protocol step (pure computation)
    reconnect_window: float = 60.0  # seconds to get a lost connection back mid-game
    bot_delay: float = 0.0  # seconds a bot waits before each move (to watch it play)


@dataclass(frozen=True)
class Rejected:
    """A local intent the rules refused; ``reason`` names the rule."""

    move: Move
    reason: str


@dataclass(frozen=True)
class Resumed:
    """Game ``number`` was rebuilt from its journal (``session.played`` so far): a restarted
    process takes it back."""

    number: int
    session: GameSession


class Leave:
    """An intent: the local player leaves mid-game without conceding (close ``away``); the
    journal is kept, and the other side waits for a reconnection as for a drop."""


LEAVE = Leave()


@dataclass(frozen=True)
class GameStarted:
    number: int  # 0 for the first game of the connection
    session: GameSession


@dataclass(frozen=True)
class GameFinished:
    """Nothing more will happen in game ``number``: over and audited, stopped by a fault, or
    cut short because the connection ``ended``."""

    number: int
    session: GameSession
    ended: ConnectionEnded | None


@dataclass
class MatchResult:
    games: list[GameSession] = field(default_factory=list)
    ended: ConnectionEnded | None = None  # how the connection ended, if it did mid-game


def game_rules(peer: Peer) -> Rules:
    wire = peer.info.rules
    return Rules(standard=wire.rules == "standard", variants=frozenset(wire.variants))


def seat_in_game(peer: Peer, number: int) -> int:
    """Seat 1 deals: the coin flip's dealer deals game 0, then the dealer alternates."""
    info = peer.info
    deals_first = info.first_dealer == info.role
    return 1 if deals_first == (number % 2 == 0) else 0


Rematch = Callable[[int], Awaitable[bool]]
"""Asked after each game (with the number of games played): play another one?  The host's
answer decides whether it asks; the joiner's, once asked, whether it accepts."""

Reconnect = Callable[[float, bytes], contextlib.AbstractAsyncContextManager[Peer]]
"""A fresh connection to the same player before the trio-clock deadline: only a peer with
the identity key given (the first connection's) is let through.  Raises ``ConnectionEnded``
(reason ``TIMEOUT``) if none came in time."""


def rematches(games: int) -> Rematch:
    """The headless policy: exactly ``games`` games, if the other side agrees."""

    async def wanted(played: int) -> bool:
        return played < games

    return wanted


_Input = tuple[str, Any, Peer | None]


def _left() -> ConnectionEnded:
    """How the connection ends when our player leaves mid-game (close ``away``)."""
    return ConnectionEnded(EndReason.LOCAL_CLOSED, ErrorCode.AWAY, "you left the game")


AWAY_REASON = "the other player left; they may come back"
REPLACED_REASON = "another connection with your identity key took this game over"


def replaced(ended: ConnectionEnded, role: Role) -> bool:
    """The host closed our connection with `replaced`: another instance of us took the game
    over (SPEC 4.6). Only a host says that: from a joiner it is any close (it left)."""
    closed = ended.reason == EndReason.PEER_CLOSED and ended.code == ErrorCode.REPLACED
    return closed and role is Role.JOINER


class _Link:
    """The connection to the other player, which a reconnection may replace mid-game.

    It keeps the game messages (moves, deck messages) sent in the current game and counts
    those received, so that a resumed connection can make up what was lost.
    """

    def __init__(
        self,
        peer: Peer,
        nursery: trio.Nursery,
        reconnect: Reconnect | None,
        window: float,
        reply_timeout: float = 20.0,
    ) -> None:
        self.peer, self.nursery = peer, nursery
        self.reconnect, self.window = reconnect, window
        self.reply_timeout = reply_timeout
        self.identity = peer.info.peer_identity
        self.role = peer.info.role
        # Every input with the connection it came from (None: not a connection's): what a
        # replaced connection still delivers is dropped (`next_input`).
        self._send_inbox, self.inbox = trio.open_memory_channel[_Input](64)
        self.outbox: list[Message] = []
        self.received = 0
        self._held: list[Move] = []  # our player's moves made during a `resume` exchange
        self.back_by: float | None = None  # while the connection is lost: the window's end
        self.leaving = False  # our player left (`leave`): every connection is told `away`
        self._door = trio.CancelScope()  # host: shut when our player leaves
        self._door_shut = trio.Event()
        # A host lets its player take the game over on a new connection at any moment.
        self.takes_over = reconnect is not None and self.role is Role.HOST
        nursery.start_soon(_forward_peer, peer, self._send_inbox.clone())
        if self.takes_over:
            nursery.start_soon(self._offer_seat)

    async def next_input(self) -> tuple[str, Any]:
        """The next (source, item): "peer" (a message), "ended" (the connection ended),
        "local" (an intent: first those held during a `resume` exchange), "takeover" (a
        new connection of our player and its `resume`), "dialled" or "not-dialled" (`lose`);
        nothing from a connection that was replaced."""
        if self._held:
            return "local", self._held.pop(0)
        return await self._next_arrival()

    async def _next_arrival(self) -> tuple[str, Any]:
        """What came next, held moves aside."""
        while True:
            source, item, origin = await self.inbox.receive()
            if origin is None or origin is self.peer:
                return source, item

    def _hold(self, intent: Move | Leave) -> None:
        """Our player decided during a `resume` exchange: a move waits until it is over
        (it is played first, as it was made before anything that comes later); leaving
        ends the exchange at once."""
        if isinstance(intent, Leave):
            self.leaving = True  # told in play_match, which `_left()` reaches
            raise _left()
        self._held.append(intent)

    async def leave(self) -> None:
        """Our player leaves mid-game (`LEAVE`, or our process stops): tell the other side
        `away` (if the connection was lost, it notices that instead). A host first shuts its
        door: the other player dials again at once, and a connection that came in as our
        process ends would be told we quit (or are busy), ending the game there. A
        connection that our door or our redial has open meanwhile is told `away` as it
        closes: the other player waits for us (SPEC 4.6)."""
        self.leaving = True
        with trio.CancelScope(shield=True):
            if self.takes_over:
                self._door.cancel()
                with trio.move_on_after(1.0):  # it only unwinds a wait
                    await self._door_shut.wait()
            await self.peer.aclose(ErrorCode.AWAY, AWAY_REASON)

    async def _told_if_left(self, peer: Peer) -> None:
        """A connection of our door or redial closes: `away` if our player left."""
        if self.leaving:
            with trio.CancelScope(shield=True):
                await peer.aclose(ErrorCode.AWAY, AWAY_REASON)

    def forward_intents(self, intents: trio.MemoryReceiveChannel[Move | Leave]) -> None:
        self.nursery.start_soon(_forward_intents, intents, self._send_inbox.clone())

    def new_game(self) -> None:
        self.outbox, self.received, self._held = [], 0, []

    def resumable(self, ended: ConnectionEnded) -> bool:
        lost = ended.reason in (EndReason.NETWORK_ERROR, EndReason.TIMEOUT)
        away = ended.reason == EndReason.PEER_CLOSED and ended.code == ErrorCode.AWAY
        return (lost or away) and self.reconnect is not None

    async def send(self, message: Message) -> None:
        if isinstance(message, WireMove | DeckPayload):
            self.outbox.append(message)
        try:
            await self.peer.send(message)
        except ConnectionEnded as ended:
            if not self.resumable(ended):
                raise
            # Kept in the outbox; the reader reports the loss, and the resume re-sends it.

    async def next_from_peer(self) -> Message:
        """The peer's next message, during a resume or between games (where a move of
        ours is of the game that ended: `new_game` forgets it)."""
        while True:
            source, item = await self._next_arrival()
            if source == "ended":
                raise item
            if source == "peer":
                return item
            if source == "local":
                self._hold(item)
            elif source == "takeover":  # between games: there is nothing to take over
                await item[0].aclose(ErrorCode.BUSY, "no game is in progress here now")

    async def _offer_seat(self) -> None:
        """Host: keep the door open to our player for the whole match, one connection at
        a time (each opens the next door as soon as it came in)."""
        try:
            with self._door:
                while True:
                    await self.nursery.start(self._next_connection)
        finally:
            self._door_shut.set()

    async def _next_connection(self, task_status=trio.TASK_STATUS_IGNORED) -> None:
        assert self.reconnect is not None
        async with self.reconnect(math.inf, self.identity) as peer:
            task_status.started()
            try:
                resume: Message | None = None
                with contextlib.suppress(ConnectionEnded), trio.move_on_after(self.reply_timeout):
                    resume = await peer.receive()
                if isinstance(resume, Resume):
                    await self._send_inbox.send(("takeover", (peer, resume), None))
                    await peer.wait_ended()  # it lives on as the game's connection
                elif resume is None:  # another instance of our player, with no game to resume
                    busy = "you play here already, on another connection"
                    await peer.aclose(ErrorCode.BUSY, busy)
                else:
                    await peer.aclose(
                        ErrorCode.UNEXPECTED_MESSAGE, f"{resume.TYPE} where resume was due"
                    )
            finally:
                await self._told_if_left(peer)

    async def take_over(self, peer: Peer, theirs: Resume, game: int) -> bool:
        """Host: our player resumed on a new connection (the one we held may be dead, or
        another instance of it): it takes the game over at once. Our count is final: the
        old connection counts no more (`next_input`), and the other side re-sends what we
        lack. False if it could not (a resume of another game)."""
        if theirs.game != game or not 0 <= theirs.received <= len(self.outbox):
            await peer.aclose(ErrorCode.UNEXPECTED_MESSAGE, "a resume of no game in progress here")
            return False
        old, self.peer = self.peer, peer
        self.nursery.start_soon(_forward_peer, peer, self._send_inbox.clone())
        # Said, so that another instance of our player stops instead of dialling again.
        self.nursery.start_soon(old.aclose, ErrorCode.REPLACED, REPLACED_REASON)
        with contextlib.suppress(ConnectionEnded):  # its reader reports that (`next_input`)
            await peer.send(Resume(game, self.received))
            for message in self.outbox[theirs.received :]:
                await peer.send(message)
        return True

    def gone(self) -> ConnectionEnded:
        """How the game ends when our player is not back within the window."""
        message = f"the other player did not come back within {self.window:g} s"
        return ConnectionEnded(EndReason.TIMEOUT, ErrorCode.TIMEOUT, message)

    async def lose(self) -> None:
        """The connection was lost: wait for the same player until ``back_by`` (SPEC 4.6).

        Our player plays on meanwhile (what it sends is kept for the resume). A host's door
        is open already: its player comes back as a "takeover". A joiner redials in a task
        of its own, where the new connection then lives: "dialled", or "not-dialled" with
        why. Only the player whose identity key opened the match is let in.
        """
        assert self.reconnect is not None
        self.back_by = trio.current_time() + self.window
        if not self.takes_over:
            await self.nursery.start(self._redial, self.back_by)

    async def _redial(self, deadline: float, task_status=trio.TASK_STATUS_IGNORED) -> None:
        """Joiner: reach our player again and report it ("dialled", or "not-dialled" with
        why); the connection stays open here until it ends or the match does."""
        assert self.reconnect is not None
        task_status.started()
        dialled = False
        try:
            async with self.reconnect(deadline, self.identity) as peer:
                dialled = True
                try:
                    await self._send_inbox.send(("dialled", peer, None))
                    await peer.wait_ended()
                finally:
                    await self._told_if_left(peer)
        except ConnectionEnded as ended:
            if not dialled:
                await self._send_inbox.send(("not-dialled", ended, None))

    async def take_back(self, peer: Peer, game: int) -> None:
        """On a new connection from the same player (the caller checked the identity key):
        exchange ``resume`` and re-send what the other side did not receive."""
        assert peer.info.peer_identity == self.identity
        if peer is not self.peer:
            self.peer = peer
            self.nursery.start_soon(_forward_peer, peer, self._send_inbox.clone())
        await peer.send(Resume(game, self.received))
        theirs = await self.next_from_peer()
        if not isinstance(theirs, Resume):
            await peer.aclose(ErrorCode.UNEXPECTED_MESSAGE, f"expected resume, got {theirs.TYPE}")
            raise ConnectionEnded(
                EndReason.REMOTE_ERROR,
                ErrorCode.UNEXPECTED_MESSAGE,
                f"the other player no longer has game {game + 1} (it sent {theirs.TYPE})",
            )
        if theirs.game != game or not (0 <= theirs.received <= len(self.outbox)):
            await peer.aclose(ErrorCode.UNEXPECTED_MESSAGE, "a bad resume")
            raise ConnectionEnded(
                EndReason.REMOTE_ERROR,
                ErrorCode.UNEXPECTED_MESSAGE,
                f"the reconnection did not resume game {game + 1}",
            )
        for message in self.outbox[theirs.received :]:
            await peer.send(message)


@dataclass(frozen=True)
class Match:
    """What the games of a match derive from: the first connection's session id, our seat in
    game 0 (it alternates), the rules, and the other player's identity key.  A reconnection
    (or a restarted process) keeps them."""

    session_id: bytes
    first_seat: int
    rules: Rules
    peer_identity: bytes

    @classmethod
    def of(cls, peer: Peer) -> Match:
        info = peer.info
        return cls(info.session_id, seat_in_game(peer, 0), game_rules(peer), info.peer_identity)

    def seat(self, number: int) -> int:
        return self.first_seat if number % 2 == 0 else 1 - self.first_seat

    def header(self, number: int, identity: Ed25519PrivateKey) -> GameHeader:
        """Game ``number``'s header (SPEC 4.1): our key and the peer's in seat order."""
        mine = identity.public_key().public_bytes_raw()
        seat = self.seat(number)
        keys = (mine, self.peer_identity) if seat == 0 else (self.peer_identity, mine)
        return GameHeader(self.session_id, number + 1, "cuttle", self.rules, 1, keys)


async def play_match(
    peer: Peer,
    identity: Any,
    *,
    rematch: Rematch | None = None,
    reconnect: Reconnect | None = None,
    bot: Bot | None = None,
    intents: trio.MemoryReceiveChannel[Move | Leave] | None = None,
    on_event: Callable[[object], None] = lambda event: None,
    settings: GameSettings | None = None,
    rng: random.Random | None = None,
    journal: jn.JournalWriter | None = None,
    resumed: jn.Replayed | None = None,
) -> MatchResult:
    """Play games on ``peer`` until one side wants no more; the host asks for each rematch.

    ``identity`` is our Ed25519 private key (it signs the deck messages and moves).  With
    ``bot`` the bot decides for us; otherwise moves come from ``intents``.  ``reconnect``
    (from ``netplay.open_game_peer``) lets a game survive a lost connection.  Every session
    event, ``GameStarted``, ``GameFinished``, ``Reconnecting``, ``Reconnected`` and
    ``Rejected`` go to ``on_event``.

    With ``journal`` each game is journaled as it goes (its randomness drawn from a seed kept
    there), and removed once ``GameFinished`` was handled (the record saved).  ``resumed``
    (a game replayed from its journal by a restarted process) is taken back first on
    ``peer``, which must be the same player, with the ``resume`` exchange of SPEC 4.6.
    """
    settings = settings or GameSettings()
    rematch = rematch or rematches(1)
    result = MatchResult()
    rng = rng or random.Random()
    if resumed is not None:
        h = resumed.header
        match = Match(h.match, h.first_seat, h.rules, h.peer_identity)
        first = h.game
    else:
        match, first = Match.of(peer), 0
    role = peer.info.role
    async with trio.open_nursery() as nursery:
        link = _Link(
            peer,
            nursery,
            reconnect,
            settings.reconnect_window,
            settings.reply_timeout,
        )
        link.identity = match.peer_identity
        if intents is not None:
            link.forward_intents(intents)
        session: GameSession | None = None
        try:
            for number in itertools.count(first):
                if number != first and not await _rematch(link, role, rematch, number):
                    break
                link.new_game()
                if resumed is not None and number == first:
                    session = resumed.session
                    result.games.append(session)
                    on_event(GameStarted(number, session))
                    on_event(Resumed(number, session))
                    link.outbox = [_wire(item) for item in resumed.sent]
                    link.received = resumed.received
                    if journal is not None:
                        journal.resume(resumed.digest)
                    await _take_back(link, peer, number, on_event)
                else:
                    seed = new_seed()
                    session = GameSession(
                        match.seat(number),
                        match.header(number, identity),
                        identity,
                        rng=seeded_rng(seed),
                    )
                    if journal is not None:
                        journal.begin_game(
                            role=role.value,
                            peer_name=peer.info.peer_name,
                            peer_identity=match.peer_identity,
                            match=match.session_id,
                            first_seat=match.first_seat,
                            game_name="cuttle",  # the two-party driver plays Cuttle only
                            rules=match.rules,
                            game=number,
                            seed=seed,
                        )
                    result.games.append(session)
                    on_event(GameStarted(number, session))
                await _play_game(
                    link,
                    number,
                    session,
                    bot,
                    rng,
                    on_event,
                    settings,
                    journal,
                    first=(resumed is None or number != first),
                )
                on_event(GameFinished(number, session, None))
                if journal is not None:
                    journal.remove()
                session = None
                over = result.games[-1]
                if over.fault is not None or over.closed is not None:
                    break  # no more games with a peer that broke the game or left
        except ConnectionEnded as ended:
            result.ended = ended
            if session is not None:  # the connection ended during this game
                on_event(GameFinished(len(result.games) - 1, session, ended))
                left = ended.reason == EndReason.LOCAL_CLOSED and ended.code == ErrorCode.AWAY
                if left:
                    await link.leave()  # said already, unless we left during a resume exchange
                # Leaving keeps it, to come back; so does another instance taking over.
                if journal is not None and not left and not replaced(ended, role):
                    journal.remove()
        except BaseException:
            # Interrupted (Ctrl+C, SIGTERM, SIGHUP) or cancelled: our process is going, our
            # player does not concede. Leave as `LEAVE` does (close `away`, the journal kept
            # for a comeback, an unfinished record) and let the exception go on.
            if session is not None:
                await link.leave()
                result.ended = _left()
                on_event(GameFinished(len(result.games) - 1, session, result.ended))
            raise
        finally:
            if journal is not None:
                journal.close()
        nursery.cancel_scope.cancel()
    return result


def _wire(item: SendMove | Any) -> Message:
    if isinstance(item, SendMove):
        return WireMove(item.text, item.signature)
    return DeckPayload(item.data)


async def _take_back(
    link: _Link, peer: Peer, number: int, on_event: Callable[[object], None]
) -> None:
    """A restarted process: resume on the connection it made, or wait for the right player."""
    on_event(Reconnecting("resuming after a restart"))
    if peer.info.peer_identity == link.identity:
        await link.take_back(peer, number)
        on_event(Reconnected())
    else:  # the game's loop waits for the right player
        await peer.aclose(ErrorCode.WRONG_PLAYER, "not the player of this game")
        await link.lose()


async def _forward_peer(peer: Peer, out: trio.MemorySendChannel[_Input]) -> None:
    async with out:
        try:
            while True:
                await out.send(("peer", await peer.receive(), peer))
        except ConnectionEnded as ended:
            await out.send(("ended", ended, peer))


async def _forward_intents(
    intents: trio.MemoryReceiveChannel[Move | Leave], out: trio.MemorySendChannel[_Input]
) -> None:
    async with out:
        async for move in intents:
            await out.send(("local", move, None))


async def _play_game(
    link: _Link,
    number: int,
    session: GameSession,
    bot: Bot | None,
    rng: random.Random,
    on_event: Callable[[object], None],
    settings: GameSettings,
    journal: jn.JournalWriter | None = None,
    *,
    first: bool = True,
) -> None:
    observe = getattr(bot, "observe", None)  # a bot that reads its opponent's play
    waiting: Game | None = None  # this seat's view when the session last waited for a move

    async def carry(entry: list[Any] | None, out: Output) -> None:
        nonlocal waiting
        if journal is not None and entry is not None:
            journal.append(entry, out)  # on disk before anything it caused leaves
        for event in out.events:
            theirs = isinstance(event, MovePlayed) and event.seat not in (None, session.seat)
            if theirs and observe is not None and waiting is not None:
                observe(waiting, event.move)  # the peer decided in the view we last waited in
            on_event(event)
        if observe is not None and session.view is not None and not session.busy:
            waiting = session.view.copy()
        try:
            for item in out.sends:
                await link.send(_wire(item))
        except ConnectionEnded:
            pass  # the reader reports the same ending through the inbox, which decides

    if first:
        await carry(jn.START_INPUT, session.start())
    while not session.finished:
        if bot is not None and session.my_turn:
            await trio.sleep(settings.bot_delay)  # nothing else touches the session meanwhile
            choice = await bot_decision(bot, session.view, rng)
            await carry(jn.local_input(str(choice)), session.play(choice))
            continue
        if link.back_by is not None:  # the connection is being won back: its window counts
            at = link.back_by
        else:
            owed = session.waiting_for
            wait = {"move": settings.move_timeout, "deck": settings.reply_timeout}
            at = trio.current_time() + wait.get(owed[1] if owed else "", math.inf)
        source, item = "timeout", None
        with trio.move_on_at(at):
            source, item = await link.next_input()
        if source == "timeout":
            if link.back_by is not None:
                await carry(None, _ended(session, link.gone(), link.role))
            else:
                await carry(jn.TIMEOUT_INPUT, session.timed_out())
        elif source == "ended":
            if not link.resumable(item):
                await carry(None, _ended(session, item, link.role))
            elif link.back_by is None:
                on_event(Reconnecting(item.message))
                await link.lose()
        elif source == "takeover":
            # Our player is back on a new connection, maybe before we noticed the old one
            # die: it takes the game over at once (SPEC 4.6, *Taking over*).
            # No `Reconnecting` if we had not noticed: no wait is shown.
            if await link.take_over(*item, number):
                link.back_by = None
                on_event(Reconnected())
        elif source == "dialled":
            if link.back_by is None:
                continue  # late news of a redial (it cannot happen: the game is over then)
            try:
                with trio.move_on_at(link.back_by):
                    await link.take_back(item, number)
                    link.back_by = None
            except ConnectionEnded as failed:  # back and misbehaving, or we left meanwhile
                if failed.reason is EndReason.LOCAL_CLOSED:
                    await _leave(link)
                await carry(None, _ended(session, failed, link.role))
                continue
            if link.back_by is not None:
                await carry(None, _ended(session, link.gone(), link.role))
                continue
            on_event(Reconnected())
        elif source == "not-dialled":
            if link.back_by is not None:
                gone = link.gone() if item.reason is EndReason.TIMEOUT else item
                await carry(None, _ended(session, gone, link.role))
        elif source == "peer" and isinstance(item, Resume) and link.received == 0:
            # The other side restarted and wants a game back that this side does not have
            # (its journal is gone, or it already gave the game up): nothing of this new game
            # came from it yet, so neither side is at fault.  Both end it unfinished.
            why = f"game {item.game + 1} cannot be resumed: this side no longer has it"
            await link.peer.aclose(ErrorCode.UNEXPECTED_MESSAGE, why)
            message = f"the other player asked to resume game {item.game + 1}, unknown here"
            raise ConnectionEnded(EndReason.REMOTE_ERROR, ErrorCode.UNEXPECTED_MESSAGE, message)
        elif source == "local" and isinstance(item, Leave):
            await _leave(link)
        else:
            if source == "peer" and isinstance(item, WireMove | DeckPayload):
                link.received += 1
            await carry(*_dispatch(session, source, item, on_event))
    if session.fault is not None:
        await _close_for(link.peer, session.fault, session.seat)


async def _leave(link: _Link) -> None:
    """Our player leaves mid-game without conceding: tell the peer (``_Link.leave``) and
    end here."""
    await link.leave()
    raise _left()


class _View(Protocol):
    def copy(self) -> Self: ...


_VC = TypeVar("_VC", bound=_View, contravariant=True)
_MC = TypeVar("_MC", covariant=True)
_V = TypeVar("_V", bound=_View)
_M = TypeVar("_M")


class Chooser(Protocol[_VC, _MC]):
    """A bot of either game: a move from a seat's view."""

    def choose(self, view: _VC, rng: random.Random, /) -> _MC: ...


async def bot_decision(bot: Chooser[_V, _M], view: _V, rng: random.Random) -> _M:
    """``bot``'s move from ``view``, worked out in a worker thread (either game's bots: the
    Cuttle and L'Unisson tables, headless or in the client, all think this way).

    A search bot thinks for up to about a second: on the trio loop that would stall the
    keepalives, the peer's messages and every deadline.  The thread gets its own copy of
    the view.  Cancelling the wait returns at once and abandons the thread, which finishes
    its search alone and whose move is dropped (it holds no lock and touches nothing else).
    """
    return await trio.to_thread.run_sync(bot.choose, view.copy(), rng, abandon_on_cancel=True)


def _dispatch(
    session: GameSession, source: str, item: Any, on_event: Callable[[object], None]
) -> tuple[list[Any] | None, Output]:
    """Hand one input to the session: the journal entry it makes (None: nothing to keep)
    and what the session answered."""
    if source == "local":
        try:
            return jn.local_input(str(item)), session.play(item)
        except (IllegalMove, RuntimeError) as e:
            on_event(Rejected(item, str(e)))
            return None, Output()
    peer = 1 - session.seat
    if isinstance(item, WireMove):
        return jn.move_input(item.text, item.sig), session.receive_move(peer, item.text, item.sig)
    if isinstance(item, DeckPayload):
        return jn.deck_input(item.data), session.receive_deck(peer, item.data)
    return None, _unexpected(session, item)


def _unexpected(session: GameSession, item: Message) -> Output:
    return session.peer_fault(
        1 - session.seat, "wire_unexpected_message", f"{item.TYPE} during a game"
    )


def wire_fault_kind(code: str) -> str:
    """The fault kind of a wire error with close ``code`` (SPEC 4.4): ``wire_`` and the code
    with ``_`` for ``-``, apart from the deck protocol's kinds of the same name."""
    return "wire_" + "".join(c if c.isalnum() else "_" for c in code.lower())


def _ended(session: GameSession, ended: ConnectionEnded, role: Role) -> Output:
    """The connection ended mid-game for good: say whose doing that was (SPEC 4.4).

    After the handshake every frame is authenticated, so whatever broke the wire protocol
    (a bad frame, a replay, a message out of place) came from the peer.  The peer's close
    is its own claim.  A connection lost, or not resumed, is a timeout of whoever owed the
    next step.  Only our own close (the local player left) leaves the game unfinished.
    """
    if ended.reason == EndReason.REMOTE_ERROR:
        return session.peer_fault(1 - session.seat, wire_fault_kind(ended.code), ended.message)
    if ended.reason == EndReason.PEER_CLOSED:
        if replaced(ended, role):
            raise ended  # another instance of us plays on: unfinished here, no one to blame
        return session.peer_closed(1 - session.seat, ended.code, ended.message)
    if ended.reason == EndReason.LOCAL_ERROR:
        return session.broke_down(ended.message)
    if ended.reason in (EndReason.NETWORK_ERROR, EndReason.TIMEOUT):
        return session.connection_lost(ended.message)
    raise ended


_CLOSE_CODES = {
    "timeout": ErrorCode.TIMEOUT,
    "illegal_move": ErrorCode.ILLEGAL_MOVE,
    "malformed_move": ErrorCode.ILLEGAL_MOVE,
    "wire_unexpected_message": ErrorCode.UNEXPECTED_MESSAGE,
}


async def _close_for(peer: Peer, fault: Fault, me: int) -> None:
    """Tell the peer why the game stopped: its fault (by kind), or ours."""
    if fault.culprit == me:
        code = ErrorCode.INTERNAL_ERROR
    else:
        code = _CLOSE_CODES.get(fault.kind, ErrorCode.CHEAT_DETECTED)
    await peer.aclose(code, f"{fault.kind}: {fault.message}"[:200])


async def _rematch(link: _Link, role: Role, rematch: Rematch, played: int) -> bool:
    """Host: ask for another game if we want one; joiner: wait to be asked, then answer."""
    if role == Role.HOST:
        if not await _host_decides(link, rematch, played):
            return False
        await link.send(RematchRequest())
        answer = await _between_games(link)
        return isinstance(answer, RematchAnswer) and answer.accept
    request = await _between_games(link)
    if not isinstance(request, RematchRequest):
        return False
    wanted = await rematch(played)
    await link.send(RematchAnswer(wanted))
    return wanted


async def _between_games(link: _Link) -> Message:
    """The peer's next message between games.  A move or deck message of the game that just
    ended is dropped: the peer sent it as the game ended here (a move crossing a concession),
    and it would otherwise be read as a refusal of the rematch."""
    while True:
        message = await link.next_from_peer()
        if not isinstance(message, WireMove | DeckPayload):
            return message


async def _host_decides(link: _Link, rematch: Rematch, played: int) -> bool:
    """The host's choice of another game, made while watching the joiner: if it leaves
    meanwhile, ``ConnectionEnded`` comes at once (a screen then stops offering a rematch)
    instead of when the host has decided; anything it sends now is out of turn: no
    rematch."""
    decided: list[bool] = []
    ended: list[ConnectionEnded] = []
    async with trio.open_nursery() as nursery:

        async def decide() -> None:
            decided.append(await rematch(played))
            nursery.cancel_scope.cancel()

        async def watch() -> None:
            try:
                await _between_games(link)
            except ConnectionEnded as e:
                ended.append(e)
            nursery.cancel_scope.cancel()

        nursery.start_soon(decide)
        nursery.start_soon(watch)
    if ended:
        raise ended[0]
    return decided == [True]


__all__ = [
    "LEAVE",
    "EndReason",
    "GameFinished",
    "GameSettings",
    "GameStarted",
    "Leave",
    "Match",
    "MatchResult",
    "Reconnected",
    "Reconnecting",
    "Rejected",
    "Resumed",
    "game_rules",
    "play_match",
    "rematches",
]
