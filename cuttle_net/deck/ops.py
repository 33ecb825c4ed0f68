"""Operations the game asks of the deck protocol, and the events it reports.

Every party calls ``begin(op)`` with the same operation (the game state tells each one what
comes next); the operation's wire form is carried in every message it produces, so a party
that disagrees is caught. Cards are ids 0..deck_size-1: the game maps ids to faces (two
identical decks are 64 distinct ids), the protocol only ever sees distinct ids. Seats are
0..N-1; an operation naming a seat or card outside the table is refused by ``begin``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .errors import WireError

MAX_SEATS = 6
MAX_DECK = 104


@dataclass(frozen=True)
class Deal:
    """Key set-up and every party's proven shuffle, then ``hands[i]`` hidden cards to seat i,
    dealt from the top in seat order, then ``face_up`` cards shown to all (they leave the
    pile). Once per session; Cuttle is ``Deal((5, 6))``."""

    hands: tuple[int, ...]
    face_up: int = 0

    def to_wire(self) -> list[Any]:
        return ["deal", list(self.hands), self.face_up]


@dataclass(frozen=True)
class Draw:
    """The top card of the draw pile to ``to_seat``'s hand; with ``public`` (a draw under an
    opponent's glasses) every party learns it, otherwise only the drawer."""

    to_seat: int
    public: bool = False

    def to_wire(self) -> list[Any]:
        return ["draw", self.to_seat, self.public]


@dataclass(frozen=True)
class RevealFromDeck:
    """Turn the top ``count`` cards of the draw pile face up (the 7); they leave the pile."""

    count: int

    def to_wire(self) -> list[Any]:
        return ["reveal_deck", self.count]


@dataclass(frozen=True)
class RevealFromHand:
    """``seat`` shows ``cards`` from its hand, proving each is one of its hidden positions.
    Without ``keep`` the cards leave the hand (played, scuttled, discarded); with ``keep``
    they stay, now known to all."""

    seat: int
    cards: tuple[int, ...]
    keep: bool = False

    def to_wire(self) -> list[Any]:
        return ["reveal_hand", self.seat, sorted(self.cards), self.keep]


@dataclass(frozen=True)
class ExposeHand:
    """``seat`` shows its whole hand, which stays in hand (glasses)."""

    seat: int

    def to_wire(self) -> list[Any]:
        return ["expose_hand", self.seat]


@dataclass(frozen=True)
class ExposeHands:
    """Every seat of ``seats`` (ascending, distinct) shows its whole hand, all in one round:
    the hands shown at the end of a game."""

    seats: tuple[int, ...]

    def to_wire(self) -> list[Any]:
        return ["expose_hands", sorted(self.seats)]


@dataclass(frozen=True)
class RandomPick:
    """Joint randomness no party can bias picks ``count`` cards of ``seat``'s hand (all of
    them if it holds fewer); they are shown and leave the hand (random-fours)."""

    seat: int
    count: int

    def to_wire(self) -> list[Any]:
        return ["random_pick", self.seat, self.count]


@dataclass(frozen=True)
class SwapHands:
    """Seats ``a`` and ``b`` exchange hands (joker); both hands are shown to all first."""

    a: int
    b: int

    def to_wire(self) -> list[Any]:
        return ["swap", self.a, self.b]


@dataclass(frozen=True)
class PlaceOnTop:
    """A card known to all goes on top of the draw pile (standard 7, nine-to-deck)."""

    card: int

    def to_wire(self) -> list[Any]:
        return ["place_on_top", self.card]


@dataclass(frozen=True)
class TakeToHand:
    """A card known to all (from the scrap or the table) joins ``seat``'s hand."""

    seat: int
    card: int

    def to_wire(self) -> list[Any]:
        return ["take_to_hand", self.seat, self.card]


@dataclass(frozen=True)
class Audit:
    """End of game: every party reveals its secrets, checks everything, and signs the
    verdict."""

    def to_wire(self) -> list[Any]:
        return ["audit"]


