"""A killed `cuttle join` / `cuttle host` (SIGKILL mid-game) started again: seconds from the
kill to "the game goes on" on the restarted side, and how long the journal replay takes.

Run from the repository root: python -m benchmarks.bench_resume [--repeat N]
Real processes on loopback, random bots (with tests/net/crash.py's bot delay, so the kill
falls mid-game).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from cuttle_protocol.journal import replay
from tests.session.test_journal import play

from tests.net.crash import crash_and_resume


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    replays = []
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
            f"(min {min(resumed):.2f}, max {max(resumed):.2f}, n={len(resumed)})"
        )
    # The replay alone, on a journal of a whole game's worth of inputs.
    with tempfile.TemporaryDirectory() as tmp:
        sides, _ = play(Path(tmp), "classic")
        for _ in range(args.repeat):
            t = time.perf_counter()
            replay(sides[0].writer.path, sides[0].key)
            replays.append(time.perf_counter() - t)
        size = sides[0].writer.path.stat().st_size
    print(
        f"replaying a finished game's journal ({size / 1024:.0f} KiB, "
        f"{len(sides[0].session.played)} moves): median {statistics.median(replays) * 1000:.0f} ms"
    )


if __name__ == "__main__":
    main()
