"""A table hosted from the lobby, on the port typed in its Host row, filled with bots from
the host's waiting screen (b adds one, v its level, x takes the last one back)."""

from __future__ import annotations

import random
from pathlib import Path

from cuttle_client.app import Settings, make_app
from cuttle_client.lobby import LobbyScreen
from cuttle_client.modals import GameOverScreen
from cuttle_client.network import ConnectScreen
from cuttle_client.unisson.network import NetworkTable
from textual.pilot import Pilot
from textual.widgets import Input

from cuttle_net.records.verify import Verdict, verify_text
from tests.client.helpers import keys, run, screen_text, until
from tests.client.test_unisson_network import play_to_the_end, table_shown


def lobby_app(tmp: Path) -> object:
    return make_app(Settings(bot_delay=0, data_dir=tmp, config_dir=tmp, lan=False, name="Ann"))


async def host_unisson(pilot: Pilot, players: int, port: str = "0") -> ConnectScreen:
    """From the lobby: L'Unisson for ``players``, hosted on ``port`` (0: any free one)."""
    app = pilot.app
    await keys(pilot, "g", "down", "enter")  # L'Unisson
    await until(pilot, lambda: app.lobby.game == "unisson")
    app.screen.query_one("#players").value = players
    app.screen.query_one("#port", Input).value = port
    await keys(pilot, "h")
    await until(pilot, lambda: isinstance(app.screen, ConnectScreen))
    await until(pilot, lambda: "Bots: b adds one (easy; v: level)" in screen_text(app))
    return app.screen


def seated_words(app: object) -> str:
    return " ".join(screen_text(app).split())  # (the lobby's line may wrap)


def test_a_table_of_three_hosted_from_the_lobby_is_filled_with_two_bots_and_played_out(
    tmp_path: Path,
) -> None:
    app = lobby_app(tmp_path)

    async def body(pilot: Pilot) -> None:
        await host_unisson(pilot, 3)
        assert "(port 4454)" not in screen_text(app)  # port 0: any free one
        await keys(pilot, "b")
        await until(pilot, lambda: "Ann, bot 1 (easy); waiting for 1 more" in seated_words(app))
        await keys(pilot, "v", "v", "v")  # easy, then medium, hard, and round to random
        await until(pilot, lambda: "b adds one (random;" in screen_text(app))  # (quick)
        await keys(pilot, "b")
        # Every other seat is a bot of ours: no code to compare, the game is dealt.
        table = await table_shown(pilot)
        c = table.controller
        assert isinstance(c, NetworkTable)
        assert set(c.names) == {"You", "bot 1 (easy)", "bot 2 (random)"}
        await play_to_the_end(pilot, table, random.Random(5))
        await until(pilot, lambda: isinstance(app.screen, GameOverScreen))
        await until(pilot, lambda: bool(app.screen.query("#result")))
        over = str(app.screen.query_one("#result").render())
        assert "audit passed" in over and "record saved: " in over, over
        await keys(pilot, "l")  # back to the lobby: the table ends, and the bots with it
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
        await until(pilot, lambda: c.bots is not None and not c.bots.bots)

    run(app, body)
    (record,) = (tmp_path / "games").glob("*.cuttle")
    assert verify_text(record.read_text()).verdict == Verdict.VALID
    assert "bot 2 (random)" in record.read_text()


