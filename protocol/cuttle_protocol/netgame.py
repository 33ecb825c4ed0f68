"""Games over a connected peer: the trio loop around ``cuttle_net.session.GameSession``.

One task owns the session.  Messages from the peer and intents from the local player (the
terminal client, or nothing when a bot plays) meet in one inbox, so the session is only ever
touched from one place.  Deadlines: ``move_timeout`` while the peer must decide,
``reply_timeout`` while a deck-protocol step is due.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from cuttle_net.bots import Bot
from cuttle_net.deck.encoding import hash256
from cuttle_net.engine import IllegalMove
from cuttle_net.moves import Move
from cuttle_net.rules import Rules
from cuttle_net.session import Fault, GameSession, Output, SendMove

from .errors import ErrorCode
from .messages import DeckPayload, Message, RematchAnswer, RematchRequest
from .messages import Move as WireMove
from .state import Role
from .trio_peer import ConnectionEnded, EndReason, Peer


@dataclass(frozen=True)
class GameSettings:
    move_timeout: float = 600.0  # seconds a player may take over one decision
    reply_timeout: float = 20.0  # seconds for a deck-protocol step (pure computation)


@dataclass(frozen=True)
class Rejected:
    """A local intent the rules refused; ``reason`` names the rule."""

    move: Move
    reason: str


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


def game_session_id(peer: Peer, number: int) -> bytes:
    return hash256("game", peer.info.session_id, number)


Rematch = Callable[[int], Awaitable[bool]]
"""Asked after each game (with the number of games played): play another one?  The host's
answer decides whether it asks; the joiner's, once asked, whether it accepts."""


def rematches(games: int) -> Rematch:
    """The headless policy: exactly ``games`` games, if the other side agrees."""

    async def wanted(played: int) -> bool:
        return played < games

    return wanted


async def play_match(
    peer: Peer,
    identity: Any,
    *,
    rematch: Rematch | None = None,
    bot: Bot | None = None,
    intents: trio.MemoryReceiveChannel[Move] | None = None,
    on_event: Callable[[object], None] = lambda event: None,
    settings: GameSettings | None = None,
    rng: random.Random | None = None,
) -> MatchResult:
    """Play games on ``peer`` until one side wants no more; the host asks for each rematch.

    ``identity`` is our Ed25519 private key (it signs the deck messages and moves).  With
    ``bot`` the bot decides for us; otherwise moves come from ``intents``.  Every session
    event, ``GameStarted``, ``GameFinished`` and ``Rejected`` go to ``on_event``.
    """
    settings = settings or GameSettings()
    rematch = rematch or rematches(1)
    result = MatchResult()
    send_inbox, inbox = trio.open_memory_channel[tuple[str, Any]](64)
    rng = rng or random.Random()
    peer_key = Ed25519PublicKey.from_public_bytes(peer.info.peer_identity)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_forward_peer, peer, send_inbox.clone())
        if intents is not None:
            nursery.start_soon(_forward_intents, intents, send_inbox.clone())
        session: GameSession | None = None
        try:
            for number in itertools.count():
                if number and not await _rematch(peer, inbox, rematch, number):
                    break
                session = GameSession(
                    seat_in_game(peer, number),
                    game_rules(peer),
                    game_session_id(peer, number),
                    identity,
                    peer_key,
                )
                result.games.append(session)
                on_event(GameStarted(number, session))
                await _play_game(peer, session, inbox, bot, rng, on_event, settings)
                on_event(GameFinished(number, session, None))
                session = None
                if result.games[-1].fault is not None:
                    break
        except ConnectionEnded as ended:
            result.ended = ended
            if session is not None:  # the connection ended during this game
                on_event(GameFinished(len(result.games) - 1, session, ended))
        nursery.cancel_scope.cancel()
    return result


async def _forward_peer(peer: Peer, out: trio.MemorySendChannel[tuple[str, Any]]) -> None:
    async with out:
        try:
            while True:
                await out.send(("peer", await peer.receive()))
        except ConnectionEnded as ended:
            await out.send(("ended", ended))


