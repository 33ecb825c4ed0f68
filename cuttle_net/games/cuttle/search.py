"""A search bot that sees only its own seat's view: information-set Monte Carlo tree search.

Each iteration deals the cards hidden from the bot at random, consistently with its view
(``sample_world``): the other hand's unseen cards and the unknown part of the draw pile
come from ``view.unseen()`` and nothing else, so the bot cannot use a card it has not
seen.  In that world it walks one shared tree of moves (single-observer ISMCTS: a child is
chosen by UCB among the moves legal in this world, counting how often each was
available), adds one node, plays a few plies with a cheap greedy-ish policy and scores the
table with a heuristic (``evaluate``).  The move made most often from the root is played.

With ``infer``, the bot also reads the opponent's play (``observe``, see ``belief``): that
share of the worlds gives the opponent a hand drawn from its beliefs, which weigh the hands
it could hold by how well they explain the moves it made; the rest are dealt uniformly.

The effort is a number of iterations, not a time, so a bot given the same view and the
same random generator always decides the same way.
"""

from __future__ import annotations

import math
import random
from bisect import insort

from ..tree import UCB_C, Node, backup, most_visited, shuffle, step
from .belief import Beliefs
from .cards import RANK_OF
from .engine import CHANCE, MAIN, OVER, UNKNOWN, Game
from .moves import Kind, Move

RANK = RANK_OF
_POINTS, _SCUTTLE, _JACK = Kind.POINTS, Kind.SCUTTLE, Kind.JACK
_PERMANENT, _ONEOFF, _COUNTER, _DRAW = Kind.PERMANENT, Kind.ONEOFF, Kind.COUNTER, Kind.DRAW
EPSILON = 0.1  # how often a playout move is uniformly random
GLASSES = 0.04  # what glasses (an 8 showing the other hand) add to the evaluation
HAND = 0.04  # what a card in hand more than the opponent adds to the evaluation


def sample_world(
    view: Game,
    rng: random.Random,
    unseen: list[int] | None = None,
    hand: list[int] | None = None,
) -> Game:
    """A full-information game that ``view``'s seat cannot tell from the real one.

    The cards it has not seen (``view.unseen()``, or ``unseen`` if given: the same cards,
    in card order) are shuffled into the other hand's hidden slots and the unknown places
    of the draw pile; every card the view places stays where it is.  ``hand``, if given,
    fills the other hand's hidden slots instead (some of the unseen cards: a guess of
    ``Beliefs``), and only the rest is shuffled into the pile.
    """
    if view.viewer < 0:
        raise ValueError("sample_world takes a player's view, not the full game")
    cards = sorted(view.unseen()) if unseen is None else unseen[:]
    g = view.copy()
    o = 1 - view.viewer
    n = g.hidden[o]
    deck = g.deck
    u = len(deck) - g.deck_known  # the unknown cards are the bottom of the pile
    if n + u != len(cards) or deck.count(UNKNOWN) != u or g.hidden[view.viewer]:
        raise ValueError("the view does not account for every card")
    if hand is not None:
        if len(hand) != n:
            raise ValueError("a guessed hand must fill the hidden slots exactly")
        held = set(hand)
        cards = [c for c in cards if c not in held]
        if len(cards) != u:
            raise ValueError("a guessed hand may hold only cards the view has not seen")
    shuffle(cards, rng)
    if hand is not None:
        cards = hand + cards
    if n:
        hand_o = g.hands[o]
        for c in cards[:n]:
            insort(hand_o, c)
        g.hidden[o] = 0
    if u:
        deck[:u] = cards[n:]
    g.viewer = -1
    return g


# ------------------------------------------------------------------ evaluation


def _progress(g: Game, s: int) -> float:
    goal = g.goal(s)
    return 1.0 if goal <= 0 else min(1.0, g.score(s) / goal)


def _reach(g: Game, s: int) -> int:
    """Points ``s`` could add in one move from its hand: its best point card or jack steal."""
    best = 0
    o = 1 - s
    for c in g.hands[s]:
        r = RANK[c]
        if r <= 10:
            if r > best:
                best = r
        elif r == 11 and g.points[o] and not g.queens(o):
            steal = max(RANK[t] for t in g.points[o])
            if steal > best:
                best = steal
    return best


