"""The text notation: cards, moves and positions, and their errors."""

from __future__ import annotations

import pytest

from cuttle_net.games.cuttle.cards import JOKER, card, card_display, card_text, parse_card
from cuttle_net.games.cuttle.moves import TABLE, Kind, MoveSyntaxError, move, parse_move
from cuttle_net.games.cuttle.position import PositionError, format_position, parse_position
from tests.rules.build import position


def test_card_text_and_display() -> None:
    assert card_text(card(7, 2)) == "7H" and card_display(card(7, 2)) == "7♥"
    assert card_text(card(10, 3)) == "TS" and card_display(card(10, 3), ascii=True) == "TS"
    assert card_text(JOKER) == "JK"
    for c in range(53):
        assert parse_card(card_text(c)) == c
        assert parse_card(card_display(c)) == c
    assert parse_card("10h") == parse_card("th") == card(10, 2)


@pytest.mark.parametrize("bad", ["", "1H", "7X", "ZZ", "7HH", "KJ"])
def test_bad_card_names_say_what_a_card_is(bad: str) -> None:
    with pytest.raises(ValueError, match="is not a card"):
        parse_card(bad)


def test_every_move_round_trips_through_text() -> None:
    seen = 0
    for kind_rows in TABLE:
        for row in kind_rows:
            for m in row:
                if m is None or m.card == m.target:
                    continue  # slots no move can fill
                if m.kind == Kind.DISCARD and m.target != -1 and m.card > m.target:
                    continue  # a discard names a set: one canonical order
                assert parse_move(str(m)) is m
                seen += 1
    assert seen > 5000


def test_moves_are_interned_values() -> None:
    assert parse_move("scuttle 9h 4c") is move(Kind.SCUTTLE, parse_card("9H"), parse_card("4C"))
    assert str(parse_move("  discard 9H   4C ")) == "discard 4C 9H"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty move"),
        ("fly 7H", "unknown move 'fly'"),
        ("scuttle 7H", "takes 2 card"),
        ("draw 7H", "takes 0 card"),
        ("points 7Z", "is not a card"),
        ("discard 7H 7H", "the same card twice"),
    ],
)
def test_move_syntax_errors(text: str, message: str) -> None:
    with pytest.raises(MoveSyntaxError, match=message):
        parse_move(text)


def test_a_full_position_round_trips_with_every_field_in_use() -> None:
    g = position(
        "standard+ten-blocks-scuttle",
        turn=12,
        player=1,
        phase="counter:2C>KH:2D",
        deck="5H*",
        hand0="3D*,9S",
        hand1="TH*,KS*",
        points0="7C/JD/JS",
        points1="4H",
        perms0="8S,KH",
        perms1="QD",
        scrap="AS,AC",
        frozen="KS@12",
    )
    text = format_position(g)
    assert format_position(parse_position(text)) == text
    assert g.to_act == 1 and g.deck_known == 1 and g.frozen
    view = g.view(0)
    view_text = format_position(view)
    assert view_text.endswith("view:0") and "?" in view_text
    assert format_position(parse_position(view_text)) == view_text


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda f: f[:5], "has 14 fields"),
        (lambda f: ["chess", *f[1:]], "unknown rule set"),
        (lambda f: [f[0] + "+fast", *f[1:]], "unknown variant"),
        (lambda f: [*f[:1], "0", *f[2:]], "turn"),
        (lambda f: [*f[:3], "dance", *f[4:]], "phase"),
        (lambda f: [*f[:5], "7H,7H", *f[6:]], "also in"),
        (lambda f: [*f[:5], "?41", *f[6:]], "deck: unexpected"),
        (lambda f: [*f[:7], "-", "KS", *f[9:]], "not a point card"),
        (lambda f: [*f[:4], "1", *f[5:]], "passing is only possible"),
        (lambda f: [*f[:13], "QQ@3"], "frozen"),
    ],
)
def test_bad_positions_name_the_field(mutate, message: str) -> None:
    fields = format_position(position(hand0="3D", hand1="KS")).split()
    with pytest.raises(PositionError, match=message):
        parse_position(" ".join(mutate(fields)))


def test_a_position_missing_cards_is_refused() -> None:
    fields = format_position(position(hand0="3D", hand1="4C")).split()
    fields[6] = "-"  # 3D vanishes
    with pytest.raises(PositionError, match="missing: 3D"):
        parse_position(" ".join(fields))
