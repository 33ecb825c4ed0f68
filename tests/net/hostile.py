"""A scripted joiner for the table of endings (SPEC.md 4.4): it sits at a 2-seat Cuttle table
(a table host in this process, or a real ``cuttle host``), plays honestly with a bot up to a
chosen moment, then ends the game one way or another — conceding, going silent, vanishing,
or breaking the wire protocol, the deck protocol or the rules.  Built on the table's own
seat (`join_table` + `play_at_table`), reaching into it only to forge what an honest seat
never sends."""

from __future__ import annotations

import os
import random
import struct
from collections.abc import Callable
from pathlib import Path
from socket import SO_LINGER, SOL_SOCKET
from typing import Any

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cuttle_client.cli_table import bot_for
from cuttle_protocol.errors import ErrorCode
from cuttle_protocol.play import Step, TableGame, play_at_table
from cuttle_protocol.shells import (
    GuestShell,
    HostShell,
    Listener,
    Peer,
    TableTimeouts,
    host_table,
    join_table,
)
from cuttle_protocol.table import Delivered, TableSettings
from cuttle_protocol.wire import (
    DeckPayload,
    Hello,
    LocalPlayer,
    Move,
    Ping,
    RematchAnswer,
    RematchRequest,
    codec,
    encode_frame,
)

from cuttle_net.games.cuttle.engine import MAIN
from cuttle_net.games.cuttle.moves import DRAW, Kind, move
from cuttle_net.session import GameSession, Output, SendMove, message_bodies

NAME = "mallory"
TOKEN = "standard"
NOWHERE = "127.0.0.1:9"  # where a vanished joiner "dials again": nobody listens there

AT_THE_DEAL = {"concede-deal", "move-in-deal", "vanish-deal"}
AFTER_THE_GAME = {"audit-silent", "audit-vanish", "audit-quit"}
WIRE = {"bad-frame", "plaintext", "bit-flip", "replay", "reorder", "unknown", "hello-again"}
WIRE |= {"rematch", "move", "deck", "rematch-answer"}  # the retired messages (SPEC 3.7)
RETIRED = {
    "rematch": RematchRequest(),
    "move": Move("draw", bytes(64)),
    "deck": DeckPayload({"t": "shuffle"}),
    "rematch-answer": RematchAnswer(accept=True),
}
MODES = AT_THE_DEAL | AFTER_THE_GAME | WIRE
MODES |= {
    "concede",
    "concede-crossing",
    "silent",
    "vanish",
    "quit",
    "claim",
    "illegal",
    "out-of-turn",
}
MODES |= {"malformed-move", "bad-move-signature", "deck-signature", "offer-draw", "junk-deck"}
JUNK_MESSAGES = 100  # junk deck messages (`junk-deck`)
JUNK = 1_000_000  # bytes in a junk deck message: with its post, just under the frame limit
CLAIM = "bad_shuffle_proof: you cheated\x1b[2J\x07" + "!" * 400


def our_turn_with_a_card(s: GameSession) -> bool:
    return s.my_turn and s.view.phase == MAIN and any(m.card >= 0 for m in s.view.legal_moves())


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
    reset(sock)


