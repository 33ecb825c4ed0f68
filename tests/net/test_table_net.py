"""Tables over the in-memory network on trio's mock clock (SPEC 3.15): seating, one code,
one order, the faults named the same way everywhere, a lost joiner won back. Tables of real
processes: test_table_headless.py (L'Unisson at 3 and 6 seats) and test_host_join.py."""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest
import trio
import trio.testing
from cuttle_protocol.shells import (
    NOT_BACK,
    ConnectionEnded,
    GuestShell,
    PeerSettings,
    Reconnected,
    Reconnecting,
    SeatAway,
    SeatBack,
    TableShell,
    TableTimeouts,
    connect,
    host_table,
    join_table,
    open_listener,
)
from cuttle_protocol.shells.table_shell import WATCH_INTERVAL
from cuttle_protocol.table import CodeShown, Delivered, Lobby, Started, TableEnded, TableSettings
from cuttle_protocol.wire import Post

from .count_game import play_count, player
from .hostile import leave_at_once
from .proxies import cutting_proxy as holding_proxy

# The real deadlines: on the mock clock (`autojump_clock`) a 60 s window costs no time.
FAST = TableTimeouts()
BOUND = 3 * 3600  # mock seconds: the bound on every in-process test (a hang is still caught)


async def run_table(
    seats: int,
    *,
    limit: int = 9,
    timeouts: TableTimeouts = FAST,
    stall_at: int | None = None,
) -> dict[str, str]:
    """Host and seats - 1 joiners in this process; each side's result line by name."""
    results: dict[str, str] = {}
    async with open_listener(0, "127.0.0.1") as listener:
        address = f"127.0.0.1:{listener.address[1]}"

        async def host() -> None:
            settings = TableSettings("count", (), seats)
            async with host_table(listener, player("p0"), settings, timeouts=timeouts) as t:
                results["p0"] = await play_count(t, limit, stall_at=stall_at)

        async def join(name: str, task_status=trio.TASK_STATUS_IGNORED) -> None:
            async with join_table(address, player(name), timeouts=timeouts) as t:
                task_status.started()  # seated
                results[name] = await play_count(t, limit, stall_at=stall_at)

        with trio.fail_after(BOUND):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(host)
                for i in range(1, seats):  # in this order: seats 1, 2, ...
                    await nursery.start(join, f"p{i}")
    return results


@pytest.mark.trio
@pytest.mark.parametrize("seats", [3, 6])
async def test_a_table_plays_to_the_end_with_one_result(
    seats: int, memory_net, autojump_clock
) -> None:
    results = await run_table(seats)
    assert len(results) == seats
    assert len(set(results.values())) == 1, results
    assert next(iter(results.values())).startswith("result: counted to 9, last seat")


@pytest.mark.trio
async def test_a_stalling_seat_is_named_by_everyone(memory_net, autojump_clock) -> None:
    results = await run_table(3, stall_at=4)
    (line,) = set(results.values())
    assert re.fullmatch(r"result: stopped: timeout by seat [0-2]", line), results


@pytest.mark.trio
async def test_a_driver_takes_the_events_already_in_without_a_task_switch_each(
    memory_net, autojump_clock
) -> None:
    # `each_event` (a game's driver): what one read made the table say is handled in one
    # step, and the driver's answers leave together.
    async with open_listener(0, "127.0.0.1") as listener:
        settings = TableSettings("count", (), 3)
        async with host_table(listener, player("p0"), settings, timeouts=FAST) as table:
            table.leave()  # the lobby shown as the table opened, then its end: both in
            events = table.each_event()
            with trio.testing.assert_no_checkpoints():
                got = [await events.__anext__(), await events.__anext__()]
            assert [type(e) for e in got] == [Lobby, TableEnded]


