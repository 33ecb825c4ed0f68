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
from cuttle_net.records.record import build_record, parse_record
from cuttle_net.session import Fault, GameSession, SendDeck, SendMove


async def cheat(peer: Peer, key: Ed25519PrivateKey, how: str) -> None:
    """Play honestly until our first decision, then cheat ``how``."""
    match = Match.of(peer)
    session = GameSession(match.seat(0), match.header(0, key), key)

    async def carry(out) -> None:
        for item in out.sends:
            if isinstance(item, SendMove):
                await peer.send(WireMove(item.text, item.signature))
            else:
                await peer.send(DeckPayload(item.data))

    await carry(session.start())
    while True:
        while not session.my_turn:
            message = await peer.receive()
            if isinstance(message, WireMove):
                await carry(session.receive_move(1 - session.seat, message.text, message.sig))
            else:
                await carry(session.receive_deck(1 - session.seat, message.data))
        # A card the other player does not know yet, so that playing it sends a reveal.
        known = session.view.known[session.seat]
        from_hand = [m for m in session.view.legal_moves() if m.card >= 0 and m.card not in known]
        if session.view.phase == MAIN and from_hand:
            break
        await carry(session.play(session.view.legal_moves()[0]))  # honest until our turn
    if how == "illegal":  # pass with cards left in the draw pile
        record = session._sign("pass")
        await peer.send(WireMove(record.text, record.signature))
    else:  # a card from our hand, with our reveal's signature broken
        out = session.play(from_hand[0])
        for item in out.sends:
            if isinstance(item, SendDeck):
                item.data["sig"] = bytes(64)
        await carry(out)
    with trio.move_on_after(5):
        await peer.wait_ended()


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
