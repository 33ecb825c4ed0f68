"""A player whose connection died silently takes its seat back at once (SPEC 4.6, 3.15):
the host still holds the dead connection (its keepalive has not noticed), yet a new
connection with the same identity key that resumes replaces it at its table (Cuttle's
2-seat table included), and no message is lost or taken twice on the way."""

from __future__ import annotations

import math
import random
import re
import subprocess
from pathlib import Path

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cuttle_client.progress import game_line, told
from cuttle_protocol.play import TableGame, play_at_table
from cuttle_protocol.shells import (
    TABLE_CAPS,
    ConnectionEnded,
    PeerSettings,
    TableTimeouts,
    connect,
    host_table,
    join_table,
    open_listener,
)
from cuttle_protocol.table import TableSettings
from cuttle_protocol.wire import LocalPlayer, Resume

from cuttle_net.games.unisson.bots import make_bot
from cuttle_net.records.verify import Verdict, verify_text

from .count_game import on_log_length, play_count, player

# The real deadlines: the in-process tables run on the mock clock (`autojump_clock`).
FAST = TableTimeouts()
# The host's keepalive never fires within a test: only a takeover can end its old connection.
DEAF_HOST = PeerSettings(keepalive_interval=3600.0)
WAIT = 120  # seconds: each real-clock test's bound (only a failure waits it out)
BOUND = 3 * 3600  # mock seconds: each mock-clock test's bound (a hang is still caught)


class DeafProxy:
    """Forwards loopback connections to `target`. `silence()` kills the latest one the way a
    dropped NAT mapping does, seen from each end: the joiner's side is closed (it notices at
    once and dials again) while the host's side stays open and hears nothing more, so the
    host holds a dead connection. `events` says, in order, what happened."""

    def __init__(self, target: int, cut_after: int | None = None) -> None:
        self.target = target
        self.cut_after = cut_after  # silence the first connection after so many bytes back
        self.events: list[str] = []
        self._live: list[trio.Event] = []

    def silence(self) -> bool:
        """Kill the latest connection; False if it is dead already (its successor has not
        come yet)."""
        if self._live[-1].is_set():
            return False
        self.events.append(f"silenced {len(self._live)}")
        self._live[-1].set()
        return True

    async def run(self, task_status=trio.TASK_STATUS_IGNORED) -> None:
        (listener,) = await trio.open_tcp_listeners(0, host="127.0.0.1")
        task_status.started(listener.socket.getsockname()[1])
        await trio.serve_listeners(self._handle, [listener])

    async def _handle(self, client: trio.SocketStream) -> None:
        cut = trio.Event()
        self._live.append(cut)
        number = len(self._live)
        self.events.append(f"connection {number}")
        try:
            server = await trio.open_tcp_stream("127.0.0.1", self.target)
        except OSError:  # the host is gone (its game over): so is this connection
            await trio.aclose_forcefully(client)
            return
        async with trio.open_nursery() as nursery:

            async def pump(src: trio.SocketStream, dst: trio.SocketStream) -> None:
                back = 0
                try:
                    while data := await src.receive_some(65536):
                        if cut.is_set():
                            continue  # a dead link: nothing gets through any more
                        try:
                            await dst.send_all(data)
                        except (trio.BrokenResourceError, trio.ClosedResourceError):
                            if cut.is_set():  # cut while this write waited: dropped too
                                continue
                            raise
                        back += len(data) if src is server else 0
                        if number == 1 and back > (self.cut_after or math.inf):
                            self.silence()
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    pass
                if src is server:
                    self.events.append(f"host closed {number}")
                elif cut.is_set():
                    return  # the host's side stays open, silent
                nursery.cancel_scope.cancel()

            async def cutter() -> None:
                await cut.wait()
                await trio.aclose_forcefully(client)  # the joiner sees its connection end

            nursery.start_soon(pump, client, server)
            nursery.start_soon(pump, server, client)
            nursery.start_soon(cutter)
        await trio.aclose_forcefully(client)
        await trio.aclose_forcefully(server)


