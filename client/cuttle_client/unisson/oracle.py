"""``cuttle rules … --game unisson``: the rules oracle for L'Unisson (SPEC 6, the oracle).

The same questions as Cuttle's oracle (``cuttle.oracle``), with the same exit statuses; a
position that starts with ``unisson`` is L'Unisson's without ``--game`` (``commands``).
"""

from __future__ import annotations

import argparse
import random
import sys

from cuttle_net.games.unisson import (
    Game,
    IllegalMove,
    MoveSyntaxError,
    PositionError,
    RevealError,
    parse_move,
    parse_position,
    position_text,
    result_text,
)
from cuttle_net.games.unisson.engine import FULL
from cuttle_net.games.unisson.playout import perft, random_moves

from .commands import MAX_PERFT_DEPTH, decks_for, players_from

# Exit statuses (SPEC 1.9, the same for every game).
OK, ILLEGAL, BAD_INPUT = 0, 1, 2


def start(args: argparse.Namespace, seed: int) -> Game:
    players = players_from(args)
    return Game.deal(players=players, decks=decks_for(args, players), dealer=0, seed=seed)


def position(args: argparse.Namespace, text: str, seed: int | None) -> Game:
    """The position the question is about: ``start[:SEED]`` (``seed`` given) or a text."""
    if seed is not None:
        return start(args, seed)
    g = parse_position(text)
    table = (("players", args.players, g.players), ("decks", args.decks, g.decks))
    for name, asked, there in table:
        if asked is not None and asked != there:
            raise PositionError(
                f"--{name} says {asked}, but the position has {there}; drop the option or "
                "fix the position"
            )
    return g


def run(args: argparse.Namespace, text: str, seed: int | None) -> int:
    """Answer ``args.rules_command`` about L'Unisson; PositionError/ValueError propagate
    (``cli_rules`` prints them as bad input)."""
    cmd = args.rules_command
    if cmd == "random":
        g = start(args, args.seed)
        print(f"position {position_text(g)}")
        for seat, m in random_moves(g, random.Random(args.seed)):
            print(f"{seat} {m}")
        print(f"result {result_text(g)}")
        return OK
    g = position(args, text, seed)
    if cmd == "legal":
        if g.is_over:
            print(f"cuttle rules: the game is over ({g.outcome})", file=sys.stderr)
            return OK
        try:
            moves = g.legal_moves()
        except ValueError as e:  # a view asked for another seat's moves
            raise PositionError(f"view: {e}") from None
        for m in moves:
            print(m)
        return OK
    if cmd == "perft":
        if args.depth > MAX_PERFT_DEPTH:
            raise PositionError(f"DEPTH: L'Unisson's perft goes 0 to {MAX_PERFT_DEPTH} deep")
        if g.viewer != FULL:
            raise PositionError("perft counts the moves of a full position, not of a view")
        print(perft(g, args.depth))
        return OK
    for i, word in enumerate(args.moves, 1):
        try:
            m = g.check(parse_move(word))
            if g.reveals_needed(m):
                print(
                    f"cuttle rules: move {i} ({word}): it shows the viewer a card this view "
                    "cannot know; play it on the full position",
                    file=sys.stderr,
                )
                return BAD_INPUT
            g.apply(m)
        except IllegalMove as e:
            print(f"cuttle rules: move {i} ({word}): {e}", file=sys.stderr)
            return ILLEGAL
        except (MoveSyntaxError, RevealError) as e:
            print(f"cuttle rules: move {i} ({word}): {e}", file=sys.stderr)
            return BAD_INPUT
    print(position_text(g))
    return OK
