"""Positions as one line of text (like chess FEN), for full information and for views.

    RULES TURN PLAYER PHASE PASSES DECK HAND0 HAND1
    POINTS0 POINTS1 PERMS0 PERMS1 SCRAP FROZEN [view:SEAT]

SPEC.md part 1 defines every field; ``parse_position(format_position(g))`` gives
back the same game, and ``format_position`` of the result the same text.
"""

from __future__ import annotations

import re

from .cards import ALL_CARDS, ALL_CARDS_WITH_JOKER, JOKER, RANK_OF, card_text, parse_card
from .engine import (
    BLOCK,
    COUNTER,
    DISCARD,
    MAIN,
    OFFER,
    OVER,
    PHASE_NAMES,
    PICK,
    SEVEN,
    UNKNOWN,
    Game,
    Outcome,
)
from .moves import NONE
from .rules import Rules

RANK = RANK_OF
_FIELDS = (
    "rules turn player phase passes deck hand0 hand1 points0 points1 perms0 perms1 scrap frozen"
)
# (winner, reason) of the over phase: a seat wins by goal or concession; a game is drawn
# by passes or agreement.
_ENDINGS = {(w, why) for w in "01" for why in ("goal", "concede")} | {
    ("draw", "passes"),
    ("draw", "agreed"),
}


class PositionError(ValueError):
    """The text is not a valid position; the message says which field and why."""


# ------------------------------------------------------------------ format


def _cards(cards: list[int], marked: set[int] | None = None) -> str:
    out = [card_text(c) + ("*" if marked and c in marked else "") for c in cards]
    return ",".join(out) or "-"


def _deck(g: Game) -> str:
    top_first = g.deck[::-1]
    out: list[str] = []
    run = 0
    for i, c in enumerate(top_first):
        if c == UNKNOWN:
            run += 1
            continue
        if run:
            out.append(f"?{run}")
            run = 0
        out.append(card_text(c) + ("*" if i < g.deck_known else ""))
    if run:
        out.append(f"?{run}")
    return ",".join(out) or "-"


def _hand(g: Game, s: int) -> str:
    text = _cards(g.hands[s], g.known[s])
    if g.hidden[s]:
        text = f"?{g.hidden[s]}" if text == "-" else f"{text},?{g.hidden[s]}"
    return text


def _stacks(g: Game, s: int) -> str:
    out = ["/".join(card_text(c) for c in [b, *g.jacks.get(b, ())]) for b in g.points[s]]
    return ",".join(out) or "-"


def _phase(g: Game) -> str:
    ph = g.phase
    if ph == MAIN:
        return "main:offered" if g.offered else "main"
    if ph == OFFER:
        return "offer"
    if ph == OVER:
        o = g.outcome
        assert o is not None
        return f"over:{'draw' if o.winner is None else o.winner}:{o.reason}"
    if ph == SEVEN:
        return "seven:" + _cards(g.revealed)
    head = card_text(g.chain[0]) + (f">{card_text(g.target)}" if g.target != NONE else "")
    if ph == COUNTER and len(g.chain) > 1:
        return f"counter:{head}:{_cards(g.chain[1:])}"
    return f"{PHASE_NAMES[ph]}:{head}"


def format_position(g: Game) -> str:
    frozen = ",".join(f"{card_text(c)}@{t}" for c, t in sorted(g.frozen.items())) or "-"
    fields = [
        g.rules.name,
        str(g.turn),
        str(g.player),
        _phase(g),
        str(g.passes),
        _deck(g),
        _hand(g, 0),
        _hand(g, 1),
        _stacks(g, 0),
        _stacks(g, 1),
        _cards(g.perms[0]),
        _cards(g.perms[1]),
        _cards(g.scrap[::-1]),
        frozen,
    ]
    if g.viewer >= 0:
        fields.append(f"view:{g.viewer}")
    return " ".join(fields)


# ------------------------------------------------------------------- parse


class _Reader:
    """Parses the fields, remembering every card placed so duplicates are caught."""

    def __init__(self, rules: Rules) -> None:
        self.placed: dict[int, str] = {}
        self.rules = rules
        self.unknown = 0

    def card(self, text: str, where: str) -> int:
        try:
            c = parse_card(text)
        except ValueError as e:
            raise PositionError(f"{where}: {e}") from None
        if c == JOKER and not self.rules.joker:
            raise PositionError(f"{where}: the joker is only in the joker variant")
        if c in self.placed:
            raise PositionError(f"{where}: {text} is also in {self.placed[c]}")
        self.placed[c] = where
        return c

    def cards(
        self, text: str, where: str, *, unknown_ok: bool = False, marks_ok: bool = False
    ) -> tuple[list[int], set[int], int]:
        """Cards in order, those marked ``*``, and the count of ``?N`` unknowns."""
        if text == "-":
            return [], set(), 0
        cards: list[int] = []
        marked: set[int] = set()
        unknown = 0
        for item in text.split(","):
            if item.startswith("?"):
                n = item[1:]
                if not unknown_ok or not _DIGITS.fullmatch(n) or not 1 <= int(n) <= 53:
                    raise PositionError(f"{where}: unexpected {item!r}")
                unknown += int(n)
                cards.extend([UNKNOWN] * int(n))
                continue
            star = item.endswith("*")
            if star and not marks_ok:
                raise PositionError(f"{where}: {item!r}: only the deck and hands mark cards (*)")
            c = self.card(item[:-1] if star else item, where)
            cards.append(c)
            if star:
                marked.add(c)
        self.unknown += unknown
        return cards, marked, unknown


