"""A real ``cuttle host`` against a joiner that floods it with junk deck messages while its
move is due (issue 24), at the 2-seat table: the first one, signed by its sender but asked
for by nobody, ends the game as that seat's fault; the host's memory stays within a
bound."""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path

import pytest
import trio

from cuttle_net.records.record import parse_record

from . import hostile
from .test_endings import REAL, cuttle_verify
from .test_host_join import start_host

pytestmark = pytest.mark.slow

GROWTH_BOUND = 16 * 2**20  # bytes the host's peak may grow by while it receives them
WAIT = 180  # seconds: the bound on every step (only a failure waits it out)


def status(pid: int, field: str) -> int | None:
    """A memory figure of the running process (None once it is gone or a zombie)."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    found = re.search(rf"^{field}:\s+(\d+) kB", text, re.M)
    return int(found[1]) * 1024 if found else None


def reset_peak(pid: int) -> bool:
    """Reset the process's peak RSS (VmHWM) to its current RSS (Linux ``clear_refs``)."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def stopped_peak(pid: int) -> int | None:
    """The process's peak RSS, read while it is stopped (it may be about to exit)."""
    os.kill(pid, signal.SIGSTOP)
    try:
        return status(pid, "VmHWM")
    finally:
        os.kill(pid, signal.SIGCONT)


async def flood(port: int, pid: int, data_dir: Path) -> dict:
    seen: dict = {"samples": []}
    done = trio.Event()

    async def sample() -> None:
        # The peak so far, every few ms, until the host is gone or the game is over.
        while not done.is_set() and (peak := status(pid, "VmHWM")) is not None:
            seen["samples"].append(peak)
            await trio.sleep(0.005)

    def moment() -> None:  # our move is due: the host runs no deck operation
        seen["rss"] = status(pid, "VmRSS")
        seen["reset"] = reset_peak(pid)  # else the peak since start-up: an over-estimate

    with trio.fail_after(WAIT):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(sample)
            address = f"127.0.0.1:{port}"
            _, game = await hostile.run(
                address, "junk-deck", data_dir, timeouts=REAL, moment=moment
            )
            seen["stopped"] = stopped_peak(pid)
            done.set()
    seen["seat"] = game.session.seat
    return seen


def test_junk_deck_messages_are_never_kept_and_end_the_game_as_the_senders_fault(
    tmp_path: Path,
) -> None:
    host, port = start_host(tmp_path, "--bot", "greedy", "--no-announce", "--no-map")
    try:
        seen = trio.run(flood, port, host.pid, tmp_path / "m")
        peaks = [p for p in (*seen["samples"], seen["stopped"]) if p is not None]
        assert seen["stopped"] is not None or len(peaks) > 1, "no peak read after the junk"
        growth = max(peaks) - seen["rss"]
        print(
            f"host RSS {seen['rss'] / 2**20:.1f} MiB before {hostile.JUNK_MESSAGES} junk deck "
            f"messages of {hostile.JUNK} bytes, peak after {max(peaks) / 2**20:.1f} MiB: "
            f"+{growth / 2**20:.1f} MiB"
        )
        assert growth < GROWTH_BOUND
        out, err = host.communicate(timeout=WAIT)
    finally:
        host.kill()
    assert host.returncode == 1 and "Traceback" not in err, out + err
    mallory = seen["seat"]
    (record,) = (tmp_path / "a" / "games").glob("*.cuttle")
    tags = parse_record(record.read_text()).tags
    assert tags["Ending"].startswith(f"fault wire_unexpected_message by seat {mallory}: "), tags
    assert tags["Result"] == str(1 - mallory)
    assert cuttle_verify(record) == 3
