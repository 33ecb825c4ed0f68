"""The Cuttle table screen over the client's one table seat (``seat.TableSeat``): the
person's app hosts a 2-seat Cuttle table over real loopback sockets and a bot joins it in
the app's own trio run, as at a L'Unisson table."""

from __future__ import annotations

import random
import re
from dataclasses import replace
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cuttle_client.app import CuttleApp, NetworkLaunch, Settings, make_app
from cuttle_client.cuttle.network import CuttleTable
from cuttle_client.cuttle.table import TableScreen
from cuttle_client.modals import ConfirmScreen, GameOverScreen
from cuttle_client.network import ConnectScreen
from cuttle_client.progress import game_line
from cuttle_protocol.play import GameSettings, NetPlan, TableGame, play_at_table
from cuttle_protocol.shells import TableTimeouts, join_table
from cuttle_protocol.wire import LocalPlayer
from textual.pilot import Pilot
from textual.widgets import OptionList

from cuttle_net.games.cuttle.bots import make_bot
from cuttle_net.records.verify import Verdict, verify_text
from tests.client.helpers import choose_like, keys, run, screen_text, until
from tests.client.test_unisson_network import answer_the_code

FAST = TableTimeouts(reply=10.0, move=30.0, window=5.0)


def cuttle_host(tmp: Path, token: str = "standard", window: float = 5) -> CuttleApp:
    plan = NetPlan("host", "Ann", port=0, bind="127.0.0.1", config_dir=tmp / "ann")
    timeouts = GameSettings(move_timeout=30, reply_timeout=10, reconnect_window=window)
    launch = NetworkLaunch(plan, timeouts, players=2, rules_token=token)
    settings = Settings(bot_delay=0, data_dir=tmp / "ann", config_dir=tmp / "ann", lan=False)
    return make_app(settings, network=launch)


async def bot_joins(pilot: Pilot, tmp: Path, games: dict[str, TableGame], token: str) -> None:
    """Bob, a random bot, joins the Cuttle table the app hosts (in the app's trio run)."""
    app = pilot.app
    await until(pilot, lambda: "(port " in screen_text(app))
    port = re.search(r"\(port (\d+)\)", screen_text(app))[1]  # type: ignore[index]
    bot, rng = make_bot("random"), random.Random(2)

    async def bob() -> None:
        key = Ed25519PrivateKey.generate()
        me = LocalPlayer("Bob", key)
        async with join_table(f"127.0.0.1:{port}", me, timeouts=FAST) as table:
            games["Bob"] = await play_at_table(
                table, key, token, choose=lambda v: bot.choose(v, rng), data_dir=tmp / "bob"
            )

    app.trio.start_task(bob)  # type: ignore[attr-defined]


async def cuttle_table_shown(pilot: Pilot) -> TableScreen:
    app = pilot.app

    def shown() -> bool:
        screen = app.screen
        return isinstance(screen, TableScreen) and bool(screen.query("#actions"))

    await until(pilot, shown, 60)
    assert isinstance(app.screen, TableScreen)
    return app.screen


async def play_to_the_end(pilot: Pilot, table: TableScreen, rng: random.Random) -> None:
    """The person plays greedy moves by keys (a short game), Bob random ones."""
    c, bot = table.controller, make_bot("greedy")
    for _ in range(3000):
        await until(pilot, lambda: c.ending is not None or c.my_turn, 60)
        if c.ending is not None:
            return
        await choose_like(pilot, table, lambda view: bot.choose(view, rng))
    raise AssertionError("the game did not end")


