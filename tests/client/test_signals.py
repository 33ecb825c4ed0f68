"""SIGTERM and SIGHUP stop the ``cuttle`` commands as Ctrl+C does, never with a traceback,
with the exit status 128 + the signal's number: the terminal client quits as after
``ctrl+q`` (a network table is left: the others are told, the record is kept) and restores
the terminal; ``cuttle arena`` ends its workers; ``cuttle lan`` ends."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.client.terminal import WAIT, Terminal
from tests.client.test_quit_network import bot_host

LEAVE_ALT_SCREEN = b"\x1b[?1049l"
SHOW_CURSOR = b"\x1b[?25h"


def test_sigterm_quits_the_practice_table_and_restores_the_terminal(tmp_path: Path) -> None:
    dirs = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data")}
    term = Terminal("--name", "ann", "play", "--seed", "1", env=dirs)
    try:
        term.read_until(lambda out: b"practice against" in out)
        drawn = len(term.output)
        term.proc.send_signal(signal.SIGTERM)
        assert term.read_to_the_end() == 143, term.text[-2000:]
        after = bytes(term.output[drawn:])
        assert LEAVE_ALT_SCREEN in after and SHOW_CURSOR in after
        assert b"Traceback" not in term.output
    finally:
        term.close()


@pytest.mark.parametrize("how", ["sigterm", "hang-up"])
def test_a_stopped_client_leaves_its_network_game(tmp_path: Path, how: str) -> None:
    """SIGTERM, or the terminal closed (SIGHUP, and a terminal that answers nothing more),
    mid-game at Cuttle's 2-seat table: the client leaves the table as ``ctrl+q`` then
    *leave* does (the host is told at once), and keeps its record."""
    host, port = bot_host(tmp_path)
    ann = str(tmp_path / "ann")
    term = Terminal(
        *("join", f"127.0.0.1:{port}", "--name", "ann", "--config-dir", ann, "--data-dir", ann)
    )
    try:
        term.read_until(lambda out: b"it differs; you leave" in out)  # the code question
        term.type(b"y")
        term.read_until(lambda out: b"Moves" in out)  # at the table: the deal is done
        drawn = len(term.output)
        if how == "sigterm":
            term.proc.send_signal(signal.SIGTERM)
            assert term.read_to_the_end() == 143, term.text[-2000:]
            assert LEAVE_ALT_SCREEN in term.output[drawn:]
            assert b"Traceback" not in term.output
        else:
            term.hang_up()
            assert term.proc.wait(timeout=WAIT) == 129  # it did not hang on the dead terminal
        host.wait_for(r"ann \(seat \d\) left the table: closed with peer-quit")  # not a wait
        assert "lost the connection" not in host.text
        (record,) = (tmp_path / "ann" / "games").glob("*.cuttle")
        assert "you left the table" in record.read_text()
        assert not list((tmp_path / "ann" / "journal").glob("*.journal"))  # nothing to resume
    finally:
        term.close()
        host.kill()


def _children(pid: int) -> set[int]:
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended meanwhile
            continue
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has ended: only its exit status is left


def _until(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def cuttle(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "cuttle_client", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_stopped_arena_ends_its_workers() -> None:
    arena = cuttle("arena", "random", "random", "--games", "1000000", "--jobs", "2")
    workers: set[int] = set()
    try:
        _until(lambda: len(_children(arena.pid)) >= 2, "the workers")
        workers = _children(arena.pid)
        arena.send_signal(signal.SIGTERM)
        _, err = arena.communicate(timeout=WAIT)
        assert arena.returncode == 143 and "Traceback" not in err, err
        _until(lambda: not any(_running(w) for w in workers), "the workers to end")
    finally:
        if arena.poll() is None:
            arena.kill()
        for worker in workers:
            if _running(worker):  # left behind: the test failed, but leaves nothing running
                os.kill(worker, signal.SIGKILL)


def test_a_stopped_lan_listing_ends() -> None:
    listing = cuttle("lan", "--timeout", "60", "--interface", "127.0.0.1")
    try:
        fds = Path(f"/proc/{listing.pid}/fd")

        def has_socket() -> bool:
            for fd in fds.iterdir():
                try:
                    if os.readlink(fd).startswith("socket:"):
                        return True
                except FileNotFoundError:  # closed between the listing and the look
                    continue
            return False

        # Listening once its multicast socket is open (on loopback only).
        _until(has_socket, "mDNS")
        listing.send_signal(signal.SIGTERM)
        _, err = listing.communicate(timeout=WAIT)
        assert listing.returncode == 143 and "Traceback" not in err, err
    finally:
        if listing.poll() is None:
            listing.kill()
