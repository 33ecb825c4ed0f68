"""``cuttle watch ADDRESS|INVITATION``: watch a table headless (SPEC 3.15 *Watchers*).

It prints who sits and who watches, each move as the game applies it (checked as a third
party: every signature, proof and move), and each game's verdict, then saves the
watcher's copy of each record (``cuttle verify`` checks it like a player's).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cuttle_client.cli_play import add_dir_options
from cuttle_client.peertext import visible

COMMANDS = ("watch",)


def add_parser(sub: argparse._SubParsersAction) -> None:
    watch = sub.add_parser(
        "watch",
        help="watch a table at HOST[:PORT] or by an invitation",
        description="Watch the game at a table (Cuttle or L'Unisson) without a seat: every "
        "move is checked as it "
        "arrives (signatures, proofs, the rules on public cards), no hidden card ever "
        "reaches you, and each game's verdict is shown once its audit is done; the record is "
        "saved and verifies like a player's. HOST may be a name, an IPv4 address or an IPv6 "
        "address in brackets; an invitation (cuttle:…) also checks the host's key.",
    )
    watch.add_argument("address", nargs="+", metavar="HOST[:PORT]|INVITATION")
    watch.add_argument("--name", default=argparse.SUPPRESS, help="your name, shown to the players")
    watch.add_argument("--no-save", action="store_true", help="do not save the records")
    add_dir_options(watch, argparse.SUPPRESS)


def _say(text: str) -> None:
    print(f"cuttle: {visible(text)}", flush=True)


def note_line(note: Any) -> str:
    """One line for what the watcher saw (peer words shown as plain text by `visible`)."""
    from cuttle_protocol.table import Began, Ended, GameVerdict, Played, Watching

    from .progress import watching_words

    if isinstance(note, Began):
        seats = ", ".join(f"{n} (seat {i})" for i, n in enumerate(note.names))
        return f"game {note.number}: {seats}; seat {note.dealer} deals"
    if isinstance(note, Played):
        who = "chance" if note.seat is None else f"{note.name} (seat {note.seat})"
        return f"{who}: {note.text}"
    if isinstance(note, Watching):
        return watching_words(note)
    if isinstance(note, GameVerdict):
        from cuttle_net.records.verify import outcome_text

        report = note.report
        words = {0: "valid", 1: "INVALID", 3: "unaudited"}.get(int(report.verdict), "?")
        what = f"; {outcome_text(report.outcome)}" if report.outcome is not None else ""
        why = f": {report.problem}" if report.problem else ""
        return f"game {note.number} verdict: {words}{what}{why}"
    assert isinstance(note, Ended)
    return note.text


def run(args: argparse.Namespace) -> int:
    from cuttle_client.cli_net import joined_address
    from cuttle_client.stopping import run_trio

    try:
        args.address = joined_address(args.address)
    except ValueError as e:
        print(f"cuttle watch: {e}", file=sys.stderr)
        return 2
    return run_trio(_watch, args)


async def _watch(args: argparse.Namespace) -> int:
    from cuttle_protocol.shells import ConnectionEnded, follow_table, watch_table
    from cuttle_protocol.store import (
        ConfigError,
        KnownPeers,
        default_config_dir,
        load_or_create_identity,
    )
    from cuttle_protocol.wire import LocalPlayer

    from cuttle_client.profile import player_name
    from cuttle_net.records.verify import Verdict

    config = args.config_dir or default_config_dir()
    try:
        identity = load_or_create_identity(config)
        name = player_name(getattr(args, "name", None), args.config_dir)
    except ConfigError as e:
        _say(f"cannot use the config directory: {e}")
        return 2
    try:
        async with watch_table(
            args.address, LocalPlayer(name, identity), known_peers=KnownPeers(config), log=_say
        ) as table:
            _say(f"watching the table at {args.address}")
            done = await follow_table(
                table,
                identity,
                show=lambda note: _say(note_line(note)),
                save=not args.no_save,
                data_dir=args.data_dir,
            )
    except ConnectionEnded as e:
        _say(f"connection ended: {e.message}")
        return 1
    for _, path in done:
        if path is not None:
            _say(f"record saved: {path}")
    clean = done and all(v.report.verdict is Verdict.VALID for v, _ in done)
    return 0 if clean else 1
