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
        description="Step through a game record of Cuttle or L'Unisson on its table "
        "(keys: → next, ← back, g go to a move, s every card or one player's view, q quit). "
        "The record is verified first, as by cuttle verify. An audited game shows every card, "
        "or the hands as each player saw them; a game that was never audited shows the cards "
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
    from cuttle_net.records.record import RecordError, read_record_file

    try:
        return read_record_file(path)
    except OSError as e:
        print(f"cuttle: cannot read {path}: {e.strerror or e}", file=sys.stderr)
    except RecordError as e:
        print(f"cuttle: {path} is not a game record: {e}", file=sys.stderr)
    return None


def run(args: argparse.Namespace) -> int:
    from cuttle_client.recordtext import as_json, verdict_words
    from cuttle_net.records.record import RecordError, parse_record
    from cuttle_net.records.verify import verify_text

    text = _read(args.file)
    if text is None:
        return 2
    if args.command == "replay":
        return _replay(text, args.ascii)
    if args.command == "verify":
        report = verify_text(text)
        for line in report.lines:
            print(f"  {line}")
        print(f"verdict: {verdict_words(report)}")
        return int(report.verdict)
    try:
        record = parse_record(text)
    except RecordError as e:
        print(f"cuttle export: not a game record: {e}", file=sys.stderr)
        return 2
    json.dump(as_json(record), sys.stdout, indent=1)
    print()
    return 0


def _replay(text: str, ascii: bool) -> int:
    from cuttle_client.cardtext import ascii_wanted
    from cuttle_client.replay import ReplayApp, load
    from cuttle_client.stopping import run_app

    try:
        p = load(text)
    except ValueError as e:  # status 2, as verify and export say it, for a file no record
        print(f"cuttle replay: {e}", file=sys.stderr)
        return 2 if str(e).startswith("not a game record") else 1
    run_app(ReplayApp(p, ascii_wanted(ascii)))
    return 0
