"""``cuttle arena``: bots play a match; one line of results per bot.

Cuttle: two bots.  L'Unisson (``--game unisson``): 3 to 6 bots, one a seat.
"""

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
        "with a 95% interval, and the CPU time of its decisions (median, p95; decisions "
        "with a single legal move are not counted). With --game unisson, name 3 to 6 bots, "
        "one a seat: each deal is played once per rotation of the seats, and each line "
        "gives wins (shared wins counted, and said), the win rate, the mean score. "
        "Results depend only on the seed.",
    )
    names = ", ".join(BOTS)
    p.add_argument(
        "bots",
        nargs="+",
        metavar="BOT",
        help=f"Cuttle: two bots ({names}); L'Unisson: 3 to 6 of the same names",
    )
    p.add_argument("--games", type=int, default=100, metavar="N", help="games (default 100)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="the match seed")
    p.add_argument("--jobs", type=int, default=1, metavar="J", help="processes to play in")
    p.add_argument(
        "--game",
        choices=("cuttle", "unisson"),
        default="cuttle",
        help="the game: cuttle (two bots, the default) or unisson (3 to 6)",
    )
    p.add_argument(
        "--decks",
        type=int,
        metavar="D",
        help="L'Unisson: 1 or 2 decks (default 1, and 2 for 5 or 6 players)",
    )
    add_rules_options(p)


def _fail(text: str) -> int:
    print(f"cuttle arena: {text}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    if args.games < 1 or args.jobs < 1:
        return _fail("--games and --jobs are 1 or more")
    if args.game == "unisson":
        return _run_unisson(args)
    if len(args.bots) != 2:
        return _fail(f"Cuttle is for two bots, not {len(args.bots)}")
    if args.decks is not None:
        return _fail("--decks is L'Unisson's (--game unisson)")
    for name in args.bots:
        if name not in BOTS:
            return _fail(f"no bot called {name!r}; bots: {', '.join(BOTS)}")
    try:
        rules = rules_from(args)
    except ValueError as e:
        return _fail(str(e))
    names = (args.bots[0], args.bots[1])
    labels = names if names[0] != names[1] else (names[0], f"{names[1]}#2")
    tally = Tally()
    for result in play_match(names, rules, args.games, args.seed, args.jobs):
        tally.add(result)
    for b in (0, 1):
        print(tally.line(labels, b))
    return 0


def _run_unisson(args: argparse.Namespace) -> int:
    from cuttle_net.games.unisson import Game, arena
    from cuttle_net.games.unisson.bots import BOTS as UNISSON_BOTS

    if args.rules != "classic" or args.variant:
        return _fail("--rules and --variant are Cuttle's: L'Unisson has none")
    names = args.bots
    for name in names:
        if name not in UNISSON_BOTS:
            return _fail(f"no L'Unisson bot called {name!r}; bots: {', '.join(UNISSON_BOTS)}")
    players = len(names)
    decks = args.decks if args.decks is not None else (2 if players >= 5 else 1)
    try:
        Game.empty(players, decks)
    except ValueError as e:
        return _fail(f"{e} (one bot a seat)")
    tally = arena.Tally(players)
    for result in arena.play_match(names, decks, args.games, args.seed, args.jobs):
        tally.add(result)
    for b, label in enumerate(arena.labels(names)):
        print(tally.line(label, b))
    return 0
