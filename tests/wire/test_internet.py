"""Reaching a host over loopback: both IP versions on one port, addresses tried in turn with
each failure named, and invitations whose key is or is not the host's (SPEC 3.1, 3.14)."""

from __future__ import annotations

import socket

import pytest
import trio
from cuttle_protocol.errors import ErrorCode
from cuttle_protocol.shells import (
    Attempt,
    ConnectionEnded,
    EndReason,
    PeerSettings,
    Unreachable,
    connect,
    dial,
    open_listener,
)
from cuttle_protocol.shells.dial import NO_ANSWER, REFUSED
from cuttle_protocol.wire import Invitation
from wire_helpers import CLASSIC, player

from tests.worded import worded

LIMIT = 10
FAST = PeerSettings(handshake_timeout=3, reply_timeout=1, keepalive_interval=1)


def _has_ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


needs_ipv6 = pytest.mark.skipif(not _has_ipv6_loopback(), reason="no IPv6 loopback here")


def closed_port() -> int:
    """A loopback port nothing listens on (bound then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@needs_ipv6
@pytest.mark.trio
async def test_one_port_takes_ipv4_and_ipv6() -> None:
    seen: list[str] = []
    with trio.fail_after(LIMIT):
        async with open_listener(0, "::", log=worded(seen)) as listener:
            host, port = listener.address
            assert host == "::"
            for address in (f"127.0.0.1:{port}", f"[::1]:{port}", "::1"):
                if address == "::1":
                    continue
                async with trio.open_nursery() as nursery:

                    async def host_once() -> None:
                        async with listener.accept(player("alice"), CLASSIC, settings=FAST) as peer:
                            seen.append(peer.info.peer_name)

                    nursery.start_soon(host_once)
                    async with connect(address, player("bob"), settings=FAST) as peer:
                        assert peer.info.peer_name == "alice"
                        assert peer.remote == address
                        with pytest.raises(ConnectionEnded):
                            await peer.receive()  # seated, until the host leaves
    assert seen == ["bob", "bob"]


@needs_ipv6
@pytest.mark.trio
async def test_every_address_tried_is_named_with_its_likely_cause() -> None:
    port = closed_port()
    with trio.fail_after(LIMIT), pytest.raises(Unreachable) as info:
        await dial([("127.0.0.1", port), ("::1", port), ("no-such-host.invalid", port)], 2)
    outcomes = {a.address: a.outcome for a in info.value.attempts}
    assert outcomes[f"127.0.0.1:{port}"] == REFUSED
    assert outcomes[f"[::1]:{port}"] == REFUSED
    assert outcomes[f"no-such-host.invalid:{port}"] == "unknown name"
    text = str(info.value)
    assert f"127.0.0.1:{port}" in text and f"[::1]:{port}" in text
    assert "nothing is listening" in text and "firewall" in text


@needs_ipv6
@pytest.mark.trio
async def test_a_link_local_address_is_named_with_its_zone() -> None:
    """fe80::…%lo is dialled on that interface and named with it: the address a player
    can type again (getaddrinfo gives the zone as a scope id only)."""
    port, lo = closed_port(), socket.if_indextoname(1)
    with trio.fail_after(LIMIT), pytest.raises(Unreachable) as info:
        await dial([(f"fe80::1%{lo}", port)], 2)
    (attempt,) = info.value.attempts
    assert attempt.address == f"[fe80::1%{lo}]:{port}"


def test_a_silent_address_is_explained_as_filtering_or_nat() -> None:
    text = Unreachable([Attempt("203.0.113.9:4454", NO_ANSWER, "nothing within 20 s")]).explain()
    assert "203.0.113.9:4454: no answer (nothing within 20 s)" in text
    assert "does not forward the port" in text


def test_each_outcome_is_said_once() -> None:
    """Issue 26, defect 8: 'refused. refused: nothing is listening…'."""
    refused = Attempt("127.0.0.1:9", REFUSED)
    assert Unreachable([refused]).explain() == (
        "tried 127.0.0.1:9: refused — nothing is listening on that port there, or a firewall "
        "rejects it"
    )
    unknown = Attempt("nowhere.invalid:4454", "unknown name", "Name or service not known")
    text = Unreachable([refused, unknown]).explain()
    assert text.count("refused") == 2 and text.count("unknown name") == 2
    assert text.startswith("tried 127.0.0.1:9: refused; nowhere.invalid:4454: unknown name (")


@pytest.mark.trio
async def test_connect_says_what_it_tried() -> None:
    port = closed_port()
    with trio.fail_after(LIMIT), pytest.raises(ConnectionEnded) as info:
        async with connect(f"127.0.0.1:{port}", player("bob"), settings=FAST):
            pass
    assert info.value.reason is EndReason.NETWORK_ERROR
    assert f"tried 127.0.0.1:{port}: refused" in info.value.message


async def _invited(
    key: bytes, addresses: list[tuple[str, int]], host_key: object
) -> tuple[object, list[object]]:
    """Join by an invitation naming ``key`` and ``addresses`` (port 0: the host's) a host
    whose identity is ``host_key``; (verified, address) or the ConnectionEnded the joiner
    raised, and what the host logged (a joiner it seated: its name)."""
    host_saw: list[object] = []
    joined: object = None
    async with open_listener(0, "127.0.0.1", log=worded(host_saw)) as listener:
        port = listener.address[1]
        text = Invitation.for_key(key, [(ip, p or port) for ip, p in addresses]).encode()

        async def host_once() -> None:
            async with listener.accept(host_key, CLASSIC, settings=FAST) as peer:
                host_saw.append(peer.info.peer_name)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(host_once)
            try:
                async with connect(text, player("bob"), settings=FAST) as peer:
                    joined = (peer.verified, peer.remote)
                    with pytest.raises(ConnectionEnded):
                        await peer.receive()  # seated, until the host leaves
            except ConnectionEnded as ended:
                joined = ended
                while not host_saw:  # the host logs the joiner it dropped
                    await trio.sleep(0.01)
                nursery.cancel_scope.cancel()  # still waiting for its player
    return joined, host_saw


def _key_bytes(local_player: object) -> bytes:
    return local_player.identity.public_key().public_bytes_raw()  # type: ignore[attr-defined]


@pytest.mark.trio
async def test_an_invitation_whose_key_matches_verifies_the_host() -> None:
    alice = player("alice")
    with trio.fail_after(LIMIT):
        joined, _ = await _invited(_key_bytes(alice), [("127.0.0.1", 0)], alice)
    assert joined[0] is True  # verified: no code to compare
    assert joined[1].startswith("127.0.0.1:")


@pytest.mark.trio
async def test_an_unreachable_first_address_is_passed_over() -> None:
    alice = player("alice")
    dead = closed_port()
    with trio.fail_after(LIMIT):
        addresses = [("127.0.0.1", dead), ("127.0.0.1", 0)]
        joined, _ = await _invited(_key_bytes(alice), addresses, alice)
    verified, remote = joined
    assert verified and remote != f"127.0.0.1:{dead}"


@pytest.mark.trio
async def test_an_invitation_with_another_key_is_refused_loudly() -> None:
    alice, mallory = player("alice"), player("mallory")
    with trio.fail_after(LIMIT):
        joined, host_saw = await _invited(_key_bytes(alice), [("127.0.0.1", 0)], mallory)
    assert isinstance(joined, ConnectionEnded)
    assert joined.code == ErrorCode.WRONG_PLAYER
    assert joined.message.startswith("REFUSED") and "not the invitation's" in joined.message
    # The host was told why, and goes on waiting for its player (SPEC 3.11, *The seat*).
    (line,) = host_saw
    assert "bob" in line and "left before taking the seat" in line and "(wrong-player)" in line
