"""The Ending grammar (SPEC.md §5.2.1): every form reads back as written; nothing else reads."""

from __future__ import annotations

import pytest

from cuttle_net.records.ending import (
    MAX_TEXT,
    Ending,
    EndingError,
    closed_ending,
    fault_ending,
    parse_ending,
    unfinished_ending,
)


@pytest.mark.parametrize(
    ("ending", "winner", "result"),
    [
        (Ending("goal"), 1, "1"),
        (Ending("passes"), None, "draw"),
        (Ending("agreed"), None, "draw"),
        (Ending("concede"), 0, "0"),
        (fault_ending("timeout", 1, "no move in time"), None, "0"),
        (fault_ending("bad_shuffle_proof", 0, "shuffle by seat 0: bad"), None, "1"),
        (closed_ending(1, "cheat-detected", 'bad_shuffle_proof: "you" cheated'), None, "0"),
        (unfinished_ending("the program was stopped"), None, "*"),
    ],
)
def test_every_form_reads_back_and_implies_its_result(ending, winner, result) -> None:
    assert parse_ending(str(ending)) == ending
    assert ending.result(winner) == result


def test_a_peers_words_are_quoted_cleaned_and_bounded() -> None:
    e = closed_ending(1, "Cheat-Detected!", "you\ncheated\x1b[31m  " + "x" * 500)
    assert e.code == "cheat-detected" and "\n" not in e.text and "\x1b" not in e.text
    assert len(e.text) == MAX_TEXT and "  " not in e.text
    assert str(e).startswith('closed by seat 1: cheat-detected "you cheated [31m x')
    assert parse_ending(str(e)) == e


@pytest.mark.parametrize(
    "text",
    [
        "",
        "Goal",
        "goal ",
        "disconnected: reset",
        "fault timeout by seat 2: late",
        "fault timeout by seat -1: late",
        "fault Timeout by seat 1: late",
        "fault timeout by seat 1:late",
        "fault timeout by seat 1: two  spaces",
        "fault timeout by seat 1: a\ttab",
        "closed by seat 0: peer-quit bye",
        'closed by seat 0: peer-quit "bye',
        "unfinished",
        "unfinished: " + "x" * (MAX_TEXT + 1),
    ],
)
def test_anything_else_is_not_an_ending(text: str) -> None:
    with pytest.raises(EndingError):
        parse_ending(text)
