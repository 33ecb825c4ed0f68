"""L'Unisson: a cooperative rummy for 3 to 6 players (rules: SPEC part 6).

The package is pure: no I/O, no trio, no textual.  ``Game`` is the rules engine (full
information or one seat's view), ``Move`` and ``parse_move`` the move notation,
``position_text`` / ``parse_position`` the one-line positions, ``Score`` the scoring.
"""

from __future__ import annotations

from .cards import (
    ALL_FACES,
    FACES,
    face,
    face_display,
    face_of,
    face_text,
    parse_face,
)
from .engine import (
    NOBODY,
    SPECTATOR,
    Effect,
    Game,
    IllegalMove,
    Outcome,
    RevealError,
    check_table,
    next_dealer,
)
from .motions import UNKNOWN, Drawn, HandOut, Motion, Taken, Turned
from .moves import DRAW, PASS, STOP, Kind, Move, MoveSyntaxError, parse_move
from .position import PositionError, parse_position, phase_text, position_text
from .scoring import Score, match_totals, sequences_in

NAME = "unisson"


def result_text(g: Game) -> str:
    """One line saying how a finished game ended, who won and every seat's total."""
    if g.outcome is None:
        raise ValueError("the game is not over")
    totals = " ".join(f"{s}:{sc.total}" for s, sc in enumerate(g.scores()))
    won = ",".join(str(s) for s in g.winners())
    return f"{g.outcome}; won by seat(s) {won}; totals {totals}"


__all__ = [
    "ALL_FACES",
    "DRAW",
    "FACES",
    "NAME",
    "NOBODY",
    "PASS",
    "SPECTATOR",
    "STOP",
    "UNKNOWN",
    "Drawn",
    "Effect",
    "Game",
    "HandOut",
    "IllegalMove",
    "Kind",
    "Motion",
    "Move",
    "MoveSyntaxError",
    "Outcome",
    "PositionError",
    "RevealError",
    "Score",
    "Taken",
    "Turned",
    "check_table",
    "face",
    "face_display",
    "face_of",
    "face_text",
    "match_totals",
    "next_dealer",
    "parse_face",
    "parse_move",
    "parse_position",
    "phase_text",
    "position_text",
    "result_text",
    "sequences_in",
]
