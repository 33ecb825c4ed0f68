"""The terminal client against a headless peer in another process, over real TCP."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

from cuttle_client.app import NetworkLaunch, Settings, make_app
from cuttle_client.cuttle.table import TableScreen
from cuttle_client.modals import ConfirmScreen, GameOverScreen
from cuttle_client.network import ConnectScreen
from cuttle_protocol.play import NetPlan
from textual.pilot import Pilot

from cuttle_net.games.cuttle.rules import Rules
from cuttle_net.records.record import parse_record
from tests.client.helpers import (
    choose_any_option,
    keys,
    run,
    screen_text,
    seated,
    settle,
    until,
)
from tests.records.saved import records_in_play_order


async def play_to_the_end(pilot: Pilot, rng: random.Random) -> None:
    table = pilot.app.screen
    c = table.controller
    for _ in range(3000):
        await until(pilot, lambda: c.ending is not None or c.my_turn)
        if c.ending is not None:
            return
        await choose_any_option(pilot, table, rng)
    raise AssertionError("the game did not end")


def host_app(tmp_path: Path, rules: str = "classic"):
    """The client hosting on a free loopback port; the connect screen says which."""
    plan = NetPlan(
        "host",
        "ann",
        port=0,
        bind="127.0.0.1",
        config_dir=tmp_path / "ann",
    )
    launch = NetworkLaunch(plan, rules_token=Rules.parse(rules).name)
    return make_app(Settings(bot_delay=0, data_dir=tmp_path / "ann"), network=launch)


def headless_joiner(config: Path, port: int, games: int) -> subprocess.Popen[str]:
    """A bot named "bot" joining the host on ``port`` (its identity key in ``config``)."""
    return subprocess.Popen(
        [
            *(sys.executable, "-m", "cuttle_client", "join", f"127.0.0.1:{port}"),
            *("--bot", "random", "--games", str(games), "--name", "bot"),
            *("--config-dir", str(config), "--data-dir", str(config)),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_game_at_a_two_seat_table_in_the_client_against_a_headless_peer(
    tmp_path: Path,
) -> None:
    # `cuttle host` seats Cuttle at a 2-seat table: the code in its own dialog, the game, a
    # verified record on both sides (a rematch at a table comes with the table's rematch).
    app = host_app(tmp_path, "standard")
    rng = random.Random(5)
    peer: list[subprocess.Popen[str]] = []

    async def body(pilot: Pilot) -> None:
        assert isinstance(app.screen, ConnectScreen)
        await until(pilot, lambda: "waiting for 1 more player" in screen_text(app))
        port = re.search(r"\(port (\d+)\)", screen_text(app))[1]
        peer.append(headless_joiner(tmp_path / "bot", port, games=1))
        await until(
            pilot, lambda: isinstance(app.screen, ConfirmScreen) and app.screen.query("#no")
        )
        await keys(pilot, "y")
        await until(pilot, lambda: isinstance(app.screen, TableScreen))
        await until(pilot, lambda: "against bot · code" in screen_text(app))
        assert screen_text(app).splitlines()[0].rstrip().endswith(" · standard")
        assert re.search(r"code \d{3} \d{3}\b", screen_text(app))
        await play_to_the_end(pilot, rng)
        # The screen is pushed before its widgets are mounted: wait for the result itself.
        await until(
            pilot, lambda: isinstance(app.screen, GameOverScreen) and app.screen.query("#result")
        )
        over = str(app.screen.query_one("#result").render())
        assert "audit passed" in over and "record saved" in over
        assert "never shown" not in over  # the audit revealed the deal: all their hand
        await keys(pilot, "l")  # back to the lobby

    run(app, body)
    out, err = peer[0].communicate(timeout=60)
    assert peer[0].returncode == 0, out + err
    lines = [x for x in out.splitlines() if x.startswith("result:")]
    assert len(lines) == 1 and "audit passed" in lines[0]
    mine = records_in_play_order(tmp_path / "ann" / "games")
    theirs = records_in_play_order(tmp_path / "bot" / "games")
    assert len(mine) == len(theirs) == 1
    for a, b in zip(mine, theirs, strict=True):
        assert parse_record(a.read_text()).moves == parse_record(b.read_text()).moves


async def concede(pilot: Pilot) -> None:
    from cuttle_client.modals import ConfirmScreen

    await keys(pilot, "c")
    await until(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen))
    await keys(pilot, "y")
    await until(pilot, lambda: isinstance(pilot.app.screen, GameOverScreen))


def test_the_host_stops_offering_a_rematch_once_the_joiner_left(tmp_path: Path) -> None:
    app = host_app(tmp_path)
    peer: list[subprocess.Popen[str]] = []

    def rematch_offered() -> bool:
        return bool(app.screen.query("#rematch")) and app.screen.query_one("#rematch").display

    async def body(pilot: Pilot) -> None:
        await until(pilot, lambda: "waiting for 1 more player" in screen_text(app))
        port = int(re.search(r"\(port (\d+)\)", screen_text(app))[1])
        peer.append(headless_joiner(tmp_path / "bot", port, games=2))
        await seated(pilot)
        await concede(pilot)
        await until(pilot, rematch_offered)
        peer[0].terminate()  # the joiner quits while the host looks at the result
        await until(pilot, lambda: "The match is over: bot left" in screen_text(app))
        await until(pilot, lambda: not rematch_offered())
        assert "You 0–1 bot" in screen_text(app)
        await keys(pilot, "r")  # nothing to agree to: the result stays up
        assert isinstance(app.screen, GameOverScreen) and not rematch_offered()
        await keys(pilot, "l")

    try:
        run(app, body)
    finally:
        if peer:
            peer[0].kill()
            peer[0].communicate(timeout=60)


def headless_host(
    config: Path, games: int = 1, bot_delay: float = 0
) -> tuple[subprocess.Popen[str], int]:
    """A bot named "bot" hosting on a free loopback port (its identity key in ``config``)."""
    host = subprocess.Popen(
        [
            *(sys.executable, "-m", "cuttle_client", "host", "--port", "0", "--bind", "127.0.0.1"),
            *("--bot", "random", "--games", str(games), "--name", "bot", "--no-announce"),
            *("--bot-delay", str(bot_delay)),
            *("--config-dir", str(config), "--data-dir", str(config)),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert host.stdout is not None
    for line in host.stdout:
        found = re.search(r"\(port (\d+)\)", line)
        if found:
            return host, int(found[1])
    raise AssertionError("the host never said its port")


def join_app(tmp_path: Path, port: int):
    plan = NetPlan("join", "ann", address=f"127.0.0.1:{port}", config_dir=tmp_path / "ann")
    return make_app(Settings(bot_delay=0, data_dir=tmp_path / "ann"), network=NetworkLaunch(plan))


def test_the_joiner_is_asked_for_a_rematch_and_keeps_the_score(tmp_path: Path) -> None:
    host, port = headless_host(tmp_path / "bot", games=2)
    app = join_app(tmp_path, port)

    async def body(pilot: Pilot) -> None:
        await seated(pilot)
        c = app.screen.controller
        await concede(pilot)  # at once: no audit, their hand stays hidden
        await until(pilot, lambda: "bot proposes game 2: r to play it" in screen_text(app))
        over = screen_text(app)
        assert "Match: You 0–1 bot" in over
        assert "bot's hand:" in over and "never shown" in over
        await keys(pilot, "r")
        await until(pilot, lambda: c.ending is None and c.session is not None)
        # The new deal is done (the deck protocol) before a move is sent.
        # (and the seat has taken it in: until then a move is refused, "not dealt yet")
        await until(
            pilot, lambda: c.session.view is not None and not c.session.busy and not c.dealing
        )
        await concede(pilot)
        await until(pilot, lambda: "Match: You 0–2 bot" in screen_text(app))
        assert "proposes game" not in screen_text(app)  # two games were asked for
        await keys(pilot, "l")

    try:
        run(app, body)
    finally:
        host.communicate(timeout=60)


def test_a_move_made_while_the_rematch_is_dealt_is_refused_and_says_so(tmp_path: Path) -> None:
    host, port = headless_host(tmp_path / "bot", games=2, bot_delay=3)  # a slow bot
    app = join_app(tmp_path, port)

    def error() -> str:
        shown = app.screen.query_one("#error")
        return str(shown.render()) if shown.display else ""

    async def body(pilot: Pilot) -> None:
        await seated(pilot)
        c = app.screen.controller
        if c.my_turn:  # a draw first, so that the bot has a move to make
            await keys(pilot, "d")
            await until(pilot, lambda: c.log and not c.busy)
        # A concession while the bot waits to move: its move crosses the concession, and
        # stays unread when the game ends; the rematch is still asked for and agreed.
        await concede(pilot)
        await until(pilot, lambda: "bot proposes game 2" in screen_text(app), 60)
        # A draw at once, the new game not dealt yet: both keys in one go (keys() would let
        # the app settle between them, time enough for the deal to finish).
        await pilot.press("r", "d")
        await settle(pilot)
        refused = error()
        assert refused == "✗ draw: wait: the next game is not dealt yet", refused
        await until(pilot, lambda: c.session.view is not None and not c.dealing, 60)
        await pilot.pause()
        # Dealt: the refusal is still there to read (the bot takes 3 s to move), and the
        # draw was not played.
        assert error() == refused and c.view.turn == 1
        assert all(entry.seat != c.seat for entry in c.log)
        await concede(pilot)
        await keys(pilot, "l")

    try:
        run(app, body)
    finally:
        host.communicate(timeout=60)


def test_a_changed_key_is_warned_about_beside_the_table_code(tmp_path: Path) -> None:
    """A known player's key changed: the table's code dialog warns beside that seat; the
    new key is pinned only if the player confirms the code (SPEC 3.11)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cuttle_protocol.store import KnownPeers, Trust, load_or_create_identity

    known = KnownPeers(tmp_path / "ann")
    other = Ed25519PrivateKey.generate().public_key().public_bytes_raw()
    known.check("bot", other)  # "bot" was met before, with another key

    for answer in ("n", "y"):
        host, port = headless_host(tmp_path / "bot")
        app = join_app(tmp_path, port)

        async def body(pilot: Pilot, answer: str = answer, app=app) -> None:
            await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            await until(pilot, lambda: "an impostor?" in screen_text(app))
            assert "WARNING: bot's identity key CHANGED" in screen_text(app)
            await keys(pilot, answer)
            if answer == "n":
                await until(pilot, lambda: "your code differed" in screen_text(app))
                assert isinstance(app.screen, ConnectScreen)
                return
            await until(pilot, lambda: isinstance(app.screen, TableScreen))
            await concede(pilot)
            await keys(pilot, "l")

        try:
            run(app, body)
        finally:
            host.communicate(timeout=60)
        real = load_or_create_identity(tmp_path / "bot").public_key().public_bytes_raw()
        expected = Trust.CHANGED if answer == "n" else Trust.KNOWN
        assert KnownPeers(tmp_path / "ann").check("bot", real) is expected, answer


