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
from collections.abc import Callable, Mapping
from typing import NamedTuple, Protocol

from ..tree import Node, backup, most_visited, shuffle, step
from .cards import ACE, FACES, OCTAVES, SEVEN
from .engine import _ENDS, FULL, MAY_DRAW, Game
from .moves import DRAW, STOP, Kind, Move
from .scoring import scores

_DRAW, _TAKE, _DISCARD, _MELD, _EXTEND = Kind.DRAW, Kind.TAKE, Kind.DISCARD, Kind.MELD, Kind.EXTEND
_PASS = Kind.PASS
_OCTAVE_SET = frozenset(OCTAVES)
# The playout policy's weights (see ``policy``), in its own units.
W_MELD, W_EXTEND = 20.0, 18.0
W_TAKE_EXT, W_TAKE_RUN, W_TAKE_RUN2, W_TAKE, W_TAKE_LINK = 12.0, 11.0, 6.0, 0.5, 1.5
W_TAKE_ACE, W_TAKE_SEVEN, W_TAKE_END = 2.0, 1.5, 1.5
W_DRAW, W_DRAW_END = 1.0, 1.0
W_DISCARD, W_DISCARD_ACE, W_DISCARD_SEVEN, W_DISCARD_END = 1.5, 2.5, 1.0, 3.0
W_PASS, NOISE, P_STOP = 0.0, 0.5, 0.8
# The last player's bonus (+5): emptying the stock in one's own turn earns it, so a move
# that empties it (or starts to, with an action left to finish) is worth W_LAST, and ending
# one's turn with the stock low enough for the next player to empty it costs W_LEAVE.
W_LAST, W_LAST_NEXT, W_LEAVE = 6.0, 4.0, 3.0
MAX_PLIES = 400  # a playout's safety net: a game ends long before (the stock, idle turns)
# The search tries only the WIDTH moves the policy likes best at its root: a decision with
# twenty legal moves would otherwise get a handful of playouts each, too few to tell two
# moves apart (the luck of the deal is most of a game's result).
WIDTH = 6
# A ply chosen by greedy's rule costs about 25 of the policy's (CPU time, measured with
# ``bots.GreedyBot``); ``rule.QuickGreedy`` makes the same choice for about 7.
MODEL_COST = 25


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
    """The playout policy: the move ``values`` likes best (with a little noise), or with
    ``epsilon`` any move; an optional draw is taken unless the end nears."""
    if len(moves) == 1:
        return moves[0]
    rand = rng.random
    if rand() < epsilon:
        return moves[int(rand() * len(moves))]
    pend = g.pending
    if pend and pend[0][0] == MAY_DRAW:
        _, seat, count = pend[0]
        stock = len(g.stock)
        # Whoever empties the stock, the last player's bonus goes to the seat whose turn it is.
        if W_LAST and seat == g.player and stock <= count:
            return DRAW
        if W_LAST and seat != g.player and stock == 1:
            return STOP
        # A free card is worth having until the end nears (then it may cost the empty
        # hand, and emptying the stock in another's turn makes that seat the last).
        ending = g.last >= 0 or stock <= g.players
        return STOP if ending and rand() < P_STOP else DRAW
    vs = values(g, moves, rand, NOISE)
    return moves[vs.index(max(vs))]