@pytest.mark.trio
async def test_lobby_shows_who_joined_and_one_code_for_all(memory_net, autojump_clock) -> None:
    lobbies: dict[str, list[Lobby]] = {}
    codes: dict[str, str] = {}
    async with open_listener(0, "127.0.0.1") as listener:
        address = f"127.0.0.1:{listener.address[1]}"

        async def watch(name: str, t) -> None:
            async for event in t.events:
                if isinstance(event, Lobby):
                    lobbies.setdefault(name, []).append(event)
                elif isinstance(event, CodeShown):
                    codes[name] = event.code
                    return

        async def host() -> None:
            async with host_table(listener, player("p0"), TableSettings("count", (), 3)) as t:
                await watch("p0", t)

        async def join(name: str) -> None:
            async with join_table(address, player(name)) as t:
                await watch(name, t)

        with trio.fail_after(BOUND):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(host)
                await trio.sleep(0.05)
                nursery.start_soon(join, "p1")
                while len(lobbies.get("p0", [])) < 2:  # p1 is seated: p2 comes second
                    await trio.sleep(0.01)
                nursery.start_soon(join, "p2")
    assert [len(e.players) for e in lobbies["p0"]] == [1, 2, 3]
    assert [[p.name for p in e.players] for e in lobbies["p1"]] == [
        ["p0", "p1"],
        ["p0", "p1", "p2"],
    ]
    assert lobbies["p2"][-1].you == 2
    assert len(set(codes.values())) == 1 and len(codes) == 3


async def cutting_proxy(target: int, cut: trio.Event, task_status=trio.TASK_STATUS_IGNORED):
    """Forward loopback connections to `target`; when `cut` is set, drop the first one."""
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    task_status.started(listeners[0].socket.getsockname()[1])
    first = True

    async def handle(client: trio.SocketStream) -> None:
        nonlocal first
        is_first, first = first, False
        server = await trio.open_tcp_stream("127.0.0.1", target)
        async with trio.open_nursery() as nursery:

            async def pump(src, dst) -> None:
                try:
                    while data := await src.receive_some(65536):
                        await dst.send_all(data)
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    pass
                nursery.cancel_scope.cancel()

            async def cutter() -> None:
                if is_first:
                    await cut.wait()
                    nursery.cancel_scope.cancel()
                else:
                    await trio.sleep_forever()

            nursery.start_soon(pump, client, server)
            nursery.start_soon(pump, server, client)
            nursery.start_soon(cutter)
        await trio.aclose_forcefully(client)
        await trio.aclose_forcefully(server)

    await trio.serve_listeners(handle, listeners)


@pytest.mark.trio
async def test_a_lost_joiner_comes_back_and_the_table_plays_on(memory_net, autojump_clock) -> None:
    results: dict[str, str] = {}
    cut = trio.Event()
    async with open_listener(0, "127.0.0.1") as listener, trio.open_nursery() as outer:
        port = await outer.start(cutting_proxy, listener.address[1], cut)
        direct = f"127.0.0.1:{listener.address[1]}"
        via_proxy = f"127.0.0.1:{port}"

        async def host() -> None:
            async with host_table(listener, player("p0"), TableSettings("count", (), 3)) as t:
                results["p0"] = await play_count(t, 30)

        async def join(name: str, address: str, task_status=trio.TASK_STATUS_IGNORED) -> None:
            async with join_table(address, player(name), timeouts=FAST) as t:
                task_status.started()  # seated: the next joiner comes after

                def cut_midway(event: object) -> None:
                    if name == "p2" and t.core.log is not None and len(t.core.log) >= 20:
                        cut.set()

                results[name] = await play_count(t, 30, watch=cut_midway)

        with trio.fail_after(BOUND):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(host)
                await trio.sleep(0.05)
                await nursery.start(join, "p1", direct)
                nursery.start_soon(join, "p2", via_proxy)  # redials through the proxy
        outer.cancel_scope.cancel()
    assert cut.is_set()
    assert len(set(results.values())) == 1 and len(results) == 3, results
    assert results["p0"].startswith("result: counted to 30")


