"""L'Unisson bots that plan from their own seat's view: information-set Monte Carlo tree search.

Each iteration deals the cards hidden from the bot at random, consistently with its view
(``sample_world``): the other hands' unseen cards and the stock's order come from the faces
the seat has not seen and nothing else, so the bot cannot use a card it has not seen.  In
that world it walks one shared tree of moves (``cuttle_net.games.tree``: each seat chooses
by its own reward), adds one node, plays the game to its end with a quick policy that knows
the game (``policy``) and scores it as the rules do (``rewards``).  A game of L'Unisson is
short (about 30 decisions at 4 players), so a playout reaches the real end: the last round,
the last player's bonus, the empty hand, runs left in hand, the range's sequences and the
Unisson are all counted by the scoring itself rather than guessed.

The effort is a number of iterations, not a time: a bot given the same view and the same
random generator always decides the same way, on any machine and under any load.
"""

from __future__ import annotations

import math
import random

from ..tree import Node, backup, most_visited, shuffle, step
from .cards import ACE, FACES, OCTAVES, SEVEN
from .engine import _ENDS, FULL, MAY_DRAW, Game
from .moves import DRAW, STOP, Kind, Move
from .scoring import scores

_DRAW, _TAKE, _DISCARD, _MELD, _EXTEND = Kind.DRAW, Kind.TAKE, Kind.DISCARD, Kind.MELD, Kind.EXTEND
_OCTAVE_SET = frozenset(OCTAVES)
MAX_PLIES = 400  # a playout's safety net: a game ends long before (the stock, idle turns)


def _tables() -> tuple[list[list[int]], list[list[int]]]:
    """[suit byte][rank] -> how well a card of that rank fits the byte's cards (neighbours
    at 1 rank count 2, at 2 ranks 1), and the length of the run it would stand in."""
    link, run = [], []
    for b in range(256):
        lrow, rrow = [], []
        for r in range(8):
            lrow.append(
                sum(2 for d in (-1, 1) if 0 <= r + d < 8 and b >> (r + d) & 1)
                + sum(1 for d in (-2, 2) if 0 <= r + d < 8 and b >> (r + d) & 1)
            )
            w = b | 1 << r
            lo = r
            while lo > 0 and w >> (lo - 1) & 1:
                lo -= 1
            hi = r
            while hi < 7 and w >> (hi + 1) & 1:
                hi += 1
            rrow.append(hi - lo + 1)
        link.append(lrow)
        run.append(rrow)
    return link, run


LINK, RUN = _tables()


# --------------------------------------------------------------------- worlds


def unseen_faces(view: Game) -> list[int]:
    """The faces ``view``'s seat has not seen (each copy once), in face order."""
    return [f for f in range(FACES) for _ in range(view.unseen_count(f))]


def sample_world(view: Game, rng: random.Random, unseen: list[int] | None = None) -> Game:
    """A full-information game that ``view``'s seat cannot tell from the real one.

    The faces it has not seen (``unseen_faces(view)``, or ``unseen`` if given) are shuffled
    into the other hands' hidden places and the stock; every card the view places (its own
    hand, the range, sequences, the cards others took from the range) stays where it is.
    """
    if view.viewer < 0:
        raise ValueError("sample_world takes a seat's view, not the full game")
    cards = unseen_faces(view) if unseen is None else unseen[:]
    hidden = sum(view.hidden)
    if hidden + len(view.stock) != len(cards) or view.hidden[view.viewer]:
        raise ValueError("the view does not account for every card")
    shuffle(cards, rng)
    g = view.copy()
    i = 0
    for s in range(g.players):
        n = g.hidden[s]
        if n:
            for f in cards[i : i + n]:
                g._add_hand(s, f)
            g.sizes[s] -= n  # _add_hand counted them again
            g.hidden[s] = 0
            i += n
    g.stock = cards[i:]
    g.viewer = FULL
    return g


# -------------------------------------------------------------------- playouts


def _keep(f: int, byte: int, ends: int) -> int:
    """How much a hand wants to keep face ``f`` (its suit's byte ``byte`` holds it)."""
    if ends >> f & 1:
        return 9  # it extends one of the seat's sequences
    r = f & 7
    rest = byte & ~(1 << r)
    if RUN[rest][r] >= 3:
        return 8  # part of a run to meld
    return LINK[rest][r]


def _ends(g: Game, seat: int) -> int:
    """The faces that would extend ``seat``'s sequences, as a mask."""
    out = 0
    for m in g.seqs[seat]:
        for f in _ENDS[m]:
            out |= 1 << f
    return out


