"""A game survives a lost connection: both sides come back and pick up where they were."""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import trio
from cuttle_protocol.netgame import (
    LEAVE,
    GameFinished,
    GameSettings,
    GameStarted,
    Reconnected,
    Reconnecting,
    play_match,
)
from cuttle_protocol.netplay import NetPlan, open_game_peer
from cuttle_protocol.trio_peer import EndReason, Peer

from cuttle_net.games.cuttle.bots import GreedyBot, RandomBot
from cuttle_net.games.cuttle.rules import Rules
from cuttle_net.records.record import build_record
from cuttle_net.records.verify import Verdict, verify_text
from cuttle_net.session import Closed, MovePlayed

from .hostile import leave_at_once


async def hosted(
    nursery: trio.Nursery, tmp_path: Path, run: Callable[[NetPlan, Callable[[str], None]], Any]
) -> int:
    """Start ann hosting on loopback, ``run(plan, say)`` in ``nursery``: its port once it
    listens."""
    port: list[int] = []

    def say(line: str) -> None:
        if "(port " in line:
            port.append(int(line.split("(port ")[1].rstrip(")")))

    plan = NetPlan(
        "host", "ann", port=0, bind="127.0.0.1", rules=Rules(), config_dir=tmp_path / "ann"
    )
    nursery.start_soon(run, plan, say)
    while not port:
        await trio.sleep(0.01)
    return port[0]


async def cutting_proxy(
    target: int,
    cut_after: int | None,
    cut_now: trio.Event,
    let_back: trio.Event | None = None,
    task_status=trio.TASK_STATUS_IGNORED,
) -> None:
    """Forward loopback TCP to ``target``.  The first connection is cut, both ways, once
    ``cut_after`` bytes came back from the target (mid-frame, most likely) or when
    ``cut_now`` is set; later connections are left alone, but forwarded only once
    ``let_back`` is set (if given): until then they hang, as if the network were down."""
    (listener,) = await trio.open_tcp_listeners(0, host="127.0.0.1")
    task_status.started(listener.socket.getsockname()[1])
    connections = 0

    async def handle(client: trio.SocketStream) -> None:
        nonlocal connections
        connections += 1
        first = connections == 1
        if not first and let_back is not None:
            await let_back.wait()
        server = await trio.open_tcp_stream("127.0.0.1", target)
        async with trio.open_nursery() as nursery:

            async def pump(src: trio.SocketStream, dst: trio.SocketStream, limit: int | None):
                sent = 0
                try:
                    while data := await src.receive_some(4096):
                        if limit is not None and sent + len(data) > limit:
                            await dst.send_all(data[: limit - sent])
                            break  # the cut
                        sent += len(data)
                        await dst.send_all(data)
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    pass
                nursery.cancel_scope.cancel()

            async def cut_on_signal() -> None:
                await cut_now.wait()
                nursery.cancel_scope.cancel()

            nursery.start_soon(pump, client, server, None)
            nursery.start_soon(pump, server, client, cut_after if first else None)
            if first:
                nursery.start_soon(cut_on_signal)
        await trio.aclose_forcefully(client)
        await trio.aclose_forcefully(server)

    await trio.serve_listeners(handle, [listener])


@pytest.mark.trio
@pytest.mark.parametrize("cut_after", [5_000, None], ids=["during-the-deal", "during-play"])
async def test_a_lost_connection_is_won_back_and_the_game_finishes(
    tmp_path: Path, cut_after: int | None
) -> None:
    events: list[list[object]] = [[], []]
    sessions = []
    cut_now = trio.Event()

    def on_event(n: int):
        def record(event: object) -> None:
            events[n].append(event)
            moves = sum(isinstance(e, MovePlayed) for e in events[n])
            if n == 0 and cut_after is None and moves == 2:
                cut_now.set()  # after the second move: the cards are being played

        return record

    async def side(n: int, plan: NetPlan, bot, say) -> None:
        async with open_game_peer(plan, say) as conn:
            result = await play_match(
                conn.peer, conn.identity, reconnect=conn.reconnect, bot=bot, on_event=on_event(n)
            )
            sessions.append(result.games[-1])

    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            host_port = await hosted(
                nursery, tmp_path, lambda plan, say: side(0, plan, GreedyBot(), say)
            )
            proxy_port = await nursery.start(cutting_proxy, host_port, cut_after, cut_now)
            joiner = NetPlan(
                "join", "bob", address=f"127.0.0.1:{proxy_port}", config_dir=tmp_path / "bob"
            )
            await side(1, joiner, RandomBot(), lambda line: None)
            while len(sessions) < 2:
                await trio.sleep(0.01)
            nursery.cancel_scope.cancel()
    a, b = sessions
    for n in (0, 1):
        kinds = [type(e) for e in events[n]]
        assert Reconnecting in kinds and Reconnected in kinds, kinds
        finished = [e for e in events[n] if isinstance(e, GameFinished)]
        assert finished and finished[-1].ended is None
    assert a.fault is None and b.fault is None
    assert a.outcome == b.outcome is not None
    assert a.audit == b.audit is not None  # the whole deal still checks out after the cut
    assert [r.text for r in a.records] == [r.text for r in b.records]
    for session in sessions:  # the record of a resumed game proves itself like any other
        text = build_record(session, ("ann", "bob"), "2026-11-21T12:00:00Z")
        assert verify_text(text).verdict == Verdict.VALID