async def count_with_a_cut(
    away: Callable[[TableShell, int], None],
    *,
    back: bool,
    host_told: list | None = None,
    host_told_at: list | None = None,
) -> tuple[dict, list]:
    """A 3-seat counting table (to 12) where p2 sits behind a proxy that cuts its connection
    as its third turn comes; its redials hang there until p2 acted on the loss (if `back`),
    or for good. `away(table, n)` is what p2 does, told that its connection is lost, with
    `n` the count it owes. Each side's result and what p2 was told (its events but
    `Delivered`, with the time); the host's events but `Delivered` go to `host_told`
    (and with the time to `host_told_at`)."""
    results: dict[str, object] = {}
    told: list[tuple[float, object]] = []
    cut, let_back = trio.Event(), trio.Event()
    async with open_listener(0, "127.0.0.1") as listener, trio.open_nursery() as outer:
        port = await outer.start(holding_proxy, listener.address[1], None, cut, let_back)

        async def host() -> None:
            settings = TableSettings("count", (), 3)

            def watch(event: object) -> None:
                if host_told is not None and not isinstance(event, Delivered):
                    host_told.append(event)
                if host_told_at is not None and not isinstance(event, Delivered):
                    host_told_at.append((trio.current_time(), event))

            async with host_table(listener, player("p0"), settings, timeouts=FAST) as t:
                results["p0"] = await play_count(t, 12, watch=watch)

        async def p1() -> None:
            where = f"127.0.0.1:{listener.address[1]}"
            async with join_table(where, player("p1"), timeouts=FAST) as t:
                results["p1"] = await play_count(t, 12)

        async def p2() -> None:
            state = {"n": 0, "next": -1, "turns": 0}

            def on_my_turn(t: TableShell) -> None:
                if state["next"] != t.core.me:
                    return
                state["turns"] += 1
                if state["turns"] == 3:
                    cut.set()  # the count is owed; the connection drops as p2 thinks
                else:
                    t.post({"t": "count", "n": state["n"] + 1})

            async with join_table(f"127.0.0.1:{port}", player("p2"), timeouts=FAST) as t:
                t.owes = lambda: (state["next"], True) if state["next"] >= 0 else None
                async for event in t.events:
                    if not isinstance(event, Delivered):
                        told.append((trio.current_time(), event))
                    if isinstance(event, CodeShown):
                        t.confirm()
                    elif isinstance(event, Started):
                        state["next"] = event.dealer
                        on_my_turn(t)
                    elif isinstance(event, Delivered):
                        state["n"], state["next"] = event.body["n"], (event.seat + 1) % 3
                        if state["n"] == 12:
                            results["p2"] = f"result: counted to 12, last seat {event.seat}"
                            break
                        on_my_turn(t)
                    elif isinstance(event, Reconnecting):
                        away(t, state["n"] + 1)
                    elif isinstance(event, TableEnded):
                        results["p2"] = event
                        break
            told.append((trio.current_time(), "closed"))  # the table is left

        with trio.fail_after(BOUND):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(host)
                await trio.sleep(0.05)
                nursery.start_soon(p1)
                await trio.sleep(0.2)
                nursery.start_soon(p2)
                if back:
                    nursery.start_soon(let_back_when, let_back, told)
        outer.cancel_scope.cancel()
    return results, told


async def let_back_when(let_back: trio.Event, told: list) -> None:
    """Once p2 was told of the loss (and acted on it), let its connection back."""
    while not any(isinstance(e, Reconnecting) for _, e in told):
        await trio.sleep(0.01)
    await trio.sleep(0.3)  # the redial hangs at the proxy meanwhile
    let_back.set()


@pytest.mark.trio
async def test_a_joiner_hears_its_connection_lost_and_back_and_its_count_meanwhile_is_played(
    memory_net, autojump_clock
):
    """p2's connection drops on its turn: it is told (`Reconnecting`, the table itself knows
    nothing of connections), counts while away, is told when it is back (`Reconnected`),
    and the count it made meanwhile is played: the table counts to the end."""
    results, told = await count_with_a_cut(lambda t, n: t.post({"t": "count", "n": n}), back=True)
    assert results["p0"] == results["p1"] == results["p2"], results
    assert results["p0"].startswith("result: counted to 12, last seat "), results
    kinds = [type(e) for _, e in told]
    assert kinds.count(Reconnecting) == kinds.count(Reconnected) == 1, kinds
    assert kinds.index(Started) < kinds.index(Reconnecting) < kinds.index(Reconnected)
    (lost,) = [e for _, e in told if isinstance(e, Reconnecting)]
    assert "closed the connection" in lost.why, lost


@pytest.mark.trio
async def test_the_host_hears_a_seat_lost_and_back(memory_net, autojump_clock) -> None:
    """The host is told, beside the table's events, that p2's connection is lost and waited
    for (`SeatAway`: the seat, why, the window), then that p2 is back (`SeatBack`), once."""
    host_told: list = []
    count = lambda t, n: t.post({"t": "count", "n": n})  # noqa: E731
    results, _ = await count_with_a_cut(count, back=True, host_told=host_told)
    assert results["p0"].startswith("result: counted to 12, last seat "), results
    kinds = [type(e) for e in host_told]
    assert kinds.count(SeatAway) == kinds.count(SeatBack) == 1, kinds
    assert kinds.index(Started) < kinds.index(SeatAway) < kinds.index(SeatBack)
    (away,) = [e for e in host_told if isinstance(e, SeatAway)]
    assert (away.seat, away.window) == (2, FAST.window), away
    assert "closed the connection" in away.why, away
    assert host_told[kinds.index(SeatBack)] == SeatBack(2)


