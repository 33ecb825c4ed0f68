"""The rules engine of L'Unisson: a pure, deterministic state machine for one game.

A ``Game`` holds either the full information (the truth, as a referee or a test sees it)
or what one seat knows (its *view*): there the stock and the other hands are unknown, except
the cards of a hand that everybody saw it take from the range.  A view learns the cards it
comes to see through the ``reveal`` argument of ``apply``: its own draws and every stock card
turned face up into the range.  There is no chance seat: once the deck is shuffled, every card
motion follows from the moves.

Hands, the range and sequences are sets of faces held as bit masks (see ``cards``); with two
decks a face may be held twice, so a multiset is two masks: ``lo`` (held at least once) and
``hi`` (held twice).  The state is a few lists of ints, cheap to copy, and the legal moves
come from tables indexed by one suit's byte.

Two ways in, as in python-chess: ``apply`` checks a move and names the rule it breaks;
``push`` trusts its caller (a move from ``legal_moves``) and is fast.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from .cards import ACE, ACES, FACES, OCTAVES, SEVEN, SEVENS, face_display, face_of, mask_faces
from .motions import UNKNOWN, Drawn, HandOut, Motion, Taken, Turned
from .moves import DISCARD, DRAW, EXTEND, MELD, PASS, STOP, TAKE, Kind, Move, parse_move
from .scoring import Score, scores

NOBODY = -1  # to_act when the game is over
FULL = -1  # the viewer of a full-information game
SPECTATOR = -2  # the viewer of a game seen from outside: every hand hidden
HAND_SIZE, RANGE_SIZE = 4, 4  # dealt to each hand, then face up to the range
MIN_PLAYERS, MAX_PLAYERS = 3, 6

# Pending effect steps are tuples (kind, seat, count).
MUST_DISCARD, MAY_DRAW = 0, 1
_EFFECT_NAMES = ("discard", "draw")

_DRAW, _TAKE, _DISCARD, _MELD, _EXTEND, _PASS, _STOP = (
    Kind.DRAW,
    Kind.TAKE,
    Kind.DISCARD,
    Kind.MELD,
    Kind.EXTEND,
    Kind.PASS,
    Kind.STOP,
)


def _by_byte(rows: Sequence[Move]) -> list[tuple[tuple[Move, ...], ...]]:
    """[suit][byte] -> the moves of ``rows`` (indexed by face) for the faces in that byte."""
    return [
        [tuple(rows[s * 8 + r] for r in range(8) if b >> r & 1) for b in range(256)]
        for s in range(4)
    ]


def _melds_by_byte() -> list[list[tuple[Move, ...]]]:
    """[suit][byte] -> every meld whose cards are all in that byte, by lowest card then length."""
    out = []
    for s in range(4):
        row = []
        for b in range(256):
            melds = []
            for lo in range(8):
                for n in range(3, 9 - lo):
                    run = ((1 << n) - 1) << lo
                    if b & run == run:
                        melds.append(MELD[run << (s * 8)])
            row.append(tuple(melds))
        out.append(row)
    return out


_TAKE_BY = _by_byte(TAKE)
_DISCARD_BY = _by_byte(DISCARD)
_MELDS_BY = _melds_by_byte()
# Each possible sequence mask -> the faces that would extend it (below, above; in its suit).
_ENDS: dict[int, tuple[int, ...]] = {}
for _m in MELD:
    _lo_f = (_m & -_m).bit_length() - 1
    _hi_f = _m.bit_length() - 1
    _ENDS[_m] = tuple(f for f in (_lo_f - 1, _hi_f + 1) if 0 <= f < FACES and f >> 3 == _lo_f >> 3)
del _m, _lo_f, _hi_f
_OCTAVE_OF = {o: s for s, o in enumerate(OCTAVES)}


class IllegalMove(ValueError):
    """A well-formed move that the rules do not allow here; the message names the rule."""


class RevealError(ValueError):
    """The faces given to a view do not fit the move."""


class Effect(NamedTuple):
    """A pending effect: ``seat`` must discard (or may draw) ``count`` more cards."""

    kind: str  # "discard" | "draw"
    seat: int
    count: int


class Outcome(NamedTuple):
    """How a game ended: an octave (``seat`` melded it), the last round, or idle turns."""

    reason: str  # "octave" | "last-round" | "passes"
    seat: int | None = None

    def __str__(self) -> str:
        if self.reason == "octave":
            return f"seat {self.seat} melded an octave"
        if self.reason == "last-round":
            return "the last round is over"
        return "every player passed a whole turn in a row"


class Game:
    """One game of L'Unisson, full information or one seat's view."""

    __slots__ = (
        "_journal",
        "_reveals",
        "dealer",
        "decks",
        "hi",
        "hidden",
        "idle",
        "known_hi",
        "known_lo",
        "last",
        "lo",
        "outcome",
        "pending",
        "player",
        "players",
        "range_hi",
        "range_lo",
        "seqs",
        "sizes",
        "stock",
        "turn",
        "used",
        "viewer",
    )

    players: int
    decks: int
    dealer: int
    viewer: int  # FULL, SPECTATOR, or the seat whose view this is
    stock: list[int]  # faces, top at the END; UNKNOWN where this game cannot see
    range_lo: int  # the range as a multiset of faces (two masks)
    range_hi: int
    lo: list[int]  # each hand's faces that this game can see (two masks a hand)
    hi: list[int]
    hidden: list[int]  # each hand's cards this game cannot see (0 in full information)
    sizes: list[int]  # each hand's size, hidden cards included
    known_lo: list[int]  # the cards of each hand that every player knows are there
    known_hi: list[int]
    seqs: list[list[int]]  # each seat's melded sequences as masks, in the order melded
    player: int  # whose turn it is
    turn: int  # 1 for the first turn, +1 at each change of turn
    used: int  # actions taken this turn (0, 1, 2)
    idle: int  # consecutive turns with no action
    last: int  # the last player, or -1 while the stock holds cards
    pending: list[tuple[int, int, int]]  # effect steps (kind, seat, count), current first
    outcome: Outcome | None

    # ---------------------------------------------------------------- creation

    @classmethod
    def empty(cls, players: int = 4, decks: int = 1, dealer: int = 0, viewer: int = FULL) -> Game:
        check_table(players, decks)
        if not 0 <= dealer < players:
            raise ValueError(f"the dealer is a seat, 0 to {players - 1}")
        g = object.__new__(cls)
        g.players, g.decks, g.dealer, g.viewer = players, decks, dealer, viewer
        g.stock, g.range_lo, g.range_hi = [], 0, 0
        g.lo, g.hi = [0] * players, [0] * players
        g.hidden, g.sizes = [0] * players, [0] * players
        g.known_lo, g.known_hi = [0] * players, [0] * players
        g.seqs = [[] for _ in range(players)]
        g.player, g.turn, g.used, g.idle, g.last = (dealer + 1) % players, 1, 0, 0, -1
        g.pending, g.outcome = [], None
        g._reveals, g._journal = None, None
        return g

    @classmethod
    def deal(
        cls,
        players: int = 4,
        decks: int = 1,
        dealer: int = 0,
        order: Sequence[int] | None = None,
        seed: int | None = None,
    ) -> Game:
        """A new game from a deck ``order`` of card ids (top first), or shuffled from ``seed``.

        The top 4 cards go to seat 0, the next 4 to seat 1, and so on in seat order; the next
        4 are turned face up as the range; the rest is the stock.  The seat left of the
        dealer plays first.
        """
        g = cls.empty(players, decks, dealer)
        n = FACES * decks
        if order is None:
            ids = list(range(n))
            random.Random(seed).shuffle(ids)
        else:
            ids = list(order)
            if len(ids) != n or set(ids) != set(range(n)):
                raise ValueError(f"a deck order must hold each card id 0..{n - 1} once")
        faces = [face_of(c) for c in ids]
        for s in range(players):
            for f in faces[s * HAND_SIZE : (s + 1) * HAND_SIZE]:
                g._add_hand(s, f)
        k = players * HAND_SIZE
        for f in faces[k : k + RANGE_SIZE]:
            g._add_range(f)
        g.stock = faces[k + RANGE_SIZE :][::-1]
        return g

    @classmethod
    def dealt_view(
        cls,
        players: int,
        decks: int,
        dealer: int,
        seat: int | None,
        hand: Sequence[int],
        range_cards: Sequence[int],
    ) -> Game:
        """What ``seat`` (None: a spectator) knows of a fresh deal: its hand and the range."""
        viewer = SPECTATOR if seat is None else seat
        g = cls.empty(players, decks, dealer, viewer)
        if len(range_cards) != RANGE_SIZE or (seat is not None and len(hand) != HAND_SIZE):
            raise ValueError(f"a deal gives {HAND_SIZE} cards a hand and {RANGE_SIZE} to the range")
        _check_faces([*range_cards, *hand])
        if seat is not None and not 0 <= seat < players:
            raise ValueError(f"seat {seat} is not at a table of {players}")
        for f in range_cards:
            g._add_range(f)
        for s in range(players):
            if s == seat:
                for f in hand:
                    g._add_hand(s, f)
            else:
                g.hidden[s] = g.sizes[s] = HAND_SIZE
        g.stock = [UNKNOWN] * (FACES * decks - players * HAND_SIZE - RANGE_SIZE)
        for f in range(FACES):
            if g.visible_count(f) > decks:
                raise ValueError(f"{face_display(f)} is dealt more than {decks} time(s)")
        return g

    def copy(self) -> Game:
        g = object.__new__(Game)
        g.players, g.decks, g.dealer, g.viewer = self.players, self.decks, self.dealer, self.viewer
        g.stock, g.range_lo, g.range_hi = self.stock[:], self.range_lo, self.range_hi
        g.lo, g.hi, g.hidden, g.sizes = self.lo[:], self.hi[:], self.hidden[:], self.sizes[:]
        g.known_lo, g.known_hi = self.known_lo[:], self.known_hi[:]
        g.seqs = [s[:] for s in self.seqs]
        g.player, g.turn, g.used, g.idle, g.last = (
            self.player,
            self.turn,
            self.used,
            self.idle,
            self.last,
        )
        g.pending, g.outcome = self.pending[:], self.outcome
        g._reveals, g._journal = None, None
        return g

    def view(self, seat: int | None) -> Game:
        """What ``seat`` (None: a spectator) knows of this full-information game."""
        if self.viewer != FULL:
            raise ValueError("already a view")
        if seat is not None and not 0 <= seat < self.players:
            raise ValueError(f"seat {seat} is not at a table of {self.players}")
        g = self.copy()
        g.viewer = SPECTATOR if seat is None else seat
        for o in range(self.players):
            if o != seat:
                g.lo[o], g.hi[o] = g.known_lo[o], g.known_hi[o]
                g.hidden[o] = g.sizes[o] - g.lo[o].bit_count() - g.hi[o].bit_count()
        g.stock = [UNKNOWN] * len(g.stock)
        return g

    # ------------------------------------------------------------- questions

    @property
    def to_act(self) -> int:
        """The seat that decides now (the player, or a seat answering an effect); NOBODY
        once the game is over."""
        if self.outcome is not None:
            return NOBODY
        if self.pending:
            return self.pending[0][1]
        return self.player

    @property
    def is_over(self) -> bool:
        return self.outcome is not None

    @property
    def actions_left(self) -> int:
        return 2 - self.used

    @property
    def last_player(self) -> int | None:
        return None if self.last < 0 else self.last

    @property
    def effects(self) -> tuple[Effect, ...]:
        """The pending effect steps, the current one first."""
        return tuple(Effect(_EFFECT_NAMES[k], s, n) for k, s, n in self.pending)

    @property
    def stock_size(self) -> int:
        return len(self.stock)

    def hand(self, seat: int) -> list[int]:
        """``seat``'s hand, sorted (in a view, only the cards the viewer knows)."""
        return _multiset(self.lo[seat], self.hi[seat])

    def public_hand(self, seat: int) -> list[int]:
        """The cards of ``seat``'s hand that every player knows are there (taken from the range)."""
        return _multiset(self.known_lo[seat], self.known_hi[seat])

    def hand_size(self, seat: int) -> int:
        return self.sizes[seat]

    def range_cards(self) -> list[int]:
        return _multiset(self.range_lo, self.range_hi)

    def sequences(self, seat: int) -> list[tuple[int, ...]]:
        """``seat``'s melded sequences, low card first, numbered from 1 in the order melded."""
        return [tuple(mask_faces(m)) for m in self.seqs[seat]]

    def visible_count(self, f: int) -> int:
        """How many copies of face ``f`` this game sees (in hands, the range, sequences, stock)."""
        b = 1 << f
        n = (self.range_lo & b != 0) + (self.range_hi & b != 0)
        for s in range(self.players):
            n += (self.lo[s] & b != 0) + (self.hi[s] & b != 0)
            for m in self.seqs[s]:
                n += m & b != 0
        return n + self.stock.count(f)

    def unseen_count(self, f: int) -> int:
        """How many copies of face ``f`` are where this game cannot see them."""
        return self.decks - self.visible_count(f)

    # ---------------------------------------------------------- legal moves

    def legal_moves(self) -> list[Move]:
        """Every move of the seat to act, in a fixed order (draw, takes, discards, melds,
        extends, pass; during an effect: the discards, or draw and stop)."""
        actor = self.to_act
        if actor < 0:
            return []
        if self.hidden[actor]:
            raise ValueError("this view cannot list the moves of a hand it cannot see")
        return self._legal()

    def _legal(self) -> list[Move]:
        pend = self.pending
        if pend:
            kind, seat, _ = pend[0]
            if kind == MAY_DRAW:
                return [DRAW, STOP]
            h = self.lo[seat]
            by = _DISCARD_BY
            return [
                *by[0][h & 255],
                *by[1][h >> 8 & 255],
                *by[2][h >> 16 & 255],
                *by[3][h >> 24],
            ]
        p = self.player
        moves = [DRAW] if self.stock else []
        r = self.range_lo
        if r:
            by = _TAKE_BY
            moves += by[0][r & 255]
            moves += by[1][r >> 8 & 255]
            moves += by[2][r >> 16 & 255]
            moves += by[3][r >> 24]
        h = self.lo[p]
        if h:
            b0, b1, b2, b3 = h & 255, h >> 8 & 255, h >> 16 & 255, h >> 24
            by = _DISCARD_BY
            moves += by[0][b0]
            moves += by[1][b1]
            moves += by[2][b2]
            moves += by[3][b3]
            by = _MELDS_BY
            moves += by[0][b0]
            moves += by[1][b1]
            moves += by[2][b2]
            moves += by[3][b3]
            for i, m in enumerate(self.seqs[p], 1):
                for f in _ENDS[m]:
                    if h >> f & 1:
                        moves.append(EXTEND[i][f])
        moves.append(PASS)
        return moves

    # ---------------------------------------------------------------- apply

    def push(self, m: Move) -> None:
        """Play ``m`` for the seat to act, trusting that it is legal (from ``legal_moves``)."""
        k = m[0]
        pend = self.pending
        if pend:
            kind, seat, count = pend[0]
            if k == _DISCARD:
                f = m[1][0]
                self._hand_out(seat, f, "range")
                self._add_range(f)
                count -= 1
            elif k == _DRAW:
                self._draw(seat)
                count -= 1
            else:  # stop
                count = 0
            if count:
                pend[0] = (kind, seat, count)
            else:
                del pend[0]
            self._settle()
            return
        p = self.player
        if k == _PASS:
            self._end_turn()
            return
        self.used += 1
        if k == _DRAW:
            self._draw(p)
        elif k == _TAKE:
            f = m[1][0]
            b = 1 << f
            if self.range_hi & b:
                self.range_hi ^= b
            else:
                self.range_lo ^= b
            self._add_hand(p, f)
            if self.known_lo[p] & b:
                self.known_hi[p] |= b
            else:
                self.known_lo[p] |= b
            if self._journal is not None:
                self._journal.append(Taken(p, f))
            if self.stock:
                self._turn_up()
            r = f & 7
            if r == ACE:
                pend.append((MUST_DISCARD, p, 2))
            elif r == SEVEN:
                pend.append((MAY_DRAW, p, 1))
        elif k == _DISCARD:
            f = m[1][0]
            self._hand_out(p, f, "range")
            self._add_range(f)
            r = f & 7
            if r == ACE:
                pend.append((MAY_DRAW, p, 2))
            elif r == SEVEN:
                pend.append((MUST_DISCARD, p, 1))
        elif k == _MELD:
            mask = 0
            for f in m[1]:
                self._hand_out(p, f, "meld")
                mask |= 1 << f
            self.seqs[p].append(mask)
            if mask in _OCTAVE_OF:
                self._finish("octave", p)
                return
            if mask & (ACES | SEVENS):
                kind = MUST_DISCARD if mask & ACES else MAY_DRAW
                n = len(m[1])
                np = self.players
                for i in range(1, np):
                    pend.append((kind, (p + i) % np, n))
        elif k == _EXTEND:
            f = m[1][0]
            self._hand_out(p, f, "extend")
            seqs = self.seqs[p]
            i = m[2] - 1
            seqs[i] |= 1 << f
            if seqs[i] in _OCTAVE_OF:
                self._finish("octave", p)
                return
        self._settle()

    def _settle(self) -> None:
        """Drop effect steps nobody can act on; end the turn after its second action."""
        pend = self.pending
        while pend:
            kind, seat, _ = pend[0]
            if self.sizes[seat] if kind == MUST_DISCARD else self.stock:
                return
            del pend[0]
        if self.used >= 2:
            self._end_turn()

    def _end_turn(self) -> None:
        p = self.player
        n = self.players
        if self.used:
            self.idle = 0
        else:
            self.idle += 1
        if self.last >= 0 and p == (self.last - 1) % n:
            self._finish("last-round", None)
            return
        if self.idle >= n:
            self._finish("passes", None)
            return
        self.player = (p + 1) % n
        self.turn += 1
        self.used = 0

    def _finish(self, reason: str, seat: int | None) -> None:
        self.outcome = Outcome(reason, seat)
        self.pending = []

    # --------------------------------------------------------- card motion

    def _add_hand(self, s: int, f: int) -> None:
        b = 1 << f
        if self.lo[s] & b:
            self.hi[s] |= b
        else:
            self.lo[s] |= b
        self.sizes[s] += 1

    def _add_range(self, f: int) -> None:
        b = 1 << f
        if self.range_lo & b:
            self.range_hi |= b
        else:
            self.range_lo |= b

    def _hand_out(self, s: int, f: int, to: str) -> None:
        """Face ``f`` leaves ``s``'s hand face up (a card others knew of leaves first)."""
        b = 1 << f
        if self.hi[s] & b:
            self.hi[s] ^= b
        else:
            self.lo[s] ^= b
        self.sizes[s] -= 1
        if self.known_lo[s] & b:
            if self.known_hi[s] & b:
                self.known_hi[s] ^= b
            else:
                self.known_lo[s] ^= b
        if self._journal is not None:
            self._journal.append(HandOut(s, f, to))

    def _draw(self, s: int) -> None:
        f = self.stock.pop()
        if f < 0 and self.viewer == s:
            f = self._learn()
        if f < 0:
            self.hidden[s] += 1
            self.sizes[s] += 1
        else:
            self._add_hand(s, f)
        if self._journal is not None:
            self._journal.append(Drawn(s, f))
        if not self.stock and self.last < 0:
            self.last = self.player

    def _turn_up(self) -> None:
        """The stock's top card replaces a card taken from the range, face up."""
        f = self.stock.pop()
        if f < 0:
            f = self._learn()
        if f >= 0:
            self._add_range(f)
        if self._journal is not None:
            self._journal.append(Turned(f))
        if not self.stock and self.last < 0:
            self.last = self.player

    def _learn(self) -> int:
        if self._reveals is None:
            raise RevealError("this move shows you a card: its face must be given")
        if isinstance(self._reveals, _Counter):
            self._reveals.count += 1
            return UNKNOWN
        if not self._reveals:
            raise RevealError("this move shows you a card: its face must be given")
        return self._reveals.pop(0)

    # -------------------------------------------------------- checked apply

    def check(self, m: Move | str, by: int | None = None) -> Move:
        """Raise ``IllegalMove``, naming the rule, unless seat ``by`` may make ``m`` now.

        ``by`` defaults to the seat to act.  Nothing changes.
        """
        if isinstance(m, str):
            m = parse_move(m)
        if self.outcome is not None:
            raise IllegalMove(f"the game is over ({self.outcome})")
        actor = self.to_act
        if by is not None and by != actor:
            raise IllegalMove(f"it is not seat {by}'s decision: seat {actor} decides now")
        work = self._materialized(m)
        if m not in work._legal():
            raise IllegalMove(_why_illegal(work, m))
        return m

    def apply(self, m: Move | str, by: int | None = None, reveal: Iterable[int] = ()) -> None:
        """Check and play a move (see ``check``).

        In a view, ``reveal`` lists the faces this move shows the viewer, in the order the
        move meets them: the viewer's own draws and every card turned into the range
        (``reveals_needed`` says how many).
        """
        m = self.check(m, by)
        faces = list(reveal)
        if self.viewer == FULL:
            if faces:
                raise RevealError("a full-information game needs no reveals")
            self.push(m)
            return
        try:
            _check_faces(faces)
        except ValueError as e:
            raise RevealError(str(e)) from None
        work = self._materialized(m)
        if work is self:  # a refused reveal must leave this game as it was
            work = self.copy()
        for f in set(faces):
            if faces.count(f) > work.unseen_count(f):
                raise RevealError(
                    f"{face_display(f)} cannot be revealed: this view knows where every copy is"
                )
        work._reveals = faces
        work._journal = self._journal
        work.push(m)
        if faces:
            raise RevealError(f"{len(faces)} more card(s) revealed than this move shows")
        work._reveals = None
        for name in Game.__slots__:
            setattr(self, name, getattr(work, name))

    def _materialized(self, m: Move) -> Game:
        """A view sees a seat name cards from its hidden hand: a copy with them placed there."""
        seat = self.to_act
        if seat < 0 or not self.hidden[seat] or m[0] not in (_DISCARD, _MELD, _EXTEND):
            return self
        g = self.copy()
        for f in m[1]:
            b = 1 << f
            if not g.lo[seat] & b and g.hidden[seat] and g.unseen_count(f) > 0:
                g.hidden[seat] -= 1
                g.lo[seat] |= b
        return g

    def motions(self, m: Move | str) -> list[Motion]:
        """The card motions ``m`` would cause, without playing it (``m`` must be legal).

        In a view, faces it would learn are ``UNKNOWN``: the motions' kinds, seats and public
        faces are what every peer agrees on.
        """
        if isinstance(m, str):
            m = parse_move(m)
        work = self._materialized(m).copy()
        work._reveals = _Counter()
        work._journal = []
        work.push(m)
        return work._journal

    def reveals_needed(self, m: Move | str) -> int:
        """How many faces ``apply(m)`` needs in this view."""
        if isinstance(m, str):
            m = parse_move(m)
        if self.viewer == FULL:
            return 0
        work = self._materialized(m).copy()
        counter = work._reveals = _Counter()
        work.push(m)
        return counter.count

    # ----------------------------------------------------------- game end

    def show_hand(self, seat: int, faces: Iterable[int]) -> None:
        """A view learns the whole of ``seat``'s hand (shown at the end of the game)."""
        faces = sorted(faces)
        try:
            _check_faces(faces)
        except ValueError as e:
            raise RevealError(str(e)) from None
        if len(faces) != self.sizes[seat]:
            raise RevealError(f"seat {seat} holds {self.sizes[seat]} card(s), not {len(faces)}")
        known = self.hand(seat)
        extra = list(faces)
        for f in known:
            if f not in extra:
                raise RevealError(f"seat {seat}'s hand holds {face_display(f)}")
            extra.remove(f)
        for f in set(extra):
            if extra.count(f) > self.unseen_count(f):
                raise RevealError(f"{face_display(f)} cannot be in seat {seat}'s hand")
        for f in extra:
            self._add_hand(seat, f)
            self.sizes[seat] -= 1
        self.hidden[seat] = 0

    def scores(self) -> list[Score]:
        """Every seat's score (every hand must be known: full information, or shown)."""
        return scores(self)

    def winners(self) -> tuple[int, ...]:
        """The winning seats of a finished game: the octave's melder, else the best totals."""
        if self.outcome is None:
            raise ValueError("the game is not over")
        if self.outcome.reason == "octave":
            return (self.outcome.seat,)
        totals = [s.total for s in self.scores()]
        best = max(totals)
        return tuple(s for s, t in enumerate(totals) if t == best)