@pytest.mark.slow  # a whole game by keys at a networked table
def test_a_person_hosts_cuttle_at_a_table_and_plays_to_a_verified_record(tmp_path: Path) -> None:
    app = cuttle_host(tmp_path)
    games: dict[str, TableGame] = {}

    async def body(pilot: Pilot) -> None:
        assert isinstance(app.screen, ConnectScreen)
        assert "Hosting a table of 2: Cuttle" in screen_text(app)
        await bot_joins(pilot, tmp_path, games, "standard")
        await answer_the_code(pilot, True)  # the table's code, in its own dialog
        table = await cuttle_table_shown(pilot)
        c = table.controller
        assert isinstance(c, CuttleTable)
        assert c.names[c.seat] == "You" and c.names[c.opponent] == "Bob"
        assert str(c.rules) == "standard"
        await play_to_the_end(pilot, table, random.Random(4))
        await until(
            pilot, lambda: isinstance(app.screen, GameOverScreen) and app.screen.query("#result")
        )
        over = str(app.screen.query_one("#result").render())
        assert "audit passed" in over and "record saved" in over, over
        await keys(pilot, "l")  # we leave: Bob need wait no more
        await until(pilot, lambda: "Bob" in games)

    run(app, body)
    assert games["Bob"].clean, game_line(games["Bob"])
    for who in ("ann", "bob"):
        (record,) = (tmp_path / who / "games").glob("*.cuttle")
        assert verify_text(record.read_text()).verdict == Verdict.VALID


def test_the_move_clock_and_the_bell_when_the_turn_comes(tmp_path: Path) -> None:
    app = cuttle_host(tmp_path)
    rung: list[int] = []
    app.bell = lambda: rung.append(1)  # type: ignore[method-assign]
    games: dict[str, TableGame] = {}

    async def body(pilot: Pilot) -> None:
        await bot_joins(pilot, tmp_path, games, "standard")
        await answer_the_code(pilot, True)
        table = await cuttle_table_shown(pilot)
        c = table.controller
        await until(pilot, lambda: c.my_turn, 60)
        assert rung, "no bell when the turn came"
        # The move timeout (30 s) counts down in the title while the move is ours.
        await until(pilot, lambda: re.search(r"^ ?\d+ s to move · ", screen_text(app)))
        left = int(re.search(r"(\d+) s to move", screen_text(app))[1])  # type: ignore[index]
        assert 0 < left <= 30, left
        assert c.move_clock is not None and c.move_clock[0] == c.seat
        # The clock's redraw each second leaves the highlight where the player's keys put it
        # (it went back to the first option: the next Down or Enter hit another one).
        actions = table.query_one("#actions", OptionList)
        await until(pilot, lambda: actions.highlighted is not None)
        await keys(pilot, "down")
        chosen = actions.highlighted
        assert chosen is not None and chosen > 0, chosen
        shown_left = lambda: re.search(r"(\d+) s to move", screen_text(app))  # noqa: E731
        await until(pilot, lambda: shown_left() and shown_left()[1] != str(left), 10)
        await pilot.pause()
        assert actions.highlighted == chosen

    run(app, body)


def test_no_bell_when_it_is_switched_off(tmp_path: Path) -> None:
    app = cuttle_host(tmp_path)
    app.settings = Settings(
        bot_delay=0, data_dir=tmp_path / "ann", config_dir=tmp_path / "ann", lan=False, bell=False
    )
    rung: list[int] = []
    app.bell = lambda: rung.append(1)  # type: ignore[method-assign]
    games: dict[str, TableGame] = {}

    async def body(pilot: Pilot) -> None:
        await bot_joins(pilot, tmp_path, games, "standard")
        await answer_the_code(pilot, True)
        c = (await cuttle_table_shown(pilot)).controller
        await until(pilot, lambda: c.my_turn, 60)
        assert not rung

    run(app, body)


