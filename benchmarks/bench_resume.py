"""A killed `cuttle join` / `cuttle host` of Cuttle's 2-seat table (SIGKILL mid-game) started
again: seconds from the kill to the host seeing the seat back (the restarted process's start
and its table journal's rebuild included), and what is left of the journal once over.

Run from the repository root: python -m benchmarks.bench_resume [--repeat N]
Real processes on loopback, random bots (with tests/net/crash.py's bot delay, so the kill
falls mid-game).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from tests.net.crash import crash_and_resume


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    for victim in ("join", "host"):
        resumed, sizes = [], []
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as tmp:
                run = crash_and_resume(Path(tmp), victim)
                resumed.append(run.resumed_after)
                for side in run.sides.values():
                    side.finish()
                journal = Path(tmp) / ("a" if victim == "host" else "b") / "journal"
                sizes.append(sum(p.stat().st_size for p in journal.glob("*")))  # 0: removed
        print(
            f"{victim} killed: kill -> game going on again, "
            f"median {statistics.median(resumed):.2f} s "
            f"(min {min(resumed):.2f}, max {max(resumed):.2f}, n={len(resumed)}); "
            f"journal bytes left once the game was over: {max(sizes)}"
        )


if __name__ == "__main__":
    main()
