"""The listener on loopback: every connection handshakes on its own, strangers are refused
with a reason, and the host goes on waiting for its player."""

from __future__ import annotations

import pytest
import trio
from cuttle_protocol.errors import ErrorCode
from cuttle_protocol.shells import (
    ConnectionEnded,
    EndReason,
    Listener,
    ListenerLimits,
    PeerSettings,
    connect,
    open_listener,
    open_peer,
)
from cuttle_protocol.shells.peer import _rate_key
from cuttle_protocol.wire import (
    MAX_FRAME_SIZE,
    Close,
    FrameDecoder,
    Hello,
    Move,
    Role,
    message_from_wire,
    unpack,
)
from wire_helpers import CLASSIC, player

from tests.memnet import MemoryNet
from tests.worded import worded

SIG = bytes(range(64))
LIMIT = 10
FAST = PeerSettings(handshake_timeout=1.0, reply_timeout=1.0)


async def raw_exchange(
    port: int,
    send: bytes = b"",
    *,
    source: str = "127.0.0.1",
    hang_up: bool = False,
    net: MemoryNet | None = None,
) -> list[object]:
    """Connect from `source` (over loopback TCP, or `net`), send `send`, read until the
    host hangs up; the plaintext messages received (a frame we cannot decode is returned
    as its bytes)."""
    if net is not None:
        stream = await net.open_stream("127.0.0.1", port, source=source)
    else:
        sock = trio.socket.socket()
        await sock.bind((source, 0))
        await sock.connect(("127.0.0.1", port))
        stream = trio.SocketStream(sock)
    if send:
        await stream.send_all(send)
    if hang_up:
        await stream.send_eof()
    decoder, received = FrameDecoder(), []
    try:
        while data := await stream.receive_some(65536):
            decoder.feed(data)
            while (frame := decoder.next_frame()) is not None:
                try:
                    received.append(message_from_wire(unpack(frame[1])))
                except Exception:
                    received.append(frame[1])
    except trio.BrokenResourceError:
        pass  # reset: the host dropped us
    await stream.aclose()
    return received


async def wait_for_player(listener: Listener, **options) -> list[object]:
    """Host side: wait for a player; return what it sent once in (a move), or the ending."""
    try:
        async with listener.accept(player("alice"), CLASSIC, settings=FAST, **options) as peer:
            return [peer.info.peer_name, await peer.receive()]
    except ConnectionEnded as ended:
        return [ended]


async def join_and_move(port: int, who=None) -> str:
    async with connect(f"127.0.0.1:{port}", who or player("bob"), settings=FAST) as peer:
        await peer.send(Move("draw", SIG))
        with pytest.raises(ConnectionEnded):
            await peer.receive()  # until the host leaves
        return peer.info.peer_name