def test_a_join_by_invitation_is_verified_with_no_code_to_compare(tmp_path: Path) -> None:
    """The host's key is the only other key at a 2-seat table, and the invitation named it:
    the joiner is not asked to compare the code, and its table says "verified"."""
    from cuttle_client.cli_table import Hosting, sit_at_table

    settings = Settings(bot_delay=0, data_dir=tmp_path / "ann", config_dir=tmp_path / "ann")
    app = make_app(replace(settings, lan=False))
    said: list[str] = []
    games: dict[str, TableGame] = {}
    bot, rng = make_bot("random"), random.Random(3)

    async def hal() -> None:
        games["Hal"] = await sit_at_table(
            "Hal",
            Hosting("cuttle", 2, "classic", 0, "127.0.0.1", False),
            config_dir=tmp_path / "hal",
            timeouts=FAST,
            say=said.append,
            choose=lambda v: bot.choose(v, rng),
            data_dir=tmp_path / "hal",
        )

    async def body(pilot: Pilot) -> None:
        app.trio.start_task(hal)  # type: ignore[attr-defined]
        await until(pilot, lambda: any(s.startswith("  cuttle join cuttle:") for s in said))
        invitation = next(s for s in said if s.startswith("  cuttle join cuttle:")).split()[2]
        plan = NetPlan("join", "Ann", address=invitation, config_dir=tmp_path / "ann")
        app.open_network(NetworkLaunch(plan, GameSettings(30, 10, 5)))
        table = await cuttle_table_shown(pilot)
        c = table.controller
        assert isinstance(c, CuttleTable) and c.verified
        # (the screen's text is empty while it is being composed on a loaded machine)
        await until(
            pilot, lambda: " · verified · code " in (screen_text(app) + "\n").split("\n")[0]
        )
        assert not any(isinstance(s, ConfirmScreen) for s in app.screen_stack)
        # Said once: the seat and the table's shell both said it, two lines the same.
        said_verified = [s for s in c.status if s.startswith("verified: the host proved the inv")]
        assert len(said_verified) == 1, c.status

    run(app, body)


def test_the_move_clock_reads_minutes_from_a_minute_on() -> None:
    from cuttle_client.seat import clock_text

    assert [clock_text(s) for s in (0, 59, 60, 596)] == ["0 s", "59 s", "1:00", "9:56"]


@pytest.mark.slow  # a whole game by keys at a networked table
def test_r_plays_a_second_cuttle_game_at_the_table_with_the_deal_passed_on(
    tmp_path: Path,
) -> None:
    """The match is every table seat's, the Cuttle seat's too (SPEC 3.15 *Another game*):
    r on the game-over panel proposes game 2, Bob agrees, the other player deals it (our
    game seat turns with the dealer), and both games' records verify."""
    from cuttle_protocol.play import TableMatch, play_match_at_table

    app = cuttle_host(tmp_path)
    matches: dict[str, TableMatch] = {}

    async def body(pilot: Pilot) -> None:
        await until(pilot, lambda: "(port " in screen_text(app))
        port = re.search(r"\(port (\d+)\)", screen_text(app))[1]  # type: ignore[index]
        bot, rng = make_bot("random"), random.Random(2)

        async def bob() -> None:
            key = Ed25519PrivateKey.generate()
            async with join_table(f"127.0.0.1:{port}", LocalPlayer("Bob", key), timeouts=FAST) as t:
                matches["Bob"] = await play_match_at_table(
                    t,
                    key,
                    "standard",
                    games=2,
                    choose=lambda v: bot.choose(v, rng),
                    data_dir=tmp_path / "bob",
                )

        app.trio.start_task(bob)  # type: ignore[attr-defined]
        await answer_the_code(pilot, True)
        table = await cuttle_table_shown(pilot)
        c = table.controller
        assert isinstance(c, CuttleTable)
        first = c.seat
        await play_to_the_end(pilot, table, random.Random(4))
        await until(pilot, lambda: isinstance(app.screen, GameOverScreen))
        assert c.can_rematch  # offered: the game ended cleanly
        before = c.view
        await pilot.press("r")  # we propose game 2; Bob agrees
        await until(pilot, lambda: c.view is not before and c.ending is None, 60)
        assert c.session is not None and c.session.header.number == 2
        assert c.seat == 1 - first and c.names[c.opponent] == "Bob"  # the deal passed on
        table = await cuttle_table_shown(pilot)
        await play_to_the_end(pilot, table, random.Random(5))
        await until(pilot, lambda: isinstance(app.screen, GameOverScreen))
        await keys(pilot, "l")  # we leave: Bob need wait no more
        await until(pilot, lambda: "Bob" in matches, 60)

    run(app, body)
    assert len(matches["Bob"].games) == 2 and matches["Bob"].clean
    for who in ("ann", "bob"):
        records = sorted((tmp_path / who / "games").glob("*.cuttle"))
        assert len(records) == 2
        assert all(verify_text(r.read_text()).verdict == Verdict.VALID for r in records)
