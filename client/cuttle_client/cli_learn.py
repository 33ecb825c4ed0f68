"""``cuttle learn``: the lessons, each a practice game from a real position teaching one
idea (Textual is imported only when the app runs)."""

from __future__ import annotations

import argparse

from cuttle_net.games import GAMES

from .cli_play import _run_app, add_dir_options, add_display_options, add_name_option

COMMANDS = ("learn",)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "learn",
        help="learn a game by playing short lessons",
        description="Short lessons, each on a real position: make the move, and the table "
        "says why it worked, or the rule when it did not. Cuttle's lessons come first, or "
        "L'Unisson's with --game unisson. Lessons finished are ticked (kept in the config "
        "folder).",
    )
    first, *_ = GAMES  # the registry's first game: Cuttle
    p.add_argument(
        "--game",
        choices=tuple(GAMES),
        default=first,
        help=f"whose lessons to start at: {', '.join(GAMES)} (default {first})",
    )
    add_display_options(p, argparse.SUPPRESS)  # also before the command: cuttle --ascii learn
    add_name_option(p, argparse.SUPPRESS)
    add_dir_options(p, argparse.SUPPRESS)


def run(args: argparse.Namespace) -> int:
    return _run_app(args, None, learn=args.game)
