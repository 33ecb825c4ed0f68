"""Build positions for scenario tests from only the cards that matter.

Cards not named anywhere fill the bottom of the draw pile in card order, so every
position is a complete, valid full-information position.
"""

from __future__ import annotations

import contextlib
from typing import Any

from cuttle_net.games.cuttle.cards import ALL_CARDS, JOKER, card_text, parse_card
from cuttle_net.games.cuttle.engine import Game
from cuttle_net.games.cuttle.position import format_position, parse_position
from cuttle_net.games.cuttle.rules import Rules


def _names(text: str) -> list[str]:
    return [t for t in text.replace(",", " ").replace("/", " ").split() if t != "-"]


def position(rules: str = "classic", **fields: Any) -> Game:
    """A full position (see ``position_text``), checked and parsed."""
    text = position_text(rules, **fields)
    g = parse_position(text)
    assert format_position(g) == text, (text, format_position(g))
    return g


def position_text(
    rules: str = "classic",
    *,
    turn: int = 1,
    player: int = 0,
    phase: str = "main",
    passes: int = 0,
    deck: str = "",
    hand0: str = "",
    hand1: str = "",
    points0: str = "",
    points1: str = "",
    perms0: str = "",
    perms1: str = "",
    scrap: str = "",
    frozen: str = "-",
    rest_to: str = "deck",
) -> str:
    """The text of a full position; ``deck`` lists its top cards (``*`` marks known ones).

    Unnamed cards go under the draw pile, or under the scrap with ``rest_to="scrap"``.
    """
    parsed = Rules.parse(rules)
    used = set()
    zones = [deck, hand0, hand1, points0, points1, perms0, perms1, scrap]
    phase_cards = phase.partition(":")[2].replace(">", " ").replace(":", " ")
    for text in [*zones, phase_cards]:
        for name in _names(text):
            with contextlib.suppress(ValueError):  # phase words such as "goal"
                used.add(parse_card(name.rstrip("*")))
    rest = [c for c in (*ALL_CARDS, *([JOKER] if parsed.joker else [])) if c not in used]
    rest_text = [card_text(c) for c in rest]
    deck_cards = _names(deck) + (rest_text if rest_to == "deck" else [])
    if rest_to == "scrap":
        scrap = ",".join(_names(scrap) + rest_text)

    def zone(text: str, sort: bool = False) -> str:
        items = [t.strip() for t in text.split(",") if t.strip()] if text else []
        if sort:
            items.sort(key=lambda t: parse_card(t.rstrip("*").split("/")[0]))
        return ",".join(items) or "-"

    text = " ".join(
        [
            parsed.name,
            str(turn),
            str(player),
            phase,
            str(passes),
            ",".join(deck_cards) or "-",
            zone(hand0, True),
            zone(hand1, True),
            zone(points0, True),
            zone(points1, True),
            zone(perms0, True),
            zone(perms1, True),
            zone(scrap),
            frozen,
        ]
    )
    return text


def moves(g: Game) -> set[str]:
    return {str(m) for m in g.legal_moves()}


def play(g: Game, *texts: str) -> Game:
    for t in texts:
        g.apply(t)
    return g


def cards(text: str) -> list[int]:
    return sorted(parse_card(t) for t in _names(text))
