"""A scripted joiner for the table of endings (SPEC.md 4.4): it joins a real ``cuttle host``,
plays honestly with a bot up to a chosen moment, then ends the game one way or another —
conceding, going silent, vanishing, or breaking the wire protocol, the deck protocol or the
rules.  Built from the protocol package's own parts, reaching into them only to forge what
an honest peer never sends."""

from __future__ import annotations

import os
import random
import socket
import struct
from pathlib import Path

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cuttle_protocol import codec
from cuttle_protocol.connection import LocalPlayer
from cuttle_protocol.errors import ErrorCode
from cuttle_protocol.framing import encode_frame
from cuttle_protocol.messages import DeckPayload, Hello, Ping, RematchRequest
from cuttle_protocol.messages import Move as WireMove
from cuttle_protocol.netgame import Match
from cuttle_protocol.trio_peer import ConnectionEnded, Peer, connect

from cuttle_net.games.cuttle.bots import make_bot
from cuttle_net.games.cuttle.engine import MAIN
from cuttle_net.games.cuttle.moves import DRAW, Kind, move
from cuttle_net.records.record import build_record, save_record
from cuttle_net.session import GameSession, Output, SendDeck, SendMove

NAME = "mallory"


def leave_at_once(peer: Peer, reason: str) -> None:
    """``peer`` says it quits (a ``close`` with ``peer-quit``) and resets its socket, all
    without a checkpoint: everything reaches the other side before that side's next step."""
    peer._conn.close(ErrorCode.PEER_QUIT, reason)
    data = peer._conn.data_to_send()
    sock = peer._stream.socket
    if not hasattr(sock, "fileno"):  # a memory stream (tests/memnet.py)
        sock.write_now(data)
        sock.close()
        return
    assert os.write(sock.fileno(), data) == len(data)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


class Hostile:
    def __init__(self, peer: Peer, key: Ed25519PrivateKey, seed: int) -> None:
        self.peer = peer
        match = Match.of(peer)
        self.session = GameSession(match.seat(0), match.header(0, key), key)
        self.bot = make_bot("greedy")
        self.rng = random.Random(seed)
        self.hold_audit = False  # keep the audit's messages to ourselves
        self.received = 0  # messages from the host

    async def carry(self, out: Output) -> None:
        for item in out.sends:
            if isinstance(item, SendMove):
                await self.peer.send(WireMove(item.text, item.signature))
            elif not (self.hold_audit and item.data.get("op") == ["audit"]):
                await self.peer.send(DeckPayload(item.data))

    async def receive_one(self) -> None:
        message = await self.peer.receive()
        self.received += 1
        if isinstance(message, WireMove):
            await self.carry(
                self.session.receive_move(1 - self.session.seat, message.text, message.sig)
            )
        elif isinstance(message, DeckPayload):
            await self.carry(self.session.receive_deck(1 - self.session.seat, message.data))

    async def play_until(self, done) -> None:
        """Play honestly (the bot decides for us) until ``done(session)``."""
        s = self.session
        while not done(s):
            if s.my_turn:
                await self.carry(s.play(self.bot.choose(s.view, self.rng)))
            else:
                await self.receive_one()

    async def raw(self, data: bytes) -> None:
        """Bytes straight onto the TCP stream, past the connection's checks."""
        await self.peer._stream.send_all(data)

    def sealed(self, message) -> bytes:
        """``message`` framed and encrypted as the connection would send it next."""
        conn = self.peer._conn
        conn._queue(message, codec.pack(message.to_wire()))
        return conn.data_to_send()


def our_turn_with_a_card(s: GameSession) -> bool:
    return s.my_turn and s.view.phase == MAIN and any(m.card >= 0 for m in s.view.legal_moves())


