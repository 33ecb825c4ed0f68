"""Every rule variant from the lobby (issue 26): Cuttle's variant switches (v) and
L'Unisson's decks, for a practice game and for hosting."""

from __future__ import annotations

from cuttle_client.app import Settings, make_app
from cuttle_client.cuttle.table import TableScreen
from cuttle_client.cuttle.variants import VariantsScreen
from cuttle_client.unisson.table import UnissonTableScreen
from textual.pilot import Pilot

from tests.client.helpers import keys, run, screen_text, until


def lobby():
    return make_app(Settings(bot_delay=0, lan=False))


def test_cuttle_variants_are_chosen_in_the_lobby_and_played() -> None:
    async def body(pilot: Pilot) -> None:
        app = pilot.app
        assert "(v: variants)" in screen_text(app)
        await keys(pilot, "v")
        assert isinstance(app.screen, VariantsScreen)
        # joker (2nd), nine-frozen (3rd) and nine-to-deck (4th) do not go together
        await keys(pilot, "down", "space", "down", "space", "down", "space", "enter")
        assert "nine-frozen and nine-to-deck cannot be combined" in screen_text(app)
        assert "On: joker, nine-frozen, nine-to-deck" in screen_text(app)
        await keys(pilot, "space", "down", "down", "space", "enter")  # no 9-to-deck; fours
        assert not isinstance(app.screen, VariantsScreen)
        assert app.lobby.rules == "classic+joker+nine-frozen+random-fours"
        assert "+3 variants (v)" in screen_text(app)
        await keys(pilot, "v", "escape")  # Esc keeps them
        assert app.lobby.rules == "classic+joker+nine-frozen+random-fours"
        await keys(pilot, "question_mark")  # the help names them
        await until(pilot, lambda: "classic+joker+nine-frozen+random-fours" in screen_text(app))
        await keys(pilot, "escape", "p")
        await until(pilot, lambda: isinstance(app.screen, TableScreen))
        assert app.screen.controller.rules.name == "classic+joker+nine-frozen+random-fours"
        assert app.screen.controller.view.rules.joker

    run(lobby(), body)


def test_lunisson_decks_are_chosen_in_the_lobby() -> None:
    async def body(pilot: Pilot) -> None:
        app = pilot.app
        await keys(pilot, "g", "down", "enter")  # L'Unisson
        await until(pilot, lambda: app.lobby.game == "unisson")
        assert app.lobby.rules == "one-deck"
        app.screen.query_one("#decks").value = "two-decks"  # four players, two decks
        await pilot.pause()
        assert "a table for 4 players, two decks" in screen_text(app)
        await keys(pilot, "v")
        assert "L'Unisson has no variants" in screen_text(app)
        app.screen.query_one("#players").value = 5
        await pilot.pause()
        app.screen.query_one("#players").value = 3  # two decks stay chosen
        await pilot.pause()
        assert app.lobby.rules == "two-decks"
        await keys(pilot, "p")
        await until(pilot, lambda: isinstance(app.screen, UnissonTableScreen))
        c = app.screen.controller
        assert (c.players, c.decks) == (3, 2)

    run(lobby(), body)


def test_five_players_can_only_have_two_decks() -> None:
    async def body(pilot: Pilot) -> None:
        app = pilot.app
        await keys(pilot, "g", "down", "enter")
        await until(pilot, lambda: app.lobby.game == "unisson")
        app.screen.query_one("#players").value = 5
        await pilot.pause()
        assert app.lobby.rules == "two-decks"
        assert [v for _, v in app.lobby.rows["unisson"]._deck_options] == ["two-decks"]

    run(lobby(), body)