def values(g: Game, moves: list[Move], rand: Callable[[], float], noise: float) -> list[float]:
    """A quick guess at each move's worth to the seat to act, from its own cards (plus
    ``noise`` times ``rand()``).

    An octave is worth everything; melds and extensions come first (points on the table,
    and runs that would cost in hand at the end); a range card is worth taking when it
    extends a sequence or makes a run, cards that fit nothing are worth discarding (near
    the end, to empty the hand); an ace is taken only with good reason (two cards go), an
    ace discarded brings draws, a seven discarded costs another card.  A forced discard
    keeps what fits best.
    """
    p = g.to_act
    h = g.lo[p]
    ends = _ends(g, p)
    out = []
    if g.pending:  # a forced discard (optional draws are the policy's)
        for m in moves:
            f = m[1][0]
            out.append(-_keep(f, h >> (f & 24) & 255, ends) - noise * rand())
        return out
    stock = len(g.stock)
    ending = g.last >= 0 or stock <= g.players
    seqs = g.seqs[p]
    first = g.used == 0
    # The last player's bonus: open while the stock holds cards (see W_LAST).
    race = W_LAST and g.last < 0 and 0 < stock <= 4
    for m in moves:
        k = m[0]
        if k == _MELD:
            v = 1e9 if len(m[1]) == 8 else W_MELD + len(m[1])
        elif k == _EXTEND:
            f = m[1][0]
            v = 1e9 if seqs[m[2] - 1] | 1 << f in _OCTAVE_SET else W_EXTEND
        elif k == _TAKE:
            f = m[1][0]
            r = f & 7
            byte = h >> (f & 24) & 255
            if ends >> f & 1:
                v = W_TAKE_EXT
            elif RUN[byte][r] >= 3:
                v = W_TAKE_RUN if first else W_TAKE_RUN2
            else:
                v = W_TAKE + W_TAKE_LINK * LINK[byte][r]
            if r == ACE:
                v -= W_TAKE_ACE
            elif r == SEVEN and stock > 1:
                v += W_TAKE_SEVEN
            if ending:
                v -= W_TAKE_END
        elif k == _DRAW:
            v = W_DRAW_END if ending else W_DRAW
        elif k == _DISCARD:
            f = m[1][0]
            r = f & 7
            v = W_DISCARD - _keep(f, h >> (f & 24) & 255, ends)
            if r == ACE and not ending:
                v += W_DISCARD_ACE
            elif r == SEVEN:
                v -= W_DISCARD_SEVEN
            if ending:
                v += W_DISCARD_END
        else:  # pass
            v = W_PASS
        if race:
            v += _race(k, m, stock, first)
        out.append(v + noise * rand())
    return out


def _race(k: Kind, m: Move, stock: int, first: bool) -> float:
    """What move ``m`` (of kind ``k``) does to the seat's chance of the last player's bonus,
    ``stock`` cards left, ``first`` if it is the turn's first action."""
    if k == _DRAW:
        took = 1
    elif k == _TAKE:
        took = 1 + (m[1][0] & 7 == SEVEN)  # a seven taken brings a free draw
    elif k == _DISCARD and m[1][0] & 7 == ACE:
        took = 2  # an ace discarded brings two free draws
    else:
        took = 0
    if took >= stock:
        return W_LAST
    if first and took and took + 1 >= stock:
        return W_LAST_NEXT  # the turn's second action can empty it
    if (k == _PASS or not first) and stock - took <= 2:
        return -W_LEAVE  # the turn ends with the stock for the next player to empty
    return 0.0


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


def playout(g: Game, rng: random.Random, epsilon: float) -> int:
    """Play ``g`` to its end with ``policy``; the number of moves played."""
    n = 0
    while g.outcome is None and n < MAX_PLIES:
        g.push(policy(g, g._legal(), rng, epsilon))
        n += 1
    return n


# ------------------------------------------------------------------------ bot


class Rule(Protocol):
    """A quick player the search can model seats by (``rule.QuickGreedy``)."""

    def choose(self, view: Game, rng: random.Random) -> Move: ...


def _octave(g: Game, moves: list[Move]) -> Move | None:
    """A move among ``moves`` that makes an octave (and so wins the game), if any."""
    seqs = g.seqs[g.to_act]
    for m in moves:
        if m[0] == _MELD and len(m[1]) == 8:
            return m
        if m[0] == _EXTEND and seqs[m[2] - 1] | 1 << m[1][0] in _OCTAVE_SET:
            return m
    return None


class _Setting(NamedTuple):
    budget: int
    model: int
    flat: bool
    greedy_cand: bool
    model_cost: int


