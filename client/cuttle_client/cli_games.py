"""Each game's part of the ``cuttle`` command, found by the game's name: the game's client
folder holds it as ``commands.py`` (``cuttle/commands.py``, ``unisson/commands.py``).

The commands that start a game (``play``, ``rules``, ``arena``, ``host``) take ``--game``
and each game's own options from here, and hand the chosen game its part of the work: its
table from its options, its arena, and its rules oracle (its folder's ``oracle.py``).  None
of them names a game.  A game's part is imported when the parser is built; its engine only
when it runs.
"""

from __future__ import annotations

import argparse
import importlib
from typing import Protocol, cast

from cuttle_net.games import game_part
from cuttle_net.games.interface import game_module

from .gametitles import WORDS, game_title


class GameCommands(Protocol):
    """What a game's ``commands`` module holds (``cuttle/commands.py`` is an example)."""

    # Its table in ``--game``'s help ("two players", "3 to 6"), and its seats when the
    # command line names none.
    SEATS: str
    DEFAULT_PLAYERS: int
    MAX_PERFT_DEPTH: int  # the deepest ``cuttle rules perft`` it counts

    def add_options(self, p: argparse.ArgumentParser, command: str) -> None:
        """Add its own options to ``command`` (``play``, ``rules``, ``arena``, ``host``)."""

    def flags(self, command: str) -> tuple[str, ...]:
        """The options ``add_options`` adds to ``command`` (for another game's refusal)."""

    def given(self, args: argparse.Namespace, command: str) -> bool:
        """One of those options was given (another game refuses them)."""

    def table(self, args: argparse.Namespace, players: int) -> str:
        """The rules token of a table of ``players`` that its options ask for
        (``ValueError`` naming the rule that refuses it)."""

    def arena(self, args: argparse.Namespace) -> int:
        """``cuttle arena``: play the match and print a line a bot (``ValueError`` for a
        bad command line)."""

    def names_position(self, text: str) -> bool:
        """The position ``text`` says that it is this game's."""


def client_games() -> list[str]:
    """The games the client knows, the default first."""
    return list(WORDS)


def game_commands(name: str) -> GameCommands:
    """The command-line part of the game called ``name``."""
    module = importlib.import_module(f".{name}.commands", __package__)
    return cast(GameCommands, module)


def game_oracle(name: str, args: argparse.Namespace, text: str, seed: int | None) -> int:
    """``cuttle rules``: the game's oracle (its folder's ``oracle.py``, loaded only now)
    answers the question about the position ``text`` (``seed``: a fresh deal,
    ``start[:SEED]``); ``ValueError`` for bad input."""
    module = importlib.import_module(f".{name}.oracle", __package__)
    status: int = module.run(args, text, seed)
    return status


def bot_names() -> list[str]:
    """Every game's bots, each name once, weakest first."""
    names = (n for game in client_games() for n in game_part(game, "bots").BOTS)
    return list(dict.fromkeys(names))


def add_game_options(
    p: argparse.ArgumentParser, command: str, by_position: bool = False, seats: bool = False
) -> None:
    """``--game`` (by default the first game, or with ``by_position`` the game a position
    names: None until it is read), ``--players`` for every game with ``seats``, then each
    game's own options for ``command``."""
    games = client_games()
    tables = " or ".join(f"{g} ({game_commands(g).SEATS})" for g in games)
    also = ", or the game the position names" if by_position else ""
    p.add_argument(
        "--game",
        choices=games,
        default=None if by_position else games[0],
        help=f"the game: {tables}; default {games[0]}{also}",
    )
    if seats:
        p.add_argument("--players", type=int, metavar="N", help=_seats_help())
    for game in games:
        game_commands(game).add_options(p, command)


def _seats_help() -> str:
    """``--players`` where every game takes it (``cuttle host``): each game's seats."""
    parts = []
    for game in client_games():
        seats = game_module(game).seats
        if len(seats) == 1:
            parts.append(f"{game}: {seats[0]}")
        else:
            default = game_commands(game).DEFAULT_PLAYERS
            parts.append(f"{game}: {seats[0]} to {seats[-1]}, default {default}")
    return f"seats at the table, yours included ({'; '.join(parts)})"


def foreign_options(args: argparse.Namespace, game: str, command: str) -> str | None:
    """Why ``command`` refuses the options given: another game's (None if none is)."""
    for other in client_games():
        commands = game_commands(other)
        if other != game and commands.given(args, command):
            flags = commands.flags(command)
            verb = "is" if len(flags) == 1 else "are"
            return (
                f"{' and '.join(flags)} {verb} {game_title(other)}'s (--game {other}): "
                f"{game_title(game)} has none"
            )
    return None


__all__ = [
    "GameCommands",
    "add_game_options",
    "bot_names",
    "client_games",
    "foreign_options",
    "game_commands",
    "game_oracle",
]
