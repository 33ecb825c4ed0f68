"""A table host seats joiners who arrive together, over real loopback sockets (SPEC 3.15):
every handshake runs on its own, so nobody waits for a slow, silent or garbled connection,
a place goes to each joiner as its handshake completes, and every refusal says what is
true (the table is full; its game has started)."""

from __future__ import annotations

import pytest
import trio
from cuttle_protocol.shells import (
    ConnectionEnded,
    EndReason,
    TableTimeouts,
    host_table,
    join_table,
    open_listener,
)
from cuttle_protocol.table import CodeShown, Started, TableSettings

from tests.worded import worded

from .count_game import player
from .flood import hostile

# The real deadlines: every table here runs on the mock clock (`autojump_clock`).
FAST = TableTimeouts()
WAIT = 3 * 3600  # mock seconds: each test's bound (a hang is still caught)


async def sit(address: str, name: str, seen: dict[str, object], leave: trio.Event) -> None:
    """Join, confirm the code, note the seating and the start; stay until `leave`."""
    async with join_table(address, player(name), timeouts=FAST) as table:
        async for event in table.events:
            if isinstance(event, CodeShown):
                seen[name] = (table.core.me, event.code, [s.name for s in table.core.seats])
                table.confirm()
            elif isinstance(event, Started):
                break
        await leave.wait()


async def host(listener, seats: int, seen: dict, started: trio.Event, leave: trio.Event) -> None:
    settings = TableSettings("count", (), seats)
    async with host_table(listener, player("host"), settings, timeouts=FAST) as table:
        async for event in table.events:
            if isinstance(event, CodeShown):
                seen["host"] = (0, event.code, [s.name for s in table.core.seats])
                table.confirm()
            elif isinstance(event, Started):
                started.set()
                break
        await leave.wait()


@pytest.mark.trio
async def test_joiners_arriving_at_once_are_all_seated_without_a_refusal(
    memory_net, autojump_clock
) -> None:
    """Five joiners dial together (from one address, as a household behind one NAT)."""
    seen: dict[str, object] = {}
    lines: list[str] = []
    started, leave = trio.Event(), trio.Event()
    with trio.fail_after(WAIT):
        async with open_listener(0, "127.0.0.1", log=worded(lines)) as listener:
            address = f"127.0.0.1:{listener.address[1]}"
            async with trio.open_nursery() as nursery:
                nursery.start_soon(host, listener, 6, seen, started, leave)
                for i in range(1, 6):
                    nursery.start_soon(sit, address, f"p{i}", seen, leave)
                await started.wait()
                leave.set()
    assert not [line for line in lines if "refused" in line or "busy" in line], lines
    assert len({s[1] for s in seen.values()}) == 1  # one code everywhere
    (seating,) = {tuple(s[2]) for s in seen.values()}  # one seating everywhere
    assert seating[0] == "host" and sorted(seating[1:]) == [f"p{i}" for i in range(1, 6)]
    assert all(seating[me] == name for name, (me, _, _) in seen.items()), seen  # type: ignore[misc]


async def stalling_proxy(target: int, release: trio.Event, task_status=trio.TASK_STATUS_IGNORED):
    """Forward one loopback connection to `target`, but hold what the joiner sends until
    `release`: a handshake that completes only then."""
    (listener,) = await trio.open_tcp_listeners(0, host="127.0.0.1")
    task_status.started(listener.socket.getsockname()[1])
    client = await listener.accept()
    server = await trio.open_tcp_stream("127.0.0.1", target)

    async def pump(src, dst, hold: bool) -> None:
        if hold:
            await release.wait()
        try:
            while data := await src.receive_some(65536):
                await dst.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        await trio.aclose_forcefully(dst)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(pump, client, server, True)
        nursery.start_soon(pump, server, client, False)
    await listener.aclose()


async def refused(address: str, name: str) -> tuple[str, float]:
    """Dial a table that has no place for us: the host's words, and how long it took."""
    began = trio.current_time()
    with pytest.raises(ConnectionEnded) as info:
        async with join_table(address, player(name), timeouts=FAST):
            pass
    assert (info.value.reason, info.value.code) == (EndReason.PEER_CLOSED, "busy")
    return info.value.message, trio.current_time() - began


@pytest.mark.trio
async def test_slow_silent_and_garbled_connections_hold_no_seat_and_stall_nobody(
    memory_net, autojump_clock
) -> None:
    """Before two honest joiners arrive: a connection that says nothing, one that sends
    garbage and a joiner whose handshake stalls. The two are seated at once; the slow one,
    done after the table filled, and a latecomer after the start hear the truth, at once."""
    seen: dict[str, object] = {}
    lines: list[str] = []
    started, leave, release = trio.Event(), trio.Event(), trio.Event()
    words: dict[str, tuple[str, float]] = {}
    with trio.fail_after(WAIT):
        async with open_listener(0, "127.0.0.1", log=worded(lines)) as listener:
            port = listener.address[1]
            address = f"127.0.0.1:{port}"
            async with trio.open_nursery() as nursery:
                nursery.start_soon(host, listener, 3, seen, started, leave)
                nursery.start_soon(hostile, port, "127.0.0.1", "silent", leave, memory_net)
                nursery.start_soon(hostile, port, "127.0.0.1", "garbage", leave, memory_net)
                slow_port = await nursery.start(stalling_proxy, port, release)

                async def slow() -> None:
                    words["slow"] = await refused(f"127.0.0.1:{slow_port}", "slow")

                nursery.start_soon(slow)
                await trio.sleep(0.2)  # all three are in before the honest joiners
                nursery.start_soon(sit, address, "p1", seen, leave)
                nursery.start_soon(sit, address, "p2", seen, leave)
                with trio.fail_after(5):  # not the silent one's 20 s handshake timeout
                    await started.wait()
                release.set()
                words["late"] = await refused(address, "late")
                while "slow" not in words:
                    await trio.sleep(0.01)
                leave.set()
    (seating,) = {tuple(s[2]) for s in seen.values()}
    assert seating[0] == "host" and sorted(seating[1:]) == ["p1", "p2"]
    assert words["slow"][0].startswith("this table is full: its 3 seats are taken"), words
    assert words["late"][0] == "this table is full: its 3 seats are taken and its game has started"
    assert words["late"][1] < 2  # told at once, not dialled again for seconds
    assert any("no handshake" in line for line in lines), lines  # the garbage, closed
    assert not any("refused p" in line for line in lines), lines
