"""Tries at a real ``cuttle host``'s code from many loopback addresses (SPEC 3.11).

Run from the repository root:
    python -m benchmarks.bench_code_flood [--addresses N] [--seconds S] [--tasks T]

Starts ``cuttle host`` and, for ``--seconds``, has ``--tasks`` tasks each dial again and again
from its own share of ``--addresses`` loopback addresses (127.0.x.y): connect, commit to a
fresh hello, read the host's first frame, hang up. Prints how many connections got the
host's hello (a try at the code, 3.5) and how many a `busy` instead, in all and a second,
and the host's warnings.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
import time
from pathlib import Path

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cuttle_protocol.wire import (
    Close,
    Connection,
    FrameDecoder,
    Hello,
    LocalPlayer,
    Role,
    message_from_wire,
    unpack,
)

from benchmarks.bench_host import start, wait_for


async def one_try(port: int, source: str, commit: bytes) -> str:
    sock = trio.socket.socket()
    with contextlib.suppress(OSError):
        sock.setsockopt(trio.socket.SOL_SOCKET, trio.socket.SO_REUSEADDR, 1)
    await sock.bind((source, 0))
    await sock.connect(("127.0.0.1", port))
    stream = trio.SocketStream(sock)
    try:
        await stream.send_all(commit)
        decoder = FrameDecoder()
        while data := await stream.receive_some(65536):
            decoder.feed(data)
            frame = decoder.next_frame()
            if frame is not None:
                message = message_from_wire(unpack(frame[1]))
                if isinstance(message, Hello):
                    return "hello"
                return f"close {message.code}" if isinstance(message, Close) else "other"
        return "hung up"
    finally:
        await trio.aclose_forcefully(stream)


async def flood(port: int, addresses: int, tasks: int, seconds: float) -> dict[str, int]:
    sources = [f"127.0.{1 + n // 250}.{1 + n % 250}" for n in range(addresses)]
    commit = Connection(
        Role.JOINER, LocalPlayer("rogue", Ed25519PrivateKey.generate())
    ).data_to_send()  # one commitment serves: the host cannot tell before our hello
    counts: dict[str, int] = {}
    deadline = trio.current_time() + seconds

    async def worker(k: int) -> None:
        n = k
        while trio.current_time() < deadline:
            try:
                with trio.fail_after(5):
                    got = await one_try(port, sources[n % addresses], commit)
            except (OSError, trio.BrokenResourceError, trio.TooSlowError) as exc:
                got = type(exc).__name__
            counts[got] = counts.get(got, 0) + 1
            n += tasks

    async with trio.open_nursery() as nursery:
        for k in range(tasks):
            nursery.start_soon(worker, k)
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--addresses", type=int, default=1500)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--tasks", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        log = folder / "host.log"
        host = start(
            log,
            *("host", "--port", "0", "--bind", "127.0.0.1", "--bot", "random", "--no-announce"),
            *("--name", "host", "--config-dir", tmp, "--data-dir", tmp),
        )
        try:
            trio.run(wait_for, log, r"waiting for a player")
            port = int(log.read_text().split("(port ")[1].split(")")[0])
            began = time.monotonic()
            counts = trio.run(flood, port, args.addresses, args.tasks, args.seconds)
            took = time.monotonic() - began
        finally:
            host.kill()
            host.wait()
        print(f"{args.addresses} addresses, {args.tasks} at once, {took:.1f} s:")
        for what, n in sorted(counts.items(), key=lambda item: -item[1]):
            print(f"  {what}: {n} ({n / took:.1f} a second)")
        for line in log.read_text().splitlines():
            if "WARNING" in line:
                print(f"  host: {line}")


if __name__ == "__main__":
    sys.exit(main())
