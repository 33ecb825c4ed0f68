"""A restarted process resuming its game shows no code (SPEC 4.6): its first connection is a
reconnection, authenticated by the identity key, and the other screen shows no new code, so a
code here could only differ from it."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cuttle_protocol import LocalPlayer, Rules
from cuttle_protocol.identity import load_or_create_identity
from cuttle_protocol.netplay import RESUMED_NO_CODE, NetPlan, open_game_peer
from cuttle_protocol.trio_peer import ConnectionEnded, connect, open_listener

CLASSIC = Rules("classic")


@pytest.mark.trio
async def test_a_restarted_joiner_shows_no_new_code(tmp_path: Path) -> None:
    alice = LocalPlayer("alice", Ed25519PrivateKey.generate())
    alice_key = alice.identity.public_key().public_bytes_raw()
    said: list[str] = []
    with trio.fail_after(20):
        async with open_listener(0, "127.0.0.1") as listener, trio.open_nursery() as nursery:
            address = f"127.0.0.1:{listener.address[1]}"
            plan = NetPlan(
                "join",
                "bob",
                address=address,
                config_dir=tmp_path / "bob",
                resuming=True,
                peer_identity=alice_key,
            )
            bob_key = load_or_create_identity(tmp_path / "bob").public_key().public_bytes_raw()

            async def host() -> None:
                async with listener.accept(alice, CLASSIC, expect=bob_key):
                    pass

            nursery.start_soon(host)
            async with open_game_peer(plan, said.append) as conn:
                code = conn.peer.info.sas
            # The host waits for a joiner that takes its seat (SPEC 3.11, *The seat*): this
            # one only looked at its screen and left, so the host is stopped here.
            nursery.cancel_scope.cancel()
    assert RESUMED_NO_CODE in said
    assert not any(code in line for line in said), said


@pytest.mark.trio
async def test_a_restarted_host_shows_no_new_code(tmp_path: Path) -> None:
    bob = LocalPlayer("bob", Ed25519PrivateKey.generate())
    bob_key = bob.identity.public_key().public_bytes_raw()
    said: list[str] = []
    with trio.fail_after(20):
        async with open_listener(0, "127.0.0.1") as probe:
            port = probe.address[1]  # a free port, given back at once
        plan = NetPlan(
            "host",
            "alice",
            port=port,
            bind="127.0.0.1",
            announce=False,
            config_dir=tmp_path / "alice",
            resuming=True,
            peer_identity=bob_key,
        )
        seated = trio.Event()
        async with trio.open_nursery() as nursery:

            async def joiner() -> None:
                for _ in range(100):  # until the restarted host listens
                    try:
                        async with connect(f"127.0.0.1:{port}", bob):
                            await seated.wait()  # answering the host's seat check meanwhile
                            return
                    except (OSError, ConnectionEnded):
                        await trio.sleep(0.05)

            nursery.start_soon(joiner)
            async with open_game_peer(plan, said.append) as conn:
                code = conn.peer.info.sas
                seated.set()
    assert RESUMED_NO_CODE in said
    assert not any(code in line for line in said), said
