"""The positions quoted in SPEC.md parse, round-trip and have the moves it says."""

from __future__ import annotations

import re
from pathlib import Path

from cuttle_net.games.cuttle.position import format_position, parse_position

SPEC = (Path(__file__).resolve().parents[2] / "SPEC.md").read_text()
POSITIONS = re.findall(r"^    ((?:classic|standard)\S* \d+ .*)$", SPEC, re.MULTILINE)


def test_spec_quotes_positions() -> None:
    assert len(POSITIONS) >= 2


def test_every_quoted_position_round_trips() -> None:
    for text in POSITIONS:
        assert format_position(parse_position(text)) == text


def test_the_quoted_legal_moves_are_the_engine_s() -> None:
    listed = re.search(r"Its legal moves: (.*?) \(", SPEC, re.DOTALL)
    assert listed
    quoted = re.findall(r"`([^`]+)`", listed[1])
    assert quoted == [str(m) for m in parse_position(POSITIONS[0]).legal_moves()]
