"""Worker processes never outlive a stopped caller (`cuttle_net.jobs`, `cuttle arena --jobs`)."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

import cuttle_net.jobs as jobs

BOUND = 60  # seconds: only a failure waits this long


def _deaf() -> None:
    """A worker deaf to SIGTERM, as one forked a moment before a stop is: it still holds
    the `cuttle` command's handlers, which raise in its fork hooks, where the error is
    dropped (seen under load: the arena then waited for it forever)."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def _forever(pid_file: str) -> list[int]:
    with open(pid_file, "a") as f:
        f.write(f"{os.getpid()}\n")
    while True:
        time.sleep(0.01)


def _pids(path: Path) -> list[int]:
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has ended


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # how Ctrl+C, SIGTERM and SIGHUP reach the command


def _too_long(signum: int, frame: object) -> None:
    raise AssertionError("the stop waited for a worker that did not end")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc for the workers")
def test_a_stop_ends_even_a_worker_deaf_to_sigterm(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(jobs, "_worker_signals", _deaf)
    pids = tmp_path / "pids"

    def stop_once_both_run() -> None:
        deadline = time.monotonic() + BOUND
        while len(_pids(pids)) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(os.getpid(), signal.SIGUSR1)

    saved = {s: signal.getsignal(s) for s in (signal.SIGUSR1, signal.SIGALRM)}
    signal.signal(signal.SIGUSR1, _interrupt)
    signal.signal(signal.SIGALRM, _too_long)
    threading.Thread(target=stop_once_both_run, daemon=True).start()
    try:
        signal.alarm(BOUND)
        with pytest.raises(KeyboardInterrupt):
            list(jobs.in_processes(_forever, [(str(pids),), (str(pids),)], 2))
        signal.alarm(0)
        workers = _pids(pids)
        assert len(workers) == 2
        deadline = time.monotonic() + BOUND
        while any(_running(w) for w in workers):
            assert time.monotonic() < deadline, "a worker outlived the stop"
            time.sleep(0.01)
    finally:
        signal.alarm(0)
        for s, handler in saved.items():
            signal.signal(s, handler)
        for worker in _pids(pids):
            if _running(worker):  # (the test failed: leave nothing running)
                os.kill(worker, signal.SIGKILL)


def _held() -> set[int]:
    return {int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, [])}


def _held_in_worker(_: int) -> list[set[int]]:
    return [_held()]


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="POSIX signal masks")
def test_no_stop_lands_while_workers_are_forked_and_none_is_held_in_them(monkeypatch) -> None:
    """A stop raised between a worker's fork and the pool's note of it left that worker
    unknown to the stop, serving on after `cuttle arena` ended (its output held open: a
    caller reading it waited for ever). Stops wait while the workers are forked, and the
    workers, which inherit that, hold none."""
    from concurrent.futures import ProcessPoolExecutor

    stops = {int(signal.SIGINT), int(signal.SIGTERM), int(signal.SIGHUP)}
    during: list[set[int]] = []
    submit = ProcessPoolExecutor.submit

    def noting(self, *args, **kwargs):
        during.append(_held())
        return submit(self, *args, **kwargs)

    monkeypatch.setattr(ProcessPoolExecutor, "submit", noting)
    before = _held()
    in_workers = list(jobs.in_processes(_held_in_worker, [(0,), (1,)], 2))
    assert len(during) == 2 and all(stops <= held for held in during)
    assert len(in_workers) == 2 and not any(stops & held for held in in_workers)
    assert _held() == before
