"""The rules oracle's edges (issue 12): concessions, limits, exit statuses, impossible
positions. Each is checked where a user meets it: ``cuttle rules`` or ``parse_position``."""

from __future__ import annotations

import re
from subprocess import CompletedProcess
from typing import Any

import pytest
from cuttle_client.cuttle.commands import MAX_PERFT_DEPTH

from cuttle_net.games.cuttle.engine import OVER, Game
from cuttle_net.games.cuttle.moves import CONCEDE
from cuttle_net.games.cuttle.position import PositionError, format_position, parse_position
from tests.inprocess import run_cuttle
from tests.rules.build import cards, play, position, position_text


def cuttle(*args: str) -> CompletedProcess[str]:
    """``cuttle rules ARGS`` in this process (`cuttle rules` as a process: test_cli.py)."""
    return run_cuttle("rules", *args)


# --------------------------------------------------------------------- conceding


def test_conceding_while_a_one_off_waits_gives_a_position_the_oracle_accepts() -> None:
    start = format_position(position(hand0="2H,4C", hand1="5D"))
    conceded = cuttle("play", start, "oneoff 4C", "concede")
    assert conceded.returncode == 0, conceded.stderr
    text = conceded.stdout.strip()
    assert " over:0:concede " in text and text.split()[12] == "4C"  # the 4 went to the scrap
    again = cuttle("play", text)
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == text


def test_conceding_while_chance_acts_is_the_players_concession() -> None:
    g = play(position("classic+random-fours", hand0="4C", hand1="5D,6D"), "oneoff 4C", "decline")
    r = cuttle("play", format_position(g), "concede")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[3] == "over:1:concede" and r.stdout.split()[12] == "4C"


@pytest.mark.parametrize(
    ("rules", "setup", "moves", "waiting"),
    [
        ("classic", {"hand0": "2H,4C", "hand1": "2C,5D"}, ["oneoff 4C", "counter 2C"], "4C,2C"),
        ("classic", {"hand0": "4C", "hand1": "5D,6D"}, ["oneoff 4C", "decline"], "4C"),
        ("classic", {"hand0": "3C", "hand1": "5D", "scrap": "9H"}, ["oneoff 3C", "decline"], "3C"),
        ("standard", {"hand0": "7C", "hand1": "5D", "deck": "9S,9H"}, ["oneoff 7C", "decline"],
         "9S,9H"),
        ("classic+ten-blocks-scuttle", {"hand0": "9C", "hand1": "TD", "points1": "4H"},
         ["scuttle 9C 4H"], "9C"),
    ],
)  # fmt: skip
def test_a_concession_in_every_waiting_phase_scraps_the_waiting_cards(
    rules: str, setup: dict[str, str], moves: list[str], waiting: str
) -> None:
    for by in (0, 1):
        g = play(position(rules, **setup), *moves)
        assert g.phase != OVER
        g.apply(CONCEDE, by=by)
        assert g.outcome == (1 - by, "concede") and not g.chain and not g.revealed
        assert set(cards(waiting)) <= set(g.scrap)
        for game in (g, g.view(0), g.view(1)):
            text = format_position(game)
            assert format_position(parse_position(text)) == text


# ----------------------------------------------------------------- exit statuses


def test_a_malformed_move_is_bad_input_and_an_illegal_one_is_status_1() -> None:
    start = format_position(position(hand0="7D", points1="7H", hand1="2C"))
    for bad in ("fly away", "scuttle 7D", "points 7Z", ""):
        r = cuttle("play", start, bad)
        assert r.returncode == 2 and r.stdout == "", (bad, r.stderr)
        assert r.stderr.startswith(f"cuttle rules: move 1 ({bad}): ")
    illegal = cuttle("play", start, "draw", "points 7D")  # seat 1 holds no 7D
    assert illegal.returncode == 1 and "move 2 (points 7D)" in illegal.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("legal", "classic 1 0 main"),
        ("play", "start:x"),
        ("play", "start:-1"),
        ("perft", "start", "-1"),
        ("perft", "start", "two"),
        ("perft", "start", str(MAX_PERFT_DEPTH + 1)),
        ("perft", "start", "100"),
        ("random", "--seed", "-1"),
        ("random", "--seed", "1.5"),
        ("random", "--seed", str(2**64)),
        ("random", "--seed", "7", "--variant", "nine-frozen", "--variant", "nine-to-deck"),
        ("legal", "start", "--rules", "chess"),
    ],
)
def test_every_question_answers_bad_input_with_status_2(args: tuple[str, ...]) -> None:
    r = cuttle(*args)
    assert r.returncode == 2 and r.stdout == "", r
    assert "Traceback" not in r.stderr
    assert r.stderr.startswith("cuttle rules:") or (
        "cuttle rules" in r.stderr and "error" in r.stderr
    )


