"""``cuttle rules``: the rules oracle on the command line; each game answers for its own
positions (its ``oracle``: ``cli_games.game_oracle``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from .cli_games import add_game_options, client_games, foreign_options, game_commands, game_oracle

COMMANDS = ("rules",)

MAX_SEED = 2**64 - 1

BAD_INPUT = 2  # the exit status of bad input (SPEC 1.9)


def _whole_number(name: str, hi: int) -> Callable[[str], int]:
    """An argparse type: a whole number from 0 to ``hi``, in ASCII digits."""

    def read(text: str) -> int:
        if not _number_in(text, hi):
            raise argparse.ArgumentTypeError(
                f"{name} is a whole number from 0 to {hi}, not {text!r}"
            )
        return int(text)

    return read


def _number_in(text: str, hi: int) -> bool:
    return 0 < len(text) <= len(str(hi)) and text.isascii() and text.isdigit() and int(text) <= hi


def add_parser(sub: argparse._SubParsersAction) -> None:
    rules = sub.add_parser(
        "rules",
        help="the rules oracle: legal moves, play, perft, random games",
        description="Answer questions about Cuttle positions (notation: SPEC.md part 1) or, "
        "with --game unisson, L'Unisson's (SPEC.md part 6). POSITION is a position in one "
        "quoted argument, '-' to read it from standard input, or start[:SEED] for a fresh "
        "deal (with --rules/--variant, or --players/--decks). A position that starts with "
        "'unisson' is L'Unisson's. Exit status: 0 done, 1 an illegal move, 2 bad input.",
    )
    cmds = rules.add_subparsers(dest="rules_command", metavar="QUESTION", required=True)

    def position_cmd(name: str, help: str) -> argparse.ArgumentParser:
        p = cmds.add_parser(name, help=help, description=help)
        p.add_argument("position", metavar="POSITION")
        add_game_options(p, "rules", by_position=True)
        return p

    position_cmd("legal", "list the legal moves, one per line")
    play = position_cmd("play", "play moves and print the resulting position")
    play.add_argument("moves", nargs="*", metavar="MOVE", help="one quoted move each")
    pf = position_cmd("perft", "count the leaf nodes of the legal-move tree")
    deepest = max(game_commands(g).MAX_PERFT_DEPTH for g in client_games())
    pf.add_argument(
        "depth",
        type=_whole_number("DEPTH", deepest),
        metavar="DEPTH",
        help=f"plies, 0 to {deepest}",
    )
    rnd = cmds.add_parser("random", help="play a whole random game and print it")
    rnd.add_argument(
        "--seed",
        type=_whole_number("a seed", MAX_SEED),
        required=True,
        metavar="N",
        help="the random game's seed: the same seed, the same game",
    )
    add_game_options(rnd, "random", by_position=True)


def _start_seed(text: str) -> int | None:
    """The SEED of ``start[:SEED]`` (0 if left out), or None for any other text."""
    if text != "start" and not text.startswith("start:"):
        return None
    seed = text.partition(":")[2]
    if seed and not _number_in(seed, MAX_SEED):
        raise ValueError(f"start:{seed}: the seed is a whole number from 0 to {MAX_SEED}")
    return int(seed or 0)


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except ValueError as e:  # every game's PositionError is one
        print(f"cuttle rules: {e}", file=sys.stderr)
        return BAD_INPUT


def _run(args: argparse.Namespace) -> int:
    cmd = args.rules_command
    text = ""
    if cmd != "random":
        text = (sys.stdin.read() if args.position == "-" else args.position).strip()
    game = args.game or next(
        (g for g in client_games() if game_commands(g).names_position(text)), client_games()[0]
    )
    problem = foreign_options(args, game, "rules")
    if problem:
        raise ValueError(problem)
    return game_oracle(game, args, text, _start_seed(text) if text else None)
