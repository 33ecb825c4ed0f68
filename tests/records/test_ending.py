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
    ("ending", "winners", "seats", "result"),
    [
        (Ending("goal"), (1,), 2, "1"),
        (Ending("passes"), (), 2, "draw"),
        (Ending("agreed"), (), 2, "draw"),
        (Ending("concede"), (0,), 2, "0"),
        (fault_ending("timeout", 1, "no move in time"), None, 2, "0"),
        (fault_ending("bad_shuffle_proof", 0, "shuffle by seat 0: bad"), None, 2, "1"),
        (closed_ending(1, "cheat-detected", 'bad_shuffle_proof: "you" cheated'), None, 2, "0"),
        (unfinished_ending("the program was stopped"), None, 2, "*"),
        # At a table of more: a forfeit gives every other seat the win, shared.
        (Ending("last-round"), (3, 1), 4, "1,3"),
        (Ending("concede"), (0, 2), 3, "0,2"),
        (fault_ending("timeout", 4, "no move in time"), None, 6, "0,1,2,3,5"),
        (closed_ending(0, "peer-quit", ""), None, 3, "1,2"),
    ],
)
def test_every_form_reads_back_and_implies_its_result(ending, winners, seats, result) -> None:
    assert parse_ending(str(ending)) == ending
    assert ending.result(winners, seats) == result


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
        "fault timeout by seat 12: late",
        "fault",
        "goal-",
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