@pytest.mark.trio
@pytest.mark.parametrize("comes_back", [True, False], ids=["back", "never-back"])
@pytest.mark.parametrize("person", [0, 1], ids=["host", "joiner"])
async def test_a_move_made_while_the_connection_is_won_back_is_played(
    tmp_path: Path, person: int, comes_back: bool
) -> None:
    """A person (moves from ``intents``, as the terminal client sends them) makes a move
    while the lost connection is being won back: it is played at once and sent when the
    game goes on (it used to be dropped: the person could not move again and lost on time).
    If the other player never comes back, the other player owed the next step: the person
    did its part and is not the one who timed out."""
    cut_now, let_back, held = trio.Event(), trio.Event(), trio.Event()
    send, intents = trio.open_memory_channel(8)
    events: list[list[object]] = [[], []]
    sessions: dict[int, object] = {}
    decider, rng = GreedyBot(), random.Random(7)
    state = {"decided": -1, "moves": 0, "pending": None, "held": None}

    def on_event(n: int):
        def record(event: object) -> None:
            events[n].append(event)
            if n != person:
                return
            s = sessions.get(n)
            if isinstance(event, Reconnecting) and state["pending"] is not None:
                state["held"], state["pending"] = state["pending"], None
                send.send_nowait(state["held"])  # made while reconnecting
                held.set()
                return
            if s is None or not s.my_turn or len(s.played) == state["decided"]:
                return
            state["decided"] = len(s.played)
            move = decider.choose(s.view.copy(), rng)
            state["moves"] += 1
            if state["moves"] == 1 and not cut_now.is_set():  # a short game may have no 3rd
                state["pending"] = move  # the connection drops as the person decides
                cut_now.set()
            else:
                send.send_nowait(move)

        return record

    settings = GameSettings(move_timeout=15, reconnect_window=30 if comes_back else 3)

    async def side(n: int, plan: NetPlan, say) -> None:
        record = on_event(n)

        def watch(event: object) -> None:
            if hasattr(event, "session") and hasattr(event, "number"):
                sessions[n] = event.session
            record(event)

        async with open_game_peer(plan, say) as conn:
            result = await play_match(
                conn.peer,
                conn.identity,
                reconnect=conn.reconnect,
                bot=None if n == person else RandomBot(),
                intents=intents if n == person else None,
                on_event=watch,
                settings=settings,
            )
            sessions[n] = result.games[-1]
            sessions[f"done{n}"] = True

    async def let_back_after_the_move() -> None:
        await held.wait()
        await trio.sleep(0.3)  # the move reaches the link while it still waits
        if comes_back:
            let_back.set()

    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            host_port = await hosted(nursery, tmp_path, partial(side, 0))
            nursery.start_soon(let_back_after_the_move)
            proxy_port = await nursery.start(cutting_proxy, host_port, None, cut_now, let_back)
            joiner = NetPlan(
                "join", "bob", address=f"127.0.0.1:{proxy_port}", config_dir=tmp_path / "bob"
            )
            await side(1, joiner, lambda line: None)
            while "done0" not in sessions:
                await trio.sleep(0.01)
            nursery.cancel_scope.cancel()
    a, b = sessions[0], sessions[1]
    assert held.is_set(), "the connection was never cut at the person's turn"
    mine = [m for seat, m in sessions[person].played if seat == sessions[person].seat]
    if not comes_back:
        # Made and signed at once. A move whose deck step needs the other side (a draw, or
        # declining a one-off that draws or reveals) stays open and is not in `played`
        # yet: either way the other player owes the next step.
        s = sessions[person]
        signed = [r.text for r in s.records if r.seat == s.seat]
        assert s.module.move_text(state["held"]) in signed, (state["held"], signed)
        assert s.fault is not None and s.fault.kind == "timeout", s.fault
        assert s.fault.culprit != s.seat  # the other player owed the step
        return
    assert state["held"] in mine  # the move made during the wait was played
    assert a.fault is None and b.fault is None, (a.fault, b.fault)
    assert a.outcome == b.outcome is not None
    assert [r.text for r in a.records] == [r.text for r in b.records]
    for n in (0, 1):
        kinds = [type(e) for e in events[n]]
        assert Reconnecting in kinds and Reconnected in kinds, kinds


