"""The position parser under fuzzing: any text either is a position or is refused.

A position that parses must round-trip through its text and every legal move must apply
to it; anything else gets a ``PositionError`` naming a field, never another exception.
"""

from __future__ import annotations

import random
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cuttle_net.games.cuttle.engine import OVER, Game
from cuttle_net.games.cuttle.moves import CONCEDE
from cuttle_net.games.cuttle.position import PositionError, format_position, parse_position
from cuttle_net.games.cuttle.rules import Rules
from tests.rules.test_properties import rule_sets

# Pieces of the notation, to splice into real positions.
_TOKENS = [
    "-", "?1", "?3", "?60", "?0", "*", ",", "/", ":", ">", "@", "view:0", "view:1", "view:2",
    "main", "main:offered", "offer", "over:0:goal", "over:draw:passes", "over:1:passes",
    "counter:4C", "counter:2C>KH", "counter:2C>KH:2D", "discard:4D", "pick:3C", "seven:7H",
    "seven:5H,6H", "block:9C>4H", "0", "1", "2", "3", "12", "999", "²", "٣", "7H", "7H*",
    "JK", "10h", "8D@999", "KS@2", "QC@1", "AC,AD", "KH/JC", "5H/JD/JS", "classic",
    "standard+joker", "classic+nine-frozen", "1" * 5000,
]  # fmt: skip


def random_position(rules: Rules, seed: int, plies: int) -> Game:
    rng = random.Random(seed)
    g = Game.deal(rules, seed=seed)
    for _ in range(plies):
        if g.phase == OVER:
            break
        g.push(rng.choice(g.legal_moves()))
    return g


@st.composite
def position_texts(draw: st.DrawFn) -> str:
    """A real position or view, then zero or more edits of its fields or characters."""
    g = random_position(draw(rule_sets()), draw(st.integers(0, 2**32)), draw(st.integers(0, 80)))
    seat = draw(st.sampled_from([None, 0, 1]))
    fields = format_position(g if seat is None else g.view(seat)).split()
    for _ in range(draw(st.integers(0, 3))):
        i = draw(st.integers(0, len(fields)))
        kind = draw(st.sampled_from(["replace", "insert", "delete", "char", "swap", "move"]))
        token = draw(st.sampled_from(_TOKENS) | st.text(max_size=6))
        if kind in ("swap", "move"):
            fields = _move_a_card(draw, fields, kind)
        elif kind == "insert" or not fields:
            fields.insert(i, token)
        elif kind == "delete":
            del fields[min(i, len(fields) - 1)]
        elif kind == "replace":
            fields[min(i, len(fields) - 1)] = token
        else:
            f = fields[min(i, len(fields) - 1)]
            at = draw(st.integers(0, len(f)))
            cut = draw(st.integers(0, 2))
            fields[min(i, len(fields) - 1)] = f[:at] + token[:2] + f[at + cut :]
    return " ".join(fields)


_CARD = re.compile(r"JK|[A2-9TJQK][CDHS]")
_WAITING = ["counter:{}", "discard:{}", "pick:{}", "seven:{}", "block:{}>{}", "counter:{}>{}"]


def _move_a_card(draw: st.DrawFn, fields: list[str], kind: str) -> list[str]:
    """Swap two cards of the text, or take one card to another field or into the phase:
    every card still appears once, but the fields may no longer agree."""
    text = " ".join(fields)
    spans = [m.span() for m in _CARD.finditer(text)]
    if len(spans) < 2:
        return fields
    (a0, a1), (b0, b1) = sorted(draw(st.lists(st.sampled_from(spans), min_size=2, max_size=2)))
    if kind == "swap":
        text = text[:a0] + text[b0:b1] + text[a1:b0] + text[a0:a1] + text[b1:]
        return text.split(" ")
    card = text[a0:a1]
    rest = (text[:a0] + text[a1:]).replace(",,", ",").replace(" ,", " ").replace(", ", " ")
    fields = [f or "-" for f in rest.split(" ")]
    fields = [f.rstrip(",").lstrip(",") or "-" for f in fields]
    if len(fields) < 5:
        return fields
    if draw(st.booleans()):
        fields[3] = draw(st.sampled_from(_WAITING)).format(card, text[b0:b1])
    else:
        j = draw(st.integers(0, len(fields) - 1))
        fields[j] = card if fields[j] == "-" else f"{fields[j]},{card}"
    return fields


def check_position_text(text: str) -> None:
    try:
        g = parse_position(text)
    except PositionError as e:
        assert str(e)
        return
    out = format_position(g)
    assert format_position(parse_position(out)) == out
    if g.is_over:
        assert g.legal_moves() == []
        return
    try:
        legal = g.legal_moves()
    except ValueError as e:  # a view cannot list the moves of a hand it cannot see
        assert g.viewer >= 0 and "cannot see" in str(e)
        return
    assert legal, out  # a position that is not over always has a move (SPEC 1.10(7))
    for m in [*legal, CONCEDE]:
        after = g.copy()
        by = g.player if m is CONCEDE else None  # with chance to act, a seat concedes
        after.apply(m, by=by, reveal=sorted(after.unseen())[: after.reveals_needed(m)])
        text_after = format_position(after)
        assert format_position(parse_position(text_after)) == text_after


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(position_texts())
def test_any_text_is_a_position_or_is_refused_with_a_message(text: str) -> None:
    check_position_text(text)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_arbitrary_text_never_crashes_the_parser(text: str) -> None:
    check_position_text(text)


@settings(max_examples=150, deadline=None)
@given(
    rules=rule_sets(),
    seed=st.integers(0, 2**32),
    plies=st.integers(0, 80),
    by=st.sampled_from([0, 1]),
)
def test_a_concession_at_any_moment_leaves_a_valid_position(
    rules: Rules, seed: int, plies: int, by: int
) -> None:
    g = random_position(rules, seed, plies)
    if g.is_over:
        return
    g.apply(CONCEDE, by=by)
    assert g.outcome == (1 - by, "concede")
    for game in (g, g.view(0), g.view(1)):
        text = format_position(game)
        assert format_position(parse_position(text)) == text
