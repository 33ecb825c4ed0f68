"""The games: each is a package of its own under ``cuttle_net.games``.

``GAMES`` maps a game's name (as typed after ``--game``) to its package's import path;
``game_package(name)`` imports it only when asked, so loading the registry loads no engine.
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
