"""L'Unisson's cards as small integers ("faces"), and their text forms.

A face is ``suit * 8 + rank``: suits C D H S are 0..3, ranks 7 8 9 10 J Q K A are 0..7.
A sequence is then a run of consecutive integers inside one suit, and a set of faces is a
32-bit mask in which each suit is one byte: the engine's tables are indexed by those bytes.

With two decks every face exists twice; the deck protocol numbers the 64 cards 0..63 and
``face_of(card_id) == card_id % 32``.  The two copies are interchangeable, so the rules, the
moves and the notation only ever name faces.
"""

from __future__ import annotations

RANKS = "789TJQKA"
SUITS = "CDHS"
SUIT_GLYPHS = "♣♦♥♠"
RANK_NAMES = ("7", "8", "9", "10", "J", "Q", "K", "A")

FACES = 32
SEVEN, ACE = 0, 7  # ranks
ALL_FACES = tuple(range(FACES))

SUIT_OF: tuple[int, ...] = tuple(f >> 3 for f in ALL_FACES)
RANK_OF: tuple[int, ...] = tuple(f & 7 for f in ALL_FACES)
# Masks of every seven, every ace, and each suit's octave (all eight ranks).
SEVENS = sum(1 << (s * 8) for s in range(4))
ACES = sum(1 << (s * 8 + 7) for s in range(4))
OCTAVES: tuple[int, ...] = tuple(0xFF << (s * 8) for s in range(4))


def face(rank: int, suit: int) -> int:
    """The face of ``rank`` (0 = 7 … 7 = ace) and ``suit`` (0 = clubs … 3 = spades)."""
    if not 0 <= rank <= 7 or not 0 <= suit <= 3:
        raise ValueError(f"no face has rank {rank} and suit {suit}")
    return suit * 8 + rank


def face_of(card_id: int) -> int:
    """The face of a deck-protocol card id (0..63 with two decks)."""
    return card_id % FACES


def face_text(f: int) -> str:
    """``TH``-style text of a face (the written form: rank letter, suit letter)."""
    return RANKS[f & 7] + SUITS[f >> 3]


def face_display(f: int, ascii: bool = False) -> str:
    """``10♥``-style display form; with ``ascii`` the text form ``TH``."""
    if ascii:
        return face_text(f)
    return RANK_NAMES[f & 7] + SUIT_GLYPHS[f >> 3]


_BY_TEXT = {face_text(f): f for f in ALL_FACES}


def parse_face(text: str) -> int:
    """The face named by ``text`` (``9H``, ``th``, ``10H``, ``10♥``); ``ValueError`` if none."""
    t = text.strip().upper()
    if t.startswith("10"):
        t = "T" + t[2:]
    for glyph, letter in zip(SUIT_GLYPHS, SUITS, strict=True):
        t = t.replace(glyph, letter)
    f = _BY_TEXT.get(t)
    if f is None:
        raise ValueError(
            f"{text!r} is not a card: write a rank ({' '.join(RANK_NAMES)}, or T for 10) "
            f"then a suit ({SUITS}), like 9H or 10S"
        )
    return f


def mask_faces(mask: int) -> list[int]:
    """The faces of a mask, in increasing order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def runs(byte: int) -> list[tuple[int, int]]:
    """The maximal runs of set bits in an 8-bit suit byte, as (lowest rank, length)."""
    out = []
    r = 0
    while r < 8:
        if byte >> r & 1:
            start = r
            while r < 8 and byte >> r & 1:
                r += 1
            out.append((start, r - start))
        else:
            r += 1
    return out


def suit_runs(counts: list[int]) -> list[int]:
    """The lengths of the sequences one suit's cards make, as UNISSON.md scores a hand:
    the longest run present, then the longest of what remains, while one of 3+ remains
    (``counts``: copies held of each rank, used up as runs are found; a face held twice may
    serve in two runs)."""
    found = []
    c = counts
    while True:
        best_lo, best_n, r = 0, 0, 0
        while r < 8:
            if c[r]:
                lo = r
                while r < 8 and c[r]:
                    r += 1
                if r - lo > best_n:
                    best_lo, best_n = lo, r - lo
            else:
                r += 1
        if best_n < 3:
            return found
        found.append(best_n)
        for k in range(best_lo, best_lo + best_n):
            c[k] -= 1
