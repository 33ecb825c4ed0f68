"""The game header: what both players agree to before a game starts, bound into every
signature of the game (SPEC.md part 4 §4.1).

The game's session id is the hash of the header, and every deck-protocol message and every
move either player signs carries that id.  So each player's signatures cover the rule set
and variants, both identity keys in seat order (seat 1 deals), the connection and the game
number: a record that changes any of them no longer matches the other player's signatures.
"""

from __future__ import annotations

from dataclasses import dataclass

from cuttle_net.deck.encoding import hash256
from cuttle_net.games.cuttle.rules import Rules
from cuttle_net.identity_key import check_identity_key


@dataclass(frozen=True)
class GameHeader:
    """``connection``: the connection's session id (part 3); ``game``: the game's number on
    it, from 1; ``keys``: the raw Ed25519 identity keys of seat 0 and seat 1 (the dealer)."""

    connection: bytes
    game: int
    rules: Rules
    keys: tuple[bytes, bytes]

    def __post_init__(self) -> None:
        if not 16 <= len(self.connection) <= 64:
            raise ValueError("a connection's session id is 16 to 64 bytes")
        if self.game < 1:
            raise ValueError("games are numbered from 1")
        for key in self.keys:
            check_identity_key(key)
        if self.keys[0] == self.keys[1]:
            raise ValueError("the two seats have the same identity key")

    @property
    def session_id(self) -> bytes:
        """``H("game", connection, game, rules token, seat 0's key, seat 1's key)``."""
        return hash256("game", self.connection, self.game, self.rules.name, *self.keys)


__all__ = ["GameHeader"]