async def table_with_drops(drops: list[int], limit: int) -> tuple[dict[str, str], list, list]:
    """A 3-seat counting table where p2 sits behind a DeafProxy that is silenced when the
    log reaches each length in `drops`: the results, the host's log and the proxy's events."""
    results: dict[str, str] = {}
    lines: list[str] = []
    async with open_listener(0, "127.0.0.1") as listener, trio.open_nursery() as outer:
        proxy = DeafProxy(listener.address[1])
        port = await outer.start(proxy.run)

        async def host() -> None:
            settings = TableSettings("count", (), 3)
            async with host_table(
                listener,
                player("p0"),
                settings,
                timeouts=FAST,
                peer_settings=DEAF_HOST,
                log=told(lines.append),
            ) as t:
                results["p0"] = await play_count(t, limit)

        async def join(name: str, address: str, task_status=trio.TASK_STATUS_IGNORED) -> None:
            async with join_table(address, player(name), timeouts=FAST) as t:
                task_status.started()  # seated: the next joiner comes after
                if name == "p2":
                    on_log_length(t, drops, proxy.silence)
                results[name] = await play_count(t, limit)

        with trio.fail_after(BOUND):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(host)
                await trio.sleep(0.05)
                await nursery.start(join, "p1", f"127.0.0.1:{listener.address[1]}")
                nursery.start_soon(join, "p2", f"127.0.0.1:{port}")
        outer.cancel_scope.cancel()
    return results, lines, proxy.events


@pytest.mark.trio
async def test_a_joiner_back_on_a_new_connection_takes_over_its_seat_at_once(
    memory_net, autojump_clock
) -> None:
    """The host holds p2's dead connection (its keepalive is off): p2's comeback replaces it,
    and only then is the dead one closed; the game plays on to the one result."""
    results, lines, events = await table_with_drops([20], 30)
    assert len(results) == 3 and len(set(results.values())) == 1, results
    assert results["p0"].startswith("result: counted to 30"), results
    assert events[:3] == ["connection 1", "silenced 1", "connection 2"], events
    assert "host closed 1" in events  # by the takeover: the host never noticed it died
    assert any("took its seat over" in line for line in lines), lines
    assert not any("lost the connection" in line for line in lines), lines


@pytest.mark.trio
async def test_takeovers_racing_the_last_posts_lose_and_repeat_nothing(
    memory_net, autojump_clock
) -> None:
    """p2 is cut again and again in full play, its posts in flight each time: every post
    reaches the log exactly once (a post lost or taken twice stops the table with a fault)."""
    results, lines, _ = await table_with_drops([13, 17, 21, 25, 29], 40)
    assert len(set(results.values())) == 1, results
    assert results["p0"].startswith("result: counted to 40"), results
    assert sum("took its seat over" in line for line in lines) == 5, lines
    assert not any("lost the connection" in line for line in lines), lines


@pytest.mark.trio
async def test_an_instance_that_cannot_resume_is_refused_and_the_seat_stays(
    memory_net, autojump_clock
) -> None:
    """The same key joins again after the seating as a new joiner (a second `cuttle join`,
    which has no game to resume): the host waits for its `resume`, then tells it that it
    is there already; the seat stays with the first connection and the game is played."""
    results: dict[str, str] = {}
    twin = player("p2")
    refusal: list[ConnectionEnded] = []
    quick = TableTimeouts(reply=1.0, move=10.0, window=3.0)  # waits 1 s for the `resume`
    async with open_listener(0, "127.0.0.1") as listener:
        address = f"127.0.0.1:{listener.address[1]}"

        async def host() -> None:
            settings = TableSettings("count", (), 3)
            async with host_table(listener, player("p0"), settings, timeouts=quick) as t:
                results["p0"] = await play_count(t, 30)

        async def join(name: str, task_status=trio.TASK_STATUS_IGNORED) -> None:
            async with join_table(address, twin if name == "p2" else player(name)) as t:
                task_status.started()  # seated: the next joiner comes after
                if name == "p2":  # the code is out (every commit and reveal in): not a lobby
                    while t.core.log is None or len(t.core.log) < 7:
                        await trio.sleep(0.001)
                    with pytest.raises(ConnectionEnded) as info:
                        async with join_table(address, twin, timeouts=FAST):
                            pass
                    refusal.append(info.value)
                results[name] = await play_count(t, 30)  # confirms the code, then plays

        with trio.fail_after(BOUND):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(host)
                await trio.sleep(0.05)
                await nursery.start(join, "p1")
                nursery.start_soon(join, "p2")
    assert len(set(results.values())) == 1, results
    assert results["p0"].startswith("result: counted to 30"), results
    (ended,) = refusal
    assert (ended.code, ended.message) == (
        "busy",
        "you are at this table already, on another connection",
    )


