"""``cuttle lan``: list the games announced on the local network (two-player Cuttle games and
tables of several players), then exit."""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import math
import socket
import sys
import time

COMMANDS = ("lan",)
MAX_LISTEN = 600.0  # seconds: --timeout's upper bound


def _listen_time(text: str) -> float:
    """An argparse type: seconds to listen, more than 0 (nothing is heard in no time)."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not 0 < seconds <= MAX_LISTEN:  # also refuses nan
        raise argparse.ArgumentTypeError(
            f"seconds to listen, more than 0 and at most {MAX_LISTEN:g}, not {text!r}"
        )
    return seconds


def interface(text: str) -> str:
    """An argparse type: an interface's address (IPv4, or IPv6 with its zone if
    link-local: fe80::1%eth0) or its name (eth0: all of its addresses). zeroconf would
    raise on anything else, deep inside its socket setup."""
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        pass
    else:
        if not (ip.is_unspecified or ip.is_multicast):
            return str(ip)
    with contextlib.suppress(OSError):
        socket.if_nametoindex(text)
        return text
    raise argparse.ArgumentTypeError(
        "an interface's address or name, such as 192.168.1.20, fd00::2, fe80::1%eth0 or "
        f"eth0, not {text!r}"
    )


def add_parser(sub: argparse._SubParsersAction) -> None:
    lan = sub.add_parser(
        "lan",
        help="list the games and tables hosted on the local network",
        description="Listen for games announced on the local network (mDNS/DNS-SD) for a few "
        "seconds and list them: Cuttle games, and L'Unisson tables with their seats taken. "
        "A listed game is a hint: the handshake's short authentication code confirms who "
        "you are playing.",
    )
    lan.add_argument(
        "--timeout",
        type=_listen_time,
        default=3.0,
        metavar="SECONDS",
        help="how long to listen (default 3)",
    )
    lan.add_argument(
        "--interface",
        action="append",
        type=interface,
        metavar="ADDRESS_OR_NAME",
        help="listen only on this interface, by its address (IPv4 or IPv6) or its name "
        "(repeatable)",
    )


def run(args: argparse.Namespace) -> int:
    # Imported here: zeroconf and trio are not needed by the rest of the command line.
    from cuttle_protocol.shells import JOIN_HINT, LanUnavailable, browse_once
    from cuttle_protocol.wire import seats_text

    try:
        browser = browse_once(args.timeout, interfaces=args.interface)
    except LanUnavailable as e:
        print(f"cuttle lan: {e}", file=sys.stderr)
        return 1
    for service, reason in sorted(browser.rejected().items()):
        print(f"cuttle lan: ignored {service!r}: {reason}", file=sys.stderr)
    games = browser.games()
    if not games:
        print(
            "no games found (if one is being hosted, multicast may be blocked on this network; "
            f"{JOIN_HINT})"
        )
        return 0
    now = time.monotonic()
    rows = [
        (
            g.announcement.name,
            g.join_address,
            g.announcement.game,
            g.announcement.rules.name,
            seats_text(g.announcement),
            f"seen {max(0, round(now - g.last_seen))}s ago",
        )
        for g in games
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    for row in rows:
        padded = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        print("  ".join([*padded, row[-1]]))
    return 0
