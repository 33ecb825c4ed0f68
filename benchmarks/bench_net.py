"""Networked games over real loopback TCP: time to the first turn, move latency, bytes.

Run from the repository root: python -m benchmarks.bench_net [--games N] [--journal]
Both peers run in this one process (one core), random bots, full-strength shuffle proofs.
--journal: each seat keeps its crash journal (fsynced, SPEC 4.6) in a temporary folder, as
``cuttle host`` and ``cuttle join`` do.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

import trio
from cuttle_protocol.play import Step

from cuttle_net.games.cuttle.bots import RandomBot
from cuttle_net.games.cuttle.engine import Game
from cuttle_net.games.cuttle.moves import Move
from cuttle_net.session import MovePlayed

from .common import Player, cuttle_game, machine_line, tcp_dial


class CountingStream(trio.abc.Stream):
    """A stream that counts the bytes going each way."""

    def __init__(self, inner: trio.abc.Stream) -> None:
        self.inner, self.sent, self.received = inner, 0, 0

    async def send_all(self, data: bytes) -> None:
        self.sent += len(data)
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        data = await self.inner.receive_some(max_bytes)
        self.received += len(data)
        return data

    async def aclose(self) -> None:
        await self.inner.aclose()


class TimedBot(RandomBot):
    """A random bot that notes when it decided each move, and when it was first asked."""

    def __init__(
        self, chosen: dict[Move, tuple[float, float]], first: list[tuple[float, float]]
    ) -> None:
        self.chosen, self.first = chosen, first

    def choose(self, view: Game, rng: random.Random) -> Move:
        m = super().choose(view, rng)
        # Timed once decided (the bot's own thinking is not the table's cost): the wall
        # clock, and the process's CPU (both seats run in this process, so the CPU from
        # here to the other seat's applying the move is all the work the move cost).
        now = (time.perf_counter(), time.process_time())
        if not self.first:
            self.first.append(now)
        self.chosen[m] = now
        return m


async def one_game(journal: bool = False) -> dict[str, object]:
    chosen: list[dict[Move, tuple[float, float]]] = [{}, {}]
    first: list[list[tuple[float, float]]] = [[], []]
    latencies: list[float] = []
    cpu: list[float] = []
    timing: dict[str, float] = {}
    counted: list[CountingStream] = []

    def watcher(side: int):
        def on_event(event: object) -> None:
            if not isinstance(event, Step):
                return
            for played in event.output.events:
                seat = played.seat if isinstance(played, MovePlayed) else None
                if seat is not None and seat != event.session.seat:  # the other seat's move
                    start = chosen[1 - side].pop(played.move, None)
                    if start is not None:
                        latencies.append(time.perf_counter() - start[0])
                        cpu.append(time.process_time() - start[1])

        return on_event

    async def dial(address: tuple[str, int]) -> trio.abc.Stream:
        timing["connect"], timing["connect_cpu"] = time.perf_counter(), time.process_time()
        counted.append(CountingStream(await tcp_dial(address)))
        return counted[0]

    def connected() -> None:
        timing["handshake"] = time.perf_counter()

    host, joiner = (Player(name, TimedBot(chosen[i], first[i]), watcher(i))
                    for i, name in enumerate(("host", "joiner")))  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="bench_net") as folder:
        journals = Path(folder) if journal else None
        await cuttle_game(host, joiner, dial=dial, connected=connected, journals=journals)
    first_turn = min(first[0] + first[1])
    return {
        "handshake": timing["handshake"] - timing["connect"],
        "first_turn": first_turn[0] - timing["connect"],
        "deal_cpu": first_turn[1] - timing["connect_cpu"],
        "latencies": latencies,
        "cpu": cpu,
        "bytes": counted[0].sent + counted[0].received,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--journal", action="store_true", help="every seat keeps its journal")
    args = ap.parse_args()
    runs = [trio.run(one_game, args.journal) for _ in range(args.games)]
    lat = sorted(x for r in runs for x in r["latencies"])  # type: ignore[union-attr]
    cpu = sorted(x for r in runs for x in r["cpu"])  # type: ignore[union-attr]

    def p99(xs: list[float]) -> float:
        return xs[min(len(xs) - 1, int(0.99 * len(xs)))]

    med = statistics.median
    journaled = ", each seat journaled" if args.journal else ""
    print(
        f"{args.games} games, classic, full-strength proofs, both peers in one process" + journaled
    )
    print(machine_line())
    print(f"  handshake               median {med(r['handshake'] for r in runs) * 1000:8.1f} ms")
    print(f"  connect to first turn   median {med(r['first_turn'] for r in runs) * 1000:8.1f} ms")
    print(f"    its CPU (both seats)  median {med(r['deal_cpu'] for r in runs) * 1000:8.1f} ms")
    print(
        f"  move latency (decided -> applied by the peer): p50 {med(lat) * 1000:.2f} ms, "
        f"p99 {p99(lat) * 1000:.2f} ms ({len(lat)} moves)"
    )
    print(
        f"    its CPU (process time, both seats): p50 {med(cpu) * 1000:.2f} ms, "
        f"p99 {p99(cpu) * 1000:.2f} ms"
    )
    print(f"  bytes on the wire a game  median {med(r['bytes'] for r in runs) / 1024:6.1f} KiB")


if __name__ == "__main__":
    main()