@pytest.mark.trio
async def test_the_reconnect_window_is_kept_to_the_second_on_both_sides(
    memory_net, autojump_clock
) -> None:
    """p2's connection drops and its redials never get through: the host waits exactly its
    window (60 s) from the loss, then ends the table naming p2 `left`; p2 gives up on its
    own side at its window too, naming the host it could not reach."""
    host_told: list = []
    results, told = await count_with_a_cut(lambda t, n: None, back=False, host_told_at=host_told)
    ((away_at, away),) = [(at, e) for at, e in host_told if isinstance(e, SeatAway)]
    ((ended_at, ended),) = [(at, e) for at, e in host_told if isinstance(e, TableEnded)]
    assert (away.seat, away.window) == (2, FAST.window), away
    assert (ended.culprit, ended.kind) == (2, "left"), ended
    assert ended.detail == f"{NOT_BACK} {FAST.window:g} s", ended
    assert ended_at - away_at == pytest.approx(FAST.window, abs=2 * WATCH_INTERVAL)
    assert results["p0"] == results["p1"] == "result: stopped: left by seat 2"
    ((lost_at, _),) = [(at, e) for at, e in told if isinstance(e, Reconnecting)]
    ((gave_up_at, gave_up),) = [(at, e) for at, e in told if isinstance(e, TableEnded)]
    assert (gave_up.culprit, gave_up.kind) == (0, "left"), gave_up
    assert gave_up_at - lost_at == pytest.approx(FAST.window, abs=2 * WATCH_INTERVAL)


@pytest.mark.trio
async def test_a_joiner_leaving_while_its_connection_is_lost_leaves_at_once(
    memory_net, autojump_clock
) -> None:
    """p2 leaves while its connection to the host is being won back (and never comes back):
    its table ends at once as its own choice, without waiting for the host; the others learn
    it when the host's window for p2 runs out."""
    left: list[float] = []

    def leave(t: TableShell, n: int) -> None:
        left.append(trio.current_time())
        t.leave()

    host_told: list = []
    results, told = await count_with_a_cut(leave, back=False, host_told=host_told)
    ended = results["p2"]
    assert isinstance(ended, TableEnded) and (ended.culprit, ended.kind) == (2, "left"), ended
    closed = told[-1][0]
    assert closed - left[0] < 1.0  # not the 60 s window, nor the reply timeout
    assert results["p0"] == results["p1"] == "result: stopped: left by seat 2"
    # The host said p2 away, never back, and ended the table naming it, with why.
    kinds = [type(e) for e in host_told]
    assert SeatAway in kinds and SeatBack not in kinds, kinds
    assert kinds.index(SeatAway) < kinds.index(TableEnded), kinds
    end = host_told[kinds.index(TableEnded)]
    assert (end.culprit, end.kind) == (2, "left"), end
    assert end.detail == f"connection lost and not back within {FAST.window:g} s", end


@pytest.mark.trio
async def test_a_two_player_joiner_is_refused_by_a_table_host(memory_net, autojump_clock) -> None:
    async with open_listener(0, "127.0.0.1") as listener:
        address = f"127.0.0.1:{listener.address[1]}"

        async def host() -> None:
            async with host_table(listener, player("p0"), TableSettings("count", (), 3)):
                await trio.sleep_forever()

        with trio.fail_after(BOUND):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(host)
                await trio.sleep(0.05)
                with pytest.raises(ConnectionEnded) as info:
                    async with connect(address, player("old")) as peer:
                        await peer.receive()
                assert info.value.code == "rules-refused"
                nursery.cancel_scope.cancel()


