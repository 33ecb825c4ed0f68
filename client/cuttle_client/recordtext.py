"""A record's verdict and its JSON, in the same words for ``cuttle verify``/``export`` and
for the lobby's list of games played (no Textual here: the commands start fast)."""

from __future__ import annotations

from typing import Any

from cuttle_net.records.record import GameRecord
from cuttle_net.records.verify import Report, Verdict


def verdict_words(report: Report) -> str:
    """``cuttle verify``'s last line: the verdict in words."""
    return {
        Verdict.VALID: "valid: every check holds"
        + (" (a practice game: see above what it cannot prove)" if report.practice else ""),
        Verdict.INVALID: f"INVALID: {report.problem}",
        Verdict.UNREADABLE: f"not a game record: {report.problem}",
        Verdict.UNAUDITED: f"valid as far as it goes: {report.problem}",
    }[report.verdict]


def as_json(record: GameRecord) -> dict[str, Any]:
    """``cuttle export``: the record's tags, moves with what each seat saw, and transcript."""
    seats = int(record.tags.get("Players", "2"))
    return {
        "tags": record.tags,
        "moves": [
            {
                "seat": seat,
                "move": text,
                "seen": {str(s): list(seen[s]) if s < len(seen) else [] for s in range(seats)},
            }
            for seat, text, seen in record.moves
        ],
        "transcript": [
            {"kind": e.kind, "seat": e.seat, "text": e.text, "signature": e.signature.hex()}
            if e.kind == "move"
            else {"kind": e.kind, "data": _plain(e.data)}
            for e in record.transcript
        ],
    }


def _plain(value: Any) -> Any:
    """msgpack data as JSON: bytes become hex strings."""
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value