_DIGITS = re.compile(r"[0-9]{1,9}")


def _int(text: str, where: str, lo: int, hi: int) -> int:
    if not _DIGITS.fullmatch(text) or not lo <= int(text) <= hi:
        raise PositionError(f"{where}: {text!r} is not a whole number from {lo} to {hi}")
    return int(text)


def _split_fields(text: str) -> tuple[dict[str, str], int]:
    """The 14 fields by name, and the viewer (-1 for full information)."""
    fields = text.split()
    names = _FIELDS.split()
    viewer = -1
    if len(fields) > len(names):
        extra = fields[len(names)]
        if not re.fullmatch(r"view:[01]", extra):
            raise PositionError(
                f"field {len(names) + 1}: {extra!r} is not view:0 or view:1 "
                f"(a position has {len(names)} fields, a view adds view:SEAT)"
            )
        if len(fields) > len(names) + 1:
            raise PositionError(
                f"field {len(names) + 2}: {fields[len(names) + 1]!r} is one field too many "
                f"(a view ends with view:SEAT, field {len(names) + 1})"
            )
        viewer = int(fields.pop()[-1])
    if len(fields) < len(names):
        raise PositionError(
            f"{names[len(fields)]} (field {len(fields) + 1}) is missing: a position has "
            f"{len(names)} fields ({_FIELDS}, then view:SEAT for a view)"
        )
    return dict(zip(names, fields, strict=True)), viewer


def parse_position(text: str) -> Game:
    """Read a position; raise ``PositionError`` naming the field that is wrong.

    Every field is checked against the others and the rule set: a position is
    accepted only if it can arise in a game (SPEC.md 1.8, *Consistency*).
    """
    f, viewer = _split_fields(text)
    try:
        rules = Rules.parse(f["rules"])
    except ValueError as e:
        raise PositionError(f"rules: {e}") from None
    g = Game.empty(rules, viewer)
    r = _Reader(rules)
    g.turn = _int(f["turn"], "turn", 1, 10**6)
    g.player = _int(f["player"], "player", 0, 1)
    g.passes = _int(f["passes"], "passes", 0, 3)

    deck, public, _ = r.cards(f["deck"], "deck", unknown_ok=viewer >= 0, marks_ok=True)
    g.deck = deck[::-1]
    g.deck_known = len(public)
    if deck[: len(public)] != [c for c in deck if c in public]:
        raise PositionError("deck: only cards on top of the draw pile can be known (*)")
    if viewer >= 0 and any(c != UNKNOWN for c in deck[len(public) :]):
        raise PositionError("deck: a view names only the known top cards (*), then ?N")
    for s in (0, 1):
        hand, marked, unknown = r.cards(
            f[f"hand{s}"], f"hand{s}", unknown_ok=viewer == 1 - s, marks_ok=True
        )
        if UNKNOWN in hand[: len(hand) - unknown]:
            raise PositionError(f"hand{s}: ?N comes after the cards the viewer knows")
        if viewer == 1 - s:
            marked = set(c for c in hand if c != UNKNOWN)  # the viewer knows what it lists
        known_cards = hand[: len(hand) - unknown]
        if sorted(known_cards) != known_cards:
            raise PositionError(f"hand{s}: cards are listed in card order")
        g.hands[s] = known_cards
        g.hidden[s] = unknown
        g.known[s] = marked
        for b_text in [] if f[f"points{s}"] == "-" else f[f"points{s}"].split(","):
            stack = [r.card(x, f"points{s}") for x in b_text.split("/")]
            if not 1 <= RANK[stack[0]] <= 10 or any(RANK[j] != 11 for j in stack[1:]):
                raise PositionError(f"points{s}: {b_text} is not a point card with jacks on it")
            g.points[s].append(stack[0])
            if len(stack) > 1:
                g.jacks[stack[0]] = stack[1:]
        if g.points[s] != sorted(g.points[s]):
            raise PositionError(f"points{s}: stacks are listed in card order")
        perms, _, _ = r.cards(f[f"perms{s}"], f"perms{s}")
        if any(RANK[c] not in (8, 12, 13) for c in perms) or perms != sorted(perms):
            raise PositionError(f"perms{s}: kings, queens and glasses-8s only, in card order")
        g.perms[s] = perms
    scrap, _, _ = r.cards(f["scrap"], "scrap")
    g.scrap = scrap[::-1]
    _parse_phase(g, f["phase"], r)
    _parse_frozen(g, f["frozen"])
    _check_totals(g, r)
    _check_consistency(g)
    return g


