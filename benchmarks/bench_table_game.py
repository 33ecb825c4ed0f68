"""A whole networked L'Unisson game of bot processes on loopback, from connect to result.

Run from the repository root: python -m benchmarks.bench_table_game [--players N] [--repeat N]

Each run starts ``cuttle host --game unisson --players N --bot greedy`` on a free loopback
port, waits until it listens, then starts N - 1 ``cuttle join --bot greedy`` processes at
once and times until every process has printed its result line (the seating, the code, the
deal with every shuffle proven, the game, every hand shown, the audit). Each run checks that
all N result lines are the same and that every record verifies. Prints the median and the
spread of the runs, and the median CPU time of the N processes together.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .common import machine_line

LIMIT = 120  # seconds a run may take before it is called a failure


def cuttle(*args: str) -> list[str]:
    return [sys.executable, "-m", "cuttle_client", *args]


def player_args(folder: Path, name: str) -> list[str]:
    return ["--bot", "greedy", "--name", name, "--config-dir", str(folder / name),
            "--data-dir", str(folder / name)]  # fmt: skip


def wait_for(log: Path, pattern: str, deadline: float) -> re.Match[str]:
    while time.monotonic() < deadline:
        found = re.search(pattern, log.read_text())
        if found:
            return found
        time.sleep(0.002)
    raise RuntimeError(f"{log.name} never said {pattern!r}:\n{log.read_text()}")


def one_game(folder: Path, players: int) -> tuple[float, float, int]:
    """Seconds from the joiners' start to the last result line, the CPU seconds of all, and
    how many connections the host refused (a joiner turned away while a seat was free)."""
    names = ["host"] + [f"joiner{i}" for i in range(1, players)]
    logs = {name: folder / f"{name}.log" for name in names}
    procs: dict[str, subprocess.Popen[bytes]] = {}

    def start(name: str, *args: str) -> None:
        with logs[name].open("w") as out:
            procs[name] = subprocess.Popen(cuttle(*args), stdout=out, stderr=subprocess.STDOUT)

    deadline = time.monotonic() + LIMIT
    before = os.times()
    try:
        table = ["--game", "unisson", "--players", str(players), "--port", "0"]
        quiet = ["--bind", "127.0.0.1", "--no-announce", "--no-map"]
        start("host", "host", *table, *quiet, *player_args(folder, "host"))
        port = wait_for(logs["host"], r"\(port (\d+)\)", deadline)[1]
        began = time.monotonic()
        for name in names[1:]:
            start(name, "join", f"127.0.0.1:{port}", *player_args(folder, name))
        results = [wait_for(logs[name], r"(?m)^result: (.*)$", deadline)[1] for name in names]
        ended = time.monotonic()
        for name, proc in procs.items():
            if proc.wait(timeout=LIMIT) != 0:
                raise RuntimeError(f"{name} exited {proc.returncode}:\n{logs[name].read_text()}")
        after = os.times()  # every game process reaped, no record check yet
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
    if len(set(results)) != 1:
        raise RuntimeError(f"the result lines differ: {results}")
    for name in names:
        (record,) = (folder / name / "games").glob("*.cuttle")
        check = subprocess.run(cuttle("verify", str(record)), capture_output=True, text=True)
        if check.returncode != 0:
            raise RuntimeError(f"{name}'s record does not verify:\n{check.stdout}")
    cpu = (after.children_user + after.children_system) - (
        before.children_user + before.children_system
    )
    refused = logs["host"].read_text().count(" refused ")
    return ended - began, cpu, refused


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    walls, cpus, refusals = [], [], 0
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            wall, cpu, refused = one_game(Path(tmp), args.players)
        walls.append(wall)
        cpus.append(cpu)
        refusals += refused
    print(machine_line())
    print(f"{args.players}-player L'Unisson, greedy bots, {args.repeat} games on loopback")
    print(f"  connect -> result (wall): median {statistics.median(walls):.2f} s "
          f"(min {min(walls):.2f}, max {max(walls):.2f})")  # fmt: skip
    print(f"  CPU of all {args.players} processes together, their start included: "
          f"median {statistics.median(cpus):.2f} s")  # fmt: skip
    print(f"  joiners the host refused: {refusals} in {args.repeat} games")


if __name__ == "__main__":
    main()
