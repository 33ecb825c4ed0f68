"""``cuttle verify``, ``cuttle export`` and ``cuttle replay``: game records."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cuttle_client.cli_play import add_display_options

COMMANDS = ("verify", "export", "replay")


def add_parser(sub: argparse._SubParsersAction) -> None:
    verify = sub.add_parser(
        "verify",
        help="check a game record: signatures, the deal, every reveal and move",
        description="Re-check a game record (Cuttle or L'Unisson) without trusting any "
        "player. Exit status: 0 "
        "valid; 1 a check failed; 2 not a readable record; 3 valid as far as it goes, but the "
        "game was not audited.",
    )
    verify.add_argument("file", type=Path, metavar="FILE")
    replay = sub.add_parser(
        "replay",
        help="step through a verified game in the terminal",
        description="Step through a game record of Cuttle or L'Unisson (keys: → next, "
        "← back, g go to a move, q quit). The record is verified first, as by cuttle verify. "
        "An audited game shows every card; a game that was never audited shows the cards "
        "its players revealed.",
    )
    replay.add_argument("file", type=Path, metavar="FILE")
    # also before it: cuttle --ascii replay
    add_display_options(replay, argparse.SUPPRESS, bell=False)
    export = sub.add_parser(
        "export",
        help="write a game record as JSON",
        description="Write a game record (Cuttle or L'Unisson) to standard output as JSON: "
        "its tags, its moves with what each seat saw, and its signed transcript.",
    )
    export.add_argument("file", type=Path, metavar="FILE")
    # JSON is the only format: --json is accepted for the scripts that say it, and not
    # offered as a choice it is not.
    export.add_argument("--json", action="store_true", help=argparse.SUPPRESS)


def _read(path: Path) -> str | None:
    from cuttle_net.records.record import MAX_RECORD_BYTES

    try:
        data = path.read_bytes()
    except OSError as e:
        print(f"cuttle: cannot read {path}: {e.strerror or e}", file=sys.stderr)
        return None
    if len(data) > MAX_RECORD_BYTES:
        print(
            f"cuttle: {path} is not a game record: over {MAX_RECORD_BYTES} bytes", file=sys.stderr
        )
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        print(
            f"cuttle: {path} is not a game record: not UTF-8 text (byte {e.start})",
            file=sys.stderr,
        )
        return None


def run(args: argparse.Namespace) -> int:
    from cuttle_net.records.record import RecordError, parse_record
    from cuttle_net.records.verify import Verdict, verify_text

    text = _read(args.file)
    if text is None:
        return 2
    if args.command == "replay":
        return _replay(text, args.ascii)
    if args.command == "verify":
        report = verify_text(text)
        for line in report.lines:
            print(f"  {line}")
        verdict = {
            Verdict.VALID: "valid: every check holds"
            + (" (a practice game: see above what it cannot prove)" if report.practice else ""),
            Verdict.INVALID: f"INVALID: {report.problem}",
            Verdict.UNREADABLE: f"not a game record: {report.problem}",
            Verdict.UNAUDITED: f"valid as far as it goes: {report.problem}",
        }[report.verdict]
        print(f"verdict: {verdict}")
        return int(report.verdict)
    try:
        record = parse_record(text)
    except RecordError as e:
        print(f"cuttle export: not a game record: {e}", file=sys.stderr)
        return 2
    json.dump(_as_json(record), sys.stdout, indent=1)
    print()
    return 0


def _replay(text: str, ascii: bool) -> int:
    from cuttle_client.cardtext import ascii_wanted
    from cuttle_client.replay import Replay, ReplayApp
    from cuttle_client.stopping import run_app
    from cuttle_net.records.verify import Verdict, verify_text

    report = verify_text(text)
    if report.verdict == Verdict.UNREADABLE:  # status 2, as verify and export say it
        print(f"cuttle replay: not a game record: {report.problem}", file=sys.stderr)
        return 2
    if report.module is not None and report.module.name != "cuttle":
        return _replay_as_text(report)

    try:
        replay = Replay(text)
    except ValueError as e:
        print(f"cuttle replay: {e}", file=sys.stderr)
        return 1
    run_app(ReplayApp(replay, ascii_wanted(ascii)))
    return 0


def _replay_as_text(report) -> int:
    """A game the table's screens do not draw: every position as the game writes it, from
    the deal to the end (every card known after an audit; else as a third party saw it)."""
    from cuttle_net.records.verify import Verdict, outcome_text

    if report.verdict not in (Verdict.VALID, Verdict.UNAUDITED):
        print(f"cuttle replay: the record does not verify: {report.problem}", file=sys.stderr)
        return 1
    module, rules, seats, dealer = report.module, report.rules, report.seats, report.dealer
    states = report.public
    if report.order is not None:  # audited or practice: replay with every card known
        state = module.new_full(rules, seats, dealer, report.order)
        states = [module.copy(state)]
        for seat, move in report.moves:
            if move == "concede":
                module.concede(state, seat)
            else:
                module.play_full(state, module.parse_move(move), seat)
            states.append(module.copy(state))
    practice = " practice" if report.practice else ""
    print(f"{module.name}{practice} ({rules.name}), {seats} players, seat {dealer} deals")
    if states:
        print(f"0. {module.position_text(states[0])}")
    for n, (seat, move) in enumerate(report.moves, 1):
        who = "chance" if seat is None else f"seat {seat}"
        after = module.position_text(states[n]) if n < len(states) else "(no more is shown)"
        print(f"{n}. {who}: {move}\n   {after}")
    print(f"end: {outcome_text(report.outcome) if report.outcome else report.problem}")
    return 0


def _as_json(record) -> dict:
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


def _plain(value):
    """msgpack data as JSON: bytes become hex strings."""
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value