def _parse_frozen(g: Game, text: str) -> None:
    if text == "-":
        return
    if not g.rules.nine_freezes:
        raise PositionError(f"frozen: nothing is frozen under {g.rules.name} (SPEC 1.3)")
    for item in text.split(","):
        card_part, at, last = item.partition("@")
        try:
            c = parse_card(card_part)
        except ValueError:
            c = NONE
        if c == NONE or RANK[c] not in (8, 11, 12, 13) or not at:
            raise PositionError(f"frozen: {item!r} is not CARD@TURN (a king, queen, 8 or jack)")
        if c in g.frozen:
            raise PositionError(f"frozen: {card_part} is listed twice")
        t = _int(last, f"frozen: {item}", 1, 10**6 + 2)
        # A 9 returned it in public, into the hand of the seat that plays turn TURN.
        s = (t - 1) % 2
        if c not in g.hands[s] or c not in g.known[s]:
            raise PositionError(
                f"frozen: {item}: {card_text(c)} is not a known card (*) in hand{s}, "
                f"the hand of the seat that plays turn {t}"
            )
        latest = g.turn + (2 if g.phase == OVER else 1)
        if not g.turn <= t <= latest:
            raise PositionError(
                f"frozen: {item}: on turn {g.turn} a freeze lasts through turn {g.turn} to {latest}"
            )
        g.frozen[c] = t


_PHASES = {"counter": COUNTER, "discard": DISCARD, "pick": PICK, "block": BLOCK}


def _parse_phase(g: Game, text: str, r: _Reader) -> None:
    head, _, rest = text.partition(":")
    where = "phase"
    if head == "main" and rest in ("", "offered"):
        g.phase, g.offered = MAIN, rest == "offered"
        return
    if head == "offer" and not rest:
        g.phase = OFFER
        return
    if head == "over":
        who, _, reason = rest.partition(":")
        if (who, reason) not in _ENDINGS:
            raise PositionError(
                f"{where}: {text!r} is not over:0|1:goal|concede or over:draw:passes|agreed"
            )
        g.phase, g.outcome = OVER, Outcome(None if who == "draw" else int(who), reason)
        return
    if head == "seven":
        g.phase = SEVEN
        g.revealed, _, _ = r.cards(rest, where)
        if not 1 <= len(g.revealed) <= g.rules.seven_reveals:
            raise PositionError(f"{where}: a 7 reveals 1 to {g.rules.seven_reveals} card(s)")
        return
    if head not in _PHASES or not rest:
        raise PositionError(
            f"{where}: {text!r} is not one of main, main:offered, offer, counter:…, "
            "discard:…, pick:…, seven:…, block:…, over:…"
        )
    g.phase = _PHASES[head]
    first, _, counters = rest.partition(":")
    card_text_, arrow, target = first.partition(">")
    g.chain = [r.card(card_text_, where)]
    if arrow:
        try:
            g.target = parse_card(target)  # a card on the table: placed by its own field
        except ValueError as e:
            raise PositionError(f"{where}: the target: {e}") from None
    if counters:
        if g.phase != COUNTER:
            raise PositionError(f"{where}: only a counter chain lists counters")
        twos, _, _ = r.cards(counters, where)
        if any(RANK[c] != 2 for c in twos):
            raise PositionError(f"{where}: only 2s counter")
        g.chain.extend(twos)


def _check_totals(g: Game, r: _Reader) -> None:
    cards = ALL_CARDS_WITH_JOKER if g.rules.joker else ALL_CARDS
    if len(r.placed) + r.unknown != len(cards):
        missing = ",".join(card_text(c) for c in sorted(set(cards) - set(r.placed)))
        if g.viewer >= 0:
            raise PositionError(
                f"a view accounts for {len(cards)} cards; this one for {len(r.placed) + r.unknown}"
            )
        raise PositionError(f"a full position places every card once; missing: {missing}")


