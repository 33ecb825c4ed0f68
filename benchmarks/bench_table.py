"""Benchmark of the N-player table's relay (SPEC 3.15), without sockets.

    python benchmarks/bench_table.py [--repeat N]

For 3 and 6 seats, in one process: the CPU time to seat a table (the seating, every
commitment, reveal and confirmation, made, relayed and checked by every seat), and the
cost one game message adds at each seat (signing it, the host's checks and signature, each
joiner's checks of the author's and the host's signatures) for an empty body and for a
20 kB one (about a deck shuffle's proof at 6 players). Medians of the runs.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cuttle_protocol.table import TableGuest, TableHost, TableSettings
from cuttle_protocol.wire import LocalPlayer


def pump(host: TableHost, guests: dict[bytes, TableGuest]) -> None:
    moved = True
    while moved:
        moved = False
        for identity, message in host.take_outgoing():
            moved = True
            guests[identity].receive(message)
        for guest in guests.values():
            for message in guest.take_outgoing():
                moved = True
                host.receive(guest.identity, message)


def seated(seats: int) -> tuple[TableHost, dict[bytes, TableGuest], float]:
    players = [LocalPlayer(f"p{i}", Ed25519PrivateKey.generate()) for i in range(seats)]
    start = time.process_time()
    host = TableHost(players[0], TableSettings("bench", (), seats))
    guests = {}
    for p in players[1:]:
        guest = TableGuest(p, host.identity)
        guests[guest.identity] = guest
        host.add_joiner(p.name, guest.identity)
        pump(host, guests)
    for side in (host, *guests.values()):
        side.confirm()
        pump(host, guests)
    return host, guests, time.process_time() - start


def per_message(seats: int, size: int, count: int = 50) -> float:
    """Milliseconds of CPU a game message costs the whole table, divided by the seats."""
    host, guests, _ = seated(seats)
    sides = [host, *guests.values()]
    start = time.process_time()
    for n in range(count):
        sides[n % seats].post({"t": "data", "b": os.urandom(size)})
        pump(host, guests)
    return (time.process_time() - start) / count / seats * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"{platform.processor() or platform.machine()}, Python {platform.python_version()}")
    for seats in (3, 6):
        seat_ms = statistics.median(seated(seats)[2] * 1000 for _ in range(args.repeat))
        small = statistics.median(per_message(seats, 0) for _ in range(args.repeat))
        large = statistics.median(per_message(seats, 20_000) for _ in range(args.repeat))
        print(
            f"{seats} seats: seating {seat_ms:.1f} ms CPU for the whole table; a message"
            f" {small:.2f} ms CPU a seat (empty), {large:.2f} ms (20 kB)"
        )


if __name__ == "__main__":
    main()
