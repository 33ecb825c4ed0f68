"""The game header: what every player agrees to before a game starts, bound into every
signature of the game (SPEC.md part 4 §4.1).

The game's session id is the hash of the header, and every deck-protocol message and every
move any player signs carries that id.  So each player's signatures cover the game and its
rules, every identity key in seat order, the dealer, the table and the game number: a record
that changes any of them no longer matches the other players' signatures.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cuttle_net.deck.encoding import hash256
from cuttle_net.games.interface import game_module
from cuttle_net.identity_key import check_identity_key


@dataclass(frozen=True)
class GameHeader:
    """``connection``: the table's session id (part 3); ``number``: the game's number at the
    table, from 1; ``name``: the game (``cuttle``, ``unisson``); ``rules``: its rules object
    (``.name`` the canonical token); ``dealer``: the dealing seat; ``keys``: the raw Ed25519
    identity keys of the seats, in seat order."""

    connection: bytes
    number: int
    name: str
    rules: Any
    dealer: int
    keys: tuple[bytes, ...]

    def __post_init__(self) -> None:
        if not 16 <= len(self.connection) <= 64:
            raise ValueError("a table's session id is 16 to 64 bytes")
        if self.number < 1:
            raise ValueError("games are numbered from 1")
        module = game_module(self.name)
        if self.seats not in module.seats:
            raise ValueError(f"{self.name} is not for {self.seats} players")
        if not 0 <= self.dealer < self.seats:
            raise ValueError(f"the dealer must be one of the {self.seats} seats")
        module.check_table(self.rules, self.seats, self.dealer)
        for key in self.keys:
            check_identity_key(key)
        if len(set(self.keys)) != len(self.keys):
            raise ValueError("two seats have the same identity key")

    @property
    def seats(self) -> int:
        return len(self.keys)

    @property
    def session_id(self) -> bytes:
        """``H("game", connection, number, name, rules token, dealer, [every seat's key])``."""
        return hash256(
            "game",
            self.connection,
            self.number,
            self.name,
            self.rules.name,
            self.dealer,
            list(self.keys),
        )


__all__ = ["GameHeader"]
