"""What the player is asked, and the legal moves as a tree of choices: card, use, target.

Pure functions of a view: the table screen shows one level of the tree at a time, and
every leaf is a legal move, so the keyboard path never builds an illegal one (typed
moves are checked by the controller instead).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cuttle_net.games.cuttle.cards import card_display
from cuttle_net.games.cuttle.describe import describe
from cuttle_net.games.cuttle.engine import BLOCK, COUNTER, DISCARD, MAIN, OFFER, PICK, SEVEN, Game
from cuttle_net.games.cuttle.moves import Kind, Move, move

# The order in which a card's uses are offered, and their names as a group.
_USES = {
    Kind.POINTS: "points",
    Kind.SCUTTLE: "scuttle",
    Kind.ONEOFF: "one-off",
    Kind.PERMANENT: "permanent",
    Kind.JACK: "jack",
    Kind.SCRAP: "scrap",
}


@dataclass(frozen=True)
class Choice:
    """One option: a leaf carries a ``move``; a branch carries ``children``.

    ``card`` is the card the option is about (to highlight it in the hand); an option with
    neither move nor children is shown disabled, with why in its label.
    """

    label: str
    move: Move | None = None
    children: tuple[Choice, ...] = ()
    card: int | None = None

    @property
    def enabled(self) -> bool:
        return self.move is not None or bool(self.children)


def choices(view: Game, seat: int, names: Sequence[str], ascii: bool) -> list[Choice]:
    """The top level of the choice tree for ``seat`` (empty when it is not their decision)."""
    if view.to_act != seat:
        return []
    moves = view.legal_moves()

    def leaf(m: Move, c: int | None = None) -> Choice:
        return Choice(_words(m, view, seat, names, ascii), m, card=c)

    ph = view.phase
    if ph == MAIN:
        top = [leaf(m) for m in moves if m.kind in (Kind.DRAW, Kind.PASS)]
        for c in view.hands[seat]:
            top.append(_card_choice(c, [m for m in moves if m.card == c], view, seat, names, ascii))
        return top
    if ph == SEVEN:
        return [
            _card_choice(c, [m for m in moves if m.card == c], view, seat, names, ascii)
            for c in view.revealed
        ]
    if ph == DISCARD and len(moves) > 1:
        hand = view.hands[seat]
        return [
            Choice(
                f"discard {card_display(a, ascii)} and…",
                children=tuple(
                    leaf(move(Kind.DISCARD, min(a, b), max(a, b)), b) for b in hand if b != a
                ),
                card=a,
            )
            for a in hand
        ]
    return [leaf(m, m.card if m.card >= 0 else None) for m in moves]


def _card_choice(
    c: int, moves: list[Move], view: Game, seat: int, names: Sequence[str], ascii: bool
) -> Choice:
    # A ten's display is three wide (10♦, its text TD two): the uses stay in line.
    shown = card_display(c, ascii).ljust(2 if ascii else 3)
    if not moves:
        why = "frozen this turn" if view.is_frozen(c) else "no legal play now"
        return Choice(f"{shown}  ({why})", card=c)
    uses: list[Choice] = []
    for kind, name in _USES.items():
        group = [m for m in moves if m.kind == kind]
        if len(group) == 1:
            uses.append(Choice(_words(group[0], view, seat, names, ascii), group[0], card=c))
        elif group:
            targets = tuple(Choice(_words(m, view, seat, names, ascii), m, card=c) for m in group)
            uses.append(Choice(f"{name}…", children=targets, card=c))
    summary = ", ".join(dict.fromkeys(_USES[m.kind] for m in moves))
    return Choice(f"{shown}  {summary}", children=tuple(uses), card=c)


def _words(m: Move, view: Game, seat: int, names: Sequence[str], ascii: bool) -> str:
    """The move in words, without the "you" in front: "scuttle Bot's 4♣ with 9♥"."""
    text = describe(m, view, by=seat, names=names, you=seat, ascii=ascii)
    return text.removeprefix("you ")


def ask(view: Game, seat: int, names: Sequence[str], ascii: bool) -> str:
    """What the player is asked now, in words (or what they wait for)."""
    o = 1 - seat
    ph = view.phase
    if view.to_act != seat:
        return ""

    def show(c: int) -> str:
        return card_display(c, ascii)

    if ph == MAIN:
        verb = "draw (d)" if view.deck else "pass (d)"
        return f"Your turn: choose a card (1-9, Enter) or {verb}"
    if ph == COUNTER:
        first, top = view.chain[0], view.chain[-1]
        if len(view.chain) == 1:
            return f"Counter {show(first)} with a 2, or let it happen"
        return f"Counter {show(top)} with a 2, or let it stand"
    if ph == DISCARD:
        need = min(2, view.hand_size(seat))
        return f"{names[o]}'s 4: choose {need} card{'s' * (need > 1)} to discard"
    if ph == PICK:
        return f"Your {show(view.chain[0])}: take a card from the scrap"
    if ph == SEVEN:
        cards = " or ".join(show(c) for c in view.revealed)
        return f"Your 7 revealed {cards}: play {'one' if len(view.revealed) > 1 else 'it'} now"
    if ph == BLOCK:
        return f"Block {names[o]}'s scuttle of your {show(view.target)} with a 10?"
    if ph == OFFER:
        return f"{names[o]} offers a draw: accept or refuse"
    return ""
