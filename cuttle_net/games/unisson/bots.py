"""L'Unisson bots: they play from their seat's view (``Game.view(seat)``), never the truth.

A bot is asked for a move only when its seat is to act, to take a turn's action or to
answer an effect (a forced discard, an optional draw).  ``choose`` returns one of
``view.legal_moves()``.

``greedy`` looks one decision ahead.  It scores what it owns, its hand and its own
sequences, with ``value`` and makes the move that leaves the best score; a card it cannot
see (a draw) is valued as the average of the cards still unseen from its seat.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from .cards import ACE, RANK_OF, SEVEN, SUIT_OF, suit_runs
from .moves import Kind, Move
from .weights import (  # greedy's weights, shared with rule.QuickGreedy
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


class View(Protocol):
    """What a bot reads of the game (``cuttle_net.games.unisson.Game`` in a seat's view)."""

    players: int
    decks: int
    to_act: int
    stock_size: int
    player: int
    last_player: int | None
    effects: tuple  # the effects waiting, the current one first

    def legal_moves(self) -> list[Move]: ...
    def hand(self, seat: int) -> list[int]: ...
    def public_hand(self, seat: int) -> list[int]: ...
    def sequences(self, seat: int) -> list[tuple[int, ...]]: ...
    def range_cards(self) -> list[int]: ...


class Bot(Protocol):
    name: str

    def choose(self, view: View, rng: random.Random) -> Move: ...


class RandomBot:
    """Any legal move, uniformly."""

    name = "random"

    def choose(self, view: View, rng: random.Random) -> Move:
        return rng.choice(view.legal_moves())


def hand_runs(hand: Iterable[int]) -> list[int]:
    """The lengths of the sequences a hand holds, found as UNISSON.md scores them: per suit
    the longest run present, then the longest of what remains, while one of 3+ remains (a
    face held twice may serve in two runs)."""
    counts = [[0] * 8 for _ in range(4)]
    for f in hand:
        counts[SUIT_OF[f]][RANK_OF[f]] += 1
    found = []
    for c in counts:
        found.extend(suit_runs(c))
    return found


def value(hand: Sequence[int], seqs: Sequence[Sequence[int]], ending: float) -> float:
    """How good a seat's hand and sequences look, in points.

    Sequences melded count their points; an octave wins.  While the game goes on, runs in
    hand are points to meld later and each suit is worth more the nearer it is to an octave
    (the ranks held plus the longest sequence of that suit, quadratically).  At the end the
    hand is scored as the rules score it: runs held cost their points, an empty hand earns
    10.  ``ending`` (0 to 1: 1 in the last round) blends the two.
    """
    melded = 0
    longest = [0, 0, 0, 0]
    for s in seqs:
        n = len(s)
        if n >= 8:
            return WIN
        melded += n
        suit = SUIT_OF[s[0]]
        longest[suit] = max(longest[suit], n)
    runs = hand_runs(hand)
    end = mid = 0.0
    if ending > 0:
        held = sum(runs) * (2 if 8 in runs else 1)
        bonus = 10.0 if not hand else max(0.0, SHED * (3 - len(hand)))
        end = melded - held + bonus
    if ending < 1:
        ranks: list[set[int]] = [set(), set(), set(), set()]
        for f in hand:
            ranks[SUIT_OF[f]].add(RANK_OF[f])
        reach = sum(REACH * (len(ranks[s]) + longest[s]) ** 2 for s in range(4))
        mid = melded + RUNS * sum(runs) + reach
    return ending * end + (1 - ending) * mid


class GreedyBot:
    """The move that leaves its own cards looking best (see ``value``), one decision ahead.

    Effects are part of a move's worth: an ace taken costs the two cards it makes the bot
    discard, a seven discarded one more card, an ace discarded or a seven taken brings
    draws; a meld holding an ace makes the others discard (good for the bot), one holding a
    seven lets them draw (good for them).
    """

    name = "greedy"

    def choose(self, view: View, rng: random.Random) -> Move:
        moves = view.legal_moves()
        if len(moves) == 1:
            return moves[0]
        position = _Position(view)
        scored = [(position.worth(m), rng.random(), m) for m in moves]
        return max(scored)[2]


class _Position:
    """The bot's seat, its cards, and what it has not seen, for valuing moves."""

    def __init__(self, view: View) -> None:
        me = view.to_act
        self.hand = list(view.hand(me))
        self.seqs = [tuple(s) for s in view.sequences(me)]
        # How near the end is: 1 in the last round, rising as the stock runs low.
        left = view.stock_size / (HORIZON * view.players)
        self.ending = 1.0 if view.last_player is not None else max(0.0, 1.0 - left)
        self.others = view.players - 1
        self.stock = view.stock_size
        self.in_turn = not view.effects  # taking an action, not answering an effect
        self.my_turn = view.player == me
        self.last_open = view.last_player is None and view.stock_size > 0
        seen = Counter(self.hand)
        seen.update(view.range_cards())
        for seat in range(view.players):
            for s in view.sequences(seat):
                seen.update(s)
            if seat != me:
                seen.update(view.public_hand(seat))
        unseen = Counter({f: view.decks for f in range(32)})
        unseen.subtract(seen)
        self.unseen = [f for f, n in unseen.items() for _ in range(max(n, 0))]

    def value(self, hand: Sequence[int], seqs: Sequence[Sequence[int]] | None = None) -> float:
        return value(hand, self.seqs if seqs is None else seqs, self.ending)

    def draw_gain(self, hand: list[int], draws: int = 1) -> float:
        """What ``draws`` cards from the stock add to ``hand``, on average (one look each)."""
        draws = min(draws, self.stock)
        if draws <= 0 or not self.unseen:
            return 0.0
        base = self.value(hand)
        mean = sum(self.value([*hand, f]) for f in self.unseen) / len(self.unseen)
        return draws * max(0.0, mean - base)

    def shed(self, hand: list[int], count: int) -> float:
        """The value of ``hand`` after discarding its ``count`` least useful cards."""
        hand = list(hand)
        for _ in range(min(count, len(hand))):
            best = max(range(len(hand)), key=lambda i: self.value(hand[:i] + hand[i + 1 :]))
            del hand[best]
        return self.value(hand)

    def emptying(self, cards: int) -> float:
        """The last player's bonus at stake when ``cards`` leave the stock: the seat whose
        turn it is earns it when the stock runs out."""
        if not self.last_open or cards < self.stock:
            return 0.0
        return LAST_BONUS if self.my_turn else -GIFT

    def worth(self, m: Move) -> float:
        return self._worth(m) + self.emptying(_stock_cards(m, self.in_turn))

    def _worth(self, m: Move) -> float:
        hand = self.hand
        k = m.kind
        if k in (Kind.PASS, Kind.STOP):
            return self.value(hand)
        if k is Kind.DRAW:
            # In a turn a draw is an action; as an effect it is free, so worth it when it helps.
            return self.value(hand) + self.draw_gain(hand)
        f = m.faces[0]
        if k is Kind.TAKE:
            after = [*hand, f]
            if RANK_OF[f] == ACE:
                return self.shed(after, 2)
            stock_after = self.stock - 1  # the stock's top replaces the card taken
            extra = self.draw_gain(after) if RANK_OF[f] == SEVEN and stock_after > 0 else 0.0
            return self.value(after) + extra
        if k is Kind.DISCARD:
            after = _without(hand, m.faces)
            if not self.in_turn:  # a forced discard: no effect follows
                return self.value(after)
            if RANK_OF[f] == ACE:
                return self.value(after) + self.draw_gain(after, 2)
            if RANK_OF[f] == SEVEN:
                return self.shed(after, 1)
            return self.value(after)
        if k is Kind.MELD:
            seqs = [*self.seqs, m.faces]
            worth = self.value(_without(hand, m.faces), seqs)
            n = len(m.faces)
            if n < 8 and any(RANK_OF[x] == ACE for x in m.faces):
                worth += ACE_MELD * min(n, 4) * self.others
            if n < 8 and any(RANK_OF[x] == SEVEN for x in m.faces):
                worth -= SEVEN_MELD * n * self.others
            return worth
        # EXTEND: sequence m.seq (numbered from 1) grows by one card.
        seqs = list(self.seqs)
        seqs[m.seq - 1] = (*seqs[m.seq - 1], f)
        return self.value(_without(hand, m.faces), seqs)


def _stock_cards(m: Move, in_turn: bool) -> int:
    """How many cards ``m`` can take from the stock, the free draws it brings included."""
    k = m.kind
    if k is Kind.DRAW:
        return 1
    if k is Kind.TAKE:
        return 1 + (RANK_OF[m.faces[0]] == SEVEN)
    if k is Kind.DISCARD and in_turn and RANK_OF[m.faces[0]] == ACE:
        return 2
    return 0


def _without(hand: Sequence[int], faces: Iterable[int]) -> list[int]:
    out = list(hand)
    for f in faces:
        out.remove(f)
    return out


# Search effort of the planning levels, in moves played in the sampled worlds a decision
# (not seconds: a level plays the same on every machine and under any load, and a seeded
# game is reproducible).
MEDIUM_BUDGET = 8_000
HARD_BUDGET = 30_000


def _search(name: str, budget: int, **options: object) -> Callable[[], Bot]:
    def make() -> Bot:
        from .rule import QuickGreedy
        from .search import SearchBot

        return SearchBot(name, budget, rule=QuickGreedy(), **options)  # type: ignore[arg-type]

    return make


# `hard`'s settings by table size (players), each measured in benchmarks/README.md: at 3
# players it models the other seats by greedy's rule for 16 plies (a ply counted as 25 of the
# policy's, GreedyBot's cost when measured), at 6 for 32 plies (about two rounds; counted as
# 7, QuickGreedy's); 4 and 5 players keep the plain search until a setting is measured there.
HARD_AT: dict[int, dict[str, object]] = {
    3: {"model": 16, "flat": True, "greedy_cand": True},
    6: {"model": 32, "flat": True, "greedy_cand": True, "model_cost": 7},
}


def _easy() -> Bot:
    bot = GreedyBot()
    bot.name = "easy"
    return bot


# Weakest first, as the lobby lists them; "greedy" is "easy" under its other name.
BOTS: dict[str, Callable[[], Bot]] = {
    "random": RandomBot,
    "easy": _easy,
    "greedy": GreedyBot,
    "medium": _search("medium", MEDIUM_BUDGET),
    "hard": _search("hard", HARD_BUDGET, at=HARD_AT),
}


def make_bot(name: str) -> Bot:
    """The bot called ``name``; raise ``ValueError`` listing the names otherwise."""
    try:
        return BOTS[name]()
    except KeyError:
        raise ValueError(f"no bot called {name!r}; bots: {', '.join(BOTS)}") from None
