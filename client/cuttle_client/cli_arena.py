"""``cuttle arena``: two bots play a match; one line of results per bot."""

from __future__ import annotations

import argparse
import sys

from cuttle_net.games.cuttle.arena import Tally, play_match
from cuttle_net.games.cuttle.bots import BOTS

from .cli_rules import add_rules_options, rules_from

COMMANDS = ("arena",)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "arena",
        help="play bots against each other and print their results",
        description="Play N games between two bots, seats alternating (each deal is played "
        "twice, once from each seat), and print one line per bot: wins, draws, win rate "
        "with a 95%% interval, and the CPU time of its decisions (median, p95; decisions "
        "with a single legal move are not counted). Results depend only on the seed.",
    )
    names = ", ".join(BOTS)
    p.add_argument("bot1", metavar="BOT1", help=f"a bot: {names}")
    p.add_argument("bot2", metavar="BOT2", help="the other bot")
    p.add_argument("--games", type=int, default=100, metavar="N", help="games (default 100)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="the match seed")
    p.add_argument("--jobs", type=int, default=1, metavar="J", help="processes to play in")
    add_rules_options(p)


def run(args: argparse.Namespace) -> int:
    for name in (args.bot1, args.bot2):
        if name not in BOTS:
            print(f"cuttle arena: no bot called {name!r}; bots: {', '.join(BOTS)}", file=sys.stderr)
            return 2
    if args.games < 1 or args.jobs < 1:
        print("cuttle arena: --games and --jobs are 1 or more", file=sys.stderr)
        return 2
    try:
        rules = rules_from(args)
    except ValueError as e:
        print(f"cuttle arena: {e}", file=sys.stderr)
        return 2
    names = (args.bot1, args.bot2)
    labels = names if names[0] != names[1] else (names[0], f"{names[1]}#2")
    tally = Tally()
    for result in play_match(names, rules, args.games, args.seed, args.jobs):
        tally.add(result)
    for b in (0, 1):
        print(tally.line(labels, b))
    return 0
