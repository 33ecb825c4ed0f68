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
_REASONS = {"goal", "concede", "passes", "agreed"}
_FROZEN_CARDS = {card_text(c): c for c in ALL_CARDS if RANK_OF[c] in (8, 11, 12, 13)}


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

    def __init__(self, joker: bool) -> None:
        self.placed: dict[int, str] = {}
        self.joker = joker
        self.unknown = 0

    def card(self, text: str, where: str) -> int:
        try:
            c = parse_card(text)
        except ValueError as e:
            raise PositionError(f"{where}: {e}") from None
        if c == JOKER and not self.joker:
            raise PositionError(f"{where}: the joker is only in the joker variant")
        if c in self.placed:
            raise PositionError(f"{where}: {text} is also in {self.placed[c]}")
        self.placed[c] = where
        return c

    def cards(
        self, text: str, where: str, unknown_ok: bool = False
    ) -> tuple[list[int], set[int], int]:
        """Cards in order, those marked ``*``, and the count of ``?N`` unknowns."""
        if text == "-":
            return [], set(), 0
        cards: list[int] = []
        marked: set[int] = set()
        unknown = 0
        for item in text.split(","):
            if item.startswith("?"):
                if not unknown_ok or not item[1:].isdigit() or int(item[1:]) < 1:
                    raise PositionError(f"{where}: unexpected {item!r}")
                unknown += int(item[1:])
                cards.extend([UNKNOWN] * int(item[1:]))
                continue
            star = item.endswith("*")
            c = self.card(item.rstrip("*"), where)
            cards.append(c)
            if star:
                marked.add(c)
        self.unknown += unknown
        return cards, marked, unknown


def _int(text: str, where: str, lo: int, hi: int) -> int:
    if not text.isdigit() or not lo <= int(text) <= hi:
        raise PositionError(f"{where}: {text!r} is not a whole number from {lo} to {hi}")
    return int(text)


def parse_position(text: str) -> Game:
    """Read a position; raise ``PositionError`` naming the field that is wrong."""
    fields = text.split()
    names = _FIELDS.split()
    viewer = -1
    if len(fields) == len(names) + 1 and re.fullmatch(r"view:[01]", fields[-1]):
        viewer = int(fields.pop()[-1])
    if len(fields) != len(names):
        raise PositionError(
            f"a position has {len(names)} fields ({_FIELDS}, then view:SEAT for a view); "
            f"this one has {len(fields)}"
        )
    f = dict(zip(names, fields, strict=True))
    try:
        rules = Rules.parse(f["rules"])
    except ValueError as e:
        raise PositionError(f"rules: {e}") from None
    g = Game.empty(rules, viewer)
    r = _Reader(rules.joker)
    g.turn = _int(f["turn"], "turn", 1, 10**6)
    g.player = _int(f["player"], "player", 0, 1)
    g.passes = _int(f["passes"], "passes", 0, 3)

    deck, public, _ = r.cards(f["deck"], "deck", unknown_ok=viewer >= 0)
    g.deck = deck[::-1]
    g.deck_known = len(public)
    if deck[: len(public)] != [c for c in deck if c in public]:
        raise PositionError("deck: only cards on top of the draw pile can be known (*)")
    for s in (0, 1):
        hand, marked, unknown = r.cards(f[f"hand{s}"], f"hand{s}", unknown_ok=viewer == 1 - s)
        if viewer == 1 - s:
            marked = set(c for c in hand if c != UNKNOWN)  # the viewer knows what it lists
        if sorted(c for c in hand if c != UNKNOWN) != [c for c in hand if c != UNKNOWN]:
            raise PositionError(f"hand{s}: cards are listed in card order")
        g.hands[s] = [c for c in hand if c != UNKNOWN]
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
    if f["frozen"] != "-":
        for item in f["frozen"].split(","):
            m = re.fullmatch(r"(\w\w)@(\d+)", item)
            c = _FROZEN_CARDS.get(m[1].upper()) if m else None
            if m is None or c is None:
                raise PositionError(f"frozen: {item!r} is not CARD@TURN (a king, queen, 8 or jack)")
            # A 9 returned it in public: it is in a hand, known to both players.
            if not any(c in g.hands[s] and c in g.known[s] for s in (0, 1)):
                raise PositionError(f"frozen: {m[1]} is not a known card (*) in a hand")
            g.frozen[c] = int(m[2])
    _check_totals(g, r)
    return g


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
        if who not in ("0", "1", "draw") or reason not in _REASONS:
            raise PositionError(f"{where}: {text!r} is not over:0|1|draw:REASON")
        g.phase, g.outcome = OVER, Outcome(None if who == "draw" else int(who), reason)
        return
    if head == "seven":
        g.phase = SEVEN
        g.revealed, _, _ = r.cards(rest, where)
        if not 1 <= len(g.revealed) <= g.rules.seven_reveals:
            raise PositionError(f"{where}: a 7 reveals 1 to {g.rules.seven_reveals} card(s)")
        return
    phases = {"counter": COUNTER, "discard": DISCARD, "pick": PICK, "block": BLOCK}
    if head not in phases or not rest:
        raise PositionError(
            f"{where}: {text!r} is not one of main, main:offered, offer, counter:…, "
            "discard:…, pick:…, seven:…, block:…, over:…"
        )
    g.phase = phases[head]
    first, _, counters = rest.partition(":")
    card_text_, _, target = first.partition(">")
    g.chain = [r.card(card_text_, where)]
    if target:
        g.target = parse_card(target)  # a card on the table: placed by its own field
    rank = RANK[g.chain[0]]
    expected = {COUNTER: None, DISCARD: 4, PICK: 3, BLOCK: None}[g.phase]
    if expected and rank != expected:
        raise PositionError(f"{where}: {head} follows a {expected}, not {card_text_}")
    if counters:
        if g.phase != COUNTER:
            raise PositionError(f"{where}: only a counter chain lists counters")
        twos, _, _ = r.cards(counters, where)
        if any(RANK[c] != 2 for c in twos):
            raise PositionError(f"{where}: only 2s counter")
        g.chain.extend(twos)
    if g.phase == BLOCK and (not g.rules.ten_blocks or g.target not in g.points[1 - g.player]):
        raise PositionError(f"{where}: block needs ten-blocks-scuttle and a scuttle target")


def _check_totals(g: Game, r: _Reader) -> None:
    cards = ALL_CARDS_WITH_JOKER if g.rules.joker else ALL_CARDS
    if len(r.placed) + r.unknown != len(cards):
        missing = ",".join(card_text(c) for c in sorted(set(cards) - set(r.placed)))
        if g.viewer >= 0:
            raise PositionError(
                f"a view accounts for {len(cards)} cards; this one for {len(r.placed) + r.unknown}"
            )
        raise PositionError(f"a full position places every card once; missing: {missing}")
    if g.passes and g.deck:
        raise PositionError("passes: passing is only possible with an empty draw pile")
    t = g.target
    if t != NONE:
        on_table = (
            any(t in g.perms[s] for s in (0, 1))
            or any(jl[-1] == t for jl in g.jacks.values())
            or (g.phase == BLOCK and t in g.points[1 - g.player])
        )
        if not on_table:
            raise PositionError(f"phase: the target {card_text(t)} is not on the table")
