"""Operations the game asks of the deck protocol, and the events it reports.

Both peers call ``begin(op)`` with the same operation (the game state tells each side what
comes next); the operation's wire form is carried in every message it produces, so a peer
that disagrees is caught. Cards are the ints of :mod:`cuttle_net.cards`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import WireError


@dataclass(frozen=True)
class ShuffleAndDeal:
    """Key set-up, both shuffles with their proofs, then 5 cards to seat 0 and 6 to seat 1."""

    def to_wire(self) -> list[Any]:
        return ["deal"]


@dataclass(frozen=True)
class Draw:
    """The top card of the draw pile to ``to_seat``'s hand; with ``public`` (a draw under the
    opponent's glasses) both peers learn it, otherwise only the drawer."""

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
    they stay, now known to both."""

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
class RandomPick:
    """Joint randomness neither peer can bias picks ``count`` cards of ``seat``'s hand (all of
    them if it holds fewer); they are shown and leave the hand (random-fours)."""

    seat: int
    count: int

    def to_wire(self) -> list[Any]:
        return ["random_pick", self.seat, self.count]


@dataclass(frozen=True)
class SwapHands:
    """The two hands change owners (joker); afterwards both peers know both hands."""

    def to_wire(self) -> list[Any]:
        return ["swap"]


@dataclass(frozen=True)
class PlaceOnTop:
    """A card known to both goes on top of the draw pile (standard 7, nine-to-deck)."""

    card: int

    def to_wire(self) -> list[Any]:
        return ["place_on_top", self.card]


@dataclass(frozen=True)
class TakeToHand:
    """A card known to both (from the scrap or the table) joins ``seat``'s hand."""

    seat: int
    card: int

    def to_wire(self) -> list[Any]:
        return ["take_to_hand", self.seat, self.card]


@dataclass(frozen=True)
class Audit:
    """End of game: both reveal their secrets, check everything, and sign the verdict."""

    def to_wire(self) -> list[Any]:
        return ["audit"]


Op = (
    ShuffleAndDeal
    | Draw
    | RevealFromDeck
    | RevealFromHand
    | ExposeHand
    | RandomPick
    | SwapHands
    | PlaceOnTop
    | TakeToHand
    | Audit
)


def _seat(v: Any) -> int:
    if type(v) is not int or v not in (0, 1):
        raise WireError("op: seat must be 0 or 1")
    return v


def _card(v: Any) -> int:
    if type(v) is not int or not 0 <= v <= 52:
        raise WireError("op: card must be an int 0..52")
    return v


def _count(v: Any) -> int:
    if type(v) is not int or not 0 <= v <= 53:
        raise WireError("op: count must be an int 0..53")
    return v


def _flag(v: Any) -> bool:
    if type(v) is not bool:
        raise WireError("op: flag must be a bool")
    return v


def op_from_wire(data: Any) -> Op:
    """Parse an operation's wire form strictly (raises WireError)."""
    if not isinstance(data, list) or not data or not isinstance(data[0], str):
        raise WireError("op: must be a list starting with its name")
    name, args = data[0], data[1:]
    parsers: dict[str, tuple[type, tuple]] = {
        "deal": (ShuffleAndDeal, ()),
        "draw": (Draw, (_seat, _flag)),
        "reveal_deck": (RevealFromDeck, (_count,)),
        "reveal_hand": (RevealFromHand, (_seat, None, _flag)),
        "expose_hand": (ExposeHand, (_seat,)),
        "random_pick": (RandomPick, (_seat, _count)),
        "swap": (SwapHands, ()),
        "place_on_top": (PlaceOnTop, (_card,)),
        "take_to_hand": (TakeToHand, (_seat, _card)),
        "audit": (Audit, ()),
    }
    if name not in parsers:
        raise WireError(f"op: unknown operation {name!r}")
    cls, fields = parsers[name]
    if len(args) != len(fields):
        raise WireError(f"op {name}: expected {len(fields)} arguments")
    values = []
    for parse, arg in zip(fields, args, strict=True):
        if parse is None:  # the card list of reveal_hand
            if (
                not isinstance(arg, list)
                or len(arg) > 53
                or not all(type(c) is int for c in arg)  # before sorting: dicts do not hash
                or arg != sorted(set(arg))
            ):
                raise WireError("op: cards must be a sorted list of distinct cards")
            values.append(tuple(_card(c) for c in arg))
        else:
            values.append(parse(arg))
    return cls(*values)


# ---- events -------------------------------------------------------------------------------


@dataclass(frozen=True)
class CardsLearned:
    """This peer now knows ``cards``. ``seat`` is the hand they are in (None: they left the
    draw pile face up); ``public`` says whether the other peer knows them too."""

    seat: int | None
    cards: tuple[int, ...]
    public: bool
    source: str


@dataclass(frozen=True)
class OperationComplete:
    op: Op


@dataclass(frozen=True)
class AuditPassed:
    """Both audits agree: the deck, every share and every claim check out. ``digest`` is the
    verdict both peers signed."""

    digest: bytes


Event = CardsLearned | OperationComplete | AuditPassed
