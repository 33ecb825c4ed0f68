"""A real ``cuttle host`` against hostile connections: it survives them, stays small, and
plays its game with the real joiner; mid-game, only that joiner can take the seat back."""

from __future__ import annotations

import re
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trio
from cuttle_protocol.store import KnownPeers, load_or_create_identity
from cuttle_protocol.wire import Close, Hello

from .crash import verify
from .flood import KINDS, cutting_proxy, hostile
from .test_host_join import host_args, join_args

pytestmark = pytest.mark.slow

WAIT = 180  # seconds: the bound on every process and step here (only a failure waits it out)
FLOOD = 200  # simultaneous connections
SOURCES = 20  # loopback addresses they come from (127.0.0.2...), so the rate limit alone
# cannot turn them all away and the bounds on handshakes are what is tested
HOST_FILES = 128  # the host runs with this many file descriptors at most
GROWTH_BOUND = 32 * 2**20  # bytes the host may grow by (peak) during the flood


def cuttle(*args: str) -> list[str]:
    return [sys.executable, "-m", "cuttle_client", *args]


def limit_files() -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(HOST_FILES, hard), hard))


class Host:
    """``cuttle host`` in the background, its output in a file we can poll."""

    def __init__(self, tmp: Path, *extra: str) -> None:
        self.log = tmp / "host.log"
        self.dir = tmp / "a"
        with self.log.open("w") as out:
            self.process = subprocess.Popen(
                cuttle(*host_args(tmp, "--bot", "greedy", *extra)),
                stdout=out,
                stderr=subprocess.STDOUT,
                text=True,
                preexec_fn=limit_files,
            )
        self.port = int(self.wait_for(r"\(port (\d+)\)")[1])

    def text(self) -> str:
        return self.log.read_text()

    def wait_for(self, pattern: str) -> re.Match[str]:
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            found = re.search(pattern, self.text())
            if found:
                return found
            assert self.process.poll() is None, f"the host exited:\n{self.text()}"
            time.sleep(0.05)
        raise AssertionError(f"the host never said {pattern!r}:\n{self.text()}")

    async def async_wait_for(self, pattern: str) -> re.Match[str]:
        return await trio.to_thread.run_sync(self.wait_for, pattern)

    def memory(self, field: str) -> int:
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        return int(re.search(rf"^{field}:\s+(\d+) kB", status, re.M)[1]) * 1024

    def finish(self) -> tuple[int, str]:
        try:
            self.process.wait(timeout=WAIT)
        finally:
            self.process.kill()
        return self.process.returncode, self.text()


def join(tmp: Path, port: int, who: str = "b", *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        cuttle(*join_args(tmp, port, "--bot", "random", *extra, who=who)),
        capture_output=True,
        text=True,
        timeout=WAIT,
    )


def verify_records(*dirs: Path) -> None:
    for folder in dirs:
        (record,) = (folder / "games").glob("*.cuttle")
        verified = verify(record)
        assert verified.returncode == 0, verified.stdout + verified.stderr


