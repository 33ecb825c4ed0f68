"""``cuttle rules``: the rules oracle on the command line."""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable

from cuttle_net.games.cuttle.engine import CHANCE, Game, IllegalMove, RevealError
from cuttle_net.games.cuttle.moves import CONCEDE, MoveSyntaxError, parse_move
from cuttle_net.games.cuttle.playout import perft, random_moves
from cuttle_net.games.cuttle.position import PositionError, format_position, parse_position
from cuttle_net.games.cuttle.rules import VARIANTS, Rules

COMMANDS = ("rules",)

MAX_SEED = 2**64 - 1
# Perft grows about sevenfold a ply: depth 8 from a deal takes seconds, 10 minutes.
MAX_PERFT_DEPTH = 10

# Exit statuses (SPEC 1.9).
OK, ILLEGAL, BAD_INPUT = 0, 1, 2


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
        add_rules_options(p)
        add_game_options(p)
        # A position names its own rules: --rules/--variant are only checked against it.
        p.set_defaults(rules=None)
        return p

    position_cmd("legal", "list the legal moves, one per line")
    play = position_cmd("play", "play moves and print the resulting position")
    play.add_argument("moves", nargs="*", metavar="MOVE", help="one quoted move each")
    pf = position_cmd("perft", "count the leaf nodes of the legal-move tree")
    pf.add_argument(
        "depth",
        type=_whole_number("DEPTH", MAX_PERFT_DEPTH),
        metavar="DEPTH",
        help=f"plies, 0 to {MAX_PERFT_DEPTH}",
    )
    rnd = cmds.add_parser("random", help="play a whole random game and print it")
    rnd.add_argument(
        "--seed",
        type=_whole_number("a seed", MAX_SEED),
        required=True,
        metavar="N",
        help="the random game's seed: the same seed, the same game",
    )
    add_rules_options(rnd)
    add_game_options(rnd)


def add_game_options(p: argparse.ArgumentParser, positions: bool = True) -> None:
    """``--game`` and L'Unisson's table: ``--players`` and ``--decks``; ``positions``: the
    command reads a position, which names its game."""
    default = "cuttle, or the game the position names" if positions else "cuttle"
    p.add_argument(
        "--game",
        choices=("cuttle", "unisson"),
        default=None,
        help=f"the game: cuttle (two players) or unisson (3 to 6); default {default}",
    )
    p.add_argument("--players", type=int, metavar="N", help="L'Unisson: 3 to 6 players (default 4)")
    p.add_argument(
        "--decks",
        type=int,
        metavar="D",
        help="L'Unisson: 1 or 2 decks (default 1, and 2 for 5 or 6 players, which need them)",
    )


def add_rules_options(p: argparse.ArgumentParser) -> None:
    """``--rules`` and ``--variant``, as every command that starts a game takes them."""
    p.add_argument(
        "--rules",
        choices=("classic", "standard"),
        default="classic",
        help="Cuttle's rule set: classic (the default) or standard (a hand of at most 8, "
        "a 7 shows two cards, four kings win at once: SPEC.md part 1)",
    )
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


def _start_seed(text: str) -> int | None:
    """The SEED of ``start[:SEED]`` (0 if left out), or None for any other text."""
    if text != "start" and not text.startswith("start:"):
        return None
    seed = text.partition(":")[2]
    if seed and not _number_in(seed, MAX_SEED):
        raise PositionError(f"start:{seed}: the seed is a whole number from 0 to {MAX_SEED}")
    return int(seed or 0)


def _position(args: argparse.Namespace, text: str) -> Game:
    seed = _start_seed(text)
    if seed is not None:
        return Game.deal(rules_from(args), seed=seed)
    g = parse_position(text)
    if args.rules is not None or args.variant:
        asked = rules_from(args)
        if asked != g.rules:
            raise PositionError(
                f"--rules/--variant say {asked.name}, but the position is played under "
                f"{g.rules.name} (its first field); drop the options or fix the position"
            )
    return g


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except (PositionError, ValueError) as e:  # L'Unisson's PositionError too
        print(f"cuttle rules: {e}", file=sys.stderr)
        return BAD_INPUT


def _run(args: argparse.Namespace) -> int:
    cmd = args.rules_command
    text = ""
    if cmd != "random":
        text = (sys.stdin.read() if args.position == "-" else args.position).strip()
    game = args.game or ("unisson" if text.split(" ", 1)[0] == "unisson" else "cuttle")
    if game == "unisson":
        if (args.rules is not None and args.rules != "classic") or args.variant:
            raise PositionError("--rules and --variant are Cuttle's: L'Unisson has none")
        from . import cli_rules_unisson  # the engine is loaded only when asked for

        return cli_rules_unisson.run(args, text, _start_seed(text) if text else None)
    if args.players is not None or args.decks is not None:
        raise PositionError("--players and --decks are L'Unisson's (--game unisson)")
    if cmd == "random":
        g = Game.deal(rules_from(args), seed=args.seed)
        print(f"position {format_position(g)}")
        for actor, m in random_moves(g, random.Random(args.seed)):
            print(f"{'chance' if actor == CHANCE else actor} {m}")
        print(f"result {g.outcome}")
        return OK
    g = _position(args, text)
    if cmd == "legal":
        if g.is_over:
            print(f"cuttle rules: the game is over ({g.outcome})", file=sys.stderr)
            return OK
        for m in g.legal_moves():
            print(m)
        return OK
    if cmd == "perft":
        if g.viewer >= 0:
            raise PositionError("perft counts the moves of a full position, not of a view")
        print(perft(g, args.depth))
        return OK
    for i, text in enumerate(args.moves, 1):
        try:
            m = parse_move(text)
            # The seat to act concedes; while chance acts (random-fours), the player.
            g.apply(m, by=g.player if m == CONCEDE and g.to_act == CHANCE else None)
        except (IllegalMove, MoveSyntaxError) as e:
            print(f"cuttle rules: move {i} ({text}): {e}", file=sys.stderr)
            return ILLEGAL if isinstance(e, IllegalMove) else BAD_INPUT
        except RevealError:
            print(
                f"cuttle rules: move {i} ({text}): it shows the viewer a card this view "
                "cannot know; play it on the full position",
                file=sys.stderr,
            )
            return BAD_INPUT
    print(format_position(g))
    return OK
