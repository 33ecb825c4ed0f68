"""The choice tree and the question asked, for every kind of decision (no UI needed)."""

from __future__ import annotations

from cuttle_client.cuttle.choices import Choice, ask, choices

from cuttle_net.games.cuttle.engine import Game
from tests.rules.build import play, position

NAMES = ("Ann", "Bob")


def leaves(tree: list[Choice]) -> set[str]:
    out: set[str] = set()
    for ch in tree:
        if ch.move is not None:
            out.add(str(ch.move))
        out |= leaves(list(ch.children))
    return out


def check(g: Game, seat: int = 0) -> list[Choice]:
    """Every legal move is exactly one leaf of the tree."""
    tree = choices(g, seat, NAMES, ascii=True)
    assert leaves(tree) == {str(m) for m in g.legal_moves()}
    return tree


def test_main_turn_card_then_use_then_target() -> None:
    g = position(hand0="9H,KD", points1="4C,7C", hand1="2C", perms1="QS")
    tree = check(g)
    assert [ch.label for ch in tree] == [
        "draw a card",
        "9H  points, scuttle, one-off",
        "KD  permanent",
    ]
    scuttle = tree[1].children[1]
    assert scuttle.label == "scuttle…"
    assert [t.label for t in scuttle.children] == [
        "scuttle Bob's 4C with 9H",
        "scuttle Bob's 7C with 9H",
    ]
    assert ask(g, 0, NAMES, ascii=True) == "Your turn: choose a card (1-9, Enter) or draw (d)"


def test_an_unplayable_card_is_shown_with_why() -> None:
    g = position("standard", turn=3, hand0="KH*,JC", hand1="2C", frozen="KH@3")
    tree = check(g)
    assert [ch.label for ch in tree if not ch.enabled] == [
        "JC  (no legal play now)",
        "KH  (frozen this turn)",
    ]


def test_counter_and_block_prompts() -> None:
    g = play(position(hand0="4D", hand1="2C,5S"), "oneoff 4D")
    assert [ch.label for ch in check(g, 1)] == ["let 4D take effect", "counter 4D with 2C"]
    assert ask(g, 1, NAMES, True) == "Counter 4D with a 2, or let it happen"
    g = play(
        position("classic+ten-blocks-scuttle", hand0="9S", points1="7H", hand1="TC"),
        "scuttle 9S 7H",
    )
    check(g, 1)
    assert ask(g, 1, NAMES, True) == "Block Ann's scuttle of your 7H with a 10?"


def test_discard_two_cards_in_two_steps() -> None:
    g = play(position(hand0="4D", hand1="3C,5S,KH"), "oneoff 4D", "decline")
    tree = check(g, 1)
    assert [ch.label for ch in tree] == ["discard 3C and…", "discard 5S and…", "discard KH and…"]
    assert ask(g, 1, NAMES, True) == "Ann's 4: choose 2 cards to discard"


def test_seven_pick_and_offer() -> None:
    g = play(position(hand0="7D", deck="9C", hand1="2C"), "oneoff 7D", "decline")
    assert [ch.label for ch in check(g)] == ["9C  points"]
    assert ask(g, 0, NAMES, True) == "Your 7 revealed 9C: play it now"
    g = play(position(hand0="3D", scrap="AS,KC", hand1="2C"), "oneoff 3D", "decline")
    assert [ch.label for ch in check(g)] == ["take AS from the scrap", "take KC from the scrap"]
    g = play(position(hand0="3D", hand1="2C"), "offer-draw")
    assert [ch.label for ch in check(g, 1)] == ["accept the draw", "refuse the draw"]


def test_the_seven_says_how_many_cards_it_reveals() -> None:
    for rules, words in (("standard", "reveal the top two cards"), ("classic", "the top card")):
        g = position(rules, hand0="7C", hand1="2C")
        seven = check(g)[1]
        labels = [ch.label for ch in seven.children]
        assert any(words in label for label in labels), labels
