"""``cuttle watch ADDRESS|INVITATION``: watch a table (SPEC 3.15 *Watchers*), in the
terminal client (``watch.WatchScreen``) or headless (``--headless``).

Headless, it prints who sits and who watches, each move as the game applies it (checked as
a third party: every signature, proof and move), the chat, and each game's verdict, and
saves the watcher's copy of each record (``cuttle verify`` checks it like a player's).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cuttle_client.cli_play import add_dir_options, add_display_options
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
    watch.add_argument(
        "--headless",
        action="store_true",
        help="print what happens as lines of text instead of opening the terminal client",
    )
    add_dir_options(watch, argparse.SUPPRESS)
    add_display_options(watch, argparse.SUPPRESS, bell=False)


def _say(text: str) -> None:
    print(f"cuttle: {visible(text)}", flush=True)


def note_line(note: Any) -> str:
    """One line for what the watcher saw (peer words shown as plain text by `visible`)."""
    from cuttle_protocol.table import Watching
    from cuttle_protocol.tablefollow import Began, Ended, GameVerdict, Played, Said
    from cuttle_protocol.tablegame import watching_text
    from cuttle_protocol.trio_watch import Saved

    if isinstance(note, Began):
        seats = ", ".join(f"{n} (seat {i})" for i, n in enumerate(note.names))
        return f"game {note.number}: {seats}; seat {note.dealer} deals"
    if isinstance(note, Played):
        who = "chance" if note.seat is None else f"{note.name} (seat {note.seat})"
        return f"{who}: {note.text}"
    if isinstance(note, Watching):
        return watching_text(note)
    if isinstance(note, Said):
        return (
            f"the host muted {note.name}'s chat" if note.muted else f"{note.name} says: {note.text}"
        )
    if isinstance(note, Saved):
        return f"record saved: {note.path}"
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

    try:
        args.address = joined_address(args.address)
    except ValueError as e:
        print(f"cuttle watch: {e}", file=sys.stderr)
        return 2
    if not args.headless:
        from cuttle_client.cli_play import run_watch

        return run_watch(args, launch_from(args))
    from cuttle_client.stopping import run_trio

    return run_trio(watch, launch_from(args), lambda note: _say(note_line(note)), _say)


@dataclass(frozen=True)
class WatchLaunch:
    """A table to watch, and where the watcher's files are (None: the user's own)."""

    address: str
    name: str | None = None  # the name shown to the players (None: the saved one)
    config_dir: Path | None = None
    data_dir: Path | None = None
    save: bool = True  # save the watcher's copy of each game's record


def launch_from(args: argparse.Namespace) -> WatchLaunch:
    return WatchLaunch(
        args.address, getattr(args, "name", None), args.config_dir, args.data_dir, not args.no_save
    )


async def watch(
    args: WatchLaunch,
    show: Callable[[Any], None],
    say: Callable[[str], None],
    following: Callable[[Any], None] = lambda follower: None,
) -> int:
    """Watch the table at ``args.address`` to its end: ``show`` each note (``note_line``),
    ``say`` how the connection goes; ``following`` is given the `Follower` (its game's
    positions, for a screen). The exit status: 0 if every game watched verified."""
    from cuttle_protocol.connection import LocalPlayer
    from cuttle_protocol.identity import (
        ConfigError,
        KnownPeers,
        default_config_dir,
        load_or_create_identity,
    )
    from cuttle_protocol.tablefollow import Follower
    from cuttle_protocol.trio_peer import ConnectionEnded
    from cuttle_protocol.trio_watch import follow_table, watch_table

    from cuttle_client.profile import player_name
    from cuttle_net.records.verify import Verdict

    config = args.config_dir or default_config_dir()
    try:
        identity = load_or_create_identity(config)
        name = player_name(args.name, args.config_dir)
    except ConfigError as e:
        say(f"cannot use the config directory: {e}")
        return 2
    follower = Follower(identity)
    following(follower)
    say(f"connecting to {args.address} (the table shows once it is seated)")
    try:
        async with watch_table(
            args.address, LocalPlayer(name, identity), known_peers=KnownPeers(config), log=say
        ) as table:
            say(f"watching the table at {args.address}")
            done = await follow_table(
                table,
                identity,
                show=show,
                save=args.save,
                data_dir=args.data_dir,
                follower=follower,
            )
    except ConnectionEnded as e:
        say(f"connection ended: {e.message}")
        return 1
    clean = done and all(v.report.verdict is Verdict.VALID for v, _ in done)
    return 0 if clean else 1
