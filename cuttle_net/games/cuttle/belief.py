"""What a bot may believe about the opponent's hidden cards, from the way it has played.

A particle filter over the opponent's hidden hand.  ``Beliefs`` keeps a few dozen guesses
of the cards hidden in that hand, each with a weight.  Every move of the game is shown to
it with the bot's view just before the move:

- first each guess is made to fit that view: a card the view now places elsewhere leaves
  the guess, and a card the opponent drew unseen joins it, drawn at random from the
  cards the view has not seen;
- then, if the opponent decided with hidden cards, each guess is weighed by how likely
  the decision was had the opponent held those cards.

The opponent is modelled as a mixture of two players, and which one it is is learnt
along the way: a sensible one, who mostly makes the move that leaves the best-looking
table a move ahead (the ``greedy`` evaluation, soft: a softmax), and one who plays at
random.  Against a random player the guesses keep their weights; against a sensible
one, "it drew instead of playing points" or "it let my one-off through without a 2"
say a lot about its hand.

Apart from the mixture, a bot may take its opponent for one that always takes a win when it
has one (``takes_wins``: how sure it is of that): an opponent that made a move that did not
win at once, when a guess would have let it win, probably does not hold that guess.  This
holds for any player that looks a move ahead (``greedy``, and every search), even where
the mixture cannot tell it from a random one.

Every card in a guess is one the view has not seen, so the beliefs never hold more than
the seat could know; they only change how likely the possible hands are taken to be.
"""

from __future__ import annotations

import math
import random

from .cards import RANK_OF
from .engine import BLOCK, COUNTER, MAIN, UNKNOWN, Game
from .greedy import after, value
from .moves import NONE, PLAY_KINDS, Kind, Move

PARTICLES = 48
BETA = 30.0  # how sharply the sensible player prefers better moves (per unit of value)
NOISE = 0.1  # how often even the sensible player makes any move at all
_FROM_HAND = PLAY_KINDS | {Kind.COUNTER, Kind.BLOCK}
# The decisions read: its turn, and whether it counters or blocks.  (Which cards it
# discards to a 4, takes with a 3 or plays from a 7 says little about the rest.)
_READ = (MAIN, COUNTER, BLOCK)


def _scores(view: Game, moves: list[Move]) -> list[float]:
    """The greedy evaluation of each move, from the deciding seat's view."""
    me = view.to_act
    base = value(view, me)
    out = []
    for m in moves:
        after_m = after(view, m)
        out.append(base + 0.05 if after_m is None else value(after_m, me))
    return out


def sensible_likelihood(view: Game, move: Move) -> float:
    """How likely a sensible player deciding in ``view`` (its own view) makes ``move``."""
    moves = view.legal_moves()
    if move not in moves:
        return 0.0
    scores = _scores(view, moves)
    top = max(scores)
    weights = [math.exp(BETA * (s - top)) for s in scores]
    p = weights[moves.index(move)] / sum(weights)
    return NOISE / len(moves) + (1 - NOISE) * p


