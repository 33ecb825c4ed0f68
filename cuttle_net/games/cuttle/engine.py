"""The rules engine: a pure, deterministic state machine for one game of Cuttle.

A ``Game`` holds either the full information (the truth, as a referee or a test
sees it) or one player's *view*: the same engine with the cards that player cannot
see kept as unknown (``UNKNOWN`` in the draw pile, a count of hidden cards in the
opponent's hand).  A view takes card identities as they become known, through the
``reveal`` argument of ``apply``.

Two ways in, as in python-chess: ``apply`` checks a move and says which rule it
breaks; ``push`` trusts its caller (a move from ``legal_moves``) and is fast.

Seats are 0 and 1.  Seat 1 deals (6 cards to itself, 5 to seat 0) and seat 0 takes
the first turn.
"""

from __future__ import annotations

import random
from bisect import insort
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from .cards import ALL_CARDS, ALL_CARDS_WITH_JOKER, RANK_OF, card_display
from .explain import why_illegal
from .motions import (
    Disclosure,
    Drawn,
    Exposed,
    HandOut,
    Motion,
    Revealed,
    Swapped,
    ToHand,
    ToTop,
    disclosure,
)
from .moves import (
    ACCEPT_DRAW,
    CONCEDE,
    DECLINE,
    DRAW,
    NONE,
    PASS,
    PLAY_KINDS,
    REFUSE_DRAW,
    TABLE,
    Kind,
    Move,
    parse_move,
)
from .phases import (  # re-exported: engine.MAIN etc. stay the names callers use
    BLOCK,
    CHANCE,
    COUNTER,
    DISCARD,
    MAIN,
    NOBODY,
    OFFER,
    OVER,
    PHASE_NAMES,
    PICK,
    SEVEN,
)
from .rules import CLASSIC, Rules

UNKNOWN = -2  # a card of the draw pile that this view cannot see
SPECTATOR = 2  # the viewer of a game seen from outside: both hands hidden

RANK = RANK_OF
_DRAW, _PASS = Kind.DRAW, Kind.PASS
_POINTS, _SCUTTLE, _ONEOFF = Kind.POINTS, Kind.SCUTTLE, Kind.ONEOFF
_PERMANENT, _JACK, _COUNTER = Kind.PERMANENT, Kind.JACK, Kind.COUNTER
# Interned moves by card, indexed [card + 1] (and [target + 1] for two-card moves).
_POINTS_T = [row[0] if row else None for row in TABLE[Kind.POINTS]]
_SCUTTLE_T = TABLE[Kind.SCUTTLE]
_ONEOFF_T = TABLE[Kind.ONEOFF]
_PERMANENT_T = [row[0] if row else None for row in TABLE[Kind.PERMANENT]]
_JACK_T = TABLE[Kind.JACK]
_COUNTER_T = [row[0] if row else None for row in TABLE[Kind.COUNTER]]
_DISCARD_T = TABLE[Kind.DISCARD]
_PICK_T = [row[0] if row else None for row in TABLE[Kind.PICK]]
_SCRAP_T = [row[0] if row else None for row in TABLE[Kind.SCRAP]]
_BLOCK_T = [row[0] if row else None for row in TABLE[Kind.BLOCK]]


class IllegalMove(ValueError):
    """A well-formed move that the rules do not allow here; the message names the rule."""


class RevealError(ValueError):
    """The card identities given to a view do not fit the move."""


class Outcome(NamedTuple):
    """How a game ended: ``winner`` is a seat, or ``None`` for a drawn game."""

    winner: int | None
    reason: str  # goal | concede | passes | agreed

    def __str__(self) -> str:
        if self.winner is None:
            return {"passes": "drawn: three passes in a row", "agreed": "drawn by agreement"}[
                self.reason
            ]
        how = {"goal": "reached the goal", "concede": "the opponent conceded"}[self.reason]
        return f"seat {self.winner} wins: {how}"