def evaluate(g: Game, seat: int, glasses: float = GLASSES, hand: float = HAND) -> float:
    """How good ``g`` looks for ``seat``, from 0 (lost) to 1 (won); 0.5 for a draw.

    Progress towards the goal dominates; a player whose turn it is and who can reach the
    goal with one card from hand has all but won; cards in hand, queens (protection) and
    glasses (information) add a little.  Kings count through the goal they lower.
    """
    if g.phase == OVER:
        w = g.outcome.winner  # type: ignore[union-attr]
        return 0.5 if w is None else (1.0 if w == seat else 0.0)
    if g.phase == MAIN:
        p = g.player
        if g.score(p) + _reach(g, p) >= g.goal(p):
            return 0.92 if p == seat else 0.08
    o = 1 - seat
    pm, po = _progress(g, seat), _progress(g, o)
    v = pm - po
    v += 0.5 * (pm * pm - po * po)  # being close to the goal matters more than the gap
    v += hand * (g.hand_size(seat) - g.hand_size(o))
    v += 0.1 * (min(g.queens(seat), 1) - min(g.queens(o), 1))
    v += glasses * (g.has_glasses(seat) - g.has_glasses(o))
    return 0.5 + 0.5 * math.tanh(1.5 * v)


# ------------------------------------------------------------------ playouts


def _owner_of_permanent(g: Game, t: int) -> int:
    """The seat that benefits from permanent ``t`` (a top jack: the stack's controller)."""
    if RANK[t] != 11:
        return 0 if t in g.perms[0] else 1
    for b, jl in g.jacks.items():
        if jl[-1] == t:
            return g.controller(b)
    return -1


def _policy(g: Game, moves: list[Move], rng: random.Random) -> Move:
    """The playout policy: a quick, greedy guess, in units of progress towards the goal.

    A move that wins at once is always taken; otherwise the best-looking move (with a
    little noise), or now and then any move.  Taking points away from an opponent near
    its goal weighs more the nearer it is.
    """
    if len(moves) == 1:
        return moves[0]
    p = g.to_act
    if p == CHANCE or rng.random() < EPSILON:
        return moves[rng.randrange(len(moves))]
    o = 1 - p
    sp, so = g.score(p), g.score(o)
    kings = g.kings(p)
    goals = g.rules.goals
    gp, go = goals[kings], g.goal(o)
    gp, go = max(gp, 1), max(go, 1)
    po = so / go
    urgency = 1.0 + 3.0 * po * po
    best, best_v = moves[0], -1e9
    for m in moves:
        k, c, t = m
        if k == _POINTS:
            r = RANK[c]
            if sp + r >= gp:
                return m
            v = r / gp
        elif k == _SCUTTLE:
            v = urgency * RANK[t] / go - 0.3 * RANK[c] / gp
        elif k == _JACK:
            r = RANK[t]
            if sp + r >= gp:
                return m
            v = r / gp + urgency * r / go
        elif k == _PERMANENT:
            r = RANK[c]
            if r == 13:
                g2 = max(goals[kings + 1], 1)
                if sp >= g2:
                    return m
                v = sp / g2 - sp / gp + 0.15
            else:
                v = 0.12 if r == 12 else 0.05
        elif k == _ONEOFF:
            r = RANK[c]
            if r == 1:
                v = urgency * po - sp / gp
            elif r == 2 or r == 9:
                v = 0.2 if _owner_of_permanent(g, t) == o else -1.0
            elif r == 6:
                v = 0.1 * (len(g.perms[o]) - len(g.perms[p]) + len(g.jacks)) - 0.05
            else:
                v = 0.08
        elif k == _COUNTER:
            v = 0.3
        elif k == _DRAW:
            v = 0.06
        else:
            v = 0.0
        v += rng.random() * 0.05
        if v > best_v:
            best, best_v = m, v
    return best


def _rollout(g: Game, rng: random.Random, plies: int) -> None:
    """Play ``plies`` decisions with the playout policy, then finish any open action."""
    n = 0
    while g.phase != OVER and (n < plies or (g.phase != MAIN and n < plies + 8)):
        g.push(_policy(g, g._legal(), rng))
        n += 1


def _cautious(root: Node, squares: dict[Node, float], caution: float) -> Move:
    """Of the root's moves searched at least a third as much as the most searched, the one
    with the best mean less ``caution`` times its results' spread."""
    top = max(ch.visits for ch in root.children.values())
    best, best_v = None, -1e9
    for m, ch in root.children.items():
        if ch.visits * 3 < top:
            continue
        mean = ch.wins / ch.visits
        spread = math.sqrt(max(0.0, squares.get(ch, 0.0) / ch.visits - mean * mean))
        v = mean - caution * spread
        if v > best_v:
            best, best_v = m, v
    return best  # type: ignore[return-value]


