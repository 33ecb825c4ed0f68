"""A game survives a lost connection: both sides come back and pick up where they were."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from cuttle_protocol.netgame import GameFinished, Reconnected, Reconnecting, play_match
from cuttle_protocol.netplay import NetPlan, open_game_peer

from cuttle_net.games.cuttle.bots import GreedyBot, RandomBot
from cuttle_net.games.cuttle.rules import Rules
from cuttle_net.records.record import build_record
from cuttle_net.records.verify import Verdict, verify_text
from cuttle_net.session import MovePlayed


async def cutting_proxy(
    target: int, cut_after: int | None, cut_now: trio.Event, task_status=trio.TASK_STATUS_IGNORED
) -> None:
    """Forward loopback TCP to ``target``.  The first connection is cut, both ways, once
    ``cut_after`` bytes came back from the target (mid-frame, most likely) or when
    ``cut_now`` is set; later connections are left alone."""
    (listener,) = await trio.open_tcp_listeners(0, host="127.0.0.1")
    task_status.started(listener.socket.getsockname()[1])
    connections = 0

    async def handle(client: trio.SocketStream) -> None:
        nonlocal connections
        connections += 1
        first = connections == 1
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
    port: list[int] = []
    cut_now = trio.Event()

    def on_event(n: int):
        def record(event: object) -> None:
            events[n].append(event)
            moves = sum(isinstance(e, MovePlayed) for e in events[n])
            if n == 0 and cut_after is None and moves == 2:
                cut_now.set()  # after the second move: the cards are being played

        return record

    def say_port(line: str) -> None:
        if "(port " in line:
            port.append(int(line.split("(port ")[1].rstrip(")")))

    async def side(n: int, plan: NetPlan, bot, say) -> None:
        async with open_game_peer(plan, say) as conn:
            result = await play_match(
                conn.peer, conn.identity, reconnect=conn.reconnect, bot=bot, on_event=on_event(n)
            )
            sessions.append(result.games[-1])

    host = NetPlan(
        "host", "ann", port=0, bind="127.0.0.1", rules=Rules(), config_dir=tmp_path / "ann"
    )
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(side, 0, host, GreedyBot(), say_port)
            while not port:
                await trio.sleep(0.01)
            proxy_port = await nursery.start(cutting_proxy, port[0], cut_after, cut_now)
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
