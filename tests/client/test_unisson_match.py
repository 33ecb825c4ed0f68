"""A match at a networked L'Unisson table on the person's screen (SPEC 3.15 *Another
game*): `r` on the game-over panel proposes the next game, the deal passes left, and the
panel and the title keep the match totals; a seat that leaves between games is named."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cuttle_client.app import CuttleApp
from cuttle_client.lobby import LobbyScreen
from cuttle_client.modals import GameOverScreen
from cuttle_client.played import PlayedScreen
from cuttle_client.unisson.network import NetworkTable
from cuttle_protocol.play import TableMatch, play_match_at_table
from cuttle_protocol.shells import join_table
from cuttle_protocol.wire import LocalPlayer
from textual.pilot import Pilot

from cuttle_net.records.verify import Verdict, verify_text
from tests.client.helpers import keys, run, screen_text, until
from tests.client.test_unisson_network import (
    FAST,
    answer_the_code,
    greedy,
    hosting,
    play_to_the_end,
    table_shown,
)


async def bot_plays_a_match(
    address: str, name: str, tmp: Path, matches: dict[str, TableMatch], games: int | None
) -> None:
    key = Ed25519PrivateKey.generate()
    async with join_table(address, LocalPlayer(name, key), timeouts=FAST) as table:
        matches[name] = await play_match_at_table(
            table, key, "one-deck", games=games, choose=greedy(len(name)), data_dir=tmp
        )


async def bots_join(pilot: Pilot, tmp: Path, matches: dict, games: dict[str, int | None]) -> None:
    app = pilot.app
    await until(pilot, lambda: "(port " in screen_text(app))
    port = re.search(r"\(port (\d+)\)", screen_text(app))[1]  # type: ignore[index]
    where = f"127.0.0.1:{port}"
    for name, n in games.items():
        app.trio.start_task(  # type: ignore[attr-defined]
            lambda name=name, n=n: bot_plays_a_match(where, name, tmp / name, matches, n)
        )


async def game_over(pilot: Pilot) -> str:
    app = pilot.app
    await until(pilot, lambda: isinstance(app.screen, GameOverScreen))
    await until(pilot, lambda: bool(app.screen.query("#result")))
    return str(app.screen.query_one("#result").render())


@pytest.mark.slow  # a whole game by keys at a networked table
def test_r_plays_the_next_game_with_the_deal_passed_on_and_the_totals_kept(
    tmp_path: Path,
) -> None:
    app: CuttleApp = hosting(tmp_path)
    matches: dict[str, TableMatch] = {}
    seen: dict[str, object] = {}

    async def body(pilot: Pilot) -> None:
        await bots_join(pilot, tmp_path, matches, {"Bob": 2, "Cy": 2})
        await answer_the_code(pilot, True)
        table = await table_shown(pilot)
        c = table.controller
        assert isinstance(c, NetworkTable)
        seen["dealer 1"] = c.view.dealer
        await play_to_the_end(pilot, table, random.Random(3))
        over = await game_over(pilot)
        assert "audit passed" in over and "match" in over, over
        assert app.screen.query_one("#rematch").display  # offered: the game ended cleanly
        first = list(c.games[0])
        before = c.view
        await keys(pilot, "r")  # the host proposes game 2; the bots agree
        await until(pilot, lambda: c.view is not before and c.ending is None)  # dealt
        assert c.session is not None and c.session.header.number == 2 and not c.between
        assert c.view.dealer == (seen["dealer 1"] + 1) % 3  # the deal passed left
        title = screen_text(app).splitlines()[0]
        assert "game 2 of the match" in title, title
        await play_to_the_end(pilot, table, random.Random(4))
        over = await game_over(pilot)
        assert len(c.games) == 2
        totals = [a + b for a, b in zip(first, c.games[1], strict=True)]
        assert c.match == totals
        rows = [x for x in over.splitlines() if re.fullmatch(r"(You|Bob|Cy) +(-?\d+ +){7}-?\d+", x)]
        assert [int(row.split()[-1]) for row in rows] == totals, over  # the match column
        # Bob and Cy wanted two games: asked for a third, they leave, and the panel says so.
        await keys(pilot, "r")
        await until(pilot, lambda: "The match is over: " in screen_text(app))
        assert re.search(
            r"The match is over: (Bob|Cy) left: no more games for me", screen_text(app)
        )
        assert not app.screen.query_one("#rematch").display
        await until(pilot, lambda: len(matches) == 2)
        await keys(pilot, "l")

    run(app, body)
    mine = sorted((tmp_path / "ann" / "games").glob("*.cuttle"))
    assert sorted(p.stem[-5:] for p in mine) == ["game1", "game2"]
    for record in mine:
        assert verify_text(record.read_text()).verdict == Verdict.VALID
    for match in matches.values():
        assert len(match.games) == 2 and match.clean
        assert match.totals is not None and match.totals.points == totals_of(match)


def totals_of(match: TableMatch) -> list[int]:
    scores = [g.session.outcome.scores for g in match.games]  # type: ignore[union-attr]
    return [sum(s[i] for s in scores) for i in range(3)]


@pytest.mark.slow  # a whole game by keys at a networked table
def test_a_joiner_sees_the_hosts_proposal_agrees_with_r_and_sees_the_match_end(
    tmp_path: Path,
) -> None:
    """The person joins; the host (a bot wanting two games) proposes the second at once:
    the panel says so, r agrees, and after the second game the host leaves: no more `r`."""
    from cuttle_client.app import Settings, make_app
    from cuttle_protocol.shells import host_table, open_listener
    from cuttle_protocol.table import TableSettings
    from textual.widgets import Input

    matches: dict[str, TableMatch] = {}
    where: dict[str, str] = {}

    async def host() -> None:
        key = Ed25519PrivateKey.generate()
        async with open_listener(0, "127.0.0.1") as listener:
            where["address"] = f"127.0.0.1:{listener.address[1]}"
            settings = TableSettings("unisson", ("one-deck",), 3)
            async with host_table(listener, LocalPlayer("Hal", key), settings, timeouts=FAST) as t:
                matches["Hal"] = await play_match_at_table(
                    t, key, "one-deck", games=2, choose=greedy(1), data_dir=tmp_path / "hal"
                )

    async def body(pilot: Pilot) -> None:
        app.trio.start_task(host)  # type: ignore[attr-defined]
        await until(pilot, lambda: "address" in where)
        field = app.lobby.query_one("#address", Input)
        field.value = where["address"]
        field.focus()
        await keys(pilot, "enter")  # join, from the lobby
        await until(pilot, lambda: "waiting for 1 more player" in screen_text(app))
        app.trio.start_task(  # type: ignore[attr-defined]
            lambda: bot_plays_a_match(where["address"], "Cy", tmp_path / "cy", matches, 2)
        )
        await answer_the_code(pilot, True)
        table = await table_shown(pilot)
        c = table.controller
        await play_to_the_end(pilot, table, random.Random(5))
        await until(pilot, lambda: "Hal proposes game 2: r to play it" in screen_text(app))
        assert app.screen.query_one("#rematch").display
        before = c.view
        await keys(pilot, "r")
        await until(pilot, lambda: c.view is not before and c.ending is None)  # game 2 dealt
        await play_to_the_end(pilot, table, random.Random(6))
        await until(pilot, lambda: "The match is over: Hal left" in screen_text(app))
        # who left and why, once (it read "Hal left: the game is over")
        assert "The match is over: Hal left: no more games." in screen_text(app)
        assert isinstance(app.screen, GameOverScreen)
        assert not app.screen.query_one("#rematch").display
        assert len(c.games) == 2 and "game 2 of the match" in screen_text(app).splitlines()[0]
        await until(pilot, lambda: len(matches) == 2)
        await keys(pilot, "l")
        # Back in the lobby, its keys work: the Join field had kept the focus, and took
        # `r` (the games played) as text.
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen))
        await keys(pilot, "r")
        assert isinstance(app.screen, PlayedScreen), app.screen_stack
        assert app.lobby.query_one("#address", Input).value == where["address"]

    files = tmp_path / "ann"
    app = make_app(Settings(bot_delay=0, data_dir=files, config_dir=files, lan=False, name="Ann"))
    run(app, body)
    assert len(list((files / "games").glob("*-game2.cuttle"))) == 1
    assert all(m.clean and len(m.games) == 2 for m in matches.values())
