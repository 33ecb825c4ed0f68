"""The legal moves of a L'Unisson view as keyboard choices.

At the top of a turn: draw, take…, discard…, meld…, extend…, pass (each group opens its
moves); while an effect waits for the player: its discards, or draw and stop.  Every leaf
is a legal move, so the keys never build an illegal one.  ``for_card`` gathers the moves
that use one card of the hand (the number keys).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cuttle_net.games.unisson import Game
from cuttle_net.games.unisson.moves import Kind, Move

from .words import card, cards, effect_hint, sequence


@dataclass(frozen=True)
class Choice:
    """An option: a leaf carries a ``move``, a group its ``children``; ``key`` is its
    shortcut and ``faces`` the cards it is about (highlighted in the hand or the range).
    An option with neither move nor children is shown disabled, its label saying why."""

    label: str
    move: Move | None = None
    children: tuple[Choice, ...] = ()
    key: str = ""
    faces: tuple[int, ...] = ()

    @property
    def enabled(self) -> bool:
        return self.move is not None or bool(self.children)


# The groups of a turn, in the order shown: the key, the label, the move kind.
GROUPS = (
    ("t", "Take from the range", Kind.TAKE),
    ("x", "Discard", Kind.DISCARD),
    ("m", "Meld", Kind.MELD),
    ("e", "Extend", Kind.EXTEND),
)
_NONE = {
    Kind.TAKE: "the range is empty",
    Kind.DISCARD: "your hand is empty",
    Kind.MELD: "no run of 3 in your hand",
    Kind.EXTEND: "no card fits your sequences",
}


def label(m: Move, view: Game, seat: int, ascii: bool) -> str:
    """A move as an option: its cards and what follows it."""
    k = m.kind
    in_turn = not view.effects
    if k is Kind.EXTEND:
        seq = view.sequences(seat)[m.seq - 1]
        text = f"{card(m.faces[0], ascii)} onto {m.seq}: {sequence(seq, ascii)}"
        if len(seq) == 7:
            text += "  (an octave: you win)"
        return text
    if k is Kind.MELD:
        text = cards(m.faces, ascii)
    elif k in (Kind.TAKE, Kind.DISCARD):
        text = card(m.faces[0], ascii)
    else:
        text = str(m)
    hint = effect_hint(m, in_turn, view.stock_size)
    return f"{text}  ({hint})" if hint else text


def choices(view: Game, seat: int, ascii: bool = False) -> list[Choice]:
    """The top level for ``seat`` (empty when the decision is not theirs)."""
    if view.is_over or view.to_act != seat:
        return []
    moves = view.legal_moves()
    effects = view.effects
    if effects:
        if effects[0].kind == "draw":
            return [
                Choice("Draw a card (d)", moves[0], key="d"),
                Choice("Stop drawing (s)", moves[1], key="s"),
            ]
        return [
            Choice(f"Discard {card(m.faces[0], ascii)}", m, faces=m.faces)
            for m in moves
            if m.kind is Kind.DISCARD
        ]
    top = []
    draw = [m for m in moves if m.kind is Kind.DRAW]
    top.append(
        Choice("Draw a card (d)", draw[0], key="d")
        if draw
        else Choice("Draw a card (the stock is empty)", key="d")
    )
    for key, name, kind in GROUPS:
        group = tuple(
            Choice(label(m, view, seat, ascii), m, faces=m.faces) for m in moves if m.kind is kind
        )
        if group:
            top.append(Choice(f"{name}… ({key})", children=group, key=key))
        else:
            top.append(Choice(f"{name} ({_NONE[kind]})", key=key))
    ends = "Pass (p)" if view.actions_left == 2 else "End your turn (p)"
    top.append(Choice(ends, next(m for m in moves if m.kind is Kind.PASS), key="p"))
    return top


def for_card(view: Game, seat: int, face: int, ascii: bool = False) -> list[Choice]:
    """The moves that use ``face`` from the hand (discard it, melds and extensions with it)."""
    if view.is_over or view.to_act != seat:
        return []
    out = []
    for c in _leaves(choices(view, seat, ascii)):
        m = c.move
        if m is not None and m.kind in (Kind.DISCARD, Kind.MELD, Kind.EXTEND) and face in m.faces:
            verb = {Kind.DISCARD: "Discard", Kind.MELD: "Meld", Kind.EXTEND: "Add"}[m.kind]
            text = c.label.removeprefix("Discard ")
            out.append(Choice(f"{verb} {text}", m, faces=m.faces))
    return out


def _leaves(level: Sequence[Choice]) -> list[Choice]:
    out: list[Choice] = []
    for c in level:
        out.extend(_leaves(c.children) if c.children else [c])
    return out