def test_perft_depth_limit_is_stated_and_reached() -> None:
    r = cuttle("perft", "start", "100")
    assert f"DEPTH is a whole number from 0 to {MAX_PERFT_DEPTH}, not '100'" in r.stderr
    over = format_position(play(position(hand0="4C", hand1="5D"), "concede"))
    r = cuttle("perft", over, str(MAX_PERFT_DEPTH))
    assert r.returncode == 0 and r.stdout.strip() == "0"


def test_perft_refuses_a_view() -> None:
    view = format_position(Game.deal(seed=1).view(0))
    r = cuttle("perft", view, "1")
    assert r.returncode == 2 and "not of a view" in r.stderr


def test_a_view_cannot_play_a_move_that_shows_it_a_card() -> None:
    view = format_position(Game.deal(seed=1).view(0))
    r = cuttle("play", view, "draw")
    assert r.returncode == 2 and "move 1 (draw): it shows the viewer a card" in r.stderr
    assert cuttle("play", view, "points AH").returncode == 0


def test_random_seeds_are_whole_numbers_from_zero() -> None:
    zero = cuttle("random", "--seed", "0")
    assert zero.returncode == 0 and zero.stdout.startswith("position classic ")
    negative = cuttle("random", "--seed", "-1")
    assert negative.returncode == 2 and "a seed is a whole number from 0 to" in negative.stderr


def test_rules_options_are_checked_against_the_position() -> None:
    classic = format_position(position(hand0="7D", hand1="2C"))
    refused = cuttle("legal", classic, "--rules", "standard")
    assert refused.returncode == 2 and refused.stdout == ""
    assert "--rules/--variant say standard, but the position is played under classic" in (
        refused.stderr
    )
    assert cuttle("legal", classic, "--variant", "joker").returncode == 2
    agreed = cuttle("legal", classic, "--rules", "classic")
    assert agreed.returncode == 0 and agreed.stdout.startswith("draw")


# ----------------------------------------------------------- impossible positions


def fields_of(**kw: Any) -> list[str]:
    return position_text(**kw).split()


def with_field(fields: list[str], i: int, value: str) -> str:
    """The position of ``fields`` with field ``i`` (0-based) replaced by ``value``."""
    return " ".join([*fields[:i], value, *fields[i + 1 :]])


