"""``cuttle host`` and ``cuttle join`` from one account (one identity key), as two real
processes: both refuse at the handshake with one line that says how to play two seats on one
machine, nothing is remembered about the own key, and the host goes on waiting."""

from __future__ import annotations

import json
import queue
import re
import subprocess
import sys
import threading
from pathlib import Path

from tests.net.test_host_join import WAIT, finish, join_args, start_host

OWN_KEY = "shows your own identity key: you cannot play yourself"
HOW = "cuttle --config-dir DIR --data-dir DIR join"


def line_with(proc: subprocess.Popen[str], text: str, timeout: float = WAIT) -> str:
    """The first line of ``proc``'s output holding ``text`` (read on a thread, so that a host
    that never says it fails the test instead of hanging it)."""
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    while (line := lines.get(timeout=timeout)) is not None:
        if text in line:
            return line
    raise AssertionError(f"{text!r} never came")


def join(tmp: Path, port: int, who: str) -> subprocess.CompletedProcess[str]:
    """A headless ``cuttle join`` with the files of ``tmp/<who>``."""
    return subprocess.run(
        [sys.executable, "-m", "cuttle_client", *join_args(tmp, port, "--bot", "random", who=who)],
        capture_output=True,
        text=True,
        timeout=WAIT,
    )


def remembered(config: Path, name: str) -> dict:
    path = config / name
    return json.loads(path.read_text()) if path.exists() else {}


def test_joining_yourself_is_refused_at_the_handshake_on_both_sides(tmp_path: Path) -> None:
    host, port = start_host(tmp_path, "--bot", "random")
    try:
        mine = join(tmp_path, port, "a")  # alice's own folders
        said = line_with(host, f"joiner {OWN_KEY}")
    finally:
        host.kill()
        _, _, host_err = finish(host)
    assert mine.returncode == 1
    assert f"host {OWN_KEY}" in mine.stdout and HOW in mine.stdout
    assert sum(OWN_KEY in line for line in mine.stdout.splitlines()) == 1  # one line
    assert HOW in said and "(bad-key)" in said
    assert "Traceback" not in mine.stderr + host_err, mine.stderr + host_err
    # Neither side trusted its own key: nothing was kept.
    config = tmp_path / "a"
    assert not remembered(config, "known_peers.json").get("peers")


def test_after_joining_yourself_another_player_still_gets_in(tmp_path: Path) -> None:
    host, port = start_host(tmp_path, "--bot", "random")
    mine = join(tmp_path, port, "a")
    theirs = join(tmp_path, port, "b")  # bob, in his own folders
    code, out, err = finish(host)
    assert mine.returncode == 1 and theirs.returncode == 0, theirs.stdout + theirs.stderr
    assert code == 0, out + err
    assert f"joiner {OWN_KEY}" in out
    assert re.search(r"^cuttle: bob \(key [0-9a-f:]+\) joined$", out, re.M), out  # seated
