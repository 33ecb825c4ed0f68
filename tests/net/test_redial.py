"""A joiner winning its host back: it redials until the same host (same identity key) answers
on the address, turning away an impostor that took the port meanwhile."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cuttle_protocol import LocalPlayer, Move, Rules
from cuttle_protocol.identity import FlipStore
from cuttle_protocol.netplay import NetPlan, open_game_peer
from cuttle_protocol.trio_peer import ConnectionEnded, open_listener

SIG = bytes(range(64))
CLASSIC = Rules("classic")


@pytest.mark.trio
async def test_the_joiner_redials_past_an_impostor_until_its_host_is_back(
    tmp_path: Path, memory_net, autojump_clock
) -> None:
    alice = LocalPlayer("alice", Ed25519PrivateKey.generate())
    impostor = LocalPlayer("alice", Ed25519PrivateKey.generate())
    alice_key = alice.identity.public_key().public_bytes_raw()
    alice_flips = FlipStore(tmp_path / "alice")  # she replays the coin flip, as the joiner does
    refused: list[str] = []

    async def host_once(who: LocalPlayer, **options) -> str | None:
        """Listen on the port for one joiner; return how its connection ended (None: a move)."""
        async with (
            open_listener(port, "127.0.0.1") as listener,
            listener.accept(who, CLASSIC, **options) as peer,
        ):
            try:
                await peer.receive()
            except ConnectionEnded as ended:
                return ended.code
        return None

    async def turned_away(who: LocalPlayer) -> str:
        """Listen on the port until a joiner leaves before taking the seat: the log line
        (the host goes on waiting, SPEC 3.11 *The seat*)."""
        said: list[str] = []
        async with (
            open_listener(port, "127.0.0.1", log=said.append) as listener,
            trio.open_nursery() as nursery,
        ):

            async def wait_for_player() -> None:
                async with listener.accept(who, CLASSIC):
                    raise AssertionError("the joiner took an impostor's seat")

            nursery.start_soon(wait_for_player)
            while not said:
                await trio.sleep(0.01)
            nursery.cancel_scope.cancel()
        return said[0]

    with trio.fail_after(20):
        async with open_listener(0, "127.0.0.1") as listener:
            port = listener.address[1]
            address = f"127.0.0.1:{port}"
            plan = NetPlan("join", "bob", address=address, config_dir=tmp_path / "bob")
            async with trio.open_nursery() as nursery:
                first: list[object] = []

                async def host_first() -> None:
                    async with listener.accept(alice, CLASSIC, flips=alice_flips) as peer:
                        first.append(peer.info.peer_identity)  # then she goes

                nursery.start_soon(host_first)
                async with open_game_peer(plan, lambda line: None) as conn:
                    bob_key = conn.identity.public_key().public_bytes_raw()
                    assert conn.peer.info.peer_identity == alice_key
                    with pytest.raises(ConnectionEnded):
                        await conn.peer.receive()  # seated, until the host goes
        # The first host is gone; an impostor with alice's name takes the port first.
        async with trio.open_nursery() as nursery:

            async def impostor_then_alice() -> None:
                refused.append(await turned_away(impostor))
                refused.append(await host_once(alice, expect=bob_key, flips=alice_flips))

            nursery.start_soon(impostor_then_alice)
            async with conn.reconnect(trio.current_time() + 15, alice_key) as peer:
                assert peer.info.peer_identity == alice_key
                await peer.send(Move("concede", SIG))
                with pytest.raises(ConnectionEnded):
                    await peer.receive()  # seated, until alice goes
    # The joiner told the impostor why and moved on; alice got the concession.
    impostor_saw, alice_saw = refused
    assert "left before taking the seat" in impostor_saw and "(wrong-player)" in impostor_saw
    assert alice_saw is None