@pytest.mark.trio
@pytest.mark.parametrize(
    "hostile, code",
    [
        (b"\0\0\0\0", "malformed-frame"),
        (b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", "frame-too-large"),
        (b"\0\0\0\x05\xc1\xc1\xc1\xc1\xc1", "malformed-frame"),
        (b"", None),  # connects and hangs up at once
    ],
    ids=["zero-length", "http", "garbage", "hang-up"],
)
async def test_a_hostile_connection_is_told_why_and_the_host_waits_on(
    hostile: bytes, code: str | None, memory_net: MemoryNet, autojump_clock
) -> None:
    """Over memory streams on the mock clock: on loopback under load the joiner's real-clock
    1 s handshake could run out, a flake that said nothing of hostile bytes."""
    lines: list[str] = []
    with trio.fail_after(LIMIT):
        async with open_listener(0, "127.0.0.1", log=worded(lines)) as listener:
            port = listener.address[1]
            async with trio.open_nursery() as nursery:
                result: list[object] = []

                async def host() -> None:
                    result.extend(await wait_for_player(listener))

                nursery.start_soon(host)
                await trio.sleep(0.05)
                got = await raw_exchange(port, hostile, hang_up=not hostile, net=memory_net)
                # The host shows its hello only to a joiner committed to its own (SPEC 3.6).
                assert not any(isinstance(m, Hello) for m in got)
                if code is not None:
                    assert isinstance(got[-1], Close) and got[-1].code == code
                assert await join_and_move(port) == "alice"
    assert result == ["bob", Move("draw", SIG)]
    assert any("no handshake" in line for line in lines), lines


@pytest.mark.trio
async def test_a_silent_connection_is_closed_with_timeout_while_the_player_gets_in(
    memory_net: MemoryNet, autojump_clock
) -> None:
    """At the real handshake timeout, on the mock clock: the silent connection is told
    `timeout` 20 s after it connected; the player who came meanwhile plays at once."""
    real = PeerSettings()
    async with open_listener(0, "127.0.0.1") as listener, trio.open_nursery() as nursery:
        port = listener.address[1]
        silent: list[object] = []
        result: list[object] = []
        times: dict[str, float] = {}

        async def host() -> None:
            async with listener.accept(player("alice"), CLASSIC, settings=real) as peer:
                result.extend([peer.info.peer_name, await peer.receive()])
                times["played"] = trio.current_time()
                await trio.sleep(3600)  # the game goes on

        async def stay_silent() -> None:
            silent.extend(await raw_exchange(port, net=memory_net))
            times["silent closed"] = trio.current_time()

        nursery.start_soon(host)
        await trio.sleep(1)
        start = trio.current_time()
        nursery.start_soon(stay_silent)
        await trio.sleep(1)
        async with connect(f"127.0.0.1:{port}", player("bob"), settings=real) as peer:
            await peer.send(Move("draw", SIG))  # handshakes beside the silent one
            while "silent closed" not in times:
                await trio.sleep(1)
        nursery.cancel_scope.cancel()
    assert result == ["bob", Move("draw", SIG)]
    assert times["played"] - start < 2  # not held up by the silent one
    assert times["silent closed"] - start == pytest.approx(real.handshake_timeout)
    assert [type(m) for m in silent] == [Close] and silent[0].code == "timeout"
    assert "within 20 s" in silent[0].reason


@pytest.mark.trio
async def test_during_a_game_connections_are_refused_as_busy() -> None:
    with trio.fail_after(LIMIT):
        async with open_listener(0, "127.0.0.1") as listener:
            port = listener.address[1]
            got = await raw_exchange(port)
            with pytest.raises(ConnectionEnded) as info:
                await join_and_move(port)
    assert [type(m) for m in got] == [Close] and got[0].code == "busy"  # no hello at all
    assert (info.value.reason, info.value.code) == (EndReason.PEER_CLOSED, ErrorCode.BUSY)
    assert info.value.message == "a game is in progress here"


@pytest.mark.trio
async def test_nobody_in_time_is_a_timeout(memory_net: MemoryNet, autojump_clock) -> None:
    async with open_listener(0, "127.0.0.1") as listener:
        deadline = trio.current_time() + 600
        result = await wait_for_player(listener, deadline=deadline)
        assert trio.current_time() == pytest.approx(deadline)
    assert isinstance(result[0], ConnectionEnded) and result[0].reason is EndReason.TIMEOUT
    assert result[0].message == "nobody connected in time"


@pytest.mark.trio
async def test_too_many_bytes_before_the_handshake_completes() -> None:
    ours, theirs = trio.testing.memory_stream_pair()
    settings = PeerSettings(handshake_bytes=1000)

    # A frame within the 1 MiB limit whose body never ends.
    await theirs.send_all(MAX_FRAME_SIZE.to_bytes(4, "big") + b"\x00" * 5000)
    with trio.fail_after(LIMIT), pytest.raises(ConnectionEnded) as info:
        async with open_peer(ours, Role.HOST, player("alice"), rules=CLASSIC, settings=settings):
            pass
    assert (info.value.reason, info.value.code) == (EndReason.REMOTE_ERROR, "frame-too-large")
    assert "more than 1000 bytes before the handshake completed" in info.value.message


@pytest.mark.trio
async def test_a_flood_from_one_address_is_rate_limited_and_others_still_get_in(
    memory_net: MemoryNet, autojump_clock
) -> None:
    """On the mock clock: an address's `burst` connections in a row, then `per_second`
    (slow here: one every 100 s); its handshakes under way at once are bounded too;
    another address gets in all the while."""
    limits = ListenerLimits(per_second=0.01)
    lines: list[str] = []
    async with open_listener(0, "127.0.0.1", limits=limits, log=worded(lines)) as listener:
        port = listener.address[1]
        async with trio.open_nursery() as nursery:
            result: list[object] = []
            flood: list[list[object]] = []

            async def host() -> None:
                result.extend(await wait_for_player(listener))

            async def one() -> None:
                flood.append(await raw_exchange(port, source="127.0.0.2", net=memory_net))

            nursery.start_soon(host)
            await trio.sleep(0.01)
            flooded = trio.current_time()
            async with trio.open_nursery() as flooding:
                for _ in range(limits.burst + 2):  # all at once
                    flooding.start_soon(one)
                await trio.sleep(0.01)
                # While the flood's handshakes hang, another address still gets in.
                assert await join_and_move(port) == "alice"
            # The bucket refills at `per_second`: one more after 1 / per_second, not before.
            refill = 1 / limits.per_second
            await trio.sleep_until(flooded + refill * 0.9)
            early = await raw_exchange(port, source="127.0.0.2", net=memory_net)
            await trio.sleep_until(flooded + refill * 1.01)
            later = await raw_exchange(port, source="127.0.0.2", net=memory_net)
    assert result == ["bob", Move("draw", SIG)]
    busy = [m[0].reason for m in flood if m and isinstance(m[0], Close) and m[0].code == "busy"]
    # `pending_per_address` handshakes; the rest of the burst refused as too many under
    # way; past the burst, refused by the rate.
    assert len(busy) == limits.burst + 2 - limits.pending_per_address, flood
    handshakes = "too many handshakes under way: try again in a few seconds"
    assert busy.count(handshakes) == limits.burst - limits.pending_per_address
    assert sum("too many connections from" in line for line in lines) == 1  # logged once
    rated = "too many connections from your address: try again in a few seconds"
    assert early and isinstance(early[0], Close) and early[0].reason == rated
    assert later and not (isinstance(later[0], Close) and later[0].reason == rated), later


def test_rate_keys_group_an_ipv6_host_by_its_64() -> None:
    assert _rate_key("2001:db8:1:2:aaaa::1") == _rate_key("2001:db8:1:2:bbbb::9")
    assert _rate_key("2001:db8:1:2::1") != _rate_key("2001:db8:1:3::1")
    assert _rate_key("::ffff:192.0.2.7") == _rate_key("192.0.2.7") == "192.0.2.7"
    assert _rate_key("fe80::1%eth0") == "fe80::/64"
