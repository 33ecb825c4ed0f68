"""The text notation of L'Unisson (SPEC part 6): cards, moves, positions and their errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from cuttle_net.games.unisson import (
    MoveSyntaxError,
    PositionError,
    face_display,
    face_text,
    parse_face,
    parse_move,
    parse_position,
    position_text,
    result_text,
)
from cuttle_net.games.unisson.moves import DISCARD, EXTEND, MELD, TAKE

START = (
    "unisson 4 1 3 1 0 0 main 0 - "
    "JH,QH,KH,AH,7S,8S,9S,TS,JS,QS,KS,AS 7H,8H,9H,TH "
    "7C,8C,9C,TC JC,QC,KC,AC 7D,8D,9D,TD JD,QD,KD,AD"
)


def test_faces_are_written_rank_then_suit_and_read_leniently() -> None:
    assert [face_text(f) for f in (0, 3, 7, 31)] == ["7C", "TC", "AC", "AS"]
    assert parse_face("10h") == parse_face("TH") == parse_face("10♥") == 19
    assert face_display(19) == "10♥" and face_display(19, ascii=True) == "TH"
    for bad in ("6H", "1H", "XX", "", "AHH"):
        with pytest.raises(ValueError, match="not a card"):
            parse_face(bad)


def test_every_move_reads_back_from_its_text() -> None:
    moves = [*TAKE, *DISCARD, *MELD.values(), *(m for row in EXTEND[1:] for m in row)]
    for m in moves:
        assert parse_move(str(m)) is m
    for text in ("draw", "pass", "stop"):
        assert str(parse_move(text)) == text
    assert str(parse_move("MELD 9h jh 10H")) == "meld 9H TH JH"
    assert str(parse_move("extend 2 10H")) == "extend 2 TH"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty move"),
        ("jump", "unknown move"),
        ("draw 9H", "names no card"),
        ("take", "takes one card"),
        ("discard 9H TH", "takes one card"),
        ("take 6H", "not a card"),
        ("meld 9H TH", "three cards or more"),
        ("meld 9H TH TH", "each card once"),
        ("meld 9H TH QH", "not a sequence"),
        ("meld 9H TH JS", "not a sequence"),
        ("extend 9H", "a sequence number and a card"),
        ("extend x 9H", "not a sequence number"),
        ("extend 0 9H", "not a sequence number"),
        ("extend ٣ 9H", "not a sequence number"),
        ("extend " + "9" * 5000 + " 9H", "not a sequence number"),
    ],
)
def test_a_malformed_move_says_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(MoveSyntaxError, match=message):
        parse_move(text)


def test_a_position_reads_back_to_the_same_text() -> None:
    g = parse_position(START)
    assert position_text(g) == START
    assert g.to_act == 0 and g.stock_size == 12
    assert position_text(parse_position(position_text(g.view(2)))) == position_text(g.view(2))


def _replace(field: int, value: str) -> str:
    words = START.split()
    words[field - 1] = value
    return " ".join(words)


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("cuttle 4 1", "game"),
        (_replace(2, "7"), "players"),
        (_replace(3, "2"), "position"),  # two decks hold 64 cards
        ("unisson 5 1 " + " ".join(START.split()[3:]), "decks"),
        (_replace(4, "4"), "dealer"),
        (_replace(5, "0"), "turn"),
        (_replace(6, "2"), "player"),
        (_replace(7, "3"), "actions"),
        (_replace(7, "2"), "actions"),  # a turn ends after two actions
        (_replace(8, "draw:0"), "phase"),
        (_replace(8, "discard:1:2"), "actions"),  # an effect follows an action
        (_replace(8, "over:won"), "phase"),
        (_replace(9, "4"), "idle"),
        (_replace(9, "٣"), "idle"),
        (_replace(5, "9" * 5000), "turn"),
        (_replace(10, "0"), "last"),
        (_replace(11, "JH,QH"), "position"),  # cards missing
        (_replace(11, "?12"), "stock"),  # ?N only in a view
        (_replace(12, "7H,8H,9H,TH,7C"), "position"),  # a card twice
        (_replace(13, "7C,8C,9C,ZZ"), "seat0"),
        (_replace(13, "-/7C-8C"), "seat0"),
        (_replace(13, "7C,8C,9C,TC/9C-7C"), "seat0"),
        (_replace(13, "7C,8C,9C,TC,?2"), "seat0"),
        (START + " view:9", "view"),
        (START + " look:1", "view"),
        (START + " x y", "position"),
    ],
)
def test_an_impossible_position_names_the_field_at_fault(text: str, field: str) -> None:
    with pytest.raises(PositionError) as err:
        parse_position(text)
    assert str(err.value).startswith(field + ":"), str(err.value)


def test_a_melded_octave_is_only_in_a_game_it_ended() -> None:
    words = START.split()
    words[10] = "JH,QH,KH,AH,7C,8C,9C,TC"  # the spades move from the stock to seat 0
    words[12] = "-/7S-AS"
    with pytest.raises(PositionError, match="seat0: an octave melded ends the game"):
        parse_position(" ".join(words))
    words[7] = "over:octave:0"
    with pytest.raises(PositionError, match="an action of its own turn"):
        parse_position(" ".join(words))  # melding is an action: `actions` is at least 1
    words[6] = "1"
    g = parse_position(" ".join(words))
    assert g.is_over and g.winners() == (0,)
    # 8×2 + 10 (empty hand) + 4 (the range's quarte); the others' quartes in hand cost 4
    assert result_text(g) == ("seat 0 melded an octave; won by seat(s) 0; totals 0:30 1:0 2:0 3:0")


def test_a_view_lists_only_the_public_cards_of_other_hands() -> None:
    words = position_text(parse_position(START).view(1)).split()
    words[12] = "7C*,?3"  # a card all saw seat 0 take: a view may list it
    assert parse_position(" ".join(words)).public_hand(0) == [0]
    words[12] = "7C,?3"  # unmarked: no view could know it
    with pytest.raises(PositionError, match="seat0: a view lists only"):
        parse_position(" ".join(words))


def test_the_spec_example_position_its_moves_and_its_view() -> None:
    spec = (Path(__file__).parents[2] / "SPEC.md").read_text()
    part = spec[spec.index("# Part 6") :]
    lines = [line.strip() for line in part.splitlines() if line.startswith("    unisson ")]
    full, view = lines[:2]
    g = parse_position(full)
    assert position_text(g) == full
    assert [str(m) for m in g.legal_moves()] == [
        "discard 9C",
        "discard JC",
        "discard JD",
        "discard 7S",
    ]
    assert position_text(g.view(1)) == view
