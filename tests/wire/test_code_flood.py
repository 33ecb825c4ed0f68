"""Tries at the code from many addresses (127.0.0.x) hit the wait's budget (SPEC 3.11):
past it the host answers `busy` instead of its hello, and its player is told once. Over
the in-memory network on trio's mock clock (`tests/memnet.py`), at the real figures:
the refill is timed to the second, however loaded the machine."""

from __future__ import annotations

import pytest
import trio
from cuttle_protocol.shells import ConnectionEnded, ListenerLimits, open_listener
from cuttle_protocol.wire import Close, CodeAlarm, CodeLimits, Connection, Hello, Role
from cuttle_protocol.wire.codebudget import Alarm
from test_listener import join_and_move, raw_exchange, wait_for_player
from wire_helpers import player

from tests.memnet import MemoryNet
from tests.worded import worded

SLOW = 1e-6  # tries a second given back: none within a test


def commitment() -> bytes:
    """A joiner's first frame: the commitment to a fresh hello."""
    return Connection(Role.JOINER, player("rogue")).data_to_send()


async def flood(net: MemoryNet, port: int, sources: list[str]) -> list[object]:
    """One connection from each source at once, each committing to a hello and hanging up
    once answered; the first message each got (the host's hello, or a close)."""
    got: list[object] = []

    async def one(source: str) -> None:
        sent = await raw_exchange(port, commitment(), source=source, hang_up=True, net=net)
        got.append(sent[0])

    async with trio.open_nursery() as nursery:
        for source in sources:
            nursery.start_soon(one, source)
    return got


@pytest.mark.trio
async def test_a_flood_from_many_addresses_gets_the_bursts_hellos_and_then_busy(
    memory_net: MemoryNet, autojump_clock
) -> None:
    limits = ListenerLimits()  # the real budget: a burst of 6, then one every 2 s
    codes = limits.codes
    alarms: list[CodeAlarm] = []
    lines: list[str] = []
    sources = [f"127.0.0.{n}" for n in range(2, 14)]  # twelve addresses, one try each
    async with (
        open_listener(
            0, "127.0.0.1", limits=limits, log=worded(lines), alarm=alarms.append
        ) as listener,
        trio.open_nursery() as nursery,
    ):
        port = listener.address[1]
        nursery.start_soon(wait_for_player, listener)
        await trio.sleep(0.01)
        flooded = trio.current_time()
        got = await flood(memory_net, port, sources)
        # The player who dials now is turned away too: a denial of service, not a try.
        with pytest.raises(ConnectionEnded) as honest:
            await join_and_move(port)
        # One try comes back every 1 / per_second, not before.
        await trio.sleep_until(flooded + 0.9 / codes.per_second)
        early = await flood(memory_net, port, ["127.0.0.20"])
        await trio.sleep_until(flooded + 1.01 / codes.per_second)
        later = await flood(memory_net, port, ["127.0.0.21"])
        nursery.cancel_scope.cancel()
    hellos = [m for m in got if isinstance(m, Hello)]
    busy = [m for m in got if isinstance(m, Close) and m.code == "busy"]
    assert (len(hellos), len(busy)) == (codes.burst, len(sources) - codes.burst), got
    assert all(m.reason.startswith("too many tries at this game's code") for m in busy)
    assert honest.value.code == "busy" and "tries at this game's code" in honest.value.message
    assert isinstance(early[0], Close) and isinstance(later[0], Hello)
    assert listener.code_attempts == codes.burst + 1
    assert [(a.kind, a.tries) for a in alarms] == [(Alarm.SLOWED, codes.burst)]  # told once
    assert not any("too many tries" in line for line in lines)  # not once per refusal


@pytest.mark.trio
async def test_a_wait_has_its_tries_in_all_and_the_player_is_told(
    memory_net: MemoryNet, autojump_clock
) -> None:
    limits = ListenerLimits(codes=CodeLimits(burst=4, per_second=1000.0, per_wait=4))
    lines: list[str] = []
    async with (
        open_listener(0, "127.0.0.1", limits=limits, log=worded(lines)) as listener,
        trio.open_nursery() as nursery,
    ):
        nursery.start_soon(wait_for_player, listener)
        await trio.sleep(0.05)
        port = listener.address[1]
        got = [await flood(memory_net, port, [f"127.0.0.{n}"]) for n in range(2, 8)]
        nursery.cancel_scope.cancel()
    first = [m[0] for m in got]
    assert [type(m) for m in first] == [Hello] * 4 + [Close] * 2
    assert "all its tries: ask the host to host again" in first[-1].reason
    warnings = [line for line in lines if line.startswith("WARNING")]  # logged by default
    assert len(warnings) == 2 and "all its 4 tries" in warnings[-1]  # half, then spent
    assert "host again for a new code" in warnings[-1]


@pytest.mark.trio
async def test_each_wait_has_its_own_budget(memory_net: MemoryNet, autojump_clock) -> None:
    limits = ListenerLimits(codes=CodeLimits(burst=1, per_second=SLOW, per_wait=1))
    bob = player("bob")
    async with open_listener(0, "127.0.0.1", limits=limits) as listener:
        port = listener.address[1]
        for _ in range(2):  # two waits, one try each: the player gets in each time
            async with trio.open_nursery() as nursery:
                nursery.start_soon(wait_for_player, listener)
                await trio.sleep(0.05)
                await join_and_move(port, bob)
    assert listener.code_attempts == 1  # the last wait's one try: its own budget