T = position_text
STD = "standard"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # pick with nothing to pick: it listed no moves and refused a pass
        (
            T(hand0="5H", hand1="6D", phase="pick:3C"),
            "phase: a 3 waits for a pick, but the scrap is empty",
        ),
        # a freeze where no 9 freezes, one of 999 turns, one in the wrong hand
        (
            T(hand0="KH*", hand1="2C", turn=3, frozen="KH@3"),
            "frozen: nothing is frozen under classic",
        ),
        (
            T(STD, hand0="8D*", hand1="2C", frozen="8D@999"),
            "frozen: 8D@999: on turn 1 a freeze lasts through turn 1 to 2",
        ),
        (
            T(STD, hand0="2C", hand1="8D*", turn=3, frozen="8D@3"),
            "frozen: 8D@3: 8D is not a known card (*) in hand0",
        ),
        (T(STD, hand0="8D*", hand1="2C", turn=3, frozen="8D@3,8D@3"), "frozen: 8D is listed twice"),
        # endings that cannot be
        (T(hand0="5H", hand1="6D", phase="over:0:passes"), "phase: 'over:0:passes' is not"),
        (T(hand0="5H", hand1="6D", phase="over:draw:goal"), "phase: 'over:draw:goal' is not"),
        (
            T(hand0="5H", hand1="6D", phase="over:1:goal"),
            "phase: seat 1 has 0 points, short of its goal 21",
        ),
        (
            T(hand0="5H", hand1="6D", phase="over:draw:passes"),
            "passes: three passes, and only they",
        ),
        (
            T(hand0="5H", hand1="6D", points1="TS,TH,AC"),
            "points1: seat 1 has 21 points and its goal is 21",
        ),
        (
            T(STD, hand0="5H", hand1="6D", perms0="KC,KD,KH,KS"),
            "points0: seat 0 has 0 points and its goal is 0",
        ),
        # turns, passes, marks, glasses
        (T(hand0="5H", hand1="6D", turn=2), "player: seat 1 plays turn 2"),
        (T(hand0="5H", hand1="6D", passes=1, deck="-", rest_to="scrap"), None),
        (
            T(hand0="5H", hand1="6D", passes=1),
            "passes: passing is only possible with an empty draw pile",
        ),
        (
            T(hand0="5H", hand1="6D", passes=1, rest_to="scrap", phase="counter:AC", points1="9C"),
            "passes: 1 passes, but a card was played since",
        ),
        (
            T(hand0="5H", hand1="6D", scrap="AS*,AC"),
            "scrap: 'AS*': only the deck and hands mark cards",
        ),
        (
            T(hand0="5H", hand1="6D", perms1="8C"),
            "hand0: seat 1 wears glasses, so every card of hand0 is known",
        ),
        # waiting cards that could not be waiting
        (
            T(hand0="2H", hand1="6D", perms0="QS", perms1="KH", phase="counter:2C>KH"),
            "phase: nobody can counter here (a queen of seat 0",
        ),
        (
            T(hand0="2H", hand1="6D", perms0="KH", perms1="QD", phase="counter:2C>KH:2D"),
            "phase: nobody can counter here (a queen of seat 1",
        ),
        (
            T(hand0="5H", hand1="6D", perms1="QH,KH", phase="counter:2C>KH"),
            "phase: 2C needs a target that seat 0 may hit",
        ),
        (T(hand0="5H", hand1="6D", phase="counter:KC"), "phase: KC is not a one-off under classic"),
        (T(hand0="5H", hand1="6D", phase="counter:8C"), "phase: 8C is not a one-off under classic"),
        (T(hand0="5H", hand1="6D", phase="counter:4C>5H"), "phase: 4C takes no target"),
        (T(hand0="5H", hand1="6D", phase="counter:4C>ZZ"), "phase: the target: 'ZZ' is not a card"),
        (T(hand0="5H", hand1="6D", phase="counter:4C>"), "phase: the target: '' is not a card"),
        (
            T(hand0="5H", hand1="6D", phase="counter:AC"),
            "phase: AC could not have been played here",
        ),
        (
            T(hand0="5H", hand1="6D", phase="counter:3C"),
            "phase: 3C could not have been played here",
        ),
        (T(hand0="5H", hand1="6D", phase="counter:4C:5C"), "phase: only 2s counter"),
        (
            T(hand0="5H", hand1="6D", phase="discard:4C:2C"),
            "phase: only a counter chain lists counters",
        ),
        (T(hand0="5H", hand1="6D", phase="discard:5C"), "phase: discard follows a 4"),
        (T(hand0="5H", phase="discard:4C"), "phase: a 4 waits for discards, but hand1 is empty"),
        (
            T(hand0="5H", hand1="6D", scrap="AS", phase="seven:9C"),
            "scrap: while a 7's cards wait, that 7 is on top",
        ),
        (
            T(STD, hand0="5H", hand1="6D", scrap="7S", phase="seven:9C"),
            "phase: a 7 reveals 2 cards while the draw pile has them",
        ),
        (
            T(hand0="5H", hand1="6D", scrap="7S", phase="seven:9C*"),
            "phase: '9C*': only the deck and hands",
        ),
        (
            T(hand0="5H", hand1="6D", points1="4H", phase="block:9C>4H"),
            "phase: block needs the variant ten-blocks-scuttle",
        ),
        (
            T(
                "classic+ten-blocks-scuttle",
                hand0="5H",
                hand1="6D",
                points1="9H",
                phase="block:9C>9H",
            ),
            "phase: block:C>T needs a point card C that scuttles T",
        ),
        # numbers
        (with_field(fields_of(hand0="5H", hand1="6D"), 1, "1" * 5000), "turn: '111"),
        (with_field(fields_of(hand0="5H", hand1="6D"), 1, "²"), "turn: '²' is not a whole number"),
        (
            format_position(Game.deal(seed=1).view(0)).replace("?41", "?99999999"),
            "deck: unexpected '?99999999'",
        ),
        (
            format_position(Game.deal(seed=1).view(0)).replace("?41", "?40,TC"),
            "deck: a view names only the known top cards",
        ),
    ],
)
def test_impossible_positions_are_refused_naming_the_field(text: str, message: str | None) -> None:
    if message is None:  # the same position made possible: the check is not too wide
        assert format_position(parse_position(text)) == text
        return
    with pytest.raises(PositionError, match=re.escape(message)):
        parse_position(text)


def test_the_oracle_refuses_impossible_positions_with_status_2() -> None:
    for text, field in [
        (T(hand0="5H", hand1="6D", phase="pick:3C"), "phase"),
        (T(hand0="KH*", hand1="2C", turn=3, frozen="KH@3"), "frozen"),
        (T(STD, hand0="8D*", hand1="2C", frozen="8D@999"), "frozen"),
    ]:
        for question in (("legal", text), ("play", text, "pass"), ("perft", text, "1")):
            r = cuttle(*question)
            assert r.returncode == 2 and r.stdout == "", r
            assert r.stderr.startswith(f"cuttle rules: {field}: "), r.stderr


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["x"], "field 15: 'x' is not view:0 or view:1"),
        (["view:0", "x"], "field 16: 'x' is one field too many"),
        (["view:2"], "field 15: 'view:2' is not view:0 or view:1"),
    ],
)
def test_an_extra_field_is_named(extra: list[str], message: str) -> None:
    fields = fields_of(hand0="5H", hand1="6D")
    with pytest.raises(PositionError, match=message):
        parse_position(" ".join([*fields, *extra]))


def test_a_missing_field_is_named() -> None:
    fields = fields_of(hand0="5H", hand1="6D")
    with pytest.raises(PositionError, match=r"frozen \(field 14\) is missing"):
        parse_position(" ".join(fields[:13]))