@pytest.mark.trio
async def test_a_resume_of_another_game_number_is_refused_saying_so(
    memory_net, autojump_clock
) -> None:
    """At a table `resume.game` is always 0 (SPEC 3.15): a connection with a seated key that
    resumes "game 1" is closed with unexpected-message naming the number, and the seat
    stays with its own connection."""
    results: dict[str, str] = {}
    twin = player("p2")
    refusal: list[ConnectionEnded] = []
    async with open_listener(0, "127.0.0.1") as listener:
        address = f"127.0.0.1:{listener.address[1]}"

        async def host() -> None:
            settings = TableSettings("count", (), 3)
            async with host_table(listener, player("p0"), settings, timeouts=FAST) as t:
                results["p0"] = await play_count(t, 30)

        async def join(name: str, task_status=trio.TASK_STATUS_IGNORED) -> None:
            async with join_table(address, twin if name == "p2" else player(name)) as t:
                task_status.started()  # seated: the next joiner comes after
                if name == "p2":  # the code is out: not a lobby, so a takeover is tried
                    while t.core.log is None or len(t.core.log) < 7:
                        await trio.sleep(0.001)
                    async with connect(address, twin, caps=TABLE_CAPS) as peer:
                        await peer.send(Resume(1, 0))
                        with pytest.raises(ConnectionEnded) as info:
                            await peer.receive()
                    refusal.append(info.value)
                results[name] = await play_count(t, 30)

        with trio.fail_after(BOUND):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(host)
                await trio.sleep(0.05)
                await nursery.start(join, "p1")
                nursery.start_soon(join, "p2")
    assert len(set(results.values())) == 1, results
    assert results["p0"].startswith("result: counted to 30"), results
    (ended,) = refusal
    assert ended.code == "unexpected-message", ended
    assert ended.message.startswith("resume of game 1"), ended


@pytest.mark.trio
async def test_the_replaced_instance_stops_and_says_why_instead_of_dialling_again(
    memory_net, autojump_clock
) -> None:
    """Another connection with p2's key resumes while p2's own is alive: p2's is closed
    with `replaced`, and p2 stops there (the table ends for it, blaming no one) rather
    than dialling again and taking the seat back."""
    results: dict[str, str] = {}
    twin = player("p2")
    lines: list[str] = []
    got: list[object] = []
    hosted: list = []
    taken_over = trio.Event()
    hold = (60, taken_over)  # the count waits there for the takeover: it cannot end first
    timeouts = TableTimeouts(reply=FAST.reply, move=BOUND, window=FAST.window)
    async with open_listener(0, "127.0.0.1") as listener:
        address = f"127.0.0.1:{listener.address[1]}"

        async def host() -> None:
            settings = TableSettings("count", (), 3)
            async with host_table(
                listener, player("p0"), settings, timeouts=timeouts, log=told(lines.append)
            ) as t:
                hosted.append(t.core)
                results["p0"] = await play_count(t, 300, hold=hold)

        async def join(name: str, task_status=trio.TASK_STATUS_IGNORED) -> None:
            async with join_table(address, twin if name == "p2" else player(name)) as t:
                task_status.started()  # seated: the next joiner comes after
                if name == "p2":

                    async def other_instance() -> None:
                        while t.core.log is None or len(t.core.log) < 15:
                            await trio.sleep(0.001)
                        async with connect(address, twin, caps=TABLE_CAPS) as peer:
                            # Meanwhile p2 posts on: those posts count until the takeover.
                            await trio.sleep(0.3)
                            await peer.send(Resume(0, 0))  # it holds no entry yet
                            got.append(await peer.receive())
                            taken_over.set()
                            got.append(await peer.receive())  # entry 0, sent again
                            await t.done.wait()

                    nursery.start_soon(other_instance)
                results[name] = await play_count(t, 300, hold=hold)

        with trio.fail_after(BOUND):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(host)
                await trio.sleep(0.05)
                await nursery.start(join, "p1")
                nursery.start_soon(join, "p2")
    assert results["p2"] == "result: stopped: replaced by seat None", results
    # The host's `resume` counts exactly the posts of p2 in its log: none was taken from
    # the old connection after the takeover, and none before it is left out.
    log = hosted[0].log
    assert type(got[0]) is Resume and got[0].received == sum(e.seat == 2 for e in log.entries)
    assert got[0].received > 10, got  # p2 went on posting while the twin handshook
    assert type(got[1]).__name__ == "Entry" and got[1].n == 0, got
    assert sum("on a new connection" in line for line in lines) == 1, lines  # p2 stopped
    assert results["p0"] == "result: stopped: left by seat 2", results  # the twin quits


