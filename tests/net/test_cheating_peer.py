"""A dishonest peer over the trio shell: caught, named, and the honest record kept."""

from __future__ import annotations

import pytest
import trio
import trio.testing
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cuttle_protocol.connection import LocalPlayer, Rules
from cuttle_protocol.messages import DeckPayload
from cuttle_protocol.messages import Move as WireMove
from cuttle_protocol.netgame import (
    Match,
    play_match,
)
from cuttle_protocol.state import Role
from cuttle_protocol.trio_peer import ConnectionEnded, Peer, open_peer

from cuttle_net.games.cuttle.bots import RandomBot
from cuttle_net.games.cuttle.engine import MAIN
from cuttle_net.games.cuttle.moves import DRAW, Move
from cuttle_net.records.record import build_record, parse_record
from cuttle_net.session import Fault, GameSession, SendMove


async def cheat(peer: Peer, key: Ed25519PrivateKey, how: str) -> None:
    """Play honestly until our first turn (the honest side cannot win before it), then
    cheat ``how``."""
    match = Match.of(peer)
    session = GameSession(match.seat(0), match.header(0, key), key)
    breaking = False  # our next deck message goes out with its signature broken

    async def carry(out) -> None:
        nonlocal breaking
        for item in out.sends:
            if isinstance(item, SendMove):
                await peer.send(WireMove(item.text, item.signature))
            else:
                if breaking:
                    item.data["sig"], breaking = bytes(64), False
                await peer.send(DeckPayload(item.data))

    async def receive_one() -> None:
        message = await peer.receive()
        if isinstance(message, WireMove):
            await carry(session.receive_move(1 - session.seat, message.text, message.sig))
        else:
            await carry(session.receive_deck(1 - session.seat, message.data))

    await carry(session.start())
    while True:
        while not session.my_turn:
            await receive_one()
        if session.view.phase == MAIN:
            break
        await carry(session.play(session.view.legal_moves()[0]))  # answer a one-off honestly
    if how == "illegal":  # pass with cards left in the draw pile
        record = session._sign("pass")
        await peer.send(WireMove(record.text, record.signature))
    else:  # a move whose deck message we send, with its signature broken
        breaking = True
        await carry(session.play(deck_step(session)))
        while breaking:  # our share of a public draw comes after the other's
            await receive_one()
    with trio.move_on_after(5):
        await peer.wait_ended()


def deck_step(session: GameSession) -> Move:
    """A legal move of ours that makes us send a deck message: a card from our hand that
    the other player does not know yet (we prove it); if it knows our whole hand (it plays
    with glasses, an eight), a draw, which is public then: we send our share of it."""
    known = session.view.known[session.seat]
    legal = session.view.legal_moves()
    from_hand = [m for m in legal if m.card >= 0 and m.card not in known]
    return from_hand[0] if from_hand else DRAW


async def honest_against(how: str):
    keys = [Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()]
    streams = trio.testing.memory_stream_pair()
    events: list[object] = []
    result = {}

    async def honest() -> None:
        async with open_peer(
            streams[0], Role.HOST, LocalPlayer("honest", keys[0]), rules=Rules("classic")
        ) as peer:
            result["match"] = await play_match(
                peer, keys[0], bot=RandomBot(), on_event=events.append
            )
            result["names"] = ("honest", "cheater")

    async def cheater() -> None:
        async with open_peer(streams[1], Role.JOINER, LocalPlayer("cheater", keys[1])) as peer:
            try:
                await cheat(peer, keys[1], how)
            except ConnectionEnded as ended:
                result["cheater_heard"] = ended

    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(honest)
            nursery.start_soon(cheater)
    return result, events


@pytest.mark.trio
@pytest.mark.parametrize(
    ("how", "kind", "code"),
    [
        ("illegal", "illegal_move", "illegal-move"),
        ("bad-signature", "bad_signature", "cheat-detected"),
    ],
)
async def test_a_cheater_is_named_and_the_honest_record_is_kept(how: str, kind: str, code: str):
    result, events = await honest_against(how)
    (session,) = result["match"].games
    fault = session.fault
    assert isinstance(fault, Fault) and fault.kind == kind
    assert fault.culprit == 1 - session.seat  # the cheater's seat, not ours
    assert any(isinstance(e, Fault) for e in events)
    # The cheater was told why the game stopped.
    heard = result.get("cheater_heard")
    assert heard is None or heard.code == code
    # The honest side's record holds everything up to the cheat, marked as such.
    record = parse_record(build_record(session, ("honest", "cheater"), "2026-11-21T00:00:00Z"))
    assert record.tags["Result"] == str(session.seat) and kind in record.tags["Ending"]
    assert any(e.kind == "op" for e in record.transcript)
