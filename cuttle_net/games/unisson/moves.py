"""L'Unisson's moves: small immutable values with a one-line, context-free text form.

``Move(kind, faces, seq)``: ``faces`` are the faces the move names (one for ``take``,
``discard`` and ``extend``, three or more for ``meld``), ``seq`` the 1-based number of the
mover's sequence that ``extend`` adds to (0 otherwise).  The text form (``meld 7H 8H 9H``,
``extend 2 TH``) travels on the wire and is documented in SPEC part 6.

Moves are interned: the engine hands out the same object for the same move, so listing the
legal moves allocates no move.
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

from .cards import ALL_FACES, face_text, parse_face


class Kind(IntEnum):
    DRAW = 0
    TAKE = 1
    DISCARD = 2
    MELD = 3
    EXTEND = 4
    PASS = 5
    STOP = 6


VERBS: dict[Kind, str] = {
    Kind.DRAW: "draw",
    Kind.TAKE: "take",
    Kind.DISCARD: "discard",
    Kind.MELD: "meld",
    Kind.EXTEND: "extend",
    Kind.PASS: "pass",
    Kind.STOP: "stop",
}
_BY_VERB = {verb: kind for kind, verb in VERBS.items()}
MAX_SEQ = 32  # more sequences than one player can ever meld (64 cards / 3)


class MoveSyntaxError(ValueError):
    """The text is not a move."""


class Move(NamedTuple):
    kind: Kind
    faces: tuple[int, ...] = ()
    seq: int = 0

    def __str__(self) -> str:
        words = [VERBS[self.kind]]
        if self.seq:
            words.append(str(self.seq))
        words.extend(face_text(f) for f in self.faces)
        return " ".join(words)

    def __repr__(self) -> str:
        return f"Move({str(self)!r})"

    @property
    def mask(self) -> int:
        """The faces named, as a mask (one bit a face)."""
        m = 0
        for f in self.faces:
            m |= 1 << f
        return m


DRAW = Move(Kind.DRAW)
PASS = Move(Kind.PASS)
STOP = Move(Kind.STOP)
TAKE: tuple[Move, ...] = tuple(Move(Kind.TAKE, (f,)) for f in ALL_FACES)
DISCARD: tuple[Move, ...] = tuple(Move(Kind.DISCARD, (f,)) for f in ALL_FACES)
# EXTEND[seq][face]; row 0 is unused (sequences are numbered from 1).
EXTEND: tuple[tuple[Move, ...], ...] = tuple(
    tuple(Move(Kind.EXTEND, (f,), s) for f in ALL_FACES) for s in range(MAX_SEQ + 1)
)
# Every meld: a run of 3 to 8 consecutive ranks in one suit, by its mask.
MELD: dict[int, Move] = {}
for _suit in range(4):
    for _lo in range(8):
        for _n in range(3, 9 - _lo):
            _faces = tuple(range(_suit * 8 + _lo, _suit * 8 + _lo + _n))
            MELD[sum(1 << f for f in _faces)] = Move(Kind.MELD, _faces)


def parse_move(text: str) -> Move:
    """Read a move from its text form; raise ``MoveSyntaxError`` saying what is wrong."""
    words = text.split()
    if not words:
        raise MoveSyntaxError("empty move")
    verb, args = words[0].lower(), words[1:]
    kind = _BY_VERB.get(verb)
    if kind is None:
        verbs = ", ".join(VERBS.values())
        raise MoveSyntaxError(f"unknown move {words[0]!r}: a move starts with one of {verbs}")
    if kind in (Kind.DRAW, Kind.PASS, Kind.STOP):
        if args:
            raise MoveSyntaxError(f"{verb!r} names no card: {text!r}")
        return {Kind.DRAW: DRAW, Kind.PASS: PASS, Kind.STOP: STOP}[kind]
    if kind is Kind.EXTEND:
        if len(args) != 2:
            raise MoveSyntaxError(f"'extend' takes a sequence number and a card: {text!r}")
        number = args[0]
        if not (number.isascii() and number.isdecimal() and len(number) <= 2) or not (
            1 <= int(number) <= MAX_SEQ
        ):
            raise MoveSyntaxError(
                f"{args[0]!r} is not a sequence number: write 1 for your first sequence, "
                f"2 for the second… (at most {MAX_SEQ})"
            )
        return EXTEND[int(args[0])][_face(args[1])]
    if kind is not Kind.MELD:
        if len(args) != 1:
            raise MoveSyntaxError(f"{verb!r} takes one card, not {len(args)}: {text!r}")
        return (TAKE if kind is Kind.TAKE else DISCARD)[_face(args[0])]
    if len(args) < 3:
        raise MoveSyntaxError(f"a meld is three cards or more, not {len(args)}: {text!r}")
    faces = sorted(_face(a) for a in args)
    if len(set(faces)) != len(faces):
        raise MoveSyntaxError(f"a meld names each card once: {text!r}")
    m = MELD.get(sum(1 << f for f in faces))
    if m is None:
        raise MoveSyntaxError(
            f"not a sequence: {text!r} (a meld is cards of one suit in a row, "
            "in the order 7 8 9 10 J Q K A)"
        )
    return m


def _face(word: str) -> int:
    try:
        return parse_face(word)
    except ValueError as e:
        raise MoveSyntaxError(str(e)) from None
