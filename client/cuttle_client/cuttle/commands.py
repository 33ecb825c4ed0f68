"""Cuttle's part of the ``cuttle`` command (``cli_games``): its options (``--rules``,
``--variant``), the table they ask for, and its arena (its rules oracle:
``oracle.py``)."""

from __future__ import annotations

import argparse

from cuttle_net.games.cuttle.rules import VARIANTS, Rules

SEATS = "two players"
DEFAULT_PLAYERS = 2
# Perft grows about sevenfold a ply: depth 8 from a deal takes seconds, 10 minutes.
MAX_PERFT_DEPTH = 10

_FLAGS = ("--rules", "--variant")


def add_options(p: argparse.ArgumentParser, command: str) -> None:
    """``--rules`` and ``--variant``, as every command that starts a game takes them."""
    p.add_argument(
        "--rules",
        choices=("classic", "standard"),
        # A position names its own rules: --rules/--variant are only checked against it.
        default=None if command == "rules" else "classic",
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


def flags(command: str) -> tuple[str, ...]:
    return _FLAGS


def given(args: argparse.Namespace, command: str) -> bool:
    # ``cuttle rules`` leaves --rules None: a position names its own rules.
    return args.rules not in (None, "classic") or bool(args.variant)


def rules_from(args: argparse.Namespace) -> Rules:
    """The rules ``add_options`` read."""
    return Rules(standard=args.rules == "standard", variants=frozenset(args.variant))


def table(args: argparse.Namespace, players: int) -> str:
    if players != 2:
        raise ValueError(f"Cuttle is for two players, not {players}")
    return rules_from(args).name


def names_position(text: str) -> bool:
    return False  # a Cuttle position starts with its rules: the default game's


def arena(args: argparse.Namespace) -> int:
    from cuttle_net.games.cuttle.arena import Tally, play_match
    from cuttle_net.games.cuttle.bots import BOTS

    if len(args.bots) != 2:
        raise ValueError(f"Cuttle is for two bots, not {len(args.bots)}")
    for name in args.bots:
        if name not in BOTS:
            raise ValueError(f"no bot called {name!r}; bots: {', '.join(BOTS)}")
    names = (args.bots[0], args.bots[1])
    labels = names if names[0] != names[1] else (names[0], f"{names[1]}#2")
    tally = Tally()
    for result in play_match(names, rules_from(args), args.games, args.seed, args.jobs):
        tally.add(result)
    for b in (0, 1):
        print(tally.line(labels, b))
    return 0


__all__ = [
    "DEFAULT_PLAYERS",
    "MAX_PERFT_DEPTH",
    "SEATS",
    "add_options",
    "arena",
    "flags",
    "given",
    "names_position",
    "rules_from",
    "table",
]
