"""``greedy``'s rule, fast: the same decisions as ``bots.GreedyBot`` at a quarter of the cost.

The search models the other seats by greedy's one-ply rule (``search.SearchBot``'s
``model``), in every sampled deal, for many plies: there ``GreedyBot`` spends its time
valuing its hand again for each move (and for a draw once for each unseen face), each
valuation listing the hand's runs from scratch.  ``value`` is a sum over the four suits
(runs held, ranks held and the longest sequence, each per suit) plus terms of the whole
hand's size, so ``QuickGreedy`` keeps each suit's part in a table indexed by the suit's two
bytes of the hand (its first and second copies) and changes only the suit a card enters or
leaves.  The arithmetic is done in
the same order as ``bots.value``, so the worths are the same floats and the choice (the
random tie-break included) is the same move; a test checks it over many positions.
"""

from __future__ import annotations

import random

from .cards import suit_runs
from .engine import Game
from .moves import Kind, Move
from .weights import (
    ACE_MELD,
    GIFT,
    HORIZON,
    LAST_BONUS,
    REACH,
    RUNS,
    SEVEN_MELD,
    SHED,
    WIN,
)

_DRAW, _TAKE, _DISCARD, _MELD, _EXTEND = Kind.DRAW, Kind.TAKE, Kind.DISCARD, Kind.MELD, Kind.EXTEND
_ACE, _SEVEN = 7, 0


def _suit_runs(lo: int, hi: int) -> tuple[int, bool]:
    """The points of the runs one suit's cards hold (``bots.hand_runs`` for that suit) and
    whether one of them is the whole suit: ``lo``/``hi`` the suit's first and second copies."""
    found = suit_runs([(lo >> r & 1) + (hi >> r & 1) for r in range(8)])
    return sum(found), 8 in found


# One suit's part of a hand, by (first copies | second copies << 8): (its runs' points, a
# run of 8 in it, the ranks held); filled as met (3^8 reachable keys, each computed once).
_PARTS: list[tuple[int, bool, int] | None] = [None] * 65536
# REACH × n², as ``bots.value`` computes it, for n = ranks held + longest sequence.
_REACH = [REACH * n**2 for n in range(17)]


def _part(key: int) -> tuple[int, bool, int]:
    got = _PARTS[key]
    if got is None:
        rs, whole = _suit_runs(key & 255, key >> 8)
        got = _PARTS[key] = (rs, whole, (key & 255).bit_count())
    return got


def _keys(lo: int, hi: int) -> list[int]:
    """Each suit's key into ``_PARTS`` for the hand ``lo``/``hi``."""
    return [(lo >> sh & 255) | (hi >> sh & 255) << 8 for sh in (0, 8, 16, 24)]


def _with(key: int, f: int) -> int:
    """A suit's key with face ``f`` (of that suit) added."""
    b = 1 << (f & 7)
    return key | b << 8 if key & b else key | b


def _without(key: int, f: int) -> int:
    """A suit's key with face ``f`` (of that suit, held) taken away."""
    b = 1 << (f & 7)
    return key ^ b << 8 if key & b << 8 else key ^ b


class _Seat:
    """One seat's cards in a position, valued as ``bots.value`` values them."""

    __slots__ = ("ending", "longest", "melded", "won")

    def __init__(self, seqs: list[int], ending: float) -> None:
        self.ending = ending
        self.longest = [0, 0, 0, 0]
        self.melded = 0
        self.won = False
        for m in seqs:
            self._add_seq(m)

    def _add_seq(self, m: int) -> None:
        n = m.bit_count()
        if n >= 8:
            self.won = True
        self.melded += n
        suit = ((m & -m).bit_length() - 1) >> 3
        if n > self.longest[suit]:
            self.longest[suit] = n

    def with_seq(self, old: int, new: int) -> _Seat:
        """This seat with sequence ``old`` (0: none) replaced by ``new``."""
        s = object.__new__(_Seat)
        s.ending, s.won = self.ending, self.won
        s.longest, s.melded = self.longest[:], self.melded
        if old:
            # An extension: the sequence grows by one card (its suit's longest may grow).
            s.melded -= old.bit_count()
        s._add_seq(new)
        return s

    def value(self, lo: int, hi: int) -> float:
        """``bots.value`` of the hand ``lo``/``hi`` (two masks) and this seat's sequences."""
        return self.of_parts([_part(k) for k in _keys(lo, hi)], lo.bit_count() + hi.bit_count())

    def of_parts(self, parts: list[tuple[int, bool, int]], n: int) -> float:
        """``bots.value`` of a hand of ``n`` cards whose suits' parts are ``parts``, in
        ``bots.value``'s order of operations (so the same float)."""
        if self.won:
            return WIN
        ending = self.ending
        melded = self.melded
        p0, p1, p2, p3 = parts
        runsum = p0[0] + p1[0] + p2[0] + p3[0]
        end = mid = 0.0
        if ending > 0:
            held = runsum * (2 if p0[1] or p1[1] or p2[1] or p3[1] else 1)
            bonus = 10.0 if not n else max(0.0, SHED * (3 - n))
            end = melded - held + bonus
        if ending < 1:
            lg = self.longest
            reach = 0
            reach += _REACH[p0[2] + lg[0]]
            reach += _REACH[p1[2] + lg[1]]
            reach += _REACH[p2[2] + lg[2]]
            reach += _REACH[p3[2] + lg[3]]
            mid = melded + RUNS * runsum + reach
        return ending * end + (1 - ending) * mid