@pytest.mark.trio
async def test_a_joiner_posting_garbage_is_named_for_everyone(memory_net, autojump_clock) -> None:
    """p2 signs a post over a log the host never showed it: not an entry anyone else could
    check, so the host drops its connection and names it as having left (SPEC 3.15)."""

    async def cheater(name: str) -> None:
        async with join_table(address[0], player(name), timeouts=FAST) as t:
            async for event in t.events:
                if isinstance(event, CodeShown):
                    link = t._link
                    post = t.core._posts[-1]
                    bad = Post(post.seen, bytes(32), post.vouch, post.body, post.sig)
                    link.queue_in.send_nowait(bad)
                elif type(event).__name__ == "TableEnded":
                    results[name] = f"result: stopped: {event.kind} by seat {event.culprit}"
                    return

    results: dict[str, str] = {}
    address: list[str] = []
    async with open_listener(0, "127.0.0.1") as listener:
        address.append(f"127.0.0.1:{listener.address[1]}")

        async def host() -> None:
            async with host_table(
                listener, player("p0"), TableSettings("count", (), 3), timeouts=FAST
            ) as t:
                results["p0"] = await play_count(t, 9)

        async def honest(name: str) -> None:
            async with join_table(address[0], player(name), timeouts=FAST) as t:
                results[name] = await play_count(t, 9)

        with trio.fail_after(BOUND):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(host)
                await trio.sleep(0.05)
                nursery.start_soon(honest, "p1")
                await trio.sleep(0.2)
                nursery.start_soon(cheater, "p2")
    assert results["p0"] == results["p1"] == "result: stopped: left by seat 2", results


async def table_with_a_deserter(seats: int, deserter: str, how: str) -> dict[str, str]:
    """Every seat counts; `deserter` leaves at its second turn: `leave` (says so) or
    `vanish` (its process is gone: the connection drops without a word)."""
    results: dict[str, str] = {}
    async with open_listener(0, "127.0.0.1") as listener:
        address = f"127.0.0.1:{listener.address[1]}"

        async def side(name: str) -> None:
            if name == "p0":
                settings = TableSettings("count", (), seats)
                context = host_table(listener, player(name), settings, timeouts=FAST)
            else:
                context = join_table(address, player(name), timeouts=FAST)
            with trio.CancelScope() as scope:
                async with context as t:
                    deserted = False

                    def desert(event: object) -> None:  # seen as each event comes
                        nonlocal deserted
                        log = t.core.log
                        if name != deserter or deserted or log is None:
                            return
                        if len(log) >= 3 * seats + 1 + seats:
                            deserted = True
                            if how == "leave":
                                t.leave("peer-quit", "bored")
                            else:
                                t._link.peer._stream.socket.close()  # no close, no goodbye
                                scope.cancel()

                    results[name] = await play_count(t, 10 * seats, watch=desert)

        with trio.fail_after(BOUND):
            async with trio.open_nursery() as nursery:
                for i in range(seats):
                    nursery.start_soon(side, f"p{i}")
                    await trio.sleep(0.05)
    return results


@pytest.mark.trio
# A seat that vanishes and is not back within the window did not come back: `left`, not a
# `timeout` (that names the seat owing the next step, which may be another one).
@pytest.mark.parametrize(("how", "kind"), [("leave", "left"), ("vanish", "left")])
async def test_a_deserter_is_named_the_same_way_by_everyone(
    how: str, kind: str, memory_net, autojump_clock
) -> None:
    results = await table_with_a_deserter(4, "p2", how)
    others = {name: line for name, line in results.items() if name != "p2"}
    assert set(others.values()) == {f"result: stopped: {kind} by seat 2"}, results


async def trust_at_code_time(players, stores) -> dict[str, dict]:
    """Seat `players` (with their known-peers stores) at a table: what each one's trust on
    first use said of the others when the code was shown."""
    trust: dict[str, dict] = {}
    async with open_listener(0, "127.0.0.1") as listener:
        address = f"127.0.0.1:{listener.address[1]}"

        async def watch(name: str, t) -> None:
            async for event in t.events:
                if isinstance(event, CodeShown):
                    trust[name] = dict(t.trust)
                    return

        async def host() -> None:
            settings = TableSettings("count", (), len(players))
            async with host_table(listener, players[0], settings, known_peers=stores[0]) as t:
                await watch("p0", t)

        async def join(i: int) -> None:
            async with join_table(address, players[i], known_peers=stores[i]) as t:
                await watch(f"p{i}", t)

        with trio.fail_after(BOUND):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(host)
                for i in range(1, len(players)):
                    await trio.sleep(0.1)
                    nursery.start_soon(join, i)
    return trust


