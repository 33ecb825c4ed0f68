"""``cuttle arena``: bots play a match; one line of results per bot.

Cuttle: two bots.  L'Unisson (``--game unisson``): 3 to 6 bots, one a seat.
"""

from __future__ import annotations

import argparse
import sys

from .cli_games import add_game_options, bot_names, foreign_options, game_commands

COMMANDS = ("arena",)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "arena",
        help="play bots against each other and print their results",
        description="Play N games between two bots, seats alternating (each deal is played "
        "twice, once from each seat), and print one line per bot: wins, draws, win rate "
        "with a 95% interval, and the CPU time of its decisions (median, p95; decisions "
        "with a single legal move are not counted). With --game unisson, name 3 to 6 bots, "
        "one a seat: each deal is played once per rotation of the seats, and each line "
        "gives wins (shared wins counted, and said), the win rate, the mean score. "
        "Results depend only on the seed.",
    )
    p.add_argument(
        "bots",
        nargs="+",
        metavar="BOT",
        help=f"the bots, one a seat ({', '.join(bot_names())})",
    )
    p.add_argument("--games", type=int, default=100, metavar="N", help="games (default 100)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="the match seed")
    p.add_argument("--jobs", type=int, default=1, metavar="J", help="processes to play in")
    add_game_options(p, "arena")


def _fail(text: str) -> int:
    print(f"cuttle arena: {text}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    if args.games < 1 or args.jobs < 1:
        return _fail("--games and --jobs are 1 or more")
    problem = foreign_options(args, args.game, "arena")
    if problem:
        return _fail(problem)
    try:
        return game_commands(args.game).arena(args)
    except ValueError as e:
        return _fail(str(e))
