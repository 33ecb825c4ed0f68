"""Kill or stop one seat of a real `cuttle host` / `cuttle join --bot` game of Cuttle (the
2-seat table) mid-game, start it again, and time how long the game takes to go on (shared
by the tests and the benchmark)."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from cuttle_protocol.store import JournalDamaged, read_table_journal

from ..inprocess import run_cuttle
from .test_host_join import host_args as loopback_host_args
from .test_host_join import join_args as loopback_join_args

WAIT = 300  # seconds: the bound on every process here (only a failure waits it out)
BOT_DELAY = "0.25"  # slow enough that the kill falls mid-game (a game has 6+ decisions)


@dataclass
class Side:
    """One `cuttle` process, its output lines read as they come (with their arrival time)."""

    args: list[str]
    module: str = "cuttle_client"  # run as ``python -m MODULE ARGS``
    proc: subprocess.Popen[str] = field(init=False)
    lines: list[tuple[float, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", self.module, *self.args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append((time.monotonic(), line.rstrip("\n")))

    def wait_for(self, pattern: str, timeout: float = WAIT, after: float = 0) -> tuple[float, str]:
        """The first line matching ``pattern`` that came at ``after`` or later."""
        deadline = time.monotonic() + timeout
        exited = None
        while time.monotonic() < deadline:
            for at, line in list(self.lines):
                if at >= after and re.search(pattern, line):
                    return at, line
            if self.proc.poll() is not None:
                exited = exited or time.monotonic()
                if time.monotonic() > exited + 0.5:  # the reader caught the last lines
                    break
            time.sleep(0.02)
        raise AssertionError(f"no line matching {pattern!r} in:\n{self.text}")

    def finish(self) -> int:
        return self.proc.wait(timeout=WAIT)

    @property
    def text(self) -> str:
        return "\n".join(line for _, line in self.lines)

    def kill(self, signum: int = signal.SIGKILL) -> float:
        """Send ``signum`` and wait for the process to end; when it ended."""
        self.proc.send_signal(signum)
        self.proc.wait(timeout=WAIT)
        return time.monotonic()


def host_args(tmp: Path, *extra: str) -> list[str]:
    bot = ("--bot", "random", "--bot-delay", BOT_DELAY, "--no-announce")
    return loopback_host_args(tmp, *bot, *extra)


def join_args(tmp: Path, port: int, *extra: str) -> list[str]:
    return loopback_join_args(tmp, port, "--bot", "random", "--bot-delay", BOT_DELAY, *extra)


def undelayed(args: list[str]) -> list[str]:
    """``args`` without ``--bot-delay S``: a process started again after the kill, whose
    bot need not be slow any more (the rest of the game costs half the wait)."""
    at = args.index("--bot-delay")
    return args[:at] + args[at + 2 :]


def port_of(side: Side) -> int:
    """The port a host said it listens on."""
    _, line = side.wait_for(r"\(port \d+\)")
    found = re.search(r"\(port (\d+)\)", line)
    assert found
    return int(found[1])


def plays(directory: Path, game: int = 1) -> int:
    """The moves of its own player in game ``game`` of the match that the seat journal in
    ``directory`` holds (0 while there is none, or the match is at an earlier game)."""
    found = list(directory.glob("*.journal")) if directory.exists() else []
    try:
        kinds = [e[0] for e in read_table_journal(found[0])[1]] if found else []
    except JournalDamaged:  # caught between the file's creation and its header
        return 0
    # A "rematch" entry starts each next game (the host's proposal, a joiner's agreement).
    starts = [i for i, kind in enumerate(kinds) if kind == "rematch"]
    if len(starts) != game - 1:
        return 0
    return kinds[starts[-1] if starts else 0 :].count("play")


def wait_for_journal(directory: Path, moves: int = 1, game: int = 1) -> None:
    """Until game ``game`` is under way: the seat journal in ``directory`` holds ``moves``
    moves of its player in it. Read as the resume reads it, not judged by its size, so a
    slow machine cannot move the kill into the deal."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if plays(directory, game) >= moves:
            return
        if len(list(directory.parent.glob("games/*.cuttle"))) >= game:
            raise AssertionError("the game ended before the kill: slow the bots down")
        time.sleep(0.02)
    raise AssertionError(f"no journal in {directory} reached {moves} moves in game {game}")


@dataclass
class CrashRun:
    sides: dict[str, Side]  # "host", "join": the survivor and the restarted process
    resumed_after: float  # seconds from the kill to the host seeing the seat back
    killed: Side  # the process that was killed


def crash_and_resume(
    tmp: Path, victim: str, signum: int = signal.SIGKILL, games: int = 1
) -> CrashRun:
    """A match of ``games`` in which ``victim`` ("host" or "join") is killed mid-game in its
    last game (by ``signum``) and restarted: the game goes on once the host says the joiner
    is back."""
    match = ("--games", str(games)) if games > 1 else ()
    host = Side(host_args(tmp, *match))
    port = port_of(host)
    joiner = Side(join_args(tmp, port, *match))
    sides = {"host": host, "join": joiner}
    # Two moves: the first is played by then (a draw awaits the other's deck step, and a
    # kill before it came left "0 moves played": a flake, about 1 in 6).
    wait_for_journal(tmp / ("a" if victim == "host" else "b") / "journal", 2, games)
    killed = sides[victim]
    killed_at = killed.kill(signum)
    # A host started again with port 0 re-opens its unfinished table on its old port.
    again = Side(undelayed(killed.args))
    sides[victim] = again
    back_at, _ = sides["host"].wait_for(r"\) is back$", after=killed_at)
    return CrashRun(sides, back_at - killed_at, killed)


def verify(path: Path) -> subprocess.CompletedProcess[str]:
    """``cuttle verify PATH``, run in this process (the same code path as the command;
    a process per record cost a Python start-up each: the command as a process is
    tests/records/test_verify.py's)."""
    return run_cuttle("verify", str(path))