@pytest.mark.trio
@pytest.mark.parametrize("person", [0, 1], ids=["host", "joiner"])
async def test_leaving_while_the_connection_is_won_back_ends_the_wait_at_once(
    tmp_path: Path, person: int
) -> None:
    """The other side never comes back; our player leaves meanwhile: the wait ends at once
    (not when the reconnect window closes), and the game is kept to come back to."""
    cut_now, never = trio.Event(), trio.Event()
    send, intents = trio.open_memory_channel(8)
    results: dict[int, object] = {}
    left_at: list[float] = []

    def on_event(n: int):
        moves = [0]

        def record(event: object) -> None:
            if isinstance(event, MovePlayed):
                moves[0] += 1
                if moves[0] == 4:
                    cut_now.set()
            if n == person and isinstance(event, Reconnecting):
                left_at.append(trio.current_time())
                send.send_nowait(LEAVE)

        return record

    settings = GameSettings(reconnect_window=120)

    async def side(n: int, plan: NetPlan, say) -> None:
        async with open_game_peer(plan, say) as conn:
            results[n] = await play_match(
                conn.peer,
                conn.identity,
                reconnect=conn.reconnect,
                bot=RandomBot(),  # it plays; LEAVE still comes through the intents
                intents=intents if n == person else None,
                on_event=on_event(n),
                settings=settings,
            )

    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            host_port = await hosted(nursery, tmp_path, partial(side, 0))
            proxy_port = await nursery.start(cutting_proxy, host_port, None, cut_now, never)
            joiner = NetPlan(
                "join", "bob", address=f"127.0.0.1:{proxy_port}", config_dir=tmp_path / "bob"
            )
            nursery.start_soon(side, 1, joiner, lambda line: None)
            while person not in results:
                await trio.sleep(0.01)
            done = trio.current_time()
            nursery.cancel_scope.cancel()
    assert left_at and done - left_at[0] < 30  # at once: not after the 120 s window
    ended = results[person].ended
    assert ended is not None and ended.reason is EndReason.LOCAL_CLOSED and ended.code == "away"


@pytest.mark.trio
async def test_a_close_crossing_our_move_is_not_a_lost_connection(tmp_path: Path) -> None:
    """The other player quits, saying why, just as our move goes out: its ``close``
    arrived, then its reset, and our write fails on the reset. The game ends with what
    it said, at once (SPEC 3.9, 4.4): not as a lost connection, waited for over the
    reconnect window and then recorded as a timeout of whoever owed the next step."""
    window = 5.0
    joiner_peer: list[Peer] = []
    events: list[object] = []
    results: dict[int, object] = {}
    left_at: list[float] = []

    def on_host_event(event: object) -> None:
        events.append(event)
        seat = next(e.session.seat for e in events if isinstance(e, GameStarted))
        ours = [e for e in events if isinstance(e, MovePlayed) and e.seat == seat]
        if isinstance(event, MovePlayed) and len(ours) == 3 and not left_at:
            left_at.append(trio.current_time())  # our third move, about to be sent
            leave_at_once(joiner_peer[0], "dinner is ready")

    async def side(n: int, plan: NetPlan, say) -> None:
        async with open_game_peer(plan, say) as conn:
            if n == 1:
                joiner_peer.append(conn.peer)
            results[n] = await play_match(
                conn.peer,
                conn.identity,
                reconnect=conn.reconnect if n == 0 else None,
                bot=GreedyBot() if n == 0 else RandomBot(),
                on_event=on_host_event if n == 0 else lambda event: None,
                settings=GameSettings(reconnect_window=window),
            )

    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            host_port = await hosted(nursery, tmp_path, partial(side, 0))
            joiner = NetPlan(
                "join", "bob", address=f"127.0.0.1:{host_port}", config_dir=tmp_path / "bob"
            )
            nursery.start_soon(side, 1, joiner, lambda line: None)
            while 0 not in results:
                await trio.sleep(0.01)
            done = trio.current_time()
            nursery.cancel_scope.cancel()
    assert left_at, "the joiner never got to leave"
    session = results[0].games[-1]
    assert session.fault is None, session.fault
    assert session.closed == Closed(1 - session.seat, "peer-quit", "dinner is ready")
    assert not any(isinstance(e, Reconnecting) for e in events)
    assert done - left_at[0] < window
