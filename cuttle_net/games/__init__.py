"""The games: each is a package of its own under ``cuttle_net.games``.

``GAMES`` maps a game's name (as typed after ``--game``) to its package's import path;
``game_package(name)`` imports it only when asked, so loading the registry loads no engine.
Every game package has the same parts (docs/adding-a-game.md): ``module`` (its ``MODULE``,
the game-module interface of ``interface.py``), ``bots`` (``BOTS``, weakest first, and
``make_bot``) and ``lessons`` (its ``COURSE``); ``game_part(name, part)`` imports one.
"""

from __future__ import annotations

import importlib
from types import ModuleType

GAMES: dict[str, str] = {
    "cuttle": "cuttle_net.games.cuttle",
    "unisson": "cuttle_net.games.unisson",
}


def game_package(name: str) -> ModuleType:
    """The package of the game called ``name``; ``ValueError`` naming the known games."""
    try:
        path = GAMES[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r} (known: {', '.join(sorted(GAMES))})") from None
    return importlib.import_module(path)


def game_part(name: str, part: str) -> ModuleType:
    """The module ``part`` (``"bots"``, ``"lessons"``, ``"module"``) of the game called
    ``name``; ``ValueError`` naming the known games."""
    return importlib.import_module(f"{game_package(name).__name__}.{part}")
