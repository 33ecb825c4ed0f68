"""``cuttle rules``: the rules oracle on the command line."""

from __future__ import annotations

import argparse
import random
import sys

from .engine import CHANCE, Game, IllegalMove
from .moves import MoveSyntaxError
from .playout import perft, random_moves
from .position import PositionError, format_position, parse_position
from .rules import VARIANTS, Rules

COMMANDS = ("rules",)


def add_parser(sub: argparse._SubParsersAction) -> None:
    rules = sub.add_parser(
        "rules",
        help="the rules oracle: legal moves, play, perft, random games",
        description="Answer questions about Cuttle positions (notation: SPEC.md part 1). "
        "POSITION is a position in one quoted argument, '-' to read it from standard input, "
        "or start[:SEED] for a fresh deal (with --rules/--variant).",
    )
    cmds = rules.add_subparsers(dest="rules_command", metavar="QUESTION", required=True)

    def position_cmd(name: str, help: str) -> argparse.ArgumentParser:
        p = cmds.add_parser(name, help=help, description=help)
        p.add_argument("position", metavar="POSITION")
        add_rules_options(p)
        return p

    position_cmd("legal", "list the legal moves, one per line")
    play = position_cmd("play", "play moves and print the resulting position")
    play.add_argument("moves", nargs="*", metavar="MOVE", help="one quoted move each")
    pf = position_cmd("perft", "count the leaf nodes of the legal-move tree")
    pf.add_argument("depth", type=int, metavar="DEPTH")
    rnd = cmds.add_parser("random", help="play a whole random game and print it")
    rnd.add_argument("--seed", type=int, required=True, metavar="N")
    add_rules_options(rnd)


def add_rules_options(p: argparse.ArgumentParser) -> None:
    """``--rules`` and ``--variant``, as every command that starts a game takes them."""
    p.add_argument("--rules", choices=("classic", "standard"), default="classic")
    p.add_argument(
        "--variant",
        action="append",
        default=[],
        choices=VARIANTS,
        metavar="NAME",
        help=f"a variant switch, repeatable: {', '.join(VARIANTS)}",
    )


def rules_from(args: argparse.Namespace) -> Rules:
    """The rules ``add_rules_options`` read; ``ValueError`` for a bad combination."""
    return Rules(standard=args.rules == "standard", variants=frozenset(args.variant))


def _position(args: argparse.Namespace) -> Game:
    text = sys.stdin.read() if args.position == "-" else args.position
    text = text.strip()
    if text == "start" or text.startswith("start:"):
        seed = text.partition(":")[2]
        if seed and not seed.isdigit():
            raise PositionError(f"start:{seed}: the seed is a whole number")
        return Game.deal(rules_from(args), seed=int(seed or 0))
    return parse_position(text)


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except (PositionError, ValueError) as e:
        print(f"cuttle rules: {e}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:
    cmd = args.rules_command
    if cmd == "random":
        g = Game.deal(rules_from(args), seed=args.seed)
        print(f"position {format_position(g)}")
        for actor, m in random_moves(g, random.Random(args.seed)):
            print(f"{'chance' if actor == CHANCE else actor} {m}")
        print(f"result {g.outcome}")
        return 0
    g = _position(args)
    if cmd == "legal":
        if g.is_over:
            print(f"cuttle rules: the game is over ({g.outcome})", file=sys.stderr)
            return 0
        for m in g.legal_moves():
            print(m)
        return 0
    if cmd == "perft":
        if args.depth < 0:
            print("cuttle rules: DEPTH is 0 or more", file=sys.stderr)
            return 2
        print(perft(g, args.depth))
        return 0
    for i, text in enumerate(args.moves, 1):
        try:
            g.apply(text)
        except (IllegalMove, MoveSyntaxError) as e:
            print(f"cuttle rules: move {i} ({text}): {e}", file=sys.stderr)
            return 1
    print(format_position(g))
    return 0
