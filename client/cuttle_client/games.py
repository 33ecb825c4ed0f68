"""The client's game registry: what the client shows of each game, found by its name.

The protocol and the core know a game by its module (``cuttle_net.games``); the client
adds its screens.  Each entry names its classes as ``module:Class``, imported only when
used: the registry stays light, and no screen imports another game's.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ClientGame:
    """One game in the client: its title, and the class of its seat at a networked table
    (``seat.TableSeat`` with the game's controller)."""

    name: str
    title: str
    table_seat: str  # "module:Class", relative to this package

    def seat_class(self) -> Any:
        module, _, cls = self.table_seat.partition(":")
        return getattr(importlib.import_module(module, __package__), cls)


CLIENT_GAMES = {
    "cuttle": ClientGame("cuttle", "Cuttle", ".cuttle_seat:CuttleTable"),
    "unisson": ClientGame("unisson", "L'Unisson", ".unisson.network:NetworkTable"),
}


def client_game(name: str) -> ClientGame:
    """The game called ``name`` (ValueError naming those there are)."""
    try:
        return CLIENT_GAMES[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r} (there are {', '.join(CLIENT_GAMES)})") from None