def policy(g: Game, moves: list[Move], rng: random.Random, epsilon: float) -> Move:
    """The playout policy: a quick guess at a good move, from the mover's cards.

    An octave is always made; melds and extensions come first (points on the table, and
    runs that would cost in hand at the end); a range card is taken when it extends a
    sequence or makes a run, cards that fit nothing are discarded (near the end, to empty
    the hand); an ace is taken only with good reason (two cards go), an ace discarded
    brings draws, a seven discarded costs another card.  With ``epsilon`` any move.
    """
    if len(moves) == 1:
        return moves[0]
    rand = rng.random
    if rand() < epsilon:
        return moves[int(rand() * len(moves))]
    p = g.to_act
    h = g.lo[p]
    stock = len(g.stock)
    ending = g.last >= 0 or stock <= g.players
    ends = _ends(g, p)
    pend = g.pending
    if pend:
        if pend[0][0] == MAY_DRAW:
            # A free card is worth having until the end nears (then it may cost the empty
            # hand, and emptying the stock in another's turn makes that seat the last).
            return STOP if ending and rand() < 0.8 else DRAW
        best, best_v = moves[0], 1e9
        for m in moves:
            f = m[1][0]
            v = _keep(f, h >> (f & 24) & 255, ends) + rand()
            if v < best_v:
                best, best_v = m, v
        return best
    seqs = g.seqs[p]
    first = g.used == 0
    best, best_v = moves[0], -1e9
    for m in moves:
        k = m[0]
        if k == _MELD:
            if len(m[1]) == 8:
                return m
            v = 20.0 + len(m[1])
        elif k == _EXTEND:
            f = m[1][0]
            if seqs[m[2] - 1] | 1 << f in _OCTAVE_SET:
                return m
            v = 18.0
        elif k == _TAKE:
            f = m[1][0]
            r = f & 7
            byte = h >> (f & 24) & 255
            if ends >> f & 1:
                v = 12.0
            elif RUN[byte][r] >= 3:
                v = 11.0 if first else 6.0
            else:
                v = 0.5 + 1.5 * LINK[byte][r]
            if r == ACE:
                v -= 4.0
            elif r == SEVEN and stock > 1:
                v += 1.5
            if ending:
                v -= 1.5
        elif k == _DRAW:
            v = 1.0 if ending else 3.0
        elif k == _DISCARD:
            f = m[1][0]
            r = f & 7
            v = 1.5 - _keep(f, h >> (f & 24) & 255, ends)
            if r == ACE and not ending:
                v += 2.5
            elif r == SEVEN:
                v -= 1.0
            if ending:
                v += 3.0
        else:  # pass
            v = 0.0
        v += rand() * 0.5
        if v > best_v:
            best, best_v = m, v
    return best


def rewards(g: Game) -> list[float]:
    """Each seat's reward for a finished game, from 0 to 1: mostly the win (shared equally
    by equal totals), a little the margin of its total over the best of the others."""
    totals = [s.total for s in scores(g)]
    o = g.outcome
    if o is not None and o.reason == "octave":
        winners = [o.seat]
    else:
        best = max(totals)
        winners = [s for s, t in enumerate(totals) if t == best]
    share = 1.0 / len(winners)
    out = []
    for s, t in enumerate(totals):
        rival = max(x for i, x in enumerate(totals) if i != s)
        out.append(
            (0.8 * share if s in winners else 0.0) + 0.1 * (1.0 + math.tanh((t - rival) / 15.0))
        )
    return out


def playout(g: Game, rng: random.Random, epsilon: float) -> None:
    """Play ``g`` to its end with ``policy``."""
    n = 0
    while g.outcome is None and n < MAX_PLIES:
        g.push(policy(g, g._legal(), rng, epsilon))
        n += 1


# ------------------------------------------------------------------------ bot


def _octave(g: Game, moves: list[Move]) -> Move | None:
    """A move among ``moves`` that makes an octave (and so wins the game), if any."""
    seqs = g.seqs[g.to_act]
    for m in moves:
        if m[0] == _MELD and len(m[1]) == 8:
            return m
        if m[0] == _EXTEND and seqs[m[2] - 1] | 1 << m[1][0] in _OCTAVE_SET:
            return m
    return None


class SearchBot:
    """ISMCTS from the bot's own view, with a fixed number of iterations a decision."""

    searches = True  # it thinks for a while: a UI runs it off its own thread

    def __init__(self, name: str, iterations: int, epsilon: float = 0.1) -> None:
        self.name = name
        self.iterations = iterations
        self.epsilon = epsilon  # how often a playout move is uniformly random

    def choose(self, view: Game, rng: random.Random) -> Move:
        if view.viewer < 0 or view.to_act != view.viewer:
            raise ValueError("a bot decides from its own view, when its seat is to act")
        moves = view.legal_moves()
        if len(moves) == 1:
            return moves[0]
        win = _octave(view, moves)
        if win is not None:
            return win  # the game is won at once: nothing to search
        rng = random.Random(rng.getrandbits(64))
        me = view.viewer
        unseen = unseen_faces(view)
        root = Node(me)
        eps = self.epsilon
        for _ in range(self.iterations):
            world = sample_world(view, rng, unseen)
            node = root
            path = [root]
            while world.outcome is None:
                legal = world._legal()
                if len(legal) == 1:
                    world.push(legal[0])
                    continue
                m, node, new = step(node, legal, world.to_act, rng)
                world.push(m)
                path.append(node)
                if new:
                    break
            playout(world, rng, eps)
            backup(path, rewards(world))
        return most_visited(root)
