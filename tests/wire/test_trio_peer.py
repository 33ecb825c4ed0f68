"""The trio shell over memory streams and loopback TCP: happy paths and every way to end."""

from __future__ import annotations

import contextlib
import os
import socket
import struct
from collections.abc import Awaitable, Callable

import pytest
import trio
import trio.testing
from cuttle_protocol.errors import ErrorCode, RemoteProtocolError
from cuttle_protocol.shells import (
    ConnectionEnded,
    EndReason,
    Listener,
    Peer,
    PeerSettings,
    connect,
    open_listener,
    open_peer,
)
from cuttle_protocol.shells.peer import CLOSE_GRACE
from cuttle_protocol.store import KnownPeers, Trust
from cuttle_protocol.wire import (
    MAX_FRAME_SIZE,
    Accept,
    Close,
    Connection,
    HandshakeComplete,
    LocalPlayer,
    Move,
    Ping,
    Role,
    RulesProposed,
    pack,
)
from wire_helpers import CLASSIC, drain, player

from tests.worded import worded

SIG = bytes(range(64))  # a move signature: the session checks it, not the wire

FAST = PeerSettings(handshake_timeout=2, reply_timeout=0.5, keepalive_interval=0.3)
LIMIT = 10  # seconds any test here may take: a hang is a failure, not a stuck suite

StreamPair = tuple[trio.abc.Stream, trio.abc.Stream]


async def tcp_pair() -> StreamPair:
    (listener,) = await trio.open_tcp_listeners(0, host="127.0.0.1")
    client = await trio.open_tcp_stream(*listener.socket.getsockname()[:2])
    server = await listener.accept()
    await listener.aclose()
    return server, client


async def small_buffer_tcp_pair() -> StreamPair:
    """Loopback TCP with tiny kernel buffers, so a peer that stops reading is felt at once."""
    server, client = await tcp_pair()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    return server, client


async def memory_pair() -> StreamPair:
    return trio.testing.memory_stream_pair()


TRANSPORTS = {"memory": memory_pair, "tcp": tcp_pair}
transports = pytest.mark.parametrize("make_pair", TRANSPORTS.values(), ids=TRANSPORTS.keys())