async def misbehave(h: Hostile, mode: str) -> None:
    s = h.session
    if mode == "concede-deal":
        await h.carry(s.start())  # our first deal message, if any, then give up at once
        await h.carry(s.concede())
        return
    if mode in ("move-in-deal", "vanish-deal"):
        await h.carry(s.start())
        if mode == "vanish-deal":
            # Once seated: the host's deal comes after its seat check, which we answered
            # (SPEC 3.11, *The seat*); a joiner gone before that only leaves it waiting.
            await h.play_until(
                lambda s: (s.deck.awaiting_peer() and h.received > 0) or s.view is not None
            )
            await trio.aclose_forcefully(h.peer._stream)
            return
        record = s._sign("draw")
        await h.peer.send(WireMove(record.text, record.signature))
        return
    await h.carry(s.start())
    if mode.startswith("audit-"):
        h.hold_audit = True
        await h.play_until(lambda s: s.view is not None and s.view.outcome is not None)
        if mode == "audit-vanish":
            await trio.aclose_forcefully(h.peer._stream)
        elif mode == "audit-quit":
            await h.peer.aclose("peer-quit", "")
        return  # audit-silent: say nothing more
    if mode == "concede-crossing":
        await h.play_until(
            lambda s: s.waiting_for == (1 - s.seat, "move")
        )  # the host decides now ...
        await trio.sleep(0.3)  # ... and its move is on the wire, unread, when we concede
        await h.carry(s.concede())
        with trio.move_on_after(2):
            while True:
                await h.receive_one()  # the crossed move: void for both
        return
    await h.play_until(our_turn_with_a_card)
    view = s.view
    if mode == "concede":
        await h.carry(s.concede())
    elif mode == "silent":
        await h.peer.wait_ended()  # send nothing: the host's move timeout runs out
    elif mode == "vanish":
        await trio.aclose_forcefully(h.peer._stream)
    elif mode == "quit":
        await h.peer.aclose("peer-quit", "")
    elif mode == "claim":
        claim = "bad_shuffle_proof: you cheated\x1b[2J\x07" + "!" * 400
        await h.peer.aclose("cheat-detected", claim)
    elif mode == "illegal":  # pass although the draw pile is not empty
        record = s._sign("pass")
        await h.peer.send(WireMove(record.text, record.signature))
    elif mode == "out-of-turn":  # a card from the hand, and before showing it, another move
        out = s.play(next(m for m in view.legal_moves() if m.card >= 0))
        (sent,) = [item for item in out.sends if isinstance(item, SendMove)]
        await h.peer.send(WireMove(sent.text, sent.signature))  # the host waits for our reveal
        record = s._sign("draw")
        await h.peer.send(WireMove(record.text, record.signature))
    elif mode == "malformed-move":
        await h.peer.send(WireMove("fly to the moon", bytes(64)))
    elif mode == "bad-move-signature":
        legal = next(m for m in view.legal_moves() if m.card >= 0)
        await h.peer.send(WireMove(str(legal), bytes(64)))
    elif mode == "deck-signature":  # a card from the hand, its reveal's signature broken
        out = s.play(next(m for m in view.legal_moves() if m.card >= 0))
        for item in out.sends:
            if isinstance(item, SendDeck):
                item.data["sig"] = bytes(64)
        await h.carry(out)
    elif mode == "offer-draw":  # a draw offered at each of our turns until the host agrees
        while not s.finished:  # drawing after a refusal: we never win before it agrees
            if s.my_turn and s.view.can_offer_draw:
                await h.carry(s.play(move(Kind.OFFER_DRAW)))
            elif s.my_turn:
                legal = s.view.legal_moves()
                choice = DRAW if DRAW in legal else h.bot.choose(s.view, h.rng)
                await h.carry(s.play(choice))
            else:
                await h.receive_one()
    elif mode == "rematch":
        await h.peer.send(RematchRequest())
    elif mode == "hello-again":  # a handshake message once the handshake is over
        hello = Hello((1,), (), "joiner", NAME, bytes(32), bytes(32))
        await h.raw(h.sealed(hello))
    elif mode == "unknown":
        conn = h.peer._conn
        conn._queue(None, codec.pack({"t": "teleport"}))
        await h.raw(conn.data_to_send())
    elif mode == "bad-frame":
        await h.raw(b"\0\0\0\0")
    elif mode == "plaintext":
        await h.raw(encode_frame(codec.pack(Ping(n=7).to_wire())))
    elif mode == "bit-flip":
        frame = bytearray(h.sealed(Ping(n=7)))
        frame[-1] ^= 1
        await h.raw(bytes(frame))
    elif mode == "replay":
        frame = h.sealed(Ping(n=7))
        await h.raw(frame)
        await h.raw(frame)
    elif mode == "reorder":
        first, second = h.sealed(Ping(n=7)), h.sealed(Ping(n=8))
        await h.raw(second + first)
    else:
        raise ValueError(mode)


async def run(port: int, mode: str, data_dir: Path, seed: int = 0) -> dict:
    """Join the host on ``port`` and end the game as ``mode`` says; return what we saw and
    the path of our own record (``None`` when we left no game to record)."""
    key = Ed25519PrivateKey.generate()
    seen: dict = {"record": None, "ended": None}
    async with connect(f"127.0.0.1:{port}", LocalPlayer(NAME, key)) as peer:
        h = Hostile(peer, key, seed)
        seen["seat"] = h.session.seat
        try:
            with trio.move_on_after(20):
                await misbehave(h, mode)
                if mode not in ("vanish", "vanish-deal", "audit-vanish", "quit", "audit-quit"):
                    seen["ended"] = await peer.wait_ended()
        except ConnectionEnded as ended:
            seen["ended"] = ended
        ended = seen["ended"]
        if ended is not None and ended.reason == "peer-closed" and not h.session.finished:
            h.session.peer_closed(1 - h.session.seat, ended.code, ended.message)
        if h.session.finished:
            names = (NAME, peer.info.peer_name)
            names = names if h.session.seat == 0 else names[::-1]
            text = build_record(h.session, names, "2026-11-22T00:00:00Z")
            seen["record"] = save_record(text, data_dir, f"hostile-{mode}")
    return seen
