"""A real ``cuttle host`` under a flood, and how long a cut game takes to resume.

Run from the repository root: python -m benchmarks.bench_host [--flood N] [--resumes N]

1. Starts ``cuttle host`` and opens ``--flood`` connections at once from 20 loopback
   addresses (garbage, HTTP, an endless frame, zero-length frames, hang-ups, silence);
   prints the host's resident memory before and at its peak (VmHWM), and how long it took
   to answer them all.
2. ``--resumes`` times: a host and a joiner (headless bots) play through a proxy that cuts
   the link mid-game and lets the redialling joiner through at once; prints the median time
   from the cut until each side says "reconnected".
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import trio

from tests.net.flood import KINDS, cutting_proxy, hostile


def cuttle(*args: str) -> list[str]:
    return [sys.executable, "-m", "cuttle_client", *args]


def start(log: Path, *args: str) -> subprocess.Popen[bytes]:
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w") as out:
        return subprocess.Popen(cuttle(*args), stdout=out, stderr=subprocess.STDOUT)


async def wait_for(log: Path, pattern: str, limit: float = 60) -> float:
    """When `pattern` first appeared in `log` (time.monotonic)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if re.search(pattern, log.read_text()):
            return time.monotonic()
        await trio.sleep(0.005)
    raise RuntimeError(f"{log.name} never said {pattern!r}:\n{log.read_text()}")


def host_args(folder: Path) -> list[str]:
    return ["host", "--port", "0", "--bind", "127.0.0.1", "--name", "alice", "--bot", "greedy",
            "--config-dir", str(folder), "--data-dir", str(folder)]  # fmt: skip


def memory(pid: int, field: str) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(rf"^{field}:\s+(\d+) kB", status, re.M)[1]) / 1024


async def flood(tmp: Path, count: int) -> None:
    log = tmp / "flood.log"
    host = start(log, *host_args(tmp / "a"))
    try:
        await wait_for(log, r"\(port \d+\)")
        port = int(re.search(r"\(port (\d+)\)", log.read_text())[1])
        await trio.sleep(0.5)
        before = memory(host.pid, "VmRSS")
        release = trio.Event()
        answered = 0

        async def one(n: int) -> None:
            nonlocal answered
            await hostile(port, f"127.0.0.{2 + n % 20}", KINDS[n % len(KINDS)], release)
            answered += 1

        began = time.monotonic()
        async with trio.open_nursery() as nursery:
            for n in range(count):
                nursery.start_soon(one, n)
            while answered < count - count // len(KINDS):  # all but the silent ones
                await trio.sleep(0.005)
            took = time.monotonic() - began
            peak = memory(host.pid, "VmHWM")
            release.set()
        print(f"flood of {count} connections from 20 addresses, answered in {took:.2f} s")
        print(f"  host resident memory: {before:.1f} MiB before, peak {peak:.1f} MiB "
              f"(+{peak - before:.1f} MiB)")  # fmt: skip
        assert host.poll() is None, "the host died"
    finally:
        host.kill()
        host.wait()


async def resume_once(tmp: Path) -> tuple[float, float]:
    host_log, join_log = tmp / "host.log", tmp / "join.log"
    host = start(host_log, *host_args(tmp / "a"))
    joiner = None
    try:
        await wait_for(host_log, r"\(port \d+\)")
        port = int(re.search(r"\(port (\d+)\)", host_log.read_text())[1])
        state = {"cut_after": 6000}
        async with trio.open_nursery() as nursery:
            through = await nursery.start(cutting_proxy, port, state)
            joiner = start(join_log, "join", f"127.0.0.1:{through}", "--name", "bob",
                           "--bot", "random", "--config-dir", str(tmp / "b"),
                           "--data-dir", str(tmp / "b"))  # fmt: skip
            host_back = await wait_for(host_log, "reconnected")
            join_back = await wait_for(join_log, "reconnected")
            nursery.cancel_scope.cancel()
        return host_back - state["cut"], join_back - state["cut"]
    finally:
        for process in (host, joiner):
            if process is not None:
                process.kill()
                process.wait()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flood", type=int, default=200)
    parser.add_argument("--resumes", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        await flood(Path(tmp) / "flood", args.flood)
        times = []
        for n in range(args.resumes):
            times.append(await resume_once(Path(tmp) / f"resume{n}"))
        host_times, join_times = zip(*times, strict=True)
        print(f"resume after a cut mid-game, median of {args.resumes}: "
              f"host {statistics.median(host_times):.2f} s, "
              f"joiner {statistics.median(join_times):.2f} s "
              f"(min {min(host_times):.2f} s, max {max(host_times):.2f} s)")  # fmt: skip


if __name__ == "__main__":
    trio.run(main)