def _check_consistency(g: Game) -> None:
    """Fields that parse one by one but could not arise together in a game."""
    p, o = g.player, 1 - g.player
    if p != (g.turn - 1) % 2:
        raise PositionError(
            f"player: seat {(g.turn - 1) % 2} plays turn {g.turn} (seat 0 the odd turns)"
        )
    for s in (0, 1):
        if g.has_glasses(1 - s) and (g.hidden[s] or not g.known[s].issuperset(g.hands[s])):
            raise PositionError(
                f"hand{s}: seat {1 - s} wears glasses, so every card of hand{s} is known (*)"
            )
    if g.phase == OVER:
        _check_ending(g)
    else:
        _check_no_goal(g)
        if g.passes and g.phase not in (MAIN, OFFER):
            raise PositionError(f"passes: {g.passes} passes, but a card was played since")
        if g.passes and g.deck:
            raise PositionError("passes: passing is only possible with an empty draw pile")
        if g.passes == 3:
            raise PositionError("passes: three passes end the game (phase over:draw:passes)")
    if g.phase == COUNTER:
        _check_counter(g)
    elif g.phase == DISCARD:
        if RANK[g.chain[0]] != 4 or g.target != NONE:
            raise PositionError("phase: discard follows a 4, which takes no target")
        if not g.hand_size(o):
            raise PositionError(f"phase: a 4 waits for discards, but hand{o} is empty")
    elif g.phase == PICK:
        if RANK[g.chain[0]] != 3 or g.target != NONE:
            raise PositionError("phase: pick follows a 3, which takes no target")
        if not g.scrap:
            raise PositionError("phase: a 3 waits for a pick, but the scrap is empty")
    elif g.phase == SEVEN:
        if len(g.revealed) < g.rules.seven_reveals and g.deck:
            raise PositionError(
                f"phase: a 7 reveals {g.rules.seven_reveals} cards while the draw pile has them"
            )
        if not g.scrap or RANK[g.scrap[-1]] != 7:
            raise PositionError("scrap: while a 7's cards wait, that 7 is on top of the scrap")
    elif g.phase == BLOCK:
        t, c = g.target, g.chain[0]
        if not g.rules.ten_blocks:
            raise PositionError("phase: block needs the variant ten-blocks-scuttle")
        if t == NONE or t not in g.points[o] or not 1 <= RANK[c] <= 10 or not t < c:
            raise PositionError(
                f"phase: block:C>T needs a point card C that scuttles T, a point card of points{o}"
            )
        if not g.hand_size(o):
            raise PositionError(f"phase: a block window needs a card in hand{o}")


def _check_ending(g: Game) -> None:
    o = g.outcome
    assert o is not None
    if o.reason == "goal":
        if not g.meets_goal(o.winner):
            raise PositionError(
                f"phase: seat {o.winner} has {g.score(o.winner)} points, short of its goal "
                f"{g.goal(o.winner)}"
            )
        if g.passes:
            raise PositionError("passes: a pass cannot reach a goal; the count is 0")
    else:
        _check_no_goal(g)
    if (g.passes == 3) != (o.reason == "passes"):
        raise PositionError("passes: three passes, and only they, end a game over:draw:passes")
    if g.passes and g.deck:
        raise PositionError("passes: passing is only possible with an empty draw pile")


def _check_no_goal(g: Game) -> None:
    for s in (0, 1):
        if g.meets_goal(s):
            raise PositionError(
                f"points{s}: seat {s} has {g.score(s)} points and its goal is {g.goal(s)}: "
                "the game would have ended by goal"
            )


def _check_counter(g: Game) -> None:
    """A one-off waiting for counters: a card and target it could be played with."""
    p, o = g.player, 1 - g.player
    c, t = g.chain[0], g.target
    r = RANK[c]
    if r == 2 or r == 9:
        opponent_only = r == 9 and g.rules.nine_opponent_only
        if t not in g._permanent_targets(p, opponent_only):
            raise PositionError(f"phase: {card_text(c)} needs a target that seat {p} may hit")
    elif r == 8 and g.rules.eight_one_off:
        if t not in g.perms[o] or RANK[t] != 8 or g.protected(o, t):
            raise PositionError(f"phase: {card_text(c)} needs a target, glasses of seat {o}")
    elif r in (1, 3, 4, 5, 6, 7) or c == JOKER:
        if t != NONE:
            raise PositionError(f"phase: {card_text(c)} takes no target")
    else:
        raise PositionError(f"phase: {card_text(c)} is not a one-off under {g.rules.name}")
    unplayable = (
        (r == 1 and not (g.points[0] or g.points[1]))
        or (r == 3 and not g.scrap)
        or (r in (5, 7) and not g.deck)
        or (r == 5 and g.hand_size(p) >= g.rules.hand_limit)
        or (r == 6 and not (g.jacks or g.perms[0] or g.perms[1]))
    )
    if unplayable:
        raise PositionError(f"phase: {card_text(c)} could not have been played here (SPEC 1.2)")
    top = p if len(g.chain) & 1 else o  # who played the card now waiting
    if g.queens(top) or not g.hand_size(1 - top):
        raise PositionError(
            f"phase: nobody can counter here (a queen of seat {top}, or an empty hand{1 - top}): "
            "the chain would have resolved"
        )