class SearchBot:
    """ISMCTS from the bot's own view, with a fixed effort a decision.

    The effort is counted in moves played in the sampled worlds (the walk down the tree
    and the playout), ``budget`` a decision: an iteration's cost is nearly all its moves,
    so a decision takes about the same time at every table size and every stage of the
    game (a playout from the first turn at 6 players is several times longer than one
    near the end at 3), where a count of iterations would not.  ``iterations``, if given,
    caps the iterations too.

    The other seats (and the bot's own later moves) can be modelled more closely than the
    playout policy does: ``model`` plies after the root move are chosen by ``rule``
    (``rule.QuickGreedy``, greedy's one-ply rule reading only what that seat would see in
    the sampled world), ``flat`` keeps no tree below the root (whose first walks follow
    random replies), and ``greedy_cand`` searches the rule's choice among the candidates
    too.  A ply by the rule counts as ``model_cost`` of the policy's in the budget.
    ``at`` overrides any of ``budget``, ``model``, ``flat``, ``greedy_cand`` and
    ``model_cost`` by table size (players), where they were measured.
    """

    searches = True  # it thinks for a while: a UI runs it off its own thread

    def __init__(
        self,
        name: str,
        budget: int,
        width: int = WIDTH,
        iterations: int | None = None,
        epsilon: float = 0.1,
        model: int = 0,
        flat: bool = False,
        greedy_cand: bool = False,
        model_cost: int = MODEL_COST,
        rule: Rule | None = None,
        at: Mapping[int, Mapping[str, object]] | None = None,
    ) -> None:
        self.name = name
        self.width = width  # search only the moves ``values`` likes best (0: every move)
        self.iterations = iterations
        self.epsilon = epsilon  # how often a playout move is uniformly random
        base = {
            "budget": budget,
            "model": model,
            "flat": flat,
            "greedy_cand": greedy_cand,
            "model_cost": model_cost,
        }
        self._base = _Setting(**base)  # type: ignore[arg-type]
        self._at = {n: _Setting(**{**base, **o}) for n, o in (at or {}).items()}  # type: ignore[arg-type]
        for st in (self._base, *self._at.values()):
            if (st.model or st.greedy_cand) and rule is None:
                raise ValueError("modelling the seats needs a rule to model them by")
        self.rule = rule

    @property
    def budget(self) -> int:
        return self._base.budget

    def setting(self, players: int) -> _Setting:
        """What the bot does at a table of ``players``."""
        return self._at.get(players, self._base)

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
        cands = candidates(view, moves, self.width)
        st = self.setting(view.players)
        model, flat, cost = st.model, st.flat, st.model_cost
        gm = self.rule
        if gm is not None and st.greedy_cand:
            best = gm.choose(view, random.Random(0))
            if best not in cands:
                cands.append(best)
        eps = self.epsilon
        spent = done = 0
        cap = self.iterations
        while spent < st.budget and (cap is None or done < cap):
            world = sample_world(view, rng, unseen)
            node = root
            path = [root]
            while world.outcome is None:
                if flat and node is not root:
                    break
                legal = cands if node is root else world._legal()
                spent += 1
                if len(legal) == 1:
                    world.push(legal[0])
                    continue
                m, node, new = step(node, legal, world.to_act, rng)
                world.push(m)
                path.append(node)
                if new:
                    break
            k = 0
            while k < model and world.outcome is None:
                world.push(gm.choose(world, rng))  # type: ignore[union-attr]
                k += 1
            spent += cost * k
            spent += playout(world, rng, eps)
            backup(path, rewards(world))
            done += 1
        return most_visited(root)


def candidates(view: Game, moves: list[Move], width: int) -> list[Move]:
    """The ``width`` moves ``values`` likes best (all of them with ``width`` 0): the search
    spends its effort on the moves a player would consider."""
    if not width or len(moves) <= width:
        return list(moves)
    vs = values(view, moves, lambda: 0.0, 0.0)
    order = sorted(range(len(moves)), key=lambda i: -vs[i])
    return [moves[i] for i in sorted(order[:width])]