def test_a_bot_removed_before_the_table_fills_frees_its_seat(tmp_path: Path) -> None:
    app = lobby_app(tmp_path)

    async def body(pilot: Pilot) -> None:
        screen = await host_unisson(pilot, 4)
        await keys(pilot, "b", "b")
        wanted = "Ann, bot 1 (easy), bot 2 (easy); waiting for 1 more"
        await until(pilot, lambda: wanted in seated_words(app))
        await keys(pilot, "x")  # the last one added goes
        await until(pilot, lambda: "Ann, bot 1 (easy); waiting for 2 more" in seated_words(app))
        bots = screen.controller.bots
        await until(pilot, lambda: [b.name for b in bots.bots] == ["bot 1"])
        await keys(pilot, "b")  # its name is free again
        wanted = "Ann, bot 1 (easy), bot 2 (easy); waiting for 1 more"
        await until(pilot, lambda: wanted in seated_words(app))
        assert isinstance(app.screen, ConnectScreen)  # still waiting for the last player
        # At 60×20 the keys are whole: the bots' line on its own row, b in the footer.
        await pilot.resize_terminal(60, 20)
        hint = "Bots: b adds one (easy; v: level), x removes the last"
        await until(pilot, lambda: screen_text(app).splitlines()[1].strip() == hint)
        assert "esc Cancel" in screen_text(app).splitlines()[-1]
        assert "b Add bot" in screen_text(app).splitlines()[-1]
        await keys(pilot, "escape")
        assert isinstance(app.screen, LobbyScreen)

    run(app, body)


def test_a_bad_port_is_refused_in_the_lobby_with_what_a_port_is(tmp_path: Path) -> None:
    app = lobby_app(tmp_path)

    async def body(pilot: Pilot) -> None:
        for bad in ("70000", "44a"):
            await keys(pilot, "o", *["backspace"] * 5, *bad, "enter")
            assert isinstance(app.screen, LobbyScreen)  # nothing hosted
            notice = str(app.screen.query_one("#notice").render())
            said = f"Not hosted: a port is a number, 1 to 65535 (0: any free port), not '{bad}'"
            assert notice == said
            assert app.screen.focused is app.screen.query_one("#port")  # to type it again
        await keys(pilot, "escape")  # out of the field: the lobby's keys again
        assert app.screen.focused is app.screen.query_one("#host")

    run(app, body)