Op = (
    Deal
    | Draw
    | RevealFromDeck
    | RevealFromHand
    | ExposeHand
    | ExposeHands
    | RandomPick
    | SwapHands
    | PlaceOnTop
    | TakeToHand
    | Audit
)


def _seat(v: Any) -> int:
    if type(v) is not int or not 0 <= v < MAX_SEATS:
        raise WireError(f"op: seat must be an int 0..{MAX_SEATS - 1}")
    return v


def _card(v: Any) -> int:
    if type(v) is not int or not 0 <= v < MAX_DECK:
        raise WireError(f"op: card must be an int 0..{MAX_DECK - 1}")
    return v


def _count(v: Any) -> int:
    if type(v) is not int or not 0 <= v <= MAX_DECK:
        raise WireError(f"op: count must be an int 0..{MAX_DECK}")
    return v


def _cards(v: Any) -> tuple[int, ...]:
    if (
        not isinstance(v, list)
        or len(v) > MAX_DECK
        or not all(type(c) is int for c in v)  # before sorting: dicts do not hash
        or v != sorted(set(v))
    ):
        raise WireError("op: cards must be a sorted list of distinct cards")
    return tuple(_card(c) for c in v)


def _seats(v: Any) -> tuple[int, ...]:
    if (
        not isinstance(v, list)
        or not 1 <= len(v) <= MAX_SEATS
        or not all(type(s) is int for s in v)
        or v != sorted(set(v))
    ):
        raise WireError(f"op: seats must be a sorted list of 1..{MAX_SEATS} distinct seats")
    return tuple(_seat(s) for s in v)


def _hands(v: Any) -> tuple[int, ...]:
    if not isinstance(v, list) or not 2 <= len(v) <= MAX_SEATS:
        raise WireError(f"op: hands must be a list of 2..{MAX_SEATS} counts")
    return tuple(_count(c) for c in v)


def _flag(v: Any) -> bool:
    if type(v) is not bool:
        raise WireError("op: flag must be a bool")
    return v


def op_from_wire(data: Any) -> Op:
    """Parse an operation's wire form strictly (raises WireError)."""
    if not isinstance(data, list) or not data or not isinstance(data[0], str):
        raise WireError("op: must be a list starting with its name")
    name, args = data[0], data[1:]
    if name not in _PARSERS:
        raise WireError(f"op: unknown operation {name!r}")
    cls, fields = _PARSERS[name]
    if len(args) != len(fields):
        raise WireError(f"op {name}: expected {len(fields)} arguments")
    return cls(*(parse(arg) for parse, arg in zip(fields, args, strict=True)))


# Each operation's class and the parsers of its arguments (built once: every deck message
# names its operation, and each party parses its own too, `DeckState.begin`).
_PARSERS: dict[str, tuple[type, tuple[Callable[[Any], Any], ...]]] = {
    "deal": (Deal, (_hands, _count)),
    "draw": (Draw, (_seat, _flag)),
    "reveal_deck": (RevealFromDeck, (_count,)),
    "reveal_hand": (RevealFromHand, (_seat, _cards, _flag)),
    "expose_hand": (ExposeHand, (_seat,)),
    "expose_hands": (ExposeHands, (_seats,)),
    "random_pick": (RandomPick, (_seat, _count)),
    "swap": (SwapHands, (_seat, _seat)),
    "place_on_top": (PlaceOnTop, (_card,)),
    "take_to_hand": (TakeToHand, (_seat, _card)),
    "audit": (Audit, ()),
}


# ---- events -------------------------------------------------------------------------------


@dataclass(frozen=True)
class CardsLearned:
    """This party now knows ``cards``. ``seat`` is the hand they are in (None: they left the
    draw pile face up); ``public`` says whether every party knows them."""

    seat: int | None
    cards: tuple[int, ...]
    public: bool
    source: str


@dataclass(frozen=True)
class OperationComplete:
    op: Op


@dataclass(frozen=True)
class AuditPassed:
    """Every audit agrees: the decks, every share and every claim check out. ``digest`` is
    the verdict every party signed."""

    digest: bytes


Event = CardsLearned | OperationComplete | AuditPassed
