"""What a game supplies to be played at a table: the game-module interface (SPEC 4.3).

The session (``cuttle_net.session``) and the record checker (``cuttle_net.records.verify``)
know no game.  They ask a *game module* — one stateless object per game, found by name with
``game_module`` (each game package has a ``module`` holding ``MODULE``) — everything that
depends on the rules: who may act, whether a move is legal, which deck operations it
implies, what a player learns, and how the game ended.

The module works on the game's own state objects, passed explicitly: one seat's view, a
spectator's view (``seat`` None: every hidden card unknown) or a full-information game
(after the audit).  The session never looks inside a state.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..deck import CardsLearned, Deal, Op

NOBODY = -1  # ``to_act`` once the game is over by the rules
CHANCE = -2  # ``to_act`` when the deck decides (a random pick), not a player


@dataclass(frozen=True)
class Outcome:
    """How a game ended by the rules: ``winners`` (seats, ascending; empty for a draw),
    ``reason`` one of the module's ``endings``, ``scores`` per seat for games that score."""

    winners: tuple[int, ...]
    reason: str
    scores: tuple[int, ...] = ()


class GameModule(Protocol):
    """One game, as the session and the record checker see it (CONTRACTS.md, SPEC 4.3)."""

    name: str  # the registry's name and the record's ``Game`` tag
    seats: range  # how many players may sit at the table
    # The seat the dealer takes in every game (Cuttle: 1), or None where any seat deals.
    # A table whose draw names another dealer seats its players for the game rotated.
    dealer_seat: int | None
    endings: tuple[str, ...]  # the words of an end by the rules (the record's ``Ending``)

    # -- the table ------------------------------------------------------------------
    def parse_rules(self, token: str, seats: int) -> Any:
        """The rules a token names (``ValueError``): ``.name`` is the canonical token,
        ``.deck_size`` the number of cards."""

    def check_table(self, rules: Any, seats: int, dealer: int) -> None:
        """``ValueError`` unless the game can be played with these seats and this dealer."""

    def card_text(self, card: int) -> str:
        """The face of deck card ``card`` as the game writes it."""

    def parse_card(self, text: str) -> int:
        """The face ``text`` names (``ValueError``): the card id of its first copy."""

    def faces(self, rules: Any) -> int:
        """How many different faces the deck holds: ``rules.deck_size``, unless it is made of
        identical decks (face = id % faces), whose copies the deck operations do not name."""

    def deal(self, rules: Any, seats: int, dealer: int) -> Deal:
        """The deck operation that deals."""

    def new_view(
        self,
        rules: Any,
        seats: int,
        dealer: int,
        seat: int | None,
        hand: Sequence[int],
        face_up: Sequence[int],
    ) -> Any:
        """``seat``'s view after the deal (None: a spectator's), ``hand`` its cards."""

    def new_full(self, rules: Any, seats: int, dealer: int, order: Sequence[int]) -> Any:
        """The game with every card known, from the deck's order (top card first)."""

    # -- moves ----------------------------------------------------------------------
    def parse_move(self, text: str) -> Any:
        """A move from its notation (``ValueError``).  The text ``concede`` is the session's
        (``cuttle_net.session.CONCEDE``): a game gives it no other meaning."""

    def move_text(self, move: Any) -> str:
        """The canonical notation: ``parse_move(move_text(m)) == m``."""

    def to_act(self, state: Any) -> int:
        """The seat that decides now, ``CHANCE`` or ``NOBODY``."""

    def check(self, state: Any, move: Any, by: int) -> None:
        """``ValueError`` naming the rule unless seat ``by`` may make ``move`` now; decided on
        whatever this state knows (a view accepts a card it cannot place)."""

    def deck_ops(self, state: Any, move: Any) -> list[Op]:
        """The deck operations ``move`` implies, in order: the same in every view."""

    def chance_ops(self, state: Any) -> list[Op]:
        """The deck operations of chance's decision (``to_act`` is ``CHANCE``)."""

    def apply(
        self, state: Any, move: Any | None, by: int | None, learned: Sequence[CardsLearned]
    ) -> Any:
        """Play ``move`` (chance's: None) given what its operations showed this state (the
        deck's ``CardsLearned`` events, in order); return the move played."""

    def final_ops(self, state: Any) -> list[Op]:
        """Once nobody acts: the deck operations that end the game (hands shown)."""

    def show_final(self, state: Any, learned: Sequence[CardsLearned]) -> None:
        """What ``final_ops`` showed."""

    def outcome(self, state: Any) -> Outcome | None:
        """How the game ended by the rules, once over and its final operations done."""

    def concede(self, state: Any, seat: int) -> None:
        """Seat ``seat`` conceded: the game is over (the state tidies up as it must)."""

    def copy(self, state: Any) -> Any: ...

    def position_text(self, state: Any) -> str:
        """The state as the game's one-line position text (replays, bug reports)."""

    def play_full(self, state: Any, move: Any, by: int | None) -> tuple[tuple[int, ...], ...]:
        """Full information: play ``move``; return the cards each seat saw for the first time."""

    def view(self, state: Any, seat: int) -> Any:
        """What ``seat`` knows of the full-information ``state``: its own hand, and of the
        others' only the cards it was shown (a replay from one seat's chair)."""


def game_module(name: str) -> GameModule:
    """The module of the game called ``name`` (``ValueError`` naming the known games)."""
    from . import game_part

    return game_part(name, "module").MODULE


__all__ = ["CHANCE", "NOBODY", "GameModule", "Outcome", "game_module"]