class SearchBot:
    """ISMCTS from the bot's own view, with a fixed number of iterations a decision."""

    searches = True  # it thinks for a while: a UI runs it off its own thread

    def __init__(
        self,
        name: str,
        iterations: int,
        plies: int = 8,
        infer: float = 0.0,
        glasses: float = GLASSES,
        sight: float = 0.0,
        takes_wins: float = 0.0,
        steals: float = 0,
        hand: float = HAND,
        ucb: float = UCB_C,
        caution: float = 0.0,
    ) -> None:
        self.name = name
        self.glasses = glasses
        self.hand = hand
        self.ucb = ucb  # the tree's exploration constant
        # How much a root move's spread of results over the worlds counts against it (0:
        # the most visited move, as ever): a move that pays only in some hands the other
        # seat may hold is worth less to a player who cannot tell which hand it holds.
        self.caution = caution
        # Added to the reward of putting glasses down now, while the other hand is hidden:
        # the worlds of a search are each fully seen, so it cannot value seeing on its own.
        self.sight = sight
        self.iterations = iterations
        self.plies = plies
        self.infer = infer  # the share of worlds dealt from the beliefs (0: no inference)
        self.takes_wins = takes_wins  # how sure the beliefs are that the opponent takes wins
        self.steals = int(steals)  # and jacks' steals of this rank or more (0: wins only)
        self._seen: list[tuple[Game, Move]] = []
        self._beliefs: Beliefs | None = None

    def observe(self, view: Game, move: Move) -> None:
        """``move`` is about to be made in the game ``view`` (this seat's view) shows.

        Kept for the next decision, which reads the opponent's play from it (its cost is
        the decision's).  A view of a new game starts the beliefs afresh.
        """
        if self.infer <= 0:
            return
        self._seen.append((view.copy(), move))

    def _new_beliefs(self, view: Game) -> Beliefs:
        rng = random.Random(f"beliefs {view.hands[view.viewer]}")
        return Beliefs(view, rng, takes_wins=self.takes_wins, steals=self.steals)

    def _believe(self, view: Game) -> Beliefs | None:
        if self.infer <= 0:
            return None
        b = self._beliefs
        if b is None or b.seat != view.viewer or view.turn < b.turn:
            b = self._beliefs = None
        history, self._seen = self._seen, []
        for seen, move in history:
            if seen.viewer != view.viewer or (b is not None and seen.turn < b.turn):
                b = None  # another game's history
            if b is None:
                b = self._new_beliefs(seen)
            b.observe(seen, move)
        if b is None:
            b = self._new_beliefs(view)
        b.fit(view)
        self._beliefs = b
        return b

    def _world(
        self, view: Game, rng: random.Random, unseen: list[int], hand: list[int] | None
    ) -> Game:
        """One world of the search: ``sample_world`` (an experiment may deal otherwise)."""
        return sample_world(view, rng, unseen, hand)

    def choose(self, view: Game, rng: random.Random) -> Move:
        if view.viewer < 0 or view.to_act != view.viewer:
            raise ValueError("a bot decides from its own view, when its seat is to act")
        moves = view.legal_moves()
        if len(moves) == 1:
            return moves[0]
        me = view.viewer
        rng = random.Random(rng.getrandbits(64))
        beliefs = self._believe(view)
        root = Node(1 - me)
        plies = self.plies
        glasses = self.glasses
        hand_weight = self.hand
        ucb = self.ucb
        unseen = sorted(view.unseen())
        infer = self.infer if beliefs is not None and view.hidden[1 - me] else 0.0
        sight = self.sight if view.hidden[1 - me] and view.phase == MAIN else 0.0
        glance = {m for m in moves if m.kind == _PERMANENT and RANK[m.card] == 8}
        looks: set[Node] = set()  # the root's children that put glasses down
        caution = self.caution
        squares: dict[Node, float] = {}  # a root child's sum of its squared rewards
        for _ in range(self.iterations):
            hand = None
            if infer and rng.random() < infer:
                hand = beliefs.pick(rng)  # type: ignore[union-attr]
            world = self._world(view, rng, unseen, hand)
            node = root
            path = [root]
            while world.phase != OVER:
                legal = world._legal()
                actor = world.to_act
                children = node.children
                if actor == CHANCE:
                    m = legal[rng.randrange(len(legal))]
                    child = children.get(m)
                    if child is None:
                        child = children[m] = Node(actor)
                    world.push(m)
                    node = child
                    path.append(node)
                    continue
                m, node, new = step(node, legal, actor, rng, ucb)
                if sight and m in glance and path[-1] is root:
                    looks.add(node)
                world.push(m)
                path.append(node)
                if new:
                    break
            _rollout(world, rng, plies)
            v0 = evaluate(world, 0, glasses, hand_weight)
            backup(path, (v0, 1.0 - v0, 1.0 - v0))  # seat 0, seat 1, chance (CHANCE is 2)
            if sight and len(path) > 1 and path[1] in looks:
                path[1].wins += sight
            if caution and len(path) > 1:
                r = v0 if me == 0 else 1.0 - v0
                squares[path[1]] = squares.get(path[1], 0.0) + r * r
        if caution:
            return _cautious(root, squares, caution)
        return most_visited(root)