class Game:
    """One game of Cuttle, full information or one seat's view."""

    __slots__ = (
        "_journal",
        "_reveals",
        "chain",
        "deck",
        "deck_known",
        "frozen",
        "hands",
        "hidden",
        "jacks",
        "known",
        "offered",
        "outcome",
        "passes",
        "perms",
        "phase",
        "player",
        "points",
        "revealed",
        "rules",
        "scrap",
        "target",
        "turn",
        "viewer",
    )

    rules: Rules
    deck: list[int]  # the draw pile; its top is the END of the list
    deck_known: int  # how many cards on top of the draw pile both players know
    hands: list[list[int]]  # sorted; in a view, the opponent's known cards only
    hidden: list[int]  # cards in each hand this view cannot see (0 in full information)
    known: list[set[int]]  # cards in each hand that the OTHER player knows
    points: list[list[int]]  # point cards each seat controls (sorted)
    jacks: dict[int, list[int]]  # point card -> jacks on it, bottom to top
    perms: list[list[int]]  # kings, queens and glasses-8s on each side (sorted)
    scrap: list[int]  # top is the end
    phase: int
    player: int  # whose turn it is
    turn: int  # 1 for the first turn, +1 at each change of turn
    passes: int  # consecutive passes
    chain: list[int]  # a one-off (or scuttling card) waiting, then any counter-2s
    target: int  # the target of chain[0]
    revealed: list[int]  # cards shown by a 7 and waiting to be played
    offered: bool  # a draw was offered (and refused) this turn
    frozen: dict[int, int]  # card -> last turn on which it is frozen
    outcome: Outcome | None
    viewer: int  # -1 for full information, else the seat whose view this is

    # ---------------------------------------------------------------- creation

    @classmethod
    def empty(cls, rules: Rules = CLASSIC, viewer: int = -1) -> Game:
        g = object.__new__(cls)
        g.rules = rules
        g.deck, g.deck_known = [], 0
        g.hands, g.hidden, g.known = [[], []], [0, 0], [set(), set()]
        g.points, g.jacks, g.perms, g.scrap = [[], []], {}, [[], []], []
        g.phase, g.player, g.turn, g.passes = MAIN, 0, 1, 0
        g.chain, g.target, g.revealed = [], NONE, []
        g.offered, g.frozen, g.outcome = False, {}, None
        g.viewer, g._reveals, g._journal = viewer, None, None
        return g

    @classmethod
    def deal(
        cls,
        rules: Rules = CLASSIC,
        order: Sequence[int] | None = None,
        seed: int | None = None,
    ) -> Game:
        """A new game from a deck ``order`` (top card first), or shuffled from ``seed``.

        The top 5 cards go to seat 0, the next 6 to seat 1 (the dealer).
        """
        cards = ALL_CARDS_WITH_JOKER if rules.joker else ALL_CARDS
        if order is None:
            order = list(cards)
            random.Random(seed).shuffle(order)
        elif sorted(order) != list(cards):
            raise ValueError(f"a deck order must hold each of the {len(cards)} cards once")
        g = cls.empty(rules)
        g.hands = [sorted(order[:5]), sorted(order[5:11])]
        g.deck = list(reversed(order[11:]))
        return g

    @classmethod
    def dealt_view(cls, rules: Rules, seat: int, hand: Sequence[int]) -> Game:
        """``seat``'s view of a fresh deal in which it received ``hand``."""
        if len(hand) != (5, 6)[seat] or len(set(hand)) != len(hand):
            raise ValueError(f"seat {seat} is dealt {(5, 6)[seat]} distinct cards")
        g = cls.empty(rules, viewer=seat)
        g.hands[seat] = sorted(hand)
        g.hidden[1 - seat] = (5, 6)[1 - seat]
        g.deck = [UNKNOWN] * (rules.deck_size - 11)
        return g

    @classmethod
    def spectator_view(cls, rules: Rules) -> Game:
        """A fresh deal as a third party sees it: every card hidden until shown to both."""
        g = cls.empty(rules, viewer=SPECTATOR)
        g.hidden = [5, 6]
        g.deck = [UNKNOWN] * (rules.deck_size - 11)
        return g

    def copy(self) -> Game:
        g = object.__new__(Game)
        g.rules = self.rules
        g.deck, g.deck_known = self.deck[:], self.deck_known
        g.hands = [self.hands[0][:], self.hands[1][:]]
        g.hidden = self.hidden[:]
        g.known = [set(self.known[0]), set(self.known[1])]
        g.points = [self.points[0][:], self.points[1][:]]
        g.jacks = {b: j[:] for b, j in self.jacks.items()}
        g.perms = [self.perms[0][:], self.perms[1][:]]
        g.scrap = self.scrap[:]
        g.phase, g.player, g.turn, g.passes = self.phase, self.player, self.turn, self.passes
        g.chain, g.target, g.revealed = self.chain[:], self.target, self.revealed[:]
        g.offered, g.frozen, g.outcome = self.offered, dict(self.frozen), self.outcome
        g.viewer, g._reveals, g._journal = self.viewer, None, None
        return g

    # ------------------------------------------------------------- questions

    @property
    def to_act(self) -> int:
        """The seat that decides now; ``CHANCE`` or ``NOBODY`` (game over)."""
        ph = self.phase
        if ph in (MAIN, PICK, SEVEN):
            return self.player
        if ph == COUNTER:
            return self.player ^ (len(self.chain) & 1)
        if ph == DISCARD:
            return CHANCE if self.rules.random_fours else 1 - self.player
        if ph in (BLOCK, OFFER):
            return 1 - self.player
        return NOBODY

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    def hand_size(self, seat: int) -> int:
        return len(self.hands[seat]) + self.hidden[seat]

    def score(self, seat: int) -> int:
        """Points on the table that ``seat`` controls."""
        total = 0  # hot in search: plain loops beat generator expressions
        for c in self.points[seat]:
            total += RANK[c]
        return total

    def kings(self, seat: int) -> int:
        n = 0
        for c in self.perms[seat]:
            if c >= 48:  # kings are the highest cards
                n += 1
        return n

    def goal(self, seat: int) -> int:
        """Points ``seat`` needs to win, given the kings it controls."""
        return self.rules.goals[self.kings(seat)]

    def queens(self, seat: int) -> int:
        n = 0
        for c in self.perms[seat]:
            if 44 <= c < 48:  # the queens' card numbers
                n += 1
        return n

    def has_glasses(self, seat: int) -> bool:
        perms = self.perms[seat]
        return bool(perms) and RANK[perms[0]] == 8  # sorted: any 8 comes first

    def controller(self, point_card: int) -> int:
        return 0 if point_card in self.points[0] else 1

    def owner(self, point_card: int) -> int:
        """Who first played ``point_card``: its controller, flipped once per jack."""
        return self.controller(point_card) ^ (len(self.jacks.get(point_card, ())) & 1)

    def is_frozen(self, c: int) -> bool:
        return c in self.frozen

    def protected(self, seat: int, c: int) -> bool:
        """Is ``seat``'s card ``c`` shielded by a queen from the opponent's single-card effects?"""
        others = sum(1 for q in self.perms[seat] if RANK[q] == 12 and q != c)
        if RANK[c] == 12:
            return self.rules.queens_protect_queens and others > 0
        return others > 0

    def meets_goal(self, seat: int) -> bool:
        # Hot: checked for both seats after every action, so no generator expressions.
        perms = self.perms[seat]
        kings = 0
        if perms and perms[-1] >= 48:  # sorted, and kings are the highest cards
            for c in perms:
                if c >= 48:
                    kings += 1
        total = 0
        for c in self.points[seat]:
            total += RANK[c]
        return total >= self.rules.goals[kings]

    # ---------------------------------------------------------- legal moves

    def legal_moves(self) -> list[Move]:
        """Every move that plays the game from here, in a fixed order.

        ``concede`` and ``offer-draw`` are not listed: they are always available
        (see ``apply``) and are no part of the game tree that perft counts.
        """
        actor = self.to_act
        seat = 1 - self.player if actor == CHANCE else actor
        if seat >= 0 and self.hidden[seat]:
            raise ValueError("this view cannot list the moves of a hand it cannot see")
        return self._legal()

    def _legal(self) -> list[Move]:
        ph = self.phase
        if ph == MAIN:
            return self._main_moves()
        if ph == COUNTER:
            moves = [DECLINE]
            for c in self.hands[self.to_act]:
                if RANK[c] == 2:
                    moves.append(_COUNTER_T[c + 1])
            return moves
        if ph == SEVEN:
            p = self.player
            rev = self.revealed
            moves: list[Move] = []
            deck_after = len(self.deck) + len(rev) - 1
            for c in rev:
                self._plays(p, c, moves, self.hand_size(p), deck_after, True)
            return moves or [_SCRAP_T[c + 1] for c in rev]
        if ph == DISCARD:
            hand = self.hands[1 - self.player]
            if len(hand) == 1:
                return [_DISCARD_T[hand[0] + 1][0]]
            return [_DISCARD_T[a + 1][b + 1] for i, a in enumerate(hand) for b in hand[i + 1 :]]
        if ph == PICK:
            return [_PICK_T[c + 1] for c in sorted(self.scrap)]
        if ph == BLOCK:
            moves = [DECLINE]
            for c in self.hands[1 - self.player]:
                if RANK[c] == 10:
                    moves.append(_BLOCK_T[c + 1])
            return moves
        if ph == OFFER:
            return [ACCEPT_DRAW, REFUSE_DRAW]
        return []

    def _main_moves(self) -> list[Move]:
        p = self.player
        hand = self.hands[p]
        size = len(hand) + self.hidden[p]
        deck_n = len(self.deck)
        moves: list[Move] = []
        if not deck_n:
            moves.append(PASS)
        elif size < self.rules.hand_limit:
            moves.append(DRAW)
        frozen = self.frozen
        plays = self._plays
        for c in hand:
            if frozen and c in frozen:
                continue
            plays(p, c, moves, size - 1, deck_n, False)
        if not moves:  # nothing at all is legal (a full hand of unplayable cards)
            moves.append(PASS)
        return moves

    def _plays(
        self, p: int, c: int, moves: list[Move], hand_after: int, deck_after: int, forced: bool
    ) -> None:
        """Append every way ``p`` may play card ``c`` (from hand, or revealed by a 7)."""
        r = RANK[c]
        o = 1 - p
        rules = self.rules
        if 0 < r <= 10:
            moves.append(_POINTS_T[c + 1])
            row = _SCUTTLE_T[c + 1]
            for t in self.points[o]:  # sorted, and t < c is exactly "scuttle-able"
                if t > c:
                    break
                moves.append(row[t + 1])
            oneoff = _ONEOFF_T[c + 1]
            if r == 1:
                if self.points[0] or self.points[1]:
                    moves.append(oneoff[0])
            elif r == 2 or r == 9:
                opponent_only = r == 9 and rules.nine_opponent_only
                for t in self._permanent_targets(p, opponent_only):
                    moves.append(oneoff[t + 1])
            elif r == 3:
                if self.scrap:
                    moves.append(oneoff[0])
            elif r == 4:
                if not rules.four_needs_cards or self.hand_size(o):
                    moves.append(oneoff[0])
            elif r == 5 or r == 7:
                if deck_after and (r == 7 or hand_after < rules.hand_limit):
                    moves.append(oneoff[0])
            elif r == 6:
                if self.jacks or self.perms[0] or self.perms[1]:
                    moves.append(oneoff[0])
            elif r == 8:
                moves.append(_PERMANENT_T[c + 1])
                if rules.eight_one_off:
                    for t in self.perms[o]:
                        if RANK[t] == 8 and not self.protected(o, t):
                            moves.append(oneoff[t + 1])
        elif r == 11:
            row = _JACK_T[c + 1]
            targets = self.points[o] if not self.queens(o) else ()
            if forced and not targets:
                targets = self.points[p]
            for t in targets:
                moves.append(row[t + 1])
        elif r >= 12:
            moves.append(_PERMANENT_T[c + 1])
        elif hand_after + self.hand_size(o):  # the joker swaps hands: legal if not both empty
            moves.append(_ONEOFF_T[c + 1][0])

    def _permanent_targets(self, p: int, opponent_only: bool) -> list[int]:
        """Permanents a 2 or 9 of ``p`` may target: top jacks, kings, queens, glasses."""
        out: list[int] = []
        for s in (p, 1 - p) if not opponent_only else (1 - p,):
            guarded = s != p and self.queens(s) > 0
            for t in self.perms[s]:
                if not guarded or not self.protected(s, t):
                    out.append(t)
            if not guarded:
                for b in self.points[s]:
                    jl = self.jacks.get(b)
                    if jl:
                        out.append(jl[-1])
        out.sort()
        return out

    # ---------------------------------------------------------------- apply

    def push(self, m: Move) -> None:
        """Play ``m`` for the seat to act, trusting that it is legal (from ``legal_moves``)."""
        k, c, t = m
        ph = self.phase
        p = self.player
        if k == Kind.CONCEDE:
            self._concede(1 - self.to_act)
        elif ph == MAIN:
            if k == _DRAW:
                self.passes = 0
                self._draw_to(p)
                self._end_action()
            elif k == _PASS:
                self.passes += 1
                if self.passes >= 3:
                    self._finish(None, "passes")
                else:
                    self._end_action()
            elif k == Kind.OFFER_DRAW:
                self.phase = OFFER
            else:
                self.passes = 0
                self._take_from_hand(p, c)
                self._play(p, k, c, t)
        elif ph == COUNTER:
            if k == _COUNTER:
                self._take_from_hand(self.to_act, c)
                self.chain.append(c)
                self._open_counter_window()
            else:
                self._resolve_chain()
        elif ph == SEVEN:
            self._unreveal(c)
            if k == Kind.SCRAP:
                self.scrap.append(c)
                self._end_action()
            else:
                self._play(p, k, c, t)
        elif ph == DISCARD:
            o = 1 - p
            for x in (c, t) if t != NONE else (c,):
                self._take_from_hand(o, x)
                self.scrap.append(x)
            self._finish_oneoff()
        elif ph == PICK:
            self.scrap.remove(c)
            self._to_hand(p, c)
            self._finish_oneoff()
        elif ph == BLOCK:
            scuttler = self.chain.pop()
            if k == Kind.BLOCK:
                self._take_from_hand(1 - p, c)
                self.scrap.append(c)
            else:
                self._scrap_stack(self.target)
            self.scrap.append(scuttler)
            self.target = NONE
            self._end_action()
        elif ph == OFFER:
            if k == Kind.ACCEPT_DRAW:
                self._finish(None, "agreed")
            else:
                self.phase = MAIN
                self.offered = True

    def _play(self, p: int, k: int, c: int, t: int) -> None:
        """Put card ``c`` (already out of hand or reveal) into play as move kind ``k``."""
        if k == _POINTS:
            insort(self.points[p], c)
            self._end_action()
        elif k == _ONEOFF:
            self.chain = [c]
            self.target = t
            self._open_counter_window()
        elif k == _SCUTTLE:
            if self.rules.ten_blocks and self.hand_size(1 - p):
                self.chain = [c]
                self.target = t
                self.phase = BLOCK
            else:
                self._scrap_stack(t)
                self.scrap.append(c)
                self._end_action()
        elif k == _PERMANENT:
            insort(self.perms[p], c)
            if RANK[c] == 8:
                self._expose(1 - p)
            self._end_action()
        else:  # jack
            s = self.controller(t)
            self.points[s].remove(t)
            insort(self.points[1 - s], t)
            jl = self.jacks.get(t)
            if jl is None:
                self.jacks[t] = [c]
            else:
                jl.append(c)
            self._end_action()

    def _open_counter_window(self) -> None:
        """Ask for a counter unless countering is impossible on public information."""
        x = self.player if len(self.chain) & 1 else 1 - self.player  # who played the top card
        if self.queens(x) or not self.hand_size(1 - x):
            self._resolve_chain()
        else:
            self.phase = COUNTER

    def _resolve_chain(self) -> None:
        chain = self.chain
        counters = len(chain) - 1
        if counters:  # the 2s go to the scrap before the effect (so a 3 may take one)
            self.scrap.extend(chain[1:])
            del chain[1:]
        if counters & 1:
            self._finish_oneoff()
        else:
            self._effect(chain[0], self.target)

    def _effect(self, c: int, t: int) -> None:
        p = self.player
        o = 1 - p
        r = RANK[c]
        if r == 1:
            for s in (0, 1):
                for b in self.points[s]:
                    jl = self.jacks.pop(b, None)
                    if jl:
                        self.scrap.extend(jl)
                    self.scrap.append(b)
                self.points[s] = []
        elif r == 2:
            self.scrap.append(t)
            self._lift_permanent(t)
        elif r == 3:
            self.phase = PICK
            return
        elif r == 4:
            if self.hand_size(o):
                self.phase = DISCARD
                return
        elif r == 5:
            n = min(2, len(self.deck), self.rules.hand_limit - self.hand_size(p))
            for _ in range(n):
                self._draw_to(p)
        elif r == 6:
            self._scrap_permanents()
        elif r == 7:
            self.chain = []
            self.scrap.append(c)  # the 7 goes to the scrap before its reveal
            self._reveal_from_deck(min(self.rules.seven_reveals, len(self.deck)))
            self.phase = SEVEN
            return
        elif r == 8:
            self.perms[o].remove(t)
            self.scrap.append(t)
        elif r == 9:
            self._nine(p, t)
        else:
            self._swap_hands()
        self._finish_oneoff()

    def _finish_oneoff(self) -> None:
        self.scrap.append(self.chain[0])
        self.chain = []
        self.target = NONE
        self._end_action()

    def _end_action(self) -> None:
        """The action has fully resolved: check goals (actor first), then pass the turn."""
        p = self.player
        if self.meets_goal(p):
            self._finish(p, "goal")
        elif self.meets_goal(1 - p):
            self._finish(1 - p, "goal")
        else:
            self.player = 1 - p
            self.turn += 1
            self.phase = MAIN
            self.offered = False
            if self.frozen:
                turn = self.turn
                self.frozen = {c: last for c, last in self.frozen.items() if last >= turn}

    def _concede(self, winner: int) -> None:
        """Nothing pending takes effect; the cards that waited go to the scrap, in play order."""
        self.scrap += self.chain
        self.scrap += self.revealed
        self.chain, self.target, self.revealed = [], NONE, []
        self._finish(winner, "concede")

    def _finish(self, winner: int | None, reason: str) -> None:
        self.outcome = Outcome(winner, reason)
        self.phase = OVER

    # --------------------------------------------------------- card motion

    def _take_from_hand(self, p: int, c: int) -> None:
        try:
            self.hands[p].remove(c)
        except ValueError:  # a view: the card was one of the hidden ones
            self.hidden[p] -= 1
        self.known[p].discard(c)
        if self.frozen:
            self.frozen.pop(c, None)
        if self._journal is not None:
            self._journal.append(HandOut(p, c))

    def _draw_to(self, p: int) -> None:
        c = self.deck.pop()
        public = self.deck_known > 0
        if public:
            self.deck_known -= 1
        exposed = self.has_glasses(1 - p)
        if c == UNKNOWN and (self.viewer == p or exposed):  # a view that sees this card
            c = self._learn()
        if self._journal is not None:
            self._journal.append(Drawn(p, c, public, exposed))
        if c == UNKNOWN:
            self.hidden[p] += 1
            return
        insort(self.hands[p], c)
        if public or exposed:
            self.known[p].add(c)

    def _reveal_from_deck(self, n: int) -> None:
        for _ in range(n):
            c = self.deck.pop()
            public = self.deck_known > 0
            if public:
                self.deck_known -= 1
            elif c == UNKNOWN:
                c = self._learn()
            if self._journal is not None:
                self._journal.append(Revealed(c, public))
            self.revealed.append(c)

    def _unreveal(self, chosen: int) -> None:
        """The 7's chosen card leaves the reveal; standard's other card goes back on top."""
        for c in self.revealed:
            if c != chosen:
                self.deck.append(c)
                self.deck_known += 1
                if self._journal is not None:
                    self._journal.append(ToTop(c))
        self.revealed = []

    def _expose(self, o: int) -> None:
        """Glasses now show ``o``'s hand to the other player."""
        hand = self.hands[o]
        newly = [self._learn() for _ in range(self.hidden[o])]
        if not newly:
            newly = [c for c in hand if c not in self.known[o]]
        for c in newly:
            if c not in hand:
                insort(hand, c)
        self.hidden[o] = 0
        self.known[o].update(hand)
        if self._journal is not None:
            self._journal.append(Exposed(o, tuple(newly)))

    def _swap_hands(self) -> None:
        h, k = self.hands, self.hidden
        # Seat 1 - s receives seat s's hand: it newly sees the cards it did not know.
        learned = [[c for c in h[1 - s] if c not in self.known[1 - s]] for s in (0, 1)]
        h[0], h[1] = h[1], h[0]
        k[0], k[1] = k[1], k[0]
        v = self.viewer
        # A view learns the hand it receives; a spectator both (the swap shows them to both).
        for s in (0, 1) if v == SPECTATOR else (v,) if v >= 0 else ():
            learned[s] = [self._learn() for _ in range(k[s])]
            for c in learned[s]:
                insort(h[s], c)
            k[s] = 0
        if self._journal is not None:
            self._journal.append(Swapped((tuple(learned[0]), tuple(learned[1]))))
        self.known = [set(h[0]), set(h[1])]  # each player held the other's new hand
        self.frozen = {}

    def _scrap_stack(self, b: int) -> None:
        self.points[self.controller(b)].remove(b)
        jl = self.jacks.pop(b, None)
        if jl:
            self.scrap.extend(jl)
        self.scrap.append(b)

    def _scrap_permanents(self) -> None:
        """The 6: every king, queen, glasses and jack to the scrap; jacked cards go home."""
        for s in (0, 1):
            self.scrap.extend(self.perms[s])
            self.perms[s] = []
        flipped = []
        for b, jl in self.jacks.items():
            self.scrap.extend(jl)
            if len(jl) & 1:
                flipped.append(b)
        self.jacks = {}
        for b in flipped:
            s = self.controller(b)
            self.points[s].remove(b)
            insort(self.points[1 - s], b)

    def _lift_permanent(self, t: int) -> int:
        """Take permanent ``t`` off the table; return the seat that controlled it."""
        if RANK[t] != 11:
            s = 0 if t in self.perms[0] else 1
            self.perms[s].remove(t)
            return s
        b = next(b for b, jl in self.jacks.items() if jl[-1] == t)
        jl = self.jacks[b]
        jl.pop()
        if not jl:
            del self.jacks[b]
        s = self.controller(b)
        self.points[s].remove(b)
        insort(self.points[1 - s], b)
        return s

    def _nine(self, p: int, t: int) -> None:
        s = self._lift_permanent(t)
        if self.rules.nine_to_deck:
            self.deck.append(t)
            self.deck_known += 1
            if self._journal is not None:
                self._journal.append(ToTop(t))
            return
        self._to_hand(s, t)
        if self.rules.nine_freezes:  # frozen through its owner's next turn
            self.frozen[t] = self.turn + (1 if s != p else 2)

    def _to_hand(self, p: int, c: int) -> None:
        """A card both players can see goes into ``p``'s hand."""
        insort(self.hands[p], c)
        self.known[p].add(c)
        if self._journal is not None:
            self._journal.append(ToHand(p, c))

    def _learn(self) -> int:
        if not self._reveals:
            raise RevealError("this move shows you a card: its identity must be given")
        return self._reveals.pop(0)

    # -------------------------------------------------------- checked apply

    def check(self, m: Move | str, by: int | None = None) -> Move:
        """Raise ``IllegalMove``, naming the rule, unless seat ``by`` may make ``m`` now.

        ``by`` defaults to the seat to act; any seat may ``concede``.  Nothing changes.
        """
        return self._checked(m, by)[0]

    def _checked(self, m: Move | str, by: int | None) -> tuple[Move, Game]:
        """``check``, and the game the move was checked in: a copy with the cards the move
        names from a hidden hand placed there (``_materialize``), or this game itself if
        nothing had to be placed (then nothing was changed)."""
        if isinstance(m, str):
            m = parse_move(m)
        actor = self.to_act
        if self.phase == OVER:
            raise IllegalMove(f"the game is over ({self.outcome})")
        if m.kind == Kind.CONCEDE:
            if (actor if by is None else by) not in (0, 1):
                raise IllegalMove("only a player can concede")
            return m, self
        if by is not None and by != actor:
            who = "chance" if actor == CHANCE else f"seat {actor}"
            raise IllegalMove(f"it is not seat {by}'s decision: {who} decides now")
        work = self
        if self.viewer >= 0 and (self.hidden[0] or self.hidden[1]):
            work = self.copy()
            work._materialize(m)
        legal = work.can_offer_draw if m.kind == Kind.OFFER_DRAW else m in work._legal()
        if not legal:
            raise IllegalMove(why_illegal(work, m))
        return m, work

    def apply(self, m: Move | str, by: int | None = None, reveal: Iterable[int] = ()) -> None:
        """Check and play a move (see ``check``).

        In a view, ``reveal`` lists the cards this move shows the viewer, in the order the
        move meets them (``motions`` and ``reveals_needed`` say which).
        """
        m, checked = self._checked(m, by)
        if m.kind == Kind.CONCEDE:
            self._concede(1 - (self.to_act if by is None else by))
            return
        cards = list(reveal)
        if self.viewer < 0:
            if cards:
                raise RevealError("a full-information game needs no reveals")
            self.push(m)
            return
        unseen = self.unseen() if cards else ()
        for c in cards:
            if c not in unseen:
                raise RevealError(
                    f"{card_display(c)} cannot be revealed: this view knows where it is"
                )
        if len(set(cards)) != len(cards):
            raise RevealError("the same card is revealed twice")
        # A view's move is played in a copy (a wrong reveal leaves the view as it was):
        # the one the move was checked in, rather than copying and placing the cards again.
        work = checked
        if work is self:
            work = self.copy()
            work._materialize(m)
        work._reveals = cards
        work._journal = self._journal
        work.push(m)
        if cards:
            raise RevealError(f"{len(cards)} more card(s) revealed than this move shows")
        work._reveals = None
        for name in Game.__slots__:
            setattr(self, name, getattr(work, name))

    @property
    def can_offer_draw(self) -> bool:
        """A draw may be offered in the main phase, once a turn."""
        return self.phase == MAIN and not self.offered

    def _materialize(self, m: Move) -> None:
        """A view sees the opponent name cards from its hidden hand: place them there."""
        seat = self.to_act
        if seat == CHANCE:
            seat = 1 - self.player
        if seat < 0 or not self.hidden[seat] or m.kind not in _FROM_HAND:
            return
        unseen = self.unseen()
        for c in (m.card, m.target) if m.kind == Kind.DISCARD else (m.card,):
            if c != NONE and c not in self.hands[seat] and c in unseen and self.hidden[seat]:
                self.hidden[seat] -= 1
                insort(self.hands[seat], c)

    def play(self, m: Move | str, by: int | None = None) -> Disclosure:
        """Full information: check and play ``m``, and say what each seat learned by it."""
        if self.viewer >= 0:
            raise ValueError("play() is for full-information games; a view uses apply()")
        self._journal = []
        try:
            self.apply(m, by=by)
            return disclosure(self._journal)
        finally:
            self._journal = None

    def motions(self, m: Move | str) -> list[Motion]:
        """The card motions ``m`` would cause, without playing it (``m`` must be legal).

        In a view, cards it would learn are stood in for by placeholders: the motions'
        kinds, seats and public cards are what both peers agree on.
        """
        if isinstance(m, str):
            m = parse_move(m)
        work = self.copy()
        work._materialize(m)
        work._reveals = _Placeholders()
        work._journal = []
        if m.kind == Kind.CONCEDE:
            return []
        work.push(m)
        return work._journal

    def reveals_needed(self, m: Move | str) -> int:
        """How many card identities ``apply(m)`` needs in this view."""
        if isinstance(m, str):
            m = parse_move(m)
        work = self.copy()
        work._materialize(m)
        work._reveals = _Placeholders()
        work.push(m)
        return work._reveals.count

    # ------------------------------------------------------------ knowledge

    def unseen(self) -> set[int]:
        """Cards whose place this game does not know (empty in full information)."""
        cards = set(ALL_CARDS_WITH_JOKER if self.rules.joker else ALL_CARDS)
        cards.difference_update(self.deck, self.scrap, self.chain, self.revealed)
        for s in (0, 1):
            cards.difference_update(self.hands[s], self.points[s], self.perms[s])
        for jl in self.jacks.values():
            cards.difference_update(jl)
        return cards

    def view(self, seat: int) -> Game:
        """What ``seat`` knows of this full-information game."""
        if self.viewer >= 0:
            raise ValueError("already a view")
        g = self.copy()
        g.viewer = seat
        o = 1 - seat
        hidden = [c for c in g.hands[o] if c not in g.known[o]]
        g.hands[o] = [c for c in g.hands[o] if c in g.known[o]]
        g.hidden[o] = len(hidden)
        n = len(g.deck) - g.deck_known
        g.deck[:n] = [UNKNOWN] * n
        return g


# Moves that name cards leaving the mover's (or a 4's victim's) hand.
_FROM_HAND = PLAY_KINDS | {Kind.COUNTER, Kind.DISCARD, Kind.BLOCK}


class _Placeholders(list):
    """Stands in for reveals while counting how many a move needs."""

    count = 0

    def __bool__(self) -> bool:
        return True

    def pop(self, index: int = -1) -> int:  # type: ignore[override]
        self.count += 1
        return 1000 + self.count


__all__ = [
    "CHANCE",
    "CONCEDE",
    "NOBODY",
    "PHASE_NAMES",
    "SPECTATOR",
    "UNKNOWN",
    "Disclosure",
    "Game",
    "IllegalMove",
    "Outcome",
    "RevealError",
]