@pytest.mark.trio
async def test_a_unisson_table_resumed_by_takeovers_keeps_records_that_verify(
    tmp_path: Path, memory_net, autojump_clock
) -> None:
    """L'Unisson, p2 behind the deaf proxy, cut twice mid-game: every seat's record of the
    game (resumed by takeover) verifies, audit passed, and all agree."""
    games: dict[int, TableGame] = {}
    lines: list[str] = []
    async with open_listener(0, "127.0.0.1") as listener, trio.open_nursery() as outer:
        proxy = DeafProxy(listener.address[1])
        port = await outer.start(proxy.run)

        async def sit(seat: int, table, key) -> None:
            bot, rng = make_bot("greedy"), random.Random(seat)
            games[seat] = await play_at_table(
                table,
                key,
                "one-deck",
                data_dir=tmp_path / f"p{seat}",
                choose=lambda view: bot.choose(view, rng),
            )

        async def host() -> None:
            key = Ed25519PrivateKey.generate()
            settings = TableSettings("unisson", ("one-deck",), 3)
            async with host_table(
                listener,
                LocalPlayer("p0", key),
                settings,
                timeouts=FAST,
                peer_settings=DEAF_HOST,
                log=told(lines.append),
            ) as table:
                await sit(0, table, key)

        async def join(seat: int, address: str, task_status=trio.TASK_STATUS_IGNORED) -> None:
            key = Ed25519PrivateKey.generate()
            async with join_table(address, LocalPlayer(f"p{seat}", key), timeouts=FAST) as t:
                task_status.started()  # seated: the next joiner comes after
                if seat == 2:
                    on_log_length(t, [20, 40], proxy.silence)  # in the deal, then in play
                await sit(seat, t, key)

        with trio.fail_after(BOUND):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(host)
                await trio.sleep(0.05)
                await nursery.start(join, 1, f"127.0.0.1:{listener.address[1]}")
                nursery.start_soon(join, 2, f"127.0.0.1:{port}")
        outer.cancel_scope.cancel()
    assert sum("took its seat over" in line for line in lines) == 2, lines
    assert not any("lost the connection" in line for line in lines), lines
    results = {game_line(g) for g in games.values()}
    assert len(results) == 1 and results.pop().endswith("; audit passed"), games
    for game in games.values():
        assert game.record is not None
        assert verify_text(game.record.read_text()).verdict == Verdict.VALID


# --- real processes ----------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.trio
async def test_real_processes_a_joiner_back_takes_over_before_the_host_notices(
    tmp_path: Path,
) -> None:
    """`cuttle host` and `cuttle join` (bots), the joiner behind the deaf proxy, cut in the
    deal: the joiner notices and dials again, and the host, which never noticed the loss,
    lets it take the game over; both finish it and both records verify."""
    from .test_host_join import join_args
    from .test_hostile_host import Host, cuttle, verify_records

    host = Host(tmp_path)
    proxy = DeafProxy(host.port, cut_after=6_000)
    joiner_log = tmp_path / "joiner.log"
    with trio.fail_after(2 * WAIT):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(proxy.run)
            with joiner_log.open("w") as out:
                joiner = subprocess.Popen(
                    cuttle(*join_args(tmp_path, port, "--bot", "random")),
                    stdout=out,
                    stderr=subprocess.STDOUT,
                )
            joined = await trio.to_thread.run_sync(lambda: joiner.wait(2 * WAIT))
            code, text = await trio.to_thread.run_sync(host.finish)
            nursery.cancel_scope.cancel()
    out = joiner_log.read_text()
    assert joined == 0 and code == 0, out + text
    assert proxy.events[:3] == ["connection 1", "silenced 1", "connection 2"], proxy.events
    assert "lost the connection to the host" in out, out
    assert "the connection to the host is back" in out, out
    # The host never noticed the loss: the new connection took the seat over.
    assert re.search(r"bob \(seat \d\) took its seat over from its last connection", text), text
    assert "lost the connection" not in text, text
    assert "unfinished" not in out + text
    verify_records(host.dir, tmp_path / "b")