def enough_files_for(count: int) -> None:
    """This process opens `count` sockets at once: raise its soft limit if needed."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = count + 256  # what pytest, trio and the subprocesses' pipes use besides
    if soft < needed:
        if hard != resource.RLIM_INFINITY and hard < needed:
            pytest.skip(f"the file descriptor limit ({hard}) is below the {needed} needed")
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))


@pytest.mark.trio
async def test_a_host_survives_a_flood_and_then_plays_its_game(tmp_path: Path) -> None:
    enough_files_for(FLOOD)
    host = Host(tmp_path)
    await trio.sleep(0.5)  # settled after start-up
    before = host.memory("VmRSS")
    answers: list[tuple[str, list[object]]] = []
    release = trio.Event()

    async def one(n: int) -> None:
        kind = KINDS[n % len(KINDS)]
        answers.append(
            (kind, await hostile(host.port, f"127.0.0.{2 + n % SOURCES}", kind, release))
        )

    with trio.fail_after(WAIT):
        async with trio.open_nursery() as nursery:
            for n in range(FLOOD):
                nursery.start_soon(one, n)
            while len(answers) < FLOOD - FLOOD // len(KINDS):  # all but the silent ones
                await trio.sleep(0.05)
            peak = host.memory("VmHWM")
            release.set()
    growth = peak - before
    print(f"host RSS {before / 2**20:.1f} MiB before the flood, peak {peak / 2**20:.1f} MiB")
    assert growth < GROWTH_BOUND
    closes = [a[-1] for _, a in answers if a and isinstance(a[-1], Close)]
    codes = {close.code for close in closes}
    # Told why: the handshakes that failed, and the connections over a limit ("busy").
    assert {"malformed-frame", "frame-too-large", "busy"} <= codes, codes
    for kind, answer in answers:
        # None sent a commitment, so none saw the host's hello (or had a try at its code).
        assert not any(isinstance(m, Hello) for m in answer), (kind, answer)
    assert host.process.poll() is None  # still there, still waiting
    text = host.text()
    assert "cannot accept" not in text  # never ran out of file descriptors
    assert "Traceback" not in text

    joined = join(tmp_path, host.port)
    code, text = host.finish()
    assert joined.returncode == 0 and code == 0, joined.stdout + joined.stderr + text
    assert "audit passed" in joined.stdout
    verify_records(host.dir, tmp_path / "b")


@pytest.mark.trio
async def test_mid_game_only_the_same_player_takes_the_seat_back(tmp_path: Path) -> None:
    host = Host(tmp_path)
    state: dict = {"open": True, "close_on_cut": True, "cut_after": 6_000}
    joiner_log = tmp_path / "joiner.log"
    with trio.fail_after(2 * WAIT):
        async with trio.open_nursery() as nursery:
            proxy = await nursery.start(cutting_proxy, host.port, state)
            with joiner_log.open("w") as out:
                joiner = subprocess.Popen(
                    cuttle(*join_args(tmp_path, proxy, "--bot", "random")),
                    stdout=out,
                    stderr=subprocess.STDOUT,
                )
            await host.async_wait_for("lost the connection to bob")
            lost = time.monotonic()
            # A silent stray, garbage, then a stranger called bob with another key come first.
            stray = await trio.open_tcp_stream("127.0.0.1", host.port)
            garbage = await hostile(host.port, "127.0.0.1", "zeros", trio.Event())
            assert isinstance(garbage[-1], Close) and garbage[-1].code == "malformed-frame"
            stranger = await trio.to_thread.run_sync(join, tmp_path, host.port, "stranger")
            assert stranger.returncode == 1
            assert "its 2 seats are taken and its game has started" in stranger.stdout
            await host.async_wait_for("refused bob .*busy")
            state["open"] = True  # the real joiner's redialling now gets through
            opened = time.monotonic()
            await host.async_wait_for("bob .* is back")
            resumed = time.monotonic()
            joined = await trio.to_thread.run_sync(lambda: joiner.wait(WAIT))
            code, text = await trio.to_thread.run_sync(host.finish)
            nursery.cancel_scope.cancel()
    print(
        f"host noticed the cut after {lost - state['cut']:.2f} s; "
        f"resumed {resumed - opened:.2f} s after the joiner could reach it again"
    )
    await trio.aclose_forcefully(stray)
    out = joiner_log.read_text()
    assert joined == 0 and code == 0, out + text
    assert "the connection to the host is back" in out
    assert "result:" in out and "unfinished" not in out and "unfinished" not in text
    verify_records(host.dir, tmp_path / "b")
    # The stranger never reached the game or the host's known peers.
    bob = load_or_create_identity(tmp_path / "b").public_key().public_bytes_raw()
    assert KnownPeers(host.dir).check("bob", bob).value == "known"
