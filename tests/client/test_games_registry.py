"""The client's game registry: one entry per game the core knows, and cards written the
same way in both games (issue 26: tens were T♦ in Cuttle and 10♦ in L'Unisson)."""

from __future__ import annotations

import importlib

import pytest
from cuttle_client.games import GAMES, game_ui
from textual.app import App, ComposeResult
from textual.pilot import Pilot

from cuttle_net.games import GAMES as CORE
from cuttle_net.games import game_part
from cuttle_net.games.cuttle.cards import parse_card
from cuttle_net.games.interface import game_module
from cuttle_net.games.unisson.cards import FACES, parse_face
from tests.client.helpers import run


def test_every_game_is_registered_under_its_module_name() -> None:
    for name, ui in GAMES.items():
        assert ui.name == name == game_module(name).name
    with pytest.raises(ValueError, match="cuttle, unisson"):
        game_ui("chess")


@pytest.mark.parametrize("name", list(GAMES))
def test_every_game_has_the_parts_the_registries_name(name: str) -> None:
    # docs/adding-a-game.md: the core package's bots and lessons, the client's lesson
    # controller and table seat, all found by the game's name.
    assert name in CORE
    ui = GAMES[name]
    bots = game_part(name, "bots")
    assert ui.default_bot in bots.BOTS and bots.make_bot(ui.default_bot) is not None
    course = game_part(name, "lessons").COURSE
    assert course.game == name and course.lessons
    assert ui.lesson_class()(0, bot_delay=0).course is course
    assert ui.seat_class() is not None
    # app.py opens a practice game and its table through the entry alone.
    from cuttle_client.tablehost import Practising

    seats = game_module(name).seats[0]
    practice = ui.new_practice(ui.default_bot, ui.default_rules, seats, 1, bot_delay=0)
    assert practice.game_name == name and isinstance(practice, Practising)
    assert game_module(name).parse_rules(ui.default_rules, seats) is not None


@pytest.mark.parametrize("name", list(GAMES))
def test_every_game_has_lobby_rows_choosing_a_table_it_seats(name: str) -> None:
    # The lobby reaches a game's rules rows through the entry alone (docs/adding-a-game.md);
    # untouched, they choose the table hosted with no rules chosen.
    rows = GAMES[name].new_lobby_rows()
    module = game_module(name)

    class Rows(App[None]):
        def compose(self) -> ComposeResult:
            yield from rows.game_row()
            yield from rows.host_row()

    async def body(pilot: Pilot) -> None:
        assert all(w.id for w in pilot.app.screen.children)  # the lobby sizes them by id
        rows.show()
        assert rows.token == GAMES[name].default_rules and rows.players in module.seats
        assert module.parse_rules(rows.token, rows.players).name == rows.token
        assert rows.host_what

    run(Rows(), body)


@pytest.mark.parametrize("text", ["TD", "10D", "10♦", "td"])
def test_a_ten_reads_and_shows_alike_in_both_games(text: str) -> None:
    cuttle, unisson = parse_card(text), parse_face(text)
    assert GAMES["cuttle"].card(cuttle, False) == GAMES["unisson"].card(unisson, False) == "10♦"
    assert GAMES["cuttle"].card(cuttle, True) == GAMES["unisson"].card(unisson, True) == "TD"
    # A second deck's copy is the same face.
    assert GAMES["unisson"].card(unisson + FACES, False) == "10♦"


@pytest.mark.parametrize(
    ("name", "token", "players", "words"),
    [("cuttle", "standard", 2, "standard"), ("unisson", "two-decks", 5, "two decks")],
)
def test_every_game_has_a_rules_screen_for_the_lobby(
    name: str, token: str, players: int, words: str
) -> None:
    screen = GAMES[name].rules_screen(token, players, False, "KEYS")
    text = screen.text()
    assert words in text and text.endswith("KEYS")


@pytest.mark.parametrize("name", list(GAMES))
def test_every_game_has_its_part_of_the_cuttle_command(name: str) -> None:
    # cli_games: `play`, `rules`, `arena` and `host` reach each game through its folder's
    # commands.py (its options, its table's rules token) and oracle.py, by the game's name.
    import argparse

    from cuttle_client.cli_games import client_games, game_commands

    assert name in client_games()
    commands = game_commands(name)
    seats = game_module(name).seats
    assert commands.DEFAULT_PLAYERS in seats
    for command in ("play", "rules", "random", "arena", "host"):
        p = argparse.ArgumentParser()
        commands.add_options(p, command)
        args = p.parse_args([])
        assert not commands.given(args, command), command
        flags = {f for a in p._actions for f in a.option_strings}
        assert set(commands.flags(command)) <= flags, command
    token = commands.table(args, commands.DEFAULT_PLAYERS)
    assert game_module(name).parse_rules(token, commands.DEFAULT_PLAYERS) is not None
    assert callable(importlib.import_module(f"cuttle_client.{name}.oracle").run)