class Rogue:
    """A peer driven by hand through the sans-I/O core, free to misbehave."""

    def __init__(self, stream: trio.abc.Stream, role: Role = Role.JOINER) -> None:
        self.stream = stream
        self.conn = Connection(role, player("rogue"), rules=CLASSIC if role is Role.HOST else None)

    async def flush(self) -> None:
        await self.stream.send_all(self.conn.data_to_send())

    async def handshake(self) -> HandshakeComplete:
        await self.flush()
        while True:
            self.conn.receive_data(await self.stream.receive_some(65536))
            for event in drain(self.conn):
                if isinstance(event, RulesProposed):
                    self.conn.accept_rules()
                    event = self.conn.next_event()
                if isinstance(event, HandshakeComplete):
                    await self.flush()
                    return event
            await self.flush()

    async def send_raw(self, data: bytes) -> None:
        await self.stream.send_all(data)

    async def send_sealed(self, wire: dict) -> None:
        """Encrypt any map as the next frame, bypassing the state machine."""
        self.conn._outgoing += self.conn._sealer.seal(pack(wire))
        await self.flush()

    async def close_received(self) -> Close | None:
        """Read until the peer's Close (None at EOF or if the frame is beyond us)."""
        try:
            while data := await self.stream.receive_some(65536):
                self.conn.receive_data(data)
                for event in drain(self.conn):
                    if isinstance(event, Close):
                        return event
        except (RemoteProtocolError, trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        return None


async def host_ending(
    make_pair: Callable[[], Awaitable[StreamPair]],
    rogue_script: Callable[[Rogue], Awaitable[object]],
    settings: PeerSettings = FAST,
    read: bool = True,
    rogue_time: float = 1,
) -> tuple[ConnectionEnded, object]:
    """Run a real host against a rogue joiner; return how the host's connection ended
    (the rogue is given `rogue_time` after that to finish)."""
    ours, theirs = await make_pair()
    rogue = Rogue(theirs)
    result: list[object] = []
    peers: list[Peer] = []
    rogue_done = trio.Event()

    async def run_rogue() -> None:
        result.append(await rogue_script(rogue))
        rogue_done.set()

    bound = LIMIT + settings.handshake_timeout + settings.keepalive_interval + rogue_time
    with trio.fail_after(bound + settings.reply_timeout):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(run_rogue)
            with pytest.raises(ConnectionEnded) as info:
                async with open_peer(
                    ours, Role.HOST, player("host"), rules=CLASSIC, settings=settings
                ) as peer:
                    peers.append(peer)
                    if read:
                        while True:
                            await peer.receive()
                    raise await peer.wait_ended()
            with trio.move_on_after(rogue_time):  # time for the rogue to read our Close
                await rogue_done.wait()
            nursery.cancel_scope.cancel()
    if peers:  # however the peer misbehaved, we held at most one read and one frame
        assert peers[0]._conn.buffered <= settings.receive_chunk + 4 + MAX_FRAME_SIZE
    return info.value, result[0] if result else None


# --- the happy path -----------------------------------------------------------------------


@pytest.mark.trio
@transports
async def test_handshake_and_one_move_each_way(make_pair, tmp_path) -> None:
    ours, theirs = await make_pair()
    seen: dict[str, object] = {}

    async def joiner() -> None:
        async with open_peer(
            theirs, Role.JOINER, player("bob"), known_peers=KnownPeers(tmp_path / "bob")
        ) as peer:
            seen["joiner"] = peer.info
            assert peer.trust is Trust.NEW
            await peer.send(Move("draw", SIG))
            assert await peer.receive() == Move("points 9H", SIG)
            with pytest.raises(ConnectionEnded) as info:
                await peer.receive()
            seen["end"] = info.value

    with trio.fail_after(LIMIT):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(joiner)
            async with open_peer(ours, Role.HOST, player("alice"), rules=CLASSIC) as peer:
                assert await peer.receive() == Move("draw", SIG)
                await peer.send(Move("points 9H", SIG))
                seen["host"] = peer.info
                await peer.aclose(reason="good game")
    assert seen["host"].sas == seen["joiner"].sas
    end = seen["end"]
    assert (end.reason, end.code, end.message) == (EndReason.PEER_CLOSED, "peer-quit", "good game")


@pytest.mark.trio
@transports
async def test_the_messages_of_one_read_come_without_a_task_switch_each(make_pair) -> None:
    # A move and its deck step leave in one write: the reader hands both over in one
    # step, and `receive` gives the one already in without a checkpoint (a task switch).
    ours, theirs = await make_pair()
    moves = [Move("draw", SIG), Move("points 9H", SIG), Move("scuttle 9H 8C", SIG)]

    async def joiner() -> None:
        async with open_peer(theirs, Role.JOINER, player("bob")) as peer:
            await peer.send(*moves)
            await peer.wait_ended()

    with trio.fail_after(LIMIT):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(joiner)
            async with open_peer(ours, Role.HOST, player("alice"), rules=CLASSIC) as peer:
                got = [await peer.receive()]
                with trio.testing.assert_no_checkpoints():
                    got += [await peer.receive(), await peer.receive()]
                assert got == moves
                await peer.aclose()


@pytest.mark.trio
async def test_listen_and_connect_by_address(tmp_path) -> None:
    pins = KnownPeers(tmp_path)
    trust: list[Trust | None] = []

    async def host_two_games(listener: Listener) -> None:
        for _ in range(2):
            async with listener.accept(player("alice"), CLASSIC) as peer:
                assert await peer.receive() == Move("concede", SIG)

    alice_again = player("bob")
    with trio.fail_after(LIMIT):
        async with open_listener(0, "127.0.0.1") as listener, trio.open_nursery() as nursery:
            host, port = listener.address
            assert host == "127.0.0.1" and port > 0
            nursery.start_soon(host_two_games, listener)
            for _ in range(2):
                async with connect(f"127.0.0.1:{port}", alice_again, known_peers=pins) as peer:
                    await peer.send(Move("concede", SIG))
                    trust.append(peer.trust)
                    # Stay until the host has read the move and left.
                    with pytest.raises(ConnectionEnded):
                        await peer.receive()
    # Each game the host showed a fresh key under the same name: pinning notices.
    assert trust == [Trust.NEW, Trust.CHANGED]


@pytest.mark.trio
async def test_joiner_refuses_the_rules() -> None:
    ours, theirs = await memory_pair()

    async def joiner() -> None:
        with pytest.raises(ConnectionEnded) as info:
            async with open_peer(
                theirs, Role.JOINER, player("bob"), judge_rules=lambda rules: "no jokers here"
            ):
                pass
        assert info.value.reason is EndReason.LOCAL_CLOSED

    with trio.fail_after(LIMIT):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(joiner)
            with pytest.raises(ConnectionEnded) as info:
                async with open_peer(ours, Role.HOST, player("alice"), rules=CLASSIC):
                    pass
    assert (info.value.reason, info.value.code) == (EndReason.PEER_CLOSED, "rules-refused")
    assert info.value.message == "no jokers here"


@pytest.mark.trio
async def test_connect_to_nothing_is_a_network_error() -> None:
    async with open_listener(0, "127.0.0.1") as listener:
        port = listener.address[1]
    with trio.fail_after(LIMIT), pytest.raises(ConnectionEnded) as info:
        async with connect(f"127.0.0.1:{port}", player("bob")):
            pass
    assert info.value.reason is EndReason.NETWORK_ERROR


# --- misbehaving peers --------------------------------------------------------------------


@pytest.mark.trio
@transports
async def test_garbage_instead_of_hello(make_pair) -> None:
    async def rogue(r: Rogue) -> Close | None:
        await r.send_raw(b"\x00\x00\x00\x05\xc1\xc1\xc1\xc1\xc1")
        return await r.close_received()

    end, close = await host_ending(make_pair, rogue)
    assert (end.reason, end.code) == (EndReason.REMOTE_ERROR, ErrorCode.MALFORMED_FRAME)
    assert close is not None and close.code == "malformed-frame"  # told why, in plaintext


@pytest.mark.trio
async def test_a_joiner_that_leaves_after_the_host_hello_was_a_code_attempt() -> None:
    async def rogue(r: Rogue) -> None:
        await r.flush()  # the commitment
        r.conn.receive_data(await r.stream.receive_some(65536))  # the host's hello
        drain(r.conn)  # the rogue can now compute the code this host would show
        await r.stream.aclose()

    end, _ = await host_ending(memory_pair, rogue)
    assert end.reason is EndReason.NETWORK_ERROR and end.code_attempt

    async def scanner(r: Rogue) -> None:
        await r.send_raw(b"\x00\x00\x00\x05hello")
        await r.stream.aclose()

    end, _ = await host_ending(memory_pair, scanner)
    assert not end.code_attempt  # it never saw the host's hello


@pytest.mark.trio
async def test_trust_after_real_handshakes_names_what_changed(tmp_path) -> None:
    """The joiner's known peers after each handshake: the same host key under a new name is
    RENAMED; a new key under the known name is CHANGED; each is what it says."""
    pins = KnownPeers(tmp_path)
    alice = player("alice")
    hosts = [alice, LocalPlayer("alicia", alice.identity), player("alice")]
    trust = []
    with trio.fail_after(LIMIT):
        for host in hosts:
            ours, theirs = await memory_pair()
            async with trio.open_nursery() as nursery:

                async def serve(stream=ours, host=host) -> None:
                    async with open_peer(stream, Role.HOST, host, rules=CLASSIC):
                        pass

                nursery.start_soon(serve)
                async with open_peer(theirs, Role.JOINER, player("bob"), known_peers=pins) as peer:
                    trust.append(peer.trust)
    assert trust == [Trust.NEW, Trust.RENAMED, Trust.CHANGED]


@pytest.mark.trio
async def test_the_listener_counts_tries_at_its_code() -> None:
    lines: list[str] = []
    with trio.fail_after(LIMIT):
        async with (
            open_listener(0, "127.0.0.1", log=worded(lines)) as listener,
            trio.open_nursery() as nursery,
        ):
            nursery.start_soon(_wait_for_anyone, listener)
            for _ in range(2):  # commit, read the host's hello, compute the code, leave
                await _try_the_code(listener.address[1])
            while sum("at this game's code" in line for line in lines) < 2:
                await trio.sleep(0.01)
            nursery.cancel_scope.cancel()
    tries = [line for line in lines if "at this game's code" in line]
    assert "try 1 " in tries[0] and "try 2 " in tries[1]
    assert listener.code_attempts == 2


@pytest.mark.trio
async def test_no_code_is_at_stake_once_a_table_is_seated() -> None:
    """Past a table's lobby a player comes back by its identity key, and no code is
    compared: a handshake that fails after our hello is no try at one, nor logged as one."""
    lines: list[str] = []
    with trio.fail_after(LIMIT):
        async with open_listener(0, "127.0.0.1", log=worded(lines)) as listener:
            door = listener.seating(
                player("alice"), CLASSIC, lambda peer: None, settings=FAST, codes=lambda: False
            )
            async with door:
                await _try_the_code(listener.address[1])
                while not any("no handshake" in line for line in lines):
                    await trio.sleep(0.01)
    assert listener.code_attempts == 0
    assert not any("code" in line for line in lines), lines


async def _try_the_code(port: int) -> None:
    """A rogue that commits, reads the host's hello (it can now compute the code), leaves."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    rogue = Rogue(stream)
    await rogue.flush()
    rogue.conn.receive_data(await stream.receive_some(65536))
    drain(rogue.conn)
    await stream.aclose()


async def _wait_for_anyone(listener) -> None:
    async with listener.accept(player("alice"), CLASSIC, settings=FAST):
        pass


@pytest.mark.trio
@transports
async def test_http_request_is_too_large_a_frame(make_pair) -> None:
    async def rogue(r: Rogue) -> None:
        await r.send_raw(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")

    end, _ = await host_ending(make_pair, rogue)
    assert (end.reason, end.code) == (EndReason.REMOTE_ERROR, ErrorCode.FRAME_TOO_LARGE)


@pytest.mark.trio
@transports
async def test_garbage_after_handshake(make_pair) -> None:
    async def rogue(r: Rogue) -> Close | None:
        await r.handshake()
        await r.send_raw(b"\x00\x00\x00\x20" + os.urandom(32))
        return await r.close_received()

    end, close = await host_ending(make_pair, rogue)
    assert (end.reason, end.code) == (EndReason.REMOTE_ERROR, ErrorCode.DECRYPT_FAILED)
    assert close is not None and close.code == "decrypt-failed"  # told why, encrypted


@pytest.mark.trio
@transports
async def test_truncated_frame_then_hang_up(make_pair) -> None:
    async def rogue(r: Rogue) -> None:
        await r.handshake()
        await r.send_raw(b"\x00\x00\x01\x00" + b"partial")
        await r.stream.aclose()

    end, _ = await host_ending(make_pair, rogue)
    assert end.reason is EndReason.NETWORK_ERROR
    assert "mid-frame" in end.message


@pytest.mark.trio
@transports
async def test_hang_up_without_close(make_pair) -> None:
    async def rogue(r: Rogue) -> None:
        await r.handshake()
        await r.stream.aclose()

    end, _ = await host_ending(make_pair, rogue)
    assert end.reason is EndReason.NETWORK_ERROR
    assert "without a Close" in end.message


@pytest.mark.trio
@transports
async def test_oversized_frame_streamed_endlessly(make_pair) -> None:
    async def rogue(r: Rogue) -> None:
        await r.handshake()
        await r.send_raw((MAX_FRAME_SIZE + 17).to_bytes(4, "big"))
        try:
            while True:
                await r.send_raw(b"\x00" * 65536)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass

    end, _ = await host_ending(make_pair, rogue)
    assert (end.reason, end.code) == (EndReason.REMOTE_ERROR, ErrorCode.FRAME_TOO_LARGE)


@pytest.mark.trio
@transports
async def test_valid_frame_out_of_phase(make_pair) -> None:
    async def rogue(r: Rogue) -> Close | None:
        await r.handshake()
        await r.send_sealed(Accept().to_wire())
        return await r.close_received()

    end, close = await host_ending(make_pair, rogue)
    assert (end.reason, end.code) == (EndReason.REMOTE_ERROR, ErrorCode.UNEXPECTED_MESSAGE)
    assert close is not None and close.code == "unexpected-message"


@pytest.mark.trio
@transports
async def test_unknown_message_type(make_pair) -> None:
    async def rogue(r: Rogue) -> Close | None:
        await r.handshake()
        await r.send_sealed({"t": "teleport"})
        return await r.close_received()

    end, close = await host_ending(make_pair, rogue)
    assert (end.reason, end.code) == (EndReason.REMOTE_ERROR, ErrorCode.UNKNOWN_MESSAGE)
    assert close is not None and close.code == "unknown-message"


# --- the clock's rules, on trio's mock clock over memory streams ---------------------------
#
# `autojump_clock` jumps to the next deadline whenever every task waits: each rule is
# checked to the second, as if the test had waited out each timeout, in no time at all.
# The timeouts are the real defaults (PeerSettings()), not shortened ones.

REAL = PeerSettings()


@pytest.mark.trio
async def test_silent_during_handshake(autojump_clock) -> None:
    async def rogue(r: Rogue) -> float:
        await r.close_received()  # says nothing, and hears the host give up
        return trio.current_time()

    started = trio.current_time()
    end, gone = await host_ending(memory_pair, rogue, REAL)
    assert (end.reason, end.code) == (EndReason.TIMEOUT, ErrorCode.TIMEOUT)
    assert end.message == f"no complete handshake within {REAL.handshake_timeout:g} s"
    assert gone - started == pytest.approx(REAL.handshake_timeout)


@pytest.mark.trio
async def test_a_handshake_that_keeps_coming_is_still_bounded_in_time(autojump_clock) -> None:
    """The handshake's bound counts from the connection, not from the last byte: a peer
    that sends a byte now and then never completes it and is cut off all the same."""

    async def rogue(r: Rogue) -> float:
        async with trio.open_nursery() as nursery:

            async def trickle() -> None:
                data = r.conn.data_to_send()  # its commitment, a byte a second
                for byte in data[:-1]:
                    await r.send_raw(bytes([byte]))
                    await trio.sleep(1)

            nursery.start_soon(trickle)
            await r.close_received()
            nursery.cancel_scope.cancel()
        return trio.current_time()

    started = trio.current_time()
    end, gone = await host_ending(memory_pair, rogue, REAL)
    assert (end.reason, end.code) == (EndReason.TIMEOUT, ErrorCode.TIMEOUT)
    assert gone - started == pytest.approx(REAL.handshake_timeout)


@pytest.mark.trio
async def test_silent_after_handshake(autojump_clock) -> None:
    """After the keepalive interval of silence we ping; without an answer within the reply
    timeout the connection ends, `interval + reply` after the peer was last heard."""

    async def rogue(r: Rogue) -> float:
        await r.handshake()
        heard = trio.current_time()
        await r.close_received()  # reads our pings, never answers
        return trio.current_time() - heard

    end, silent_for = await host_ending(memory_pair, rogue, REAL)
    assert (end.reason, end.code) == (EndReason.TIMEOUT, ErrorCode.TIMEOUT)
    limit = REAL.keepalive_interval + REAL.reply_timeout
    assert end.message == f"the peer did not answer for {limit:g} s"
    assert silent_for == pytest.approx(limit)


@pytest.mark.trio
async def test_a_peer_silent_past_the_keepalive_finds_the_stream_ended_without_a_close(
    autojump_clock,
):
    """A peer that was only frozen (a suspended laptop, a stopped process) reads on later:
    it finds the connection lost (the stream's end, which a game resumes, SPEC 4.6), not a
    `close`, which would tell it the game is over while we wait for it to come back."""

    async def rogue(r: Rogue) -> object:
        await r.handshake()
        await trio.sleep(REAL.keepalive_interval + REAL.reply_timeout + 1)  # frozen
        return await r.close_received()  # None: the end of the stream came, no `close`

    end, seen = await host_ending(memory_pair, rogue, REAL, read=False, rogue_time=60)
    assert (end.reason, end.code) == (EndReason.TIMEOUT, ErrorCode.TIMEOUT)
    assert seen is None, seen


@pytest.mark.trio
async def test_keepalive_keeps_an_idle_game_open(autojump_clock) -> None:
    """Both sides silent for an hour, each one's keepalive answered by the other: the game
    is still open, and a move then goes through."""
    ours, theirs = await memory_pair()

    async def joiner() -> None:
        async with open_peer(theirs, Role.JOINER, player("bob"), settings=REAL) as peer:
            await trio.sleep(3600)  # 240 keepalive intervals with nothing to say
            await peer.send(Move("draw", SIG))
            with pytest.raises(ConnectionEnded):
                await peer.receive()

    with trio.fail_after(3600 + LIMIT):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(joiner)
            async with open_peer(
                ours, Role.HOST, player("alice"), rules=CLASSIC, settings=REAL
            ) as peer:
                assert await peer.receive() == Move("draw", SIG)


@pytest.mark.trio
async def test_a_peer_that_answers_pings_late_is_dropped_at_the_reply_timeout(
    autojump_clock,
) -> None:
    """A pong that comes after the reply timeout is too late: the connection already ended
    as a timeout; one that comes just within it keeps the connection open."""
    for delay, survives in ((REAL.reply_timeout - 1, True), (REAL.reply_timeout + 1, False)):
        ours, theirs = await memory_pair()
        rogue = Rogue(theirs)

        async def answer_late(rogue: Rogue = rogue, delay: float = delay) -> None:
            await rogue.handshake()
            while True:
                data = await rogue.stream.receive_some(65536)
                if not data:
                    return
                await trio.sleep(delay)
                rogue.conn.receive_data(data)
                drain(rogue.conn)  # a ping queues its pong
                await rogue.flush()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(answer_late)
            async with open_peer(
                ours, Role.HOST, player("alice"), rules=CLASSIC, settings=REAL
            ) as peer:
                with trio.move_on_after(REAL.keepalive_interval * 4):
                    ended = await peer.wait_ended()
                    assert not survives, ended
                    assert ended.reason is EndReason.TIMEOUT
                if survives:
                    assert peer.ended is None
            nursery.cancel_scope.cancel()


@pytest.mark.trio
@transports
async def test_flood_of_moves_nobody_reads(make_pair) -> None:
    async def rogue(r: Rogue) -> int:
        await r.handshake()
        sent = 0
        try:
            while True:
                for _ in range(500):
                    r.conn.send(Move("draw", SIG))
                await r.flush()
                sent += 500
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return sent

    # The host's app never reads: the inbox fills, the reader stops, TCP pushes back, and
    # the host's own pings go unanswered because the rogue never reads either.
    end, _ = await host_ending(make_pair, rogue, read=False)
    assert (end.reason, end.code) == (EndReason.TIMEOUT, ErrorCode.TIMEOUT)


@pytest.mark.trio
async def test_ping_flood_from_a_peer_that_never_reads() -> None:
    async def rogue(r: Rogue) -> None:
        await r.handshake()
        n = 0
        try:
            while True:
                n += 1
                r.conn.send(Ping(n))
                await r.flush()
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass

    # Our pongs back up, so the reader stops reading pings: memory stays bounded, and
    # whichever notices first (the blocked write or the keepalive) ends it as a timeout.
    end, _ = await host_ending(small_buffer_tcp_pair, rogue)
    assert (end.reason, end.code) == (EndReason.TIMEOUT, ErrorCode.TIMEOUT)


# --- a write that fails after the peer said why it left -------------------------------------
#
# Checked on Linux (6.x, loopback): a peer that closes its socket with bytes of ours unread
# resets the connection; one that had read everything sends the end of the stream, and our
# next write after that draws the reset. Either way our failing write gets ECONNRESET or
# EPIPE, and the bytes the peer sent before it went stay readable after it: a read returns
# them, then the end of the stream (the write consumed the reset's error), never the
# reset itself. So what the peer said last (a move, its `close`) can still be read.

DRAINING = PeerSettings(handshake_timeout=2, reply_timeout=0.5, keepalive_interval=60)


def hang_up_at_once(r: Rogue, *, reset: bool) -> None:
    """Close the rogue's socket without a checkpoint; with `reset`, by a TCP reset."""
    sock = r.stream.socket
    if reset:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


@pytest.mark.trio
async def test_a_close_crossing_our_write_is_read_before_the_end() -> None:
    """The peer sends its last move and a `close`, then resets the connection, all while
    our task runs; our next write fails at once. Before the fix the writer ended the
    connection as a network error while the reader was still handing the move over, and
    the `close` behind it was never read. A few rounds: trio varies the order in which
    the writer and the reader run."""
    for _ in range(5):
        ours, theirs = await tcp_pair()
        rogue = Rogue(theirs)
        with trio.fail_after(LIMIT):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(rogue.handshake)
                async with open_peer(
                    ours, Role.HOST, player("alice"), rules=CLASSIC, settings=DRAINING
                ) as peer:
                    await peer.send(Move("draw", SIG))  # the rogue never reads it
                    await trio.sleep(0.01)
                    rogue.conn.send(Move("points 9H", SIG))
                    rogue.conn.close(ErrorCode.PEER_QUIT, "good game")
                    data = rogue.conn.data_to_send()
                    assert os.write(rogue.stream.socket.fileno(), data) == len(data)
                    hang_up_at_once(rogue, reset=False)  # our move unread: a reset
                    with pytest.raises(ConnectionEnded) as info:
                        await peer.send(Move("draw", SIG))
                    assert await peer.receive() == Move("points 9H", SIG)
                    with pytest.raises(ConnectionEnded) as then:
                        await peer.receive()
        end = info.value
        assert (end.reason, end.code, end.message) == (
            EndReason.PEER_CLOSED,
            "peer-quit",
            "good game",
        )
        assert then.value is end


async def read_behind_a_full_inbox(
    make_pair: Callable[[], Awaitable[StreamPair]], hang_up: Callable[[Rogue], object]
) -> tuple[ConnectionEnded, list[object]]:
    """Our player reads nothing yet: the inbox is full and our reader waits for room,
    with the rogue's last moves and its `close` behind it. Then the rogue goes (`hang_up`)
    and we write until that fails. Return how it ended, and what `receive` gave after."""
    settings = PeerSettings(
        handshake_timeout=2, reply_timeout=0.5, keepalive_interval=60, inbox_size=1
    )
    ours, theirs = await make_pair()
    rogue = Rogue(theirs)
    received: list[object] = []
    shaken = trio.Event()

    async def handshake() -> None:
        await rogue.handshake()
        shaken.set()

    with trio.fail_after(LIMIT):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(handshake)
            async with open_peer(
                ours, Role.HOST, player("alice"), rules=CLASSIC, settings=settings
            ) as peer:
                # Our side may be done before the rogue's last write of the handshake
                # returns: two writes at once on its stream are refused.
                await shaken.wait()
                for n in range(5):
                    rogue.conn.send(Move(f"move {n}", SIG))
                rogue.conn.close(ErrorCode.ILLEGAL_MOVE, "illegal_move: a ten on a king")
                await rogue.flush()
                await trio.sleep(0.1)  # the first move fills the inbox, the second waits
                hang_up(rogue)
                with pytest.raises(ConnectionEnded) as info:
                    while True:
                        await peer.send(Move("draw" + " " * 190, SIG))
                while True:
                    try:
                        received.append(await peer.receive())
                    except ConnectionEnded as ended:
                        received.append(ended)
                        break
    return info.value, received


@pytest.mark.trio
@pytest.mark.parametrize("reset", [True, False], ids=["reset", "end-of-stream"])
async def test_a_close_behind_a_full_inbox_is_read_after_a_failed_write(reset) -> None:
    end, received = await read_behind_a_full_inbox(
        tcp_pair, lambda r: hang_up_at_once(r, reset=reset)
    )
    assert (end.reason, end.code, end.message) == (
        EndReason.PEER_CLOSED,
        "illegal-move",
        "illegal_move: a ten on a king",
    )
    assert received == [*(Move(f"move {n}", SIG) for n in range(5)), end]


@pytest.mark.trio
async def test_a_close_behind_a_full_inbox_is_read_after_a_write_timed_out() -> None:
    """The rogue said goodbye but keeps its socket open and reads nothing: our writes
    back up until one times out. Its `close` was waiting behind our full inbox."""
    end, received = await read_behind_a_full_inbox(small_buffer_tcp_pair, lambda r: None)
    assert (end.reason, end.code) == (EndReason.PEER_CLOSED, "illegal-move")
    assert received == [*(Move(f"move {n}", SIG) for n in range(5)), end]


@pytest.mark.trio
async def test_reading_after_a_failed_write_is_bounded() -> None:
    """A write fails while the peer floods us without end: what it sends after is read
    for CLOSE_GRACE at most, then the connection ends as the write failed."""

    async def rogue(r: Rogue) -> None:
        await r.handshake()
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            while True:
                for _ in range(100):
                    r.conn.send(Move("draw", SIG))
                await r.flush()

    settings = PeerSettings(
        handshake_timeout=2, reply_timeout=0.3, keepalive_interval=0.1, inbox_size=1
    )
    started = trio.current_time()
    end, _ = await host_ending(small_buffer_tcp_pair, rogue, settings, read=False)
    assert (end.reason, end.code) == (EndReason.TIMEOUT, ErrorCode.TIMEOUT)
    assert trio.current_time() - started < 0.1 + 0.3 + CLOSE_GRACE + 1


@pytest.mark.trio
async def test_a_write_cut_short_by_a_cancellation_ends_the_connection(autojump_clock) -> None:
    """Our task is cancelled while its write waits on a peer that reads slowly: part of a
    frame may have left, so nothing can follow it on this stream. The next send says the
    connection is over (a lost connection, which a game wins back by resuming) instead of
    being dropped without a word while the peer waits for it forever."""
    settings = PeerSettings(handshake_timeout=2, reply_timeout=5, keepalive_interval=60)
    stalled = trio.Event()

    async def rogue(r: Rogue) -> None:
        await r.handshake()
        await stalled.wait()  # reads nothing until our write was cut short
        await r.close_received()

    # Lockstep streams: a write waits until the rogue reads it all. On the mock clock the
    # deadline below can then only fire while that write is stuck mid-way, never at a
    # checkpoint between two writes (on loopback under load, it sometimes did).
    ours, theirs = trio.testing.lockstep_stream_pair()
    with trio.fail_after(LIMIT):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(rogue, Rogue(theirs))
            async with open_peer(
                ours, Role.HOST, player("host"), rules=CLASSIC, settings=settings
            ) as peer:
                with trio.move_on_after(0.3) as cut:  # long before the write's own timeout
                    while True:
                        await peer.send(Move("draw " + "x" * 190, SIG))
                assert cut.cancelled_caught
                stalled.set()
                with pytest.raises(ConnectionEnded) as info:
                    await peer.send(Move("draw", SIG))
    assert info.value.reason is EndReason.NETWORK_ERROR
    assert "interrupted" in info.value.message