class Beliefs:
    """Weighted guesses of the opponent's hidden cards, for the seat of the views shown."""

    def __init__(
        self,
        view: Game,
        rng: random.Random,
        particles: int = PARTICLES,
        takes_wins: float = 0.0,
        steals: int = 0,
    ) -> None:
        self.seat = view.viewer
        # With ``takes_wins``, a jack's steal of a point card of this rank or more counts as
        # a win it would take (0: only wins).
        self.steals = steals
        # The probability that the opponent makes a move that wins at once when it has one.
        self.takes_wins = takes_wins
        self.opp = 1 - view.viewer
        self.rng = rng
        self.turn = view.turn
        self.guesses: list[list[int]] = [[] for _ in range(particles)]
        self.weights = [1.0] * particles
        self.sensible = 0.5  # the probability that the opponent is the sensible player
        self.fit(view)

    def fit(self, view: Game) -> None:
        """Make every guess consistent with ``view`` (a view of the same game, later on)."""
        unseen = view.unseen()
        pool = sorted(unseen)
        k = view.hidden[self.opp]
        rng = self.rng
        for i, guess in enumerate(self.guesses):
            g = [c for c in guess if c in unseen]
            if len(g) > k:
                rng.shuffle(g)
                del g[k:]
            while len(g) < k:
                c = pool[rng.randrange(len(pool))]
                if c not in g:
                    g.append(c)
            self.guesses[i] = g
        self.turn = view.turn

    def observe(self, view: Game, move: Move) -> None:
        """``move`` is about to be made in the game ``view`` sees (anyone's move)."""
        self.fit(view)
        if view.to_act != self.opp or not view.hidden[self.opp] or view.phase not in _READ:
            return
        if move.kind in (Kind.CONCEDE, Kind.OFFER_DRAW, Kind.ACCEPT_DRAW, Kind.REFUSE_DRAW):
            return
        unseen = view.unseen()
        named = [
            c
            for c in ((move.card,) if move.kind in _FROM_HAND else ())
            if c != NONE and c in unseen
        ]
        rng = self.rng
        sensible, random_, missed = [], [], []
        # A move that wins ends the game: only a move that does not can have missed a win.
        reads_wins = self.takes_wins > 0 and view.phase == MAIN
        steals = self.steals if move.kind != Kind.JACK else 0
        for guess in self.guesses:
            for c in named:  # the card it played was in its hand: put it in this guess
                if c not in guess:
                    guess[rng.randrange(len(guess))] = c
            world = _as_opponent_sees(view, guess, self.opp)
            if world is None:
                sensible.append(0.0)
                random_.append(0.0)
                missed.append(False)
                continue
            moves = world.legal_moves()
            sensible.append(sensible_likelihood(world, move))
            random_.append(1.0 / len(moves) if move in moves else 0.0)
            missed.append(reads_wins and _wins_at_once(world, moves, steals))
        total = sum(self.weights)
        ms = sum(w * s for w, s in zip(self.weights, sensible, strict=True)) / total
        mr = sum(w * r for w, r in zip(self.weights, random_, strict=True)) / total
        pi = self.sensible
        if pi * ms + (1 - pi) * mr <= 0:
            return  # nothing explains the move (it cannot happen): learn nothing from it
        keep = 1.0 - self.takes_wins
        self.weights = [
            w * (pi * s + (1 - pi) * r) * (keep if x else 1.0)
            for w, s, r, x in zip(self.weights, sensible, random_, missed, strict=True)
        ]
        self.sensible = pi * ms / (pi * ms + (1 - pi) * mr)
        self._normalise()

    def _normalise(self) -> None:
        total = sum(self.weights)
        if total <= 0:
            self.weights = [1.0] * len(self.weights)
            return
        self.weights = [w / total for w in self.weights]
        ess = 1.0 / sum(w * w for w in self.weights)
        if ess < len(self.weights) / 3:  # too few guesses carry the weight: resample
            n = len(self.guesses)
            picks = self.rng.choices(range(n), weights=self.weights, k=n)
            self.guesses = [self.guesses[i][:] for i in picks]
            self.weights = [1.0 / n] * n

    def pick(self, rng: random.Random) -> list[int]:
        """A guess of the opponent's hidden cards, drawn by weight."""
        i = rng.choices(range(len(self.guesses)), weights=self.weights)[0]
        return self.guesses[i]


def _wins_at_once(world: Game, moves: list[Move], steals: int = 0) -> bool:
    """Whether one of ``moves`` (the legal moves of the main phase of ``world``, a view
    that sees the hand of the seat to act) ends the game at once in that seat's favour:
    points, a jack's steal or a king reaching the goal (none of them can be countered);
    or, if ``steals``, is a jack's steal of a point card of that rank or more."""
    p = world.to_act
    score, goal = world.score(p), world.goal(p)
    for m in moves:
        k = m.kind
        if k == Kind.POINTS:
            if score + RANK_OF[m.card] >= goal:
                return True
        elif k == Kind.JACK and steals and RANK_OF[m.target] >= steals:
            return True
        elif k == Kind.JACK or (k == Kind.PERMANENT and RANK_OF[m.card] == 13):
            g = world.copy()
            g.push(m)
            if g.outcome is not None and g.outcome.winner == p:
                return True
    return False


def _as_opponent_sees(view: Game, guess: list[int], opp: int) -> Game | None:
    """The opponent's own view, had its hidden cards been ``guess``: our hand stays hidden
    from it (bar what it knows), the pile unknown."""
    g = view.copy()
    hand = g.hands[opp]
    for c in guess:
        if c in hand:
            return None
        hand.append(c)
    hand.sort()
    g.hidden[opp] = 0
    me = 1 - opp
    mine = g.hands[me]
    g.hands[me] = [c for c in mine if c in g.known[me]]
    g.hidden[me] = len(mine) - len(g.hands[me])
    n = len(g.deck) - g.deck_known
    g.deck[:n] = [UNKNOWN] * n
    g.viewer = opp
    return g


__all__ = ["Beliefs", "sensible_likelihood"]