def _plus(lo: int, hi: int, f: int) -> tuple[int, int]:
    b = 1 << f
    return (lo, hi | b) if lo & b else (lo | b, hi)


def _minus(lo: int, hi: int, f: int) -> tuple[int, int]:
    b = 1 << f
    return (lo, hi ^ b) if hi & b else (lo ^ b, hi)


def _faces(lo: int, hi: int) -> list[int]:
    """The hand's faces in increasing order, a face held twice listed twice."""
    out = []
    both = lo | hi
    while both:
        b = both & -both
        f = b.bit_length() - 1
        out.append(f)
        if hi & b:
            out.append(f)
        both ^= b
    return out


class QuickGreedy:
    """``bots.GreedyBot``'s decisions, on a ``Game`` (a seat's view or a full game, read
    only as the seat to act would see it), fast enough to play many plies in a search."""

    name = "greedy"

    def choose(self, view: Game, rng: random.Random) -> Move:
        moves = view._legal()
        if len(moves) == 1:
            return moves[0]
        p = _Position(view)
        scored = [(p.worth(m), rng.random(), m) for m in moves]
        return max(scored)[2]


class _Position:
    __slots__ = (
        "base",
        "hi",
        "in_turn",
        "keys",
        "last_open",
        "lo",
        "my_turn",
        "n",
        "others",
        "parts",
        "seat",
        "seqs",
        "stock",
        "unseen",
        "unseen_n",
    )

    def __init__(self, g: Game) -> None:
        me = g.to_act
        stock = len(g.stock)
        left = stock / (HORIZON * g.players)
        ending = 1.0 if g.last >= 0 else max(0.0, 1.0 - left)
        self.lo, self.hi = g.lo[me], g.hi[me]
        self.seqs = g.seqs[me]
        self.seat = _Seat(self.seqs, ending)
        self.others = g.players - 1
        self.stock = stock
        self.in_turn = not g.pending
        self.my_turn = g.player == me
        self.last_open = g.last < 0 and stock > 0
        self.base = None
        self.keys = _keys(self.lo, self.hi)
        self.parts = [_part(k) for k in self.keys]
        self.n = self.lo.bit_count() + self.hi.bit_count()
        # What the seat has not seen: every copy but those in its hand, the range, the
        # sequences and the cards others took from the range (known to all).
        seen = [self.lo, self.hi, g.range_lo, g.range_hi]
        for s in range(g.players):
            seen.extend(g.seqs[s])
            if s != me:
                seen.append(g.known_lo[s])
                seen.append(g.known_hi[s])
        count = [g.decks] * 32
        for x in seen:
            while x:
                b = x & -x
                count[b.bit_length() - 1] -= 1
                x ^= b
        unseen = [(f, c) for f, c in enumerate(count) if c > 0]
        n = sum(c for _, c in unseen)
        self.unseen = unseen
        self.unseen_n = n

    def draw_gain(self, lo: int, hi: int, draws: int = 1) -> float:
        draws = min(draws, self.stock)
        if draws <= 0 or not self.unseen_n:
            return 0.0
        seat = self.seat
        keys = _keys(lo, hi)
        parts = [_part(k) for k in keys]
        n = lo.bit_count() + hi.bit_count()
        base = seat.of_parts(parts, n)
        if seat.won:
            return 0.0  # every draw leaves the octave's WIN: nothing to gain
        # ``Seat.of_parts`` with one suit changed, inlined (most of the rule's time is here),
        # its operations in the same order so each value is the same float.
        ending, melded, lg = seat.ending, seat.melded, seat.longest
        rs = [p[0] for p in parts]
        runs_all = rs[0] + rs[1] + rs[2] + rs[3]
        whole = [p[1] for p in parts]
        reach = [_REACH[parts[i][2] + lg[i]] for i in range(4)]
        bonus = max(0.0, SHED * (2 - n))  # n + 1 cards after the draw
        seen: dict[tuple[int, tuple[int, bool, int]], float] = {}
        total = 0
        for f, c in self.unseen:
            s = f >> 3
            q = _part(_with(keys[s], f))
            v = seen.get((s, q))
            if v is None:
                runsum = runs_all - rs[s] + q[0]
                end = mid = 0.0
                if ending > 0:
                    w = q[1] or any(whole[i] for i in range(4) if i != s)
                    end = melded - runsum * (2 if w else 1) + bonus
                if ending < 1:
                    t = reach[:]
                    t[s] = _REACH[q[2] + lg[s]]
                    r = 0
                    r += t[0]
                    r += t[1]
                    r += t[2]
                    r += t[3]
                    mid = melded + RUNS * runsum + r
                v = seen[s, q] = ending * end + (1 - ending) * mid
            for _ in range(c):
                total += v  # added once a copy, in face order, as GreedyBot's sum does
        mean = total / self.unseen_n
        return draws * max(0.0, mean - base)

    def shed(self, lo: int, hi: int, count: int, order: list[int]) -> float:
        """The value after discarding the ``count`` least useful cards; ``order`` lists the
        hand's faces in the order ``GreedyBot`` holds them (the first best is dropped)."""
        seat = self.seat
        order = order[:]
        keys = _keys(lo, hi)
        parts = [_part(k) for k in keys]
        n = len(order)
        for _ in range(min(count, n)):
            best = -1
            best_v = 0.0
            n -= 1
            for f in order:
                s = f >> 3
                was = parts[s]
                parts[s] = _part(_without(keys[s], f))
                v = seat.of_parts(parts, n)
                parts[s] = was
                if best < 0 or v > best_v:
                    best, best_v = f, v
            s = best >> 3
            keys[s] = _without(keys[s], best)
            parts[s] = _part(keys[s])
            order.remove(best)
        return seat.of_parts(parts, n)

    def emptying(self, cards: int) -> float:
        if not self.last_open or cards < self.stock:
            return 0.0
        return LAST_BONUS if self.my_turn else -GIFT

    def worth(self, m: Move) -> float:
        k = m[0]
        if k == _DRAW:
            cards = 1
        elif k == _TAKE:
            cards = 1 + (m[1][0] & 7 == _SEVEN)
        elif k == _DISCARD and self.in_turn and m[1][0] & 7 == _ACE:
            cards = 2
        else:
            cards = 0
        return self._worth(m) + self.emptying(cards)

    def _base(self) -> float:
        if self.base is None:
            self.base = self.seat.value(self.lo, self.hi)
        return self.base

    def _one(self, f: int, key: int, d: int) -> float:
        """The hand's value with one card of ``f``'s suit more (``d`` 1) or fewer (-1), that
        suit's key then ``key``."""
        parts = self.parts[:]
        parts[f >> 3] = _part(key)
        return self.seat.of_parts(parts, self.n + d)

    def _worth(self, m: Move) -> float:
        lo, hi = self.lo, self.hi
        k = m[0]
        if k == _DRAW:
            return self._base() + self.draw_gain(lo, hi)
        if k not in (_TAKE, _DISCARD, _MELD, _EXTEND):  # pass, stop
            return self._base()
        f = m[1][0]
        r = f & 7
        if k == _TAKE:
            alo, ahi = _plus(lo, hi, f)
            if r == _ACE:
                return self.shed(alo, ahi, 2, [*_faces(lo, hi), f])  # the new card last
            extra = self.draw_gain(alo, ahi) if r == _SEVEN and self.stock - 1 > 0 else 0.0
            return self._one(f, _with(self.keys[f >> 3], f), 1) + extra
        if k == _DISCARD:
            if not self.in_turn:
                return self._one(f, _without(self.keys[f >> 3], f), -1)
            alo, ahi = _minus(lo, hi, f)
            if r == _ACE:
                return self.seat.value(alo, ahi) + self.draw_gain(alo, ahi, 2)
            if r == _SEVEN:
                return self.shed(alo, ahi, 1, _faces(alo, ahi))
            return self._one(f, _without(self.keys[f >> 3], f), -1)
        faces = m[1]
        for x in faces:
            lo, hi = _minus(lo, hi, x)
        mask = 0
        for x in faces:
            mask |= 1 << x
        if k == _MELD:
            worth = self.seat.with_seq(0, mask).value(lo, hi)
            n = len(faces)
            if n < 8 and any(x & 7 == _ACE for x in faces):
                worth += ACE_MELD * min(n, 4) * self.others
            if n < 8 and any(x & 7 == _SEVEN for x in faces):
                worth -= SEVEN_MELD * n * self.others
            return worth
        old = self.seqs[m[2] - 1]
        return self.seat.with_seq(old, old | mask).value(lo, hi)