@pytest.mark.trio
async def test_the_hosts_own_key_and_a_stranger_take_nothing_over(
    memory_net, autojump_clock
) -> None:
    """Once the table is seated: a connection with the host's own key is refused by the
    handshake (`bad-key`, SPEC 3.6), one with a new key is told the table is full; the game
    is then played untouched."""
    results: dict[str, str] = {}
    me = player("p0")
    refused: list[ConnectionEnded] = []
    async with open_listener(0, "127.0.0.1") as listener:
        address = f"127.0.0.1:{listener.address[1]}"

        async def host() -> None:
            settings = TableSettings("count", (), 3)
            async with host_table(listener, me, settings, timeouts=FAST) as t:
                results["p0"] = await play_count(t, 30)

        async def join(name: str, task_status=trio.TASK_STATUS_IGNORED) -> None:
            async with join_table(address, player(name), timeouts=FAST) as t:
                task_status.started()  # seated: the next joiner comes after
                if name == "p2":  # the code is out: p2 confirms only after the intruders
                    while t.core.log is None or len(t.core.log) < 7:
                        await trio.sleep(0.001)
                    with pytest.raises(ConnectionEnded) as info:
                        async with connect(address, me, caps=TABLE_CAPS) as peer:
                            await peer.receive()
                    refused.append(info.value)
                    with pytest.raises(ConnectionEnded) as info:
                        async with join_table(address, player("p3"), timeouts=FAST):
                            pass
                    refused.append(info.value)
                results[name] = await play_count(t, 30)

        with trio.fail_after(BOUND):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(host)
                await trio.sleep(0.05)
                await nursery.start(join, "p1")
                nursery.start_soon(join, "p2")
    assert len(set(results.values())) == 1, results
    assert results["p0"].startswith("result: counted to 30"), results
    own, stranger = refused
    assert own.code == "bad-key" and own.message.startswith("the host shows your own identity key")
    assert (stranger.code, stranger.message) == (
        "busy",
        "this table is full: its 3 seats are taken",
    )


@pytest.mark.trio
async def test_in_the_lobby_a_new_instance_takes_the_place_over(memory_net, autojump_clock) -> None:
    """In the lobby there is nothing to resume: a second instance of p2 (its key) takes p2's
    place at once, the first one stops (`replaced`), and the table fills and plays."""
    results: dict[str, str] = {}
    twin = player("p2")
    places: dict[str, int] = {}
    async with open_listener(0, "127.0.0.1") as listener:
        address = f"127.0.0.1:{listener.address[1]}"

        async def host() -> None:
            settings = TableSettings("count", (), 4)
            async with host_table(listener, player("p0"), settings, timeouts=FAST) as t:
                results["p0"] = await play_count(t, 12)

        async def join(name: str, me) -> None:
            async with join_table(address, me, timeouts=FAST) as t:
                results[name] = await play_count(t, 12)
                places[name] = t.core.me

        with trio.fail_after(BOUND):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(host)
                await trio.sleep(0.05)
                nursery.start_soon(join, "p1", player("p1"))
                await trio.sleep(0.2)
                nursery.start_soon(join, "p2", twin)
                await trio.sleep(0.2)
                nursery.start_soon(join, "p2 again", twin)
                await trio.sleep(0.2)
                nursery.start_soon(join, "p3", player("p3"))
    assert results.pop("p2") == "result: stopped: replaced by seat None", results
    assert len(set(results.values())) == 1, results
    assert results["p0"].startswith("result: counted to 12"), results
    assert places == {"p1": 1, "p2": -1, "p2 again": 2, "p3": 3}, places  # p2: never seated