@pytest.mark.trio
async def test_every_key_at_the_table_is_trusted_on_first_use(
    tmp_path: Path, memory_net, autojump_clock
) -> None:
    """Each player checks every other seat's key against its known peers: new the first
    time, known the next."""
    from cuttle_protocol.store import KnownPeers, Trust

    players = [player(f"p{i}") for i in range(3)]
    stores = [KnownPeers(tmp_path / f"p{i}") for i in range(3)]
    for store in stores:
        store.path.parent.mkdir(mode=0o700)
    seen = [await trust_at_code_time(players, stores) for _ in range(2)]
    keys = [p.identity.public_key().public_bytes_raw() for p in players]
    for i in range(3):
        others = {k for j, k in enumerate(keys) if j != i}
        assert seen[0][f"p{i}"] == dict.fromkeys(others, Trust.NEW)
        assert seen[1][f"p{i}"] == dict.fromkeys(others, Trust.KNOWN)


@pytest.mark.trio
async def test_a_close_crossing_the_hosts_relay_is_not_a_lost_connection(
    memory_net, autojump_clock
) -> None:
    """A joiner quits, saying why, just as the host relays a post to it: its ``close``
    arrived, then its reset, and the host's write fails on the reset. The host names it
    at once with what it said, not as a lost connection after the reconnect window."""
    window = 5.0
    timeouts = TableTimeouts(reply=2.0, move=2.0, window=window)
    shells: dict[str, tuple[object, trio.CancelScope]] = {}
    results: dict[str, str] = {}
    seen: list[object] = []
    gone_at: list[float] = []

    async def recorded(events):
        async for event in events:
            seen.append(event)
            yield event

    async with open_listener(0, "127.0.0.1") as listener:
        address = f"127.0.0.1:{listener.address[1]}"

        async def side(name: str) -> None:
            if name == "p0":
                settings = TableSettings("count", (), 3)
                context = host_table(listener, player(name), settings, timeouts=timeouts)
            else:
                context = join_table(address, player(name), timeouts=timeouts)
            with trio.CancelScope() as scope:
                async with context as t:
                    shells[name] = (t, scope)
                    if name == "p0":
                        post, posts = t.post, []

                        def post_as_p2_quits(body: dict) -> None:
                            posts.append(body)
                            if len(posts) == 2:  # relayed to p2 next, as it quits
                                deserter, its_scope = shells["p2"]
                                leave_at_once(deserter._link.peer, "bored")
                                its_scope.cancel()
                                gone_at.append(trio.current_time())
                            post(body)

                        t.post = post_as_p2_quits
                        t.events = recorded(t.events)
                    results[name] = await play_count(t, 30)

        with trio.fail_after(BOUND):
            async with trio.open_nursery() as nursery:
                for i in range(3):
                    nursery.start_soon(side, f"p{i}")
                    await trio.sleep(0.05)
    assert gone_at, "p2 never got to quit"
    assert results["p0"] == results["p1"] == "result: stopped: left by seat 2", results
    (verdict,) = [e for e in seen if isinstance(e, TableEnded)]
    assert "peer-quit" in verdict.detail and "bored" in verdict.detail, verdict


async def freezing_proxy(
    target: int, frozen: trio.Event, thawed: trio.Event, task_status=trio.TASK_STATUS_IGNORED
) -> None:
    """Forward loopback connections to `target`. While `frozen` is set and `thawed` is not,
    the first connection carries nothing either way, as if the joiner's process were
    stopped (its kernel still takes the bytes): what arrives meanwhile, an end of stream
    included, is delivered once thawed."""
    (listener,) = await trio.open_tcp_listeners(0, host="127.0.0.1")
    task_status.started(listener.socket.getsockname()[1])
    count = 0

    async def handle(joiner: trio.SocketStream) -> None:
        nonlocal count
        count += 1
        first = count == 1
        host = await trio.open_tcp_stream("127.0.0.1", target)

        async def pump(src: trio.SocketStream, dst: trio.SocketStream) -> None:
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                while data := await src.receive_some(65536):
                    if first and frozen.is_set():
                        await thawed.wait()
                    await dst.send_all(data)
            if first and frozen.is_set():
                await thawed.wait()
            nursery.cancel_scope.cancel()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(pump, joiner, host)
            nursery.start_soon(pump, host, joiner)
        await trio.aclose_forcefully(joiner)
        await trio.aclose_forcefully(host)

    await trio.serve_listeners(handle, [listener])


