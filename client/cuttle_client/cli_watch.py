"""``cuttle watch ADDRESS|INVITATION``: watch a table (SPEC 3.15 *Watchers*), in the
terminal client (``watch.WatchScreen``) or headless (``--headless``).

Headless, it prints who sits and who watches, each move as the game applies it (checked as
a third party: every signature, proof and move), the chat, and each game's verdict, and
saves the watcher's copy of each record (``cuttle verify`` checks it like a player's).
"""

from __future__ import annotations

import argparse
import sys

from cuttle_client.cli_play import add_dir_options, add_display_options
from cuttle_client.peertext import visible
from cuttle_client.watching import WatchLaunch, note_line, watch

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


def launch_from(args: argparse.Namespace) -> WatchLaunch:
    return WatchLaunch(
        args.address, getattr(args, "name", None), args.config_dir, args.data_dir, not args.no_save
    )
