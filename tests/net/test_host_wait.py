"""A host's wait is ended only by its own player or a seated game (SPEC 3.11, *The seat*).

Over real loopback sockets, strangers complete the handshake with a waiting host and then
do not play: a joiner holding a stale invitation (another key) refuses the host, one hangs
up, one closes, one sends a frame nobody can read. Each is logged and dropped; the host
goes on waiting, and then seats its real joiner at a table of 3.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cuttle_protocol.errors import ErrorCode
from cuttle_protocol.shells import (
    ConnectionEnded,
    Listener,
    PeerSettings,
    connect,
    handshake,
    host_table,
    join_table,
    open_listener,
    running,
)
from cuttle_protocol.table import TableSettings
from cuttle_protocol.wire import Invitation, RematchRequest, Role
from cuttle_protocol.wire import Rules as WireRules

from tests.worded import worded

from .count_game import play_count, player
from .test_host_join import finish, host_args, join_args, start_host
from .test_table_net import BOUND, FAST

WAIT = 120  # seconds: the bound on every test here (only a failure waits it out)
CLASSIC = WireRules("classic")
STRANGERS = ["stale-invitation", "hang-up", "close", "garbage"]


async def stranger(port: int, how: str, caps: tuple[str, ...] = ()) -> None:
    """Complete a handshake with the host on `port`, then do not play (`how`)."""
    eve = player("eve")
    if how == "stale-invitation":
        # An invitation to another key at this address (an old one, or a mistyped address):
        # the joiner refuses the host once it saw its key (`wrong-player`).
        other = Ed25519PrivateKey.generate().public_key().public_bytes_raw()
        stale = Invitation.for_key(other, [("127.0.0.1", port)]).encode()
        with pytest.raises(ConnectionEnded) as refused:
            async with connect(stale, eve, caps=caps):
                raise AssertionError("the joiner took a host with another key")
        assert refused.value.code == ErrorCode.WRONG_PLAYER
        return
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    peer = await handshake(stream, Role.JOINER, eve, caps=caps)
    if how == "hang-up":  # no `close`: the TCP connection just ends
        await trio.aclose_forcefully(stream)
    elif how == "close":
        await peer.aclose(ErrorCode.PEER_QUIT, "changed my mind")
    else:  # a frame that does not decrypt
        await stream.send_all(b"\0\0\0\x20" + bytes(32))
        await trio.aclose_forcefully(stream)


@pytest.mark.trio
@pytest.mark.parametrize("how", STRANGERS)
async def test_a_table_outlasts_a_stranger_at_its_last_seat_and_plays(
    how: str, memory_net, autojump_clock
) -> None:
    """A table of 3 with one joiner seated: the stranger comes for the last seat (on the old
    code it was seated, the table started, and it ended naming the stranger), then the
    real second joiner takes it."""
    results: dict[str, str] = {}
    said: list[str] = []
    async with open_listener(0, "127.0.0.1", log=worded(said)) as listener:
        port = listener.address[1]
        address = f"127.0.0.1:{port}"

        async def host() -> None:
            settings = TableSettings("count", (), 3)
            async with host_table(listener, player("p0"), settings, timeouts=FAST) as t:
                results["p0"] = await play_count(t, 9)

        async def join(name: str, task_status=trio.TASK_STATUS_IGNORED) -> None:
            async with join_table(address, player(name), timeouts=FAST) as t:
                task_status.started()  # seated
                results[name] = await play_count(t, 9)

        with trio.fail_after(BOUND):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(host)
                await nursery.start(join, "p1")
                await stranger(port, how, caps=("table",))
                await settled(listener, said)
                await nursery.start(join, "p2")
    assert listener.unseated == 1
    assert len(results) == 3 and len(set(results.values())) == 1, results
    assert results["p0"].startswith("result: counted to 9"), results


async def settled(listener: Listener, said: list[str]) -> None:
    """Until the host logged the stranger it dropped."""
    while not any("eve" in line for line in said):
        await trio.sleep(0.01)


def test_a_second_host_on_the_same_data_folder_leaves_the_live_game_alone(
    tmp_path: Path,
) -> None:
    """Finding 8c: ``cuttle host --port 0`` while another process on the same data folder
    plays a game took that live game's journal for an unfinished one, tried to resume it on
    its port, and failed with "Address already in use". Now it hosts a game of its own;
    asked for that very port, it says in one line that another process plays there."""
    # The joiner is stopped below for as long as the checks take; its clock runs on, so no
    # protocol step may time out meanwhile (a loaded machine took over 20 s). Greedy bots end
    # a game in 7 moves on average (random ones in 37, some 100: up to 30 s of bot delays);
    # the shortest games are as short either way (5 moves: 1.5 s from the deal).
    slow = ("--bot", "greedy", "--bot-delay", "0.3", "--games", "1", "--reply-timeout", "600")
    first, port = start_host(tmp_path, *slow)
    joiner = subprocess.Popen(
        [sys.executable, "-m", "cuttle_client", *join_args(tmp_path, port, *slow)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    second = None
    try:
        assert first.stdout is not None
        deadline = time.monotonic() + WAIT
        while "you are seat" not in first.stdout.readline():  # journaled from then on
            assert time.monotonic() < deadline and first.poll() is None
        assert list((tmp_path / "a" / "journal").glob("table-host-*.journal"))
        # The joiner is stopped meanwhile, so that the first game is surely still live (on a
        # loaded machine it could end, freeing its port, before the checks below ran).
        joiner.send_signal(signal.SIGSTOP)
        second, other = start_host(tmp_path, "--bot", "random")  # a game of its own
        assert other != port
        second.kill()
        out, err = second.communicate(timeout=WAIT)
        assert "resuming" not in out and "Traceback" not in err
        same = subprocess.run(
            [sys.executable, "-m", "cuttle_client", *host_args(tmp_path, "--bot", "random")]
            + ["--port", str(port)],
            capture_output=True,
            text=True,
            timeout=WAIT,
        )
        assert same.returncode == 1 and "Traceback" not in same.stderr
        assert "being played by another cuttle process" in same.stdout, same.stdout
        assert "Address already in use" not in same.stdout
        joiner.send_signal(signal.SIGCONT)
        # The first game was left alone: it ends as it would have.
        code, out, err = finish(first)
        assert code == 0 and "audit passed" in out, out + err
        assert joiner.wait(timeout=WAIT) == 0
    finally:
        joiner.send_signal(signal.SIGCONT)
        for p in (first, joiner, second):
            if p is not None and p.poll() is None:
                p.kill()


def test_a_headless_joiner_whose_bot_cannot_play_the_game_refuses_it(monkeypatch) -> None:
    """`cuttle join --bot NAME` judges the game a host offers before it answers the host's
    seat check: a game its bot cannot play is refused in the handshake (it used to sit down
    and leave at once). Every level now plays both games, so a level is taken away here."""
    from cuttle_client.cli_net import _bot_plays

    import cuttle_net.games.unisson.bots as unisson_bots

    monkeypatch.delitem(unisson_bots.BOTS, "hard")
    judge = _bot_plays("hard")
    assert judge("cuttle") is None
    assert judge("unisson").startswith("cannot play unisson with the bot 'hard'")


@pytest.mark.trio
async def test_a_joiner_silent_after_the_handshake_is_dropped_at_the_reply_timeout(
    memory_net, autojump_clock
) -> None:
    """One that completes the handshake and then reads nothing (so never answers the
    host's ping) holds no seat: the host closes it with `timeout` and seats the next."""
    said: list[str] = []
    quick = PeerSettings()  # the real timeouts, on the mock clock
    with trio.fail_after(BOUND):
        async with open_listener(0, "127.0.0.1", log=worded(said)) as listener:
            port = listener.address[1]
            async with trio.open_nursery() as nursery:
                seated: list[str] = []

                async def host() -> None:
                    async with listener.accept(player("ann"), CLASSIC, settings=quick) as peer:
                        seated.append(peer.info.peer_name)
                        with pytest.raises(ConnectionEnded):
                            await peer.receive()  # until bob goes

                nursery.start_soon(host)
                stream = await trio.open_tcp_stream("127.0.0.1", port)
                await handshake(stream, Role.JOINER, player("eve"))  # then reads nothing
                while not said:
                    await trio.sleep(0.01)
                async with connect(f"127.0.0.1:{port}", player("bob"), settings=quick):
                    while not seated:
                        await trio.sleep(0.01)
                await stream.aclose()
    assert seated == ["bob"]
    (line,) = said
    assert "eve" in line and "no answer to our ping within 20 s (timeout)" in line, line


@pytest.mark.trio
async def test_messages_before_the_pong_are_bounded(memory_net, autojump_clock) -> None:
    """What a joiner sends before it answers the host's ping is kept for the game, up to
    the inbox (16 messages): one that sends more is told why and dropped."""
    said: list[str] = []
    with trio.fail_after(BOUND):
        async with open_listener(0, "127.0.0.1", log=worded(said)) as listener:
            port = listener.address[1]
            async with trio.open_nursery() as nursery:
                nursery.start_soon(wait_for_player, listener)
                stream = await trio.open_tcp_stream("127.0.0.1", port)
                peer = await handshake(stream, Role.JOINER, player("eve"))
                with pytest.raises(ConnectionEnded) as told:
                    for _ in range(17):  # before reading anything, so before its pong
                        await peer.send(RematchRequest())
                    async with running(peer):  # the host's close comes before our pong counts
                        await peer.receive()
                while not said:
                    await trio.sleep(0.01)
                nursery.cancel_scope.cancel()
    assert told.value.code == ErrorCode.UNEXPECTED_MESSAGE
    assert "more than 16 messages before its pong" in told.value.message
    (line,) = said
    assert "eve" in line and "left before taking the seat" in line, line


async def wait_for_player(listener: Listener) -> None:
    async with listener.accept(player("ann"), CLASSIC):
        raise AssertionError("a joiner was seated")