class _Counter(list):
    """Stands in for reveals while counting how many a move needs."""

    count = 0


def _check_faces(faces: Iterable[object]) -> None:
    for f in faces:
        if type(f) is not int or not 0 <= f < FACES:
            raise ValueError(f"{f!r} is not a face (0 to {FACES - 1})")


def _multiset(lo: int, hi: int) -> list[int]:
    return sorted(mask_faces(lo) + mask_faces(hi))


def _why_illegal(g: Game, m: Move) -> str:
    """Name the rule an illegal move breaks (``g`` is the position it was tried in)."""
    k = m.kind
    seat = g.to_act
    if g.pending:
        kind, seat, count = g.pending[0]
        if kind == MUST_DISCARD and k == _DISCARD:
            return f"seat {seat} holds no {face_display(m.faces[0])}"
        if kind == MUST_DISCARD:
            return f"seat {seat} must first discard {count} card(s) from hand, one at a time"
        return f"seat {seat} may draw up to {count} card(s), one at a time: draw or stop"
    if k == _STOP:
        return "stop ends a run of optional draws, and none is pending: pass ends a turn"
    if k == _DRAW:
        return "the stock is empty"
    f = m.faces[0] if m.faces else -1
    if k == _TAKE:
        return f"{face_display(f)} is not in the range"
    missing = [x for x in m.faces if not g.lo[seat] >> x & 1]
    if missing:
        return f"seat {seat} holds no {face_display(missing[0])}"
    if k == _EXTEND:
        seqs = g.seqs[seat]
        if m.seq > len(seqs):
            return f"seat {seat} has {len(seqs)} sequence(s), not a number {m.seq}"
        shown = " ".join(face_display(x) for x in mask_faces(seqs[m.seq - 1]))
        return (
            f"{face_display(f)} does not extend sequence {m.seq} ({shown}): a card goes at "
            "either end, in the same suit"
        )
    return "not allowed here"  # every other case is listed above


def check_table(players: int, decks: int) -> None:
    """Refuse a table the rules do not allow (3–6 players; two decks for 5–6)."""
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"L'Unisson is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}")
    if decks not in (1, 2):
        raise ValueError(f"one or two decks, not {decks}")
    if players >= 5 and decks != 2:
        raise ValueError(f"{players} players need two decks")


def next_dealer(dealer: int, players: int) -> int:
    """The deal passes left each game."""
    return (dealer + 1) % players