@pytest.mark.trio
async def test_a_joiner_frozen_past_the_hosts_keepalive_comes_back_and_the_game_goes_on(
    memory_net, autojump_clock
):
    """p2's process is as if stopped mid-game (SIGSTOP) for longer than the host's keepalive
    allows: the host gives up on the connection and waits for p2. Once running again, p2
    reads a lost connection (not a `close`, which it used to take for the host leaving, and
    ended its table while the host waited for it): it dials again, and the count goes on
    to the one result."""
    results: dict[str, str] = {}
    host_told: list[object] = []
    frozen, thawed = trio.Event(), trio.Event()
    timeouts = TableTimeouts(reply=2.0, move=10.0, window=10.0)
    quick_keepalive = PeerSettings(keepalive_interval=0.3, reply_timeout=0.5)
    never_pings = PeerSettings(keepalive_interval=3600.0)  # a stopped process sends nothing
    async with open_listener(0, "127.0.0.1") as listener, trio.open_nursery() as outer:
        port = await outer.start(freezing_proxy, listener.address[1], frozen, thawed)

        async def host() -> None:
            settings = TableSettings("count", (), 3)
            async with host_table(
                listener, player("p0"), settings, timeouts=timeouts, peer_settings=quick_keepalive
            ) as t:
                results["p0"] = await play_count(t, 30, watch=host_told.append)

        async def join(name: str, address: str, task_status=trio.TASK_STATUS_IGNORED) -> None:
            async with join_table(
                address, player(name), timeouts=timeouts, peer_settings=never_pings
            ) as t:
                task_status.started()  # seated: the next joiner comes after
                results[name] = await play_count(t, 30, watch=freeze_at(9))

        def freeze_at(n: int) -> Callable[[object], None]:
            def watch(event: object) -> None:
                if isinstance(event, Delivered) and event.body.get("n") == n:
                    frozen.set()

            return watch

        async def thaw_once_the_host_gave_up() -> None:
            while not any(isinstance(e, SeatAway) for e in host_told):
                await trio.sleep(0.01)
            await trio.sleep(0.2)  # the host's hang-up reaches the proxy
            thawed.set()

        with trio.fail_after(BOUND):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(host)
                nursery.start_soon(thaw_once_the_host_gave_up)
                await trio.sleep(0.05)
                await nursery.start(join, "p1", f"127.0.0.1:{listener.address[1]}")
                nursery.start_soon(join, "p2", f"127.0.0.1:{port}")
        outer.cancel_scope.cancel()
    assert len(set(results.values())) == 1 and len(results) == 3, results
    assert results["p0"].startswith("result: counted to 30"), results
    kinds = [type(e) for e in host_told]
    assert kinds.count(SeatAway) == kinds.count(SeatBack) == 1, kinds


@pytest.mark.trio
async def test_a_joiner_cancelled_mid_connection_keeps_no_dead_link(
    memory_net, autojump_clock
) -> None:
    """A joiner's run cancelled while connected (Ctrl+C, the seat's task stopped) leaves no
    link behind: a `leave` after it ends the table here at once rather than queue for a
    writer that is gone and wait for a relay that never comes."""
    async with open_listener(0, "127.0.0.1") as listener:
        address = f"127.0.0.1:{listener.address[1]}"
        with trio.fail_after(BOUND):
            async with trio.open_nursery() as outer:

                async def host() -> None:
                    settings = TableSettings("count", (), 3)
                    async with host_table(listener, player("p0"), settings) as t:
                        await t.ended.wait()

                outer.start_soon(host)
                shell = GuestShell(
                    address,
                    player("p1"),
                    FAST,
                    PeerSettings(),
                    None,
                    lambda rules: None,
                    lambda news: None,
                    os.urandom,
                )
                async with trio.open_nursery() as inner:
                    await inner.start(shell.run)  # seated in the lobby: connected
                    inner.cancel_scope.cancel()
                assert shell._link is None
                assert not shell.ended.is_set()
                shell.leave()
                assert shell.ended.is_set()  # ended here: the host was out of reach
                outer.cancel_scope.cancel()
