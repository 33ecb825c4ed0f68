"""A real ``cuttle host`` against a joiner that floods it with junk deck messages while its
move is due (issue 24): the host keeps none of them. The first one, which its sender did not
sign, ends the game as the sender's wire fault; the host's memory stays within a bound."""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cuttle_protocol.connection import LocalPlayer
from cuttle_protocol.messages import DeckPayload
from cuttle_protocol.trio_peer import ConnectionEnded, connect

from cuttle_net.records.record import parse_record

from . import hostile
from .test_endings import verify
from .test_host_join import start_host

pytestmark = pytest.mark.slow

JUNK = 100  # deck messages
JUNK_BYTES = 1_000_000  # in each: just under the 1 MiB frame limit
GROWTH_BOUND = 16 * 2**20  # bytes the host's peak may grow by while it receives them
WAIT = 60
CLOSE_WAIT = 20  # seconds for the host to close once the junk is written


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


async def flood(port: int, pid: int) -> dict:
    key = Ed25519PrivateKey.generate()
    seen: dict = {"sent": 0, "samples": []}

    async def sample(done: trio.Event) -> None:
        # The peak so far, every few ms, until the host is gone or we have read it stopped.
        while not done.is_set() and (peak := status(pid, "VmHWM")) is not None:
            seen["samples"].append(peak)
            await trio.sleep(0.005)

    async with connect(f"127.0.0.1:{port}", LocalPlayer(hostile.NAME, key)) as peer:
        h = hostile.Hostile(peer, key, 0)
        seen["seat"] = h.session.seat
        with trio.fail_after(WAIT):
            await h.carry(h.session.start())
            await h.play_until(lambda s: s.my_turn)  # the host waits for our move: no deck op
        seen["rss"] = status(pid, "VmRSS")
        seen["reset"] = reset_peak(pid)  # else the peak since start-up: an over-estimate
        done = trio.Event()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(sample, done)
            try:
                for _ in range(JUNK):
                    await peer.send(DeckPayload({"from": seen["seat"], "junk": bytes(JUNK_BYTES)}))
                    seen["sent"] += 1
                with trio.move_on_after(CLOSE_WAIT):
                    await peer.wait_ended()
            except ConnectionEnded as ended:
                seen["ended"] = ended
            seen["stopped"] = stopped_peak(pid)
            done.set()
    return seen


def test_junk_deck_messages_are_never_kept_and_end_the_game_as_the_senders_fault(
    tmp_path: Path,
) -> None:
    host, port = start_host(tmp_path, "--bot", "greedy", "--no-announce", "--no-map")
    try:
        seen = trio.run(flood, port, host.pid)
        peaks = [p for p in (*seen["samples"], seen["stopped"]) if p is not None]
        assert seen["stopped"] is not None or len(peaks) > 1, "no peak read after the junk"
        growth = max(peaks) - seen["rss"]
        print(
            f"host RSS {seen['rss'] / 2**20:.1f} MiB before {JUNK} junk deck messages of "
            f"{JUNK_BYTES} bytes ({seen['sent']} written before the host closed), peak "
            f"after {max(peaks) / 2**20:.1f} MiB: +{growth / 2**20:.1f} MiB"
        )
        assert growth < GROWTH_BOUND
        out, err = host.communicate(timeout=WAIT)
    finally:
        host.kill()
    assert host.returncode == 1 and "Traceback" not in err, out + err
    mallory = seen["seat"]
    (record,) = (tmp_path / "a" / "games").glob("*.cuttle")
    tags = parse_record(record.read_text()).tags
    assert tags["Ending"].startswith(f"fault wire_unexpected_message by seat {mallory}: ")
    assert tags["Result"] == str(1 - mallory)
    assert verify(record) == 3  # the fault is the host's finding: the channel's word
