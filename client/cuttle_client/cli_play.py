"""``cuttle play``: a practice table against a bot; and ``cuttle`` alone: the lobby.

Textual is imported only when the app runs, so the command-line parser stays light.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from .cli_games import add_game_options, bot_names, foreign_options, game_commands

if TYPE_CHECKING:
    from cuttle_protocol.play import NetPlan

    from .app import NetworkLaunch, Practice
    from .watching import WatchLaunch


COMMANDS = ("play",)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "play",
        help="play against a bot in the terminal",
        description="Practise Cuttle against a bot (keys: ? at the table); with "
        "--game unisson, a L'Unisson table of --players seats, a bot in each but yours.",
    )
    p.add_argument(
        "--bot",
        choices=bot_names(),
        default="easy",  # the lobby's default, under the same name ("Easy bot", not "Greedy")
        help="the opponent (in L'Unisson, every other seat), weakest first: random; easy, "
        "also called greedy (one move ahead, the default); medium and hard (search)",
    )
    add_game_options(p, "play")
    p.add_argument("--seed", type=int, metavar="N", help="the deal (default: random)")
    add_display_options(p, argparse.SUPPRESS)  # also before the command: cuttle --ascii play
    add_name_option(p, argparse.SUPPRESS)  # also before the command: cuttle --name N play
    add_dir_options(p, argparse.SUPPRESS)


def add_display_options(
    p: argparse.ArgumentParser, default: object = False, *, bell: bool = True
) -> None:
    """``--ascii`` (and ``--no-bell`` where turns come): on ``cuttle`` itself, and with
    ``argparse.SUPPRESS`` on each command that shows cards, so that one given before the
    command is kept."""
    p.add_argument(
        "--ascii",
        action="store_true",
        default=default,
        help="suit letters instead of glyphs (also CUTTLE_ASCII=1); NO_COLOR is respected",
    )
    if not bell:  # a command with no turns to wait for
        return
    p.add_argument(
        "--no-bell",
        action="store_true",
        default=default,
        help="no terminal bell when your turn comes in a network game",
    )


def add_name_option(p: argparse.ArgumentParser, default: object = None) -> None:
    p.add_argument(
        "--name",
        default=default,
        help="your name, shown to the other player (kept for the next runs)",
    )


def add_dir_options(p: argparse.ArgumentParser, default: object = None) -> None:
    """``--config-dir`` and ``--data-dir``: on ``cuttle`` itself (the lobby), with
    ``default=None``, and on each command that reads or writes those files with
    ``argparse.SUPPRESS``, so that one given before the command is kept."""
    p.add_argument(
        "--config-dir",
        type=Path,
        default=default,
        metavar="DIR",
        help="your identity key, known players and name (default: the user's config folder)",
    )
    p.add_argument(
        "--data-dir",
        type=Path,
        default=default,
        metavar="DIR",
        help="game records and unfinished games (default: the user's data folder)",
    )


def run(args: argparse.Namespace) -> int:
    from cuttle_net.games import game_part

    from .app import Practice
    from .gametitles import game_title

    game = args.game
    bots = game_part(game, "bots").BOTS
    try:
        problem = foreign_options(args, game, "play")
        if problem:
            raise ValueError(problem)
        if args.bot not in bots:
            raise ValueError(f"{game_title(game)}'s bots are {', '.join(bots)}, not {args.bot}")
        commands = game_commands(game)
        players = getattr(args, "players", None)  # a game's option: not every game has it
        if players is None:
            players = commands.DEFAULT_PLAYERS
        token = commands.table(args, players)
    except ValueError as e:
        print(f"cuttle play: {e}")
        return 2
    return _run_app(args, Practice(args.bot, token, args.seed, game, players))


def run_lobby(args: argparse.Namespace) -> int:
    return _run_app(args, None)


def run_network(args: argparse.Namespace, plan: NetPlan, **table: object) -> int:
    """``cuttle host`` / ``cuttle join`` without ``--bot``: the table, over the network;
    ``table``: hosting a table, its ``game``, ``players`` and ``rules_token``."""
    from cuttle_protocol.play import GameSettings

    from .app import NetworkLaunch

    timeouts = GameSettings(
        move_timeout=args.move_timeout,
        reply_timeout=args.reply_timeout,
        reconnect_window=args.reconnect_window,
    )
    return _run_app(args, None, NetworkLaunch(plan, timeouts, **table))  # type: ignore[arg-type]


def run_watch(args: argparse.Namespace, launch: WatchLaunch) -> int:
    """``cuttle watch`` without ``--headless``: the table watched, in the terminal client."""
    return _run_app(args, None, watch=launch)


def _run_app(
    args: argparse.Namespace,
    practice: Practice | None,
    network: NetworkLaunch | None = None,
    learn: str | None = None,
    watch: WatchLaunch | None = None,
) -> int:
    from . import stopping
    from .app import Settings, make_app
    from .cardtext import ascii_wanted
    from .profile import name_problem, save_name

    config_dir = args.config_dir
    name = getattr(args, "name", None)
    if name is not None:
        problem = name_problem(name)
        if problem:
            print(f"cuttle: --name {name!r}: {problem}")
            return 2
        unkept = save_name(name, config_dir)
        if unkept:
            print(f"cuttle: --name {name!r} not kept for the next runs: {unkept}")
    settings = Settings(
        ascii=ascii_wanted(args.ascii),
        bell=not getattr(args, "no_bell", False),
        data_dir=args.data_dir,
        config_dir=config_dir,
        name=name,
    )
    app = make_app(settings, practice, network, learn, watch)
    stopping.run_app(app)
    if app.farewell:  # the game left or conceded, and how to take it back
        print(app.farewell)
    return app.command_status
