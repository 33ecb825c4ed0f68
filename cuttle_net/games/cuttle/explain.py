"""Why a move is illegal, in words that name the rule it breaks.

Legality itself is decided in one place, ``Game.legal_moves``; this module is only
consulted once a move has been found illegal, to say why.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .cards import RANK_OF as RANK
from .cards import card_display as show
from .moves import NONE, PLAY_KINDS, Kind, Move
from .phases import MAIN, PHASE_NAMES, SEVEN

if TYPE_CHECKING:
    from .engine import Game

_ONE_OFF_RANKS = {1, 2, 3, 4, 5, 6, 7, 9}
_WAITING = {
    "counter": "a one-off waits: counter it with a 2 or decline",
    "discard": "a 4 was played: the discards must be chosen",
    "pick": "a 3 was played: pick a card from the scrap",
    "seven": "a 7 revealed {cards}: play it now",
    "block": "a scuttle waits: block it with a 10 or decline",
    "offer": "a draw was offered: accept or refuse it",
}


def why_illegal(g: Game, m: Move) -> str:
    phase = PHASE_NAMES[g.phase]
    k, c = m.kind, m.card
    wrong_phase = _phase_mismatch(g, m, phase)
    if wrong_phase:
        return wrong_phase
    if k in PLAY_KINDS and g.phase == SEVEN and c not in g.revealed:
        cards = " or ".join(show(x) for x in g.revealed)
        return f"after a 7 you must play the revealed card ({cards}), not {show(c)}"
    p = g.to_act
    return _why(g, m, p) or f"{m} is not legal here"


def _phase_mismatch(g: Game, m: Move, phase: str) -> str | None:
    k = m.kind
    allowed = {
        "main": PLAY_KINDS | {Kind.DRAW, Kind.PASS, Kind.OFFER_DRAW},
        "counter": {Kind.COUNTER, Kind.DECLINE},
        "discard": {Kind.DISCARD},
        "pick": {Kind.PICK},
        "seven": PLAY_KINDS | {Kind.SCRAP},
        "block": {Kind.BLOCK, Kind.DECLINE},
        "offer": {Kind.ACCEPT_DRAW, Kind.REFUSE_DRAW},
    }[phase]
    if k in allowed:
        return None
    if phase == "main":
        return f"'{m}' answers a pending decision, and none is pending: it is a normal turn"
    cards = " and ".join(show(x) for x in g.revealed)
    return f"'{m}' is not an answer here: {_WAITING[phase].format(cards=cards)}"


def _why(g: Game, m: Move, p: int) -> str | None:
    k, c, t = m
    o = 1 - p
    rules = g.rules
    if k == Kind.DRAW:
        if not g.deck:
            return "the draw pile is empty: pass instead of drawing"
        return f"your hand is full ({rules.hand_limit} cards): you may not draw"
    if k == Kind.PASS:
        return "you may pass only when the draw pile is empty"
    if k == Kind.OFFER_DRAW:
        return "a draw may be offered once a turn, on your own turn"
    if k == Kind.COUNTER:
        if RANK[c] != 2:
            return f"only a 2 can counter, not {show(c)}"
        return f"{show(c)} is not in your hand"
    if k == Kind.BLOCK:
        if RANK[c] != 10:
            return f"only a 10 can block a scuttle, not {show(c)}"
        return f"{show(c)} is not in your hand"
    if k == Kind.DISCARD:
        victim = 1 - g.player
        need = min(2, g.hand_size(victim))
        named = [x for x in (c, t) if x != NONE]
        if len(named) != need:
            return f"the 4 makes you discard {need} card(s), not {len(named)}"
        missing = [x for x in named if x not in g.hands[victim]]
        return f"{show(missing[0])} is not in the hand" if missing else None
    if k == Kind.PICK:
        return f"{show(c)} is not in the scrap"
    if k == Kind.SCRAP:
        return f"{show(c)} has a legal play, so it must be played, not scrapped"
    # Plays of a card: from the hand, or after a 7 from the reveal.
    if g.phase == MAIN:
        if c not in g.hands[p]:
            return f"{show(c)} is not in your hand"
        if g.is_frozen(c):
            return f"{show(c)} is frozen: a 9 returned it, and it cannot be played this turn"
    r = RANK[c]
    forced = g.phase == SEVEN
    if k == Kind.POINTS:
        return None if 1 <= r <= 10 else f"only A–10 are point cards, not {show(c)}"
    if k == Kind.SCUTTLE:
        if not 1 <= r <= 10:
            return f"only A–10 can scuttle, not {show(c)}"
        if t not in g.points[o]:
            return (
                f"{show(c)} cannot scuttle {show(t)}: it is not a point card your opponent controls"
            )
        if RANK[t] == r:
            return f"{show(c)} cannot scuttle {show(t)}: equal rank needs a higher suit"
        return f"{show(c)} cannot scuttle {show(t)}: a scuttle needs a higher rank"
    if k == Kind.PERMANENT:
        if r in (12, 13):
            return None
        return None if r == 8 else f"{show(c)} is not a permanent: kings, queens and 8s are"
    if k == Kind.JACK:
        if r != 11:
            return f"only a jack goes on a point card, not {show(c)}"
        if t not in g.points[0] and t not in g.points[1]:
            return f"{show(t)} is not a point card on the table"
        if t in g.points[p]:
            if forced and (not g.points[o] or g.queens(o)):
                return None
            return f"a jack goes on a point card your opponent controls, and {show(t)} is yours"
        return f"{show(t)} is protected by your opponent's queen"
    if k == Kind.ONEOFF:
        return _why_oneoff(g, p, c, t, forced)
    return None


def _why_oneoff(g: Game, p: int, c: int, t: int, forced: bool) -> str | None:
    o = 1 - p
    r = RANK[c]
    rules = g.rules
    if c == 52:
        return "the joker swaps hands, and both hands would be empty: nothing would change"
    if r == 8 and rules.eight_one_off:
        if t not in g.perms[o] or RANK[t] != 8:
            return f"an 8 as a one-off must target your opponent's glasses, not {_name(t)}"
        return f"{show(t)} is protected by your opponent's queen"
    if r not in _ONE_OFF_RANKS:
        return f"{show(c)} has no one-off effect"
    if r in (2, 9):
        if t == NONE:
            return f"a {r} as a one-off needs a target: a king, queen, glasses-8 or top jack"
        return _why_target(g, p, r, t)
    if t != NONE:
        return f"a {'ace' if r == 1 else r} as a one-off takes no target"
    deck_after = len(g.deck) + (len(g.revealed) - 1 if forced else 0)
    reason = {
        1: "an ace needs at least one point card on the table",
        3: "a 3 needs a card in the scrap to take",
        4: "a 4 needs your opponent to hold at least one card",
        6: "a 6 needs at least one permanent on the table",
        7: "a 7 needs a card in the draw pile to reveal",
    }
    if r == 5:
        if not deck_after:
            return "a 5 needs a card in the draw pile to draw"
        return f"a 5 must draw at least one card, and your hand is full ({rules.hand_limit})"
    return reason.get(r)


def _why_target(g: Game, p: int, r: int, t: int) -> str:
    o = 1 - p
    on_table = any(t in g.perms[s] for s in (0, 1)) or any(jl[-1] == t for jl in g.jacks.values())
    if not on_table:
        if RANK[t] == 11 and any(t in jl for jl in g.jacks.values()):
            return f"only the top jack of a stack can be targeted, not {show(t)}"
        return (
            f"a {r} targets a permanent on the table (king, queen, glasses-8, jack), not {_name(t)}"
        )
    side = 0 if t in g.perms[0] else 1
    if RANK[t] == 11:
        side = next(g.controller(b) for b, jl in g.jacks.items() if jl[-1] == t)
    if r == 9 and g.rules.nine_opponent_only and side == p:
        return "in nine-frozen a 9 may target only your opponent's permanents"
    if side == o:
        return f"{show(t)} is protected by your opponent's queen"
    return f"{show(t)} cannot be targeted"


def _name(t: int) -> str:
    return "nothing" if t == NONE else show(t)