async def _forward_intents(
    intents: trio.MemoryReceiveChannel[Move], out: trio.MemorySendChannel[tuple[str, Any]]
) -> None:
    async with out:
        async for move in intents:
            await out.send(("local", move))


async def _play_game(
    peer: Peer,
    session: GameSession,
    inbox: trio.MemoryReceiveChannel[tuple[str, Any]],
    bot: Bot | None,
    rng: random.Random,
    on_event: Callable[[object], None],
    settings: GameSettings,
) -> None:
    async def carry(out: Output) -> None:
        for event in out.events:
            on_event(event)
        for item in out.sends:
            if isinstance(item, SendMove):
                await peer.send(WireMove(item.text, item.signature))
            else:
                await peer.send(DeckPayload(item.data))

    await carry(session.start())
    while not session.finished:
        if bot is not None and session.my_turn:
            await carry(session.play(bot.choose(session.view, rng)))
            continue
        owed = session.waiting_for_peer
        deadline = {"move": settings.move_timeout, "deck": settings.reply_timeout}.get(
            owed, math.inf
        )
        with trio.move_on_after(deadline):
            source, item = await inbox.receive()
            await carry(_dispatch(session, source, item, on_event))
            continue
        await carry(session.timed_out())
    if session.fault is not None:
        await _close_for(peer, session.fault, session.seat)


def _dispatch(
    session: GameSession, source: str, item: Any, on_event: Callable[[object], None]
) -> Output:
    if source == "ended":
        raise item
    if source == "local":
        try:
            return session.play(item)
        except (IllegalMove, RuntimeError) as e:
            on_event(Rejected(item, str(e)))
            return Output()
    if isinstance(item, WireMove):
        return session.receive_move(item.text, item.sig)
    if isinstance(item, DeckPayload):
        return session.receive_deck(item.data)
    return Output(events=[_unexpected(session, item)])


def _unexpected(session: GameSession, item: Message) -> Fault:
    fault = Fault("unexpected_message", session.peer, f"{item.TYPE} during a game")
    session.fault = fault
    return fault


_CLOSE_CODES = {
    "timeout": ErrorCode.TIMEOUT,
    "illegal_move": ErrorCode.ILLEGAL_MOVE,
    "malformed_move": ErrorCode.ILLEGAL_MOVE,
    "unexpected_message": ErrorCode.UNEXPECTED_MESSAGE,
}


async def _close_for(peer: Peer, fault: Fault, me: int) -> None:
    """Tell the peer why the game stopped: its fault (by kind), or ours."""
    if fault.culprit == me:
        code = ErrorCode.INTERNAL_ERROR
    else:
        code = _CLOSE_CODES.get(fault.kind, ErrorCode.CHEAT_DETECTED)
    await peer.aclose(code, f"{fault.kind}: {fault.message}"[:200])


async def _rematch(
    peer: Peer, inbox: trio.MemoryReceiveChannel[tuple[str, Any]], rematch: Rematch, played: int
) -> bool:
    """Host: ask for another game if we want one; joiner: wait to be asked, then answer."""
    if peer.info.role == Role.HOST:
        if not await rematch(played):
            return False
        await peer.send(RematchRequest())
        answer = await _next_from_peer(inbox)
        return isinstance(answer, RematchAnswer) and answer.accept
    request = await _next_from_peer(inbox)
    if not isinstance(request, RematchRequest):
        return False
    wanted = await rematch(played)
    await peer.send(RematchAnswer(wanted))
    return wanted


async def _next_from_peer(inbox: trio.MemoryReceiveChannel[tuple[str, Any]]) -> Message:
    while True:
        source, item = await inbox.receive()
        if source == "ended":
            raise item
        if source == "peer":
            return item


__all__ = [
    "EndReason",
    "GameFinished",
    "GameSettings",
    "GameStarted",
    "MatchResult",
    "Rejected",
    "game_rules",
    "play_match",
    "rematches",
]
