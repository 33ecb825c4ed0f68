"""L'Unisson's part of the ``cuttle`` command (``cli_games``): its options (``--players``,
``--decks``), the table they ask for, and its arena (its rules oracle:
``oracle.py``)."""

from __future__ import annotations

import argparse

SEATS = "3 to 6"
DEFAULT_PLAYERS = 4
# Perft from a deal grows about twentyfold a ply: depth 5 takes seconds, 6 minutes.
MAX_PERFT_DEPTH = 6

# ``cuttle host`` and ``cuttle arena`` count the seats themselves (--players, the bots).
_OWN_PLAYERS = ("play", "rules", "random")
_DECKS_HELP = {
    "play": "L'Unisson: 1 or 2 decks (default 1, and 2 for 5 or 6 players, which need them)",
    "rules": "L'Unisson: 1 or 2 decks (default 1, and 2 for 5 or 6 players, which need them)",
    "random": "L'Unisson: 1 or 2 decks (default 1, and 2 for 5 or 6 players, which need them)",
    "arena": "L'Unisson: 1 or 2 decks (default 1, and 2 for 5 or 6 players)",
    "host": "unisson: 1 or 2 decks (5 or 6 players need 2)",
}


def add_options(p: argparse.ArgumentParser, command: str) -> None:
    if "--players" in flags(command):
        p.add_argument(
            "--players", type=int, metavar="N", help="L'Unisson: 3 to 6 players (default 4)"
        )
    p.add_argument("--decks", type=int, metavar="D", help=_DECKS_HELP[command])


def flags(command: str) -> tuple[str, ...]:
    return ("--players", "--decks") if command in _OWN_PLAYERS else ("--decks",)


def given(args: argparse.Namespace, command: str) -> bool:
    return any(getattr(args, flag[2:]) is not None for flag in flags(command))


def decks_for(args: argparse.Namespace, players: int) -> int:
    """The decks ``--decks`` asks for: by default one, and two for 5 or 6 players; a table
    the rules do not allow is a ``ValueError`` naming the rule."""
    from cuttle_net.games.unisson.engine import check_table

    decks = args.decks if args.decks is not None else (2 if players >= 5 else 1)
    check_table(players, decks)
    return decks


def players_from(args: argparse.Namespace) -> int:
    """The seats of ``--players`` where it is L'Unisson's (play, rules)."""
    return DEFAULT_PLAYERS if args.players is None else args.players


def table(args: argparse.Namespace, players: int) -> str:
    return "two-decks" if decks_for(args, players) == 2 else "one-deck"


def names_position(text: str) -> bool:
    return text.split(" ", 1)[0] == "unisson"


def arena(args: argparse.Namespace) -> int:
    from cuttle_net.games.unisson import arena
    from cuttle_net.games.unisson.bots import BOTS

    names = args.bots
    for name in names:
        if name not in BOTS:
            raise ValueError(f"no L'Unisson bot called {name!r}; bots: {', '.join(BOTS)}")
    players = len(names)
    try:
        decks = decks_for(args, players)
    except ValueError as e:
        raise ValueError(f"{e} (one bot a seat)") from None
    tally = arena.Tally(players)
    for result in arena.play_match(names, decks, args.games, args.seed, args.jobs):
        tally.add(result)
    for b, label in enumerate(arena.labels(names)):
        print(tally.line(label, b))
    return 0


__all__ = [
    "DEFAULT_PLAYERS",
    "MAX_PERFT_DEPTH",
    "SEATS",
    "add_options",
    "arena",
    "decks_for",
    "flags",
    "given",
    "names_position",
    "players_from",
    "table",
]