def reset(sock: Any) -> None:
    """Close the socket under a connection at once, with no close message: over TCP a reset
    (a process gone), over a memory stream (tests/memnet.py) the end of the stream."""
    if hasattr(sock, "fileno"):
        sock.setsockopt(SOL_SOCKET, SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def deck_step(s: GameSession) -> Any:
    """A legal move of ours that makes us send a deck message: a card from our hand that the
    other player does not know yet (we prove it); if it knows our whole hand (it plays with
    glasses, an eight), a draw, which is public then: we send our share of it (after the
    other's)."""
    known = s.view.known[s.seat]
    from_hand = [m for m in s.view.legal_moves() if m.card >= 0 and m.card not in known]
    return from_hand[0] if from_hand else DRAW


def over(s: GameSession) -> bool:
    """The game reached its outcome by the rules: the audit is next."""
    return s.view is not None and s.view.outcome is not None


class Hostile:
    """Our seat at the table: an honest bot until `mode`'s moment, then `mode`."""

    def __init__(self, table: GuestShell | HostShell, mode: str, seed: int) -> None:
        assert mode in MODES, mode
        self.table, self.mode = table, mode
        self.bot, self.rng = bot_for("cuttle", "greedy"), random.Random(seed)
        self.session: GameSession | None = None
        self.done = False  # we misbehaved already
        self.breaking = False  # our next deck message goes out with a broken signature
        self.moment: Callable[[], None] = lambda: None  # called as we begin to misbehave
        post = table.post

        def filtered(body: dict) -> None:
            # `audit-*`: our audit messages stay with us; `deck-signature`: our next deck
            # message goes out with its signature broken; everything else goes out as is.
            msg = body.get("msg") if isinstance(body, dict) else None
            carried = body.get("deck") if isinstance(body, dict) else None
            if isinstance(msg, dict) and self.breaking:
                self.breaking = False
                body = {**body, "msg": {**msg, "sig": bytes(64)}}
            elif carried and self.breaking:  # the first deck message our move carries
                self.breaking = False
                body = {**body, "deck": [{**carried[0], "sig": bytes(64)}, *carried[1:]]}
            audit = isinstance(msg, dict) and msg.get("op") == ["audit"]
            if not (mode in AFTER_THE_GAME and audit):
                post(body)

        table.post = filtered  # type: ignore[method-assign]

    @property
    def peer(self) -> Peer:
        """Our connection: to the host, or (a hostile host) to the one joiner."""
        if isinstance(self.table, HostShell):
            (link,) = self.table._links.values()
        else:
            link = self.table._link
        assert link is not None, "no connection"
        return link.peer

    def carry(self, out: Output) -> None:
        for body in message_bodies(out.sends):
            self.table.post(body)

    def post_move(self, text: str, sig: bytes) -> None:
        self.table.post({"t": "move", "text": text, "sig": sig})

    def signed(self, text: str) -> None:
        """`text` as our move, signed as an honest one would be, whatever the rules say."""
        assert self.session is not None
        record = self.session._sign(text)
        self.post_move(record.text, record.signature)

    # -- the hooks of `play_at_table` ------------------------------------------------------

    def watch(self, item: object) -> None:
        s = self.session
        if isinstance(item, Delivered) and self.mode == "concede-crossing" and not self.done:
            body = item.body
            move_in = isinstance(body, dict) and body.get("t") == "move"
            if s is not None and s.view is not None and item.seat != self.table.core.me and move_in:
                # The other seat's move is here, not yet read: we concede as if it were
                # still on the wire, so it crosses our concession (SPEC 4.2).
                self.done = True
                self.carry(s.concede())
        if not isinstance(item, Step):
            return
        first = self.session is None
        self.session = item.session
        s = item.session
        if first and self.mode in AT_THE_DEAL and not self.done:
            self.done = True
            if self.mode == "concede-deal":
                self.carry(s.concede())
            elif self.mode == "move-in-deal":
                self.signed("draw")
            else:  # vanish-deal: gone as the deal begins
                self.vanish()
        elif self.mode == "audit-vanish" and over(s) and not self.done:
            self.done = True
            self.vanish()
        elif self.mode == "audit-quit" and over(s) and not self.done:
            self.done = True
            self.table.leave("peer-quit", "")

    def choose(self, view: Any) -> Any:
        s = self.session
        assert s is not None
        if self.mode == "offer-draw":  # a draw offered at each of our turns until agreed
            if view.can_offer_draw:
                return move(Kind.OFFER_DRAW)
            legal = view.legal_moves()
            return DRAW if DRAW in legal else self.bot.choose(view, self.rng)
        honest = AT_THE_DEAL | AFTER_THE_GAME | {"concede-crossing"}
        if self.done or self.mode in honest or not our_turn_with_a_card(s):
            if self.done:
                return trio.sleep_forever()  # said our piece: nothing more
            return self.bot.choose(view, self.rng)
        self.done = True
        self.moment()
        return self.misbehave(s, view)  # and then silence, until the table ends

    # -- the moment ------------------------------------------------------------------------

    def vanish(self) -> None:
        """Gone without a word: the connection drops, and we never dial again."""
        self.table._address = NOWHERE
        reset(self.peer._stream.socket)

    async def raw(self, make: Callable[[], bytes]) -> None:
        """Bytes straight onto the stream, past the connection's checks, between two of the
        connection's own writes (`make` runs then: a frame sealed now is next in order);
        then nothing more."""
        async with self.peer._write_lock:
            await self.peer._stream.send_all(make())
        await trio.sleep_forever()

    def sealed(self, message: object) -> bytes:
        """`message` framed and encrypted as the connection would send it next."""
        conn = self.peer._conn
        conn._queue(message, codec.pack(message.to_wire()))
        return conn.data_to_send()

    def wire_fault(self, mode: str) -> bytes:
        """The bytes of a wire fault, sealed (if at all) as the next frame in order."""
        if mode in RETIRED:  # a retired two-party message on a table connection (SPEC 3.7)
            return self.sealed(RETIRED[mode])
        if mode == "hello-again":  # a handshake message once the handshake is over
            return self.sealed(Hello((1,), (), "joiner", NAME, bytes(32), bytes(32)))
        if mode == "unknown":
            conn = self.peer._conn
            conn._queue(None, codec.pack({"t": "teleport"}))
            return conn.data_to_send()
        if mode == "bad-frame":
            return b"\0\0\0\0"
        if mode == "plaintext":
            return encode_frame(codec.pack(Ping(n=7).to_wire()))
        if mode == "bit-flip":
            frame = bytearray(self.sealed(Ping(n=7)))
            frame[-1] ^= 1
            return bytes(frame)
        if mode == "replay":
            frame = self.sealed(Ping(n=7))
            return frame + frame
        assert mode == "reorder", mode
        first, second = self.sealed(Ping(n=7)), self.sealed(Ping(n=8))
        return second + first

    def misbehave(self, s: GameSession, view: Any) -> Any:
        """Break the game as `mode` says; what our chooser gives then: silence (an
        awaitable that never ends), or a move to play."""
        mode = self.mode
        card = next(m for m in view.legal_moves() if m.card >= 0)
        if mode == "concede":
            self.carry(s.concede())
        elif mode == "silent":
            pass
        elif mode == "junk-deck":  # deck messages nobody asked for, each as big as allowed
            for _ in range(JUNK_MESSAGES):
                self.table.post({"t": "deck", "msg": {"from": s.seat, "junk": bytes(JUNK)}})
        elif mode == "vanish":
            self.vanish()
        elif mode == "quit":
            self.table.leave("peer-quit", "")
        elif mode == "claim":
            self.table.leave("cheat-detected", CLAIM)
        elif mode == "illegal":  # pass although the draw pile is not empty
            self.signed("pass")
        elif mode == "out-of-turn":  # a card from the hand, and before showing it, a draw
            (sent,) = [i for i in s.play(card).sends if isinstance(i, SendMove)]
            self.post_move(sent.text, sent.signature)
            self.signed("draw")
        elif mode == "malformed-move":
            self.post_move("fly to the moon", bytes(64))
        elif mode == "bad-move-signature":
            self.post_move(str(card), bytes(64))
        elif mode == "deck-signature":  # a move whose deck message we sign wrong
            self.breaking = True
            return deck_step(s)  # played as any move of ours: we break it as it is posted
        elif mode in WIRE:
            return self.raw(lambda: self.wire_fault(mode))
        else:
            raise ValueError(mode)
        return trio.sleep_forever()


async def run(
    address: str,
    mode: str,
    data_dir: Path,
    *,
    seed: int = 0,
    timeouts: TableTimeouts | None = None,
    moment: Callable[[], None] = lambda: None,
) -> tuple[Hostile, TableGame]:
    """Sit at the table hosted at `address` and end the game as `mode` says; our seat and
    the game as we saw it (its record saved in `data_dir`). `moment()` is called as we
    begin to misbehave at our turn."""
    key = Ed25519PrivateKey.generate()
    async with join_table(address, LocalPlayer(NAME, key), timeouts=timeouts) as table:
        h = Hostile(table, mode, seed)
        h.moment = moment
        token = "+".join(table.host_info.rules.variants)  # the table's options (SPEC 3.15)
        game = await play_at_table(
            table, key, token, choose=h.choose, watch=h.watch, data_dir=data_dir
        )
    return h, game


async def host(
    listener: Listener,
    mode: str,
    data_dir: Path,
    *,
    seed: int = 0,
    timeouts: TableTimeouts | None = None,
) -> tuple[Hostile, TableGame]:
    """Host a 2-seat Cuttle table on `listener` for one joiner, and end its game as `mode`
    says (a hostile host); our seat and the game as we saw it."""
    key = Ed25519PrivateKey.generate()
    settings = TableSettings("cuttle", (TOKEN,), 2)
    me = LocalPlayer(NAME, key)
    async with host_table(listener, me, settings, timeouts=timeouts) as table:
        h = Hostile(table, mode, seed)
        game = await play_at_table(
            table, key, TOKEN, choose=h.choose, watch=h.watch, data_dir=data_dir
        )
    return h, game
