"""``cuttle rules``: the rules oracle for Cuttle (SPEC 1.9); ``cli_rules`` reads the
question, the position and the seed of ``start[:SEED]``."""

from __future__ import annotations

import argparse
import random
import sys

from cuttle_net.games.cuttle.engine import CHANCE, Game, IllegalMove, RevealError
from cuttle_net.games.cuttle.moves import CONCEDE, MoveSyntaxError, parse_move
from cuttle_net.games.cuttle.playout import perft, random_moves
from cuttle_net.games.cuttle.position import PositionError, format_position, parse_position

from .commands import MAX_PERFT_DEPTH, rules_from

# Exit statuses (SPEC 1.9, the same for every game).
OK, ILLEGAL, BAD_INPUT = 0, 1, 2


def _position(args: argparse.Namespace, text: str, seed: int | None) -> Game:
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


def run(args: argparse.Namespace, text: str, seed: int | None) -> int:
    """Answer ``args.rules_command`` about Cuttle; PositionError/ValueError propagate
    (``cli_rules`` prints them as bad input)."""
    cmd = args.rules_command
    if cmd == "random":
        g = Game.deal(rules_from(args), seed=args.seed)
        print(f"position {format_position(g)}")
        for actor, m in random_moves(g, random.Random(args.seed)):
            print(f"{'chance' if actor == CHANCE else actor} {m}")
        print(f"result {g.outcome}")
        return OK
    g = _position(args, text, seed)
    if cmd == "legal":
        if g.is_over:
            print(f"cuttle rules: the game is over ({g.outcome})", file=sys.stderr)
            return OK
        for m in g.legal_moves():
            print(m)
        return OK
    if cmd == "perft":
        if args.depth > MAX_PERFT_DEPTH:
            raise PositionError(f"DEPTH: Cuttle's perft goes 0 to {MAX_PERFT_DEPTH} deep")
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