def test_the_table_says_when_the_connection_is_being_won_back() -> None:
    from cuttle_client.cuttle.network import CuttleTable
    from cuttle_protocol.shells import Reconnected, Reconnecting

    c = CuttleTable("ann")
    c._watch(Reconnecting("the peer closed the connection mid-frame"))
    assert c.trouble() == (
        "reconnecting to the host… (connection lost: the peer closed the connection mid-frame)"
    )
    # What is happening is said first: the status line shows about 50 columns at 80.
    assert c.trouble()[:50].startswith("reconnecting to the host…")
    c._watch(Reconnected())
    assert c.trouble() == ""


# -- the other player gone and not back within the reconnect window (SPEC 4.6)


def host_app_with_window(tmp_path: Path, window: float):
    from cuttle_protocol.play import GameSettings

    plan = NetPlan("host", "ann", port=0, bind="127.0.0.1", config_dir=tmp_path / "ann")
    settings = GameSettings(reconnect_window=window)
    return make_app(
        Settings(bot_delay=0, data_dir=tmp_path / "ann"), network=NetworkLaunch(plan, settings)
    )


def joiner_command(config: Path, port: int, *flags: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            *(sys.executable, "-m", "cuttle_client", "join", f"127.0.0.1:{port}"),
            *("--bot", "random", "--name", "bot", *flags),
            *("--config-dir", str(config), "--data-dir", str(config)),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


async def game_over(pilot: Pilot, app) -> str:
    """Wait for the game-over dialog and its result (mounted after the screen): its text,
    with white space folded."""
    await until(
        pilot, lambda: isinstance(app.screen, GameOverScreen) and app.screen.query("#result")
    )
    return " ".join(str(app.screen.query_one("#result").render()).split())


def ending_of(games: Path) -> dict[str, str]:
    (record,) = games.glob("*.cuttle")
    return parse_record(record.read_text()).tags


def test_the_connection_lost_on_your_turn_is_the_joiner_not_back_at_a_table(
    tmp_path: Path,
) -> None:
    """The joiner's connection is cut (a proxy, both ways) on the person's turn, and both
    wait for it in vain (the proxy holds the joiner's redials). At a table the seat whose
    connection is not back forfeits, whose turn it was (SPEC 4.6): the host's screen names
    the joiner, not the person who did not move; each side's record names the other, as
    each saw it (its own wait ran out)."""
    from tests.net.proxies import cutting_proxy

    app = host_app_with_window(tmp_path, 3)
    peer: list[subprocess.Popen[str]] = []

    async def body(pilot: Pilot) -> None:
        import trio

        await until(pilot, lambda: "waiting for 1 more player" in screen_text(app))
        port = int(re.search(r"\(port (\d+)\)", screen_text(app))[1])
        proxied: list[int] = []
        cut, never = trio.Event(), trio.Event()

        async def proxy() -> None:
            async with trio.open_nursery() as nursery:
                proxied.append(await nursery.start(cutting_proxy, port, None, cut, never))

        app.trio.start_task(proxy)
        await until(pilot, lambda: bool(proxied))
        peer.append(joiner_command(tmp_path / "bot", proxied[0], "--reconnect-window", "2"))
        await seated(pilot)
        c = app.screen.controller
        await until(pilot, lambda: c.my_turn and not c.session.busy)
        app.trio.run_sync_soon(cut.set)
        await until(pilot, lambda: bool(c.away) or c.ending is not None)  # the host waits
        over = await game_over(pilot, app)
        assert over.startswith(
            "The game stopped: bot's connection was lost and not back within 3 s: bot forfeits"
        ), over
        assert "record saved" in over and "took too long" not in over
        assert "Match: You 1–0 bot" in over, over  # a forfeit counts
        await keys(pilot, "l")

    try:
        run(app, body)
        out, err = peer[0].communicate(timeout=60)
    finally:
        if peer and peer[0].poll() is None:
            peer[0].kill()
            peer[0].communicate(timeout=60)
    mine, theirs = ending_of(tmp_path / "ann" / "games"), ending_of(tmp_path / "bot" / "games")
    assert peer[0].returncode == 1, out + err
    window = r'closed by seat (\d): left "connection lost and not back within (\d) s"'
    ours, bots = re.fullmatch(window, mine["Ending"]), re.fullmatch(window, theirs["Ending"])
    assert ours and bots, (mine, theirs)
    assert ours[1] != bots[1] and (ours[2], bots[2]) == ("3", "2")  # each names the other
    lost = r"bot wins: ann \(seat \d\) left the table: connection lost and not back within 2 s"
    assert re.search(lost, out), out


def test_the_other_player_gone_on_their_turn_forfeits_and_the_screen_says_why(
    tmp_path: Path,
) -> None:
    """The joining bot's process dies on its own turn (it waits 30 s before each move) and
    does not come back within the window: at a table the seat not back forfeits (SPEC
    4.6), and the host's screen says so."""
    app = host_app_with_window(tmp_path, 2)
    peer: list[subprocess.Popen[str]] = []

    async def body(pilot: Pilot) -> None:
        await until(pilot, lambda: "waiting for 1 more player" in screen_text(app))
        port = int(re.search(r"\(port (\d+)\)", screen_text(app))[1])
        peer.append(joiner_command(tmp_path / "bot", port, "--bot-delay", "30"))
        await seated(pilot)
        table = app.screen
        c = table.controller
        await until(pilot, lambda: table.is_mounted and table.query("#actions"))

        def theirs() -> bool:
            return c.session.waiting_for == (c.opponent, "move") and not c.busy

        def may_choose() -> bool:
            options = table.query_one("#actions").options
            return c.my_turn and any(not o.disabled for o in options)

        # Our move first if it is ours (a card, then its use: one choice at a time); the
        # bot waits 30 s before each move, so the next decision is then theirs.
        rng = random.Random(2)
        await until(pilot, lambda: theirs() or may_choose())
        while not theirs():
            await choose_any_option(pilot, table, rng)
            await until(pilot, lambda: theirs() or may_choose())
        peer[0].kill()
        over = await game_over(pilot, app)
        assert over.startswith(
            "The game stopped: bot's connection was lost and not back within 2 s: bot forfeits"
        ), over
        assert "Match: You 1–0 bot" in over, over  # a forfeit counts
        await keys(pilot, "l")

    try:
        run(app, body)
    finally:
        if peer:
            peer[0].kill()
            peer[0].communicate(timeout=60)
    tags = ending_of(tmp_path / "ann" / "games")
    ending = re.fullmatch(r'closed by seat (\d): left "connection lost and not back within 2 s"',
                          tags["Ending"])  # fmt: skip
    assert ending and tags["Result"] == str(1 - int(ending[1])), tags  # ann won