def test_a_table_left_unfinished_is_offered_back_on_its_port_as_its_game(tmp_path: Path) -> None:
    """The lobby shows Cuttle; the table left on port 4999 was L'Unisson's for 3: h hosts
    that one there (its seat is L'Unisson's), not a new Cuttle table on 4454."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cuttle_protocol.store import TableHeader, host_table_path
    from cuttle_protocol.store.journal import _record
    from cuttle_protocol.store.seatjournal import _header_wire

    key = Ed25519PrivateKey.generate().public_key().public_bytes_raw()
    header = TableHeader(
        "host", "Ann", "unisson", ("one-deck",), 3, "one-deck", "", "::", 4999, key, bytes(32)
    )
    journal = host_table_path(tmp_path, 4999)
    journal.parent.mkdir(parents=True)
    journal.write_bytes(_record(_header_wire(header)))
    app = lobby_app(tmp_path)

    async def body(pilot: Pilot) -> None:
        await until(pilot, lambda: app.screen.query_one("#port", Input).value == "4999")
        assert app.lobby.game == "cuttle"
        await keys(pilot, "h")
        await until(pilot, lambda: isinstance(app.screen, ConnectScreen))
        assert "Hosting a table of 3: L'Unisson" in screen_text(app)
        # (its journal, written with another key than ours, is said and set aside)
        await until(pilot, lambda: "written with another identity key" in screen_text(app))

    run(app, body)


def test_a_port_in_use_typed_in_the_lobby_is_said_with_another_to_try(tmp_path: Path) -> None:
    import socket

    app = lobby_app(tmp_path)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))  # (the lobby's host listens on every address: this one too)
        taken.listen()
        port = taken.getsockname()[1]

        async def body(pilot: Pilot) -> None:
            await keys(pilot, "o", *["backspace"] * 5, *str(port), "enter")
            await until(pilot, lambda: "Cannot listen" in screen_text(app))
            text = " ".join(screen_text(app).split())
            assert f"Cannot listen on port {port}: Address already in use" in text
            assert f"on another port, {port + 1} say: in the lobby's Host row (o)" in text

        run(app, body)


def test_a_table_of_a_bot_and_a_person_still_asks_for_the_code_naming_the_bot(
    tmp_path: Path,
) -> None:
    """Only a table of our own bots has no code to compare: a person at it must compare."""
    import re

    from cuttle_client.modals import ConfirmScreen
    from textual.widgets import Static

    from tests.client.test_unisson_network import bot_joins

    app = lobby_app(tmp_path)
    games: dict = {}

    async def body(pilot: Pilot) -> None:
        await host_unisson(pilot, 3)
        await keys(pilot, "b")
        await until(pilot, lambda: "Ann, bot 1 (easy); waiting for 1 more" in seated_words(app))
        port = re.search(r"\(port (\d+)\)", screen_text(app))[1]  # type: ignore[index]
        where = f"127.0.0.1:{port}"
        app.trio.start_task(lambda: bot_joins(where, "Bob", tmp_path / "bob", games))
        asked = lambda: isinstance(app.screen, ConfirmScreen) and app.screen.query("#no")  # noqa: E731
        await until(pilot, asked)
        question = str(app.screen.query_one(Static).render())
        assert re.search(
            r"^seat 1: bot 1 \(easy\) \(key [0-9a-f:]+, new\) · your bot$", question, re.M
        )
        assert re.search(r"^seat 2: Bob \(key [0-9a-f:]+, new\)$", question, re.M), question
        await keys(pilot, "n")  # it differs: we leave, and Bob is told
        await until(pilot, lambda: "Bob" in games)

    run(app, body)


def test_a_bot_dials_the_host_where_it_listens_over_loopback_when_it_listens_everywhere() -> None:
    from cuttle_client.tablebots import dial_back

    assert dial_back("::", 5000) == "127.0.0.1:5000"  # (both versions: cuttle host's default)
    assert dial_back("0.0.0.0", 5000) == "127.0.0.1:5000"
    assert dial_back("127.0.0.2", 5000) == "127.0.0.2:5000"  # --bind: only there
    assert dial_back("::1", 5000) == "[::1]:5000"


def test_bots_take_only_the_seats_free_counting_those_on_their_way() -> None:
    """b pressed faster than bots sit (each is a connection, then a handshake) adds no bot
    beyond the free seats; x frees the place of the last one, seated or on its way."""
    import trio
    import trio.testing
    from cuttle_client.tablebots import TableBots
    from cuttle_protocol.shells import TableTimeouts
    from cuttle_protocol.table import Lobby, SeatInfo, TableSettings

    settings = TableSettings("unisson", ("one-deck",), 3)
    host = SeatInfo(0, "Ann", b"a" * 32)

    async def main() -> None:
        bots = TableBots("unisson", TableTimeouts(), 0.0, lambda: None)
        sitting: list[str] = []

        async def sits(bot, folder) -> None:  # (the connection, as slow as it likes)
            bot.key = bot.name.encode().ljust(32, b".")
            sitting.append(bot.name)
            await trio.sleep_forever()

        bots._play = sits  # type: ignore[method-assign]
        async with bots.running():
            assert not bots.can_add  # not listening yet
            bots.listening("::", 4999)
            bots.follow(Lobby(settings, (host,), 0))
            for _ in range(3):
                bots.add()
            await trio.testing.wait_all_tasks_blocked()
            assert sorted(sitting) == ["bot 1", "bot 2"] and not bots.can_add  # (any order)
            first = SeatInfo(1, "bot 1 (easy)", bots.bots[0].key)
            bots.follow(Lobby(settings, (host, first), 0))
            assert not bots.can_add  # bot 2 is on its way to the last seat
            bots.remove()  # bot 2, not yet seated
            await trio.testing.wait_all_tasks_blocked()
            assert [b.name for b in bots.bots] == ["bot 1"] and bots.can_add
            bots.next_level()
            bots.add()
            await trio.testing.wait_all_tasks_blocked()
            assert [(b.name, b.level) for b in bots.bots] == [
                ("bot 1", "easy"),
                ("bot 2", "medium"),
            ]
        assert not bots.can_add and not bots.can_remove  # the table is over: so are its bots

    trio.run(main)
