"""Two network namespaces joined by a veth pair: a host announced in one is found from the other,
can be reached there, and drops out of the list when it quits.

Nothing here touches the real network: the addresses exist only on the veth ends inside the
namespaces this test creates and removes. Needs root and ``ip netns``; skipped otherwise.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

HOST_ADDRESS = "10.203.0.1"
JOINER_ADDRESS = "10.203.0.2"
HOST_V6, JOINER_V6 = "2001:db8:c1::1", "2001:db8:c1::2"  # documentation prefix
HOST_LINK_LOCAL, JOINER_LINK_LOCAL = "fe80::c1:1", "fe80::c1:2"
PORT = 47123  # free by construction: the namespace is new
WAIT = 60.0  # seconds: the bound on every wait below (only a failure waits it out)


@dataclass(frozen=True)
class Namespaces:
    host: str
    joiner: str
    host_if: str
    joiner_if: str


def _ip(*argv: str) -> None:
    subprocess.run(["ip", *argv], check=True, capture_output=True, text=True, timeout=WAIT)


@contextlib.contextmanager
def _linked(tag: str, setup: Callable[[str, str, str], None]) -> Iterator[Namespaces]:
    """Two new namespaces joined by a veth pair; `setup(namespace, interface, side)` gives
    each end its addresses (side: "host" or "joiner") before it is brought up."""
    if shutil.which("ip") is None:
        pytest.skip("network-namespace test: the `ip` command is not installed")
    if os.geteuid() != 0:
        pytest.skip("network-namespace test: creating network namespaces needs root")
    ns = Namespaces(f"cuttle-test-{tag}-host", f"cuttle-test-{tag}-join", f"ct{tag}h", f"ct{tag}j")
    created: list[str] = []
    try:
        try:
            for name in (ns.host, ns.joiner):
                _ip("netns", "add", name)
                created.append(name)
            # Both veth ends are created inside the namespaces: neither exists outside.
            _ip(
                "link", "add", ns.host_if, "netns", ns.host, "type", "veth",
                "peer", "name", ns.joiner_if, "netns", ns.joiner,
            )  # fmt: skip
            for name, interface, side in (
                (ns.host, ns.host_if, "host"),
                (ns.joiner, ns.joiner_if, "joiner"),
            ):
                setup(name, interface, side)
                _ip("-n", name, "link", "set", "lo", "up")
                _ip("-n", name, "link", "set", interface, "up")
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
            reason = getattr(e, "stderr", None) or e
            pytest.skip(f"network-namespace test: `ip` refused to set up namespaces: {reason}")
        yield ns
    finally:
        for name in created:  # removing a namespace removes its veth end, and so the pair
            subprocess.run(["ip", "netns", "del", name], capture_output=True, timeout=WAIT)


@pytest.fixture
def namespaces() -> Iterator[Namespaces]:
    """IPv4 only (the kernel's link-local IPv6 addresses turned off)."""
    addresses = {"host": HOST_ADDRESS, "joiner": JOINER_ADDRESS}

    def setup(name: str, interface: str, side: str) -> None:
        _ip("-n", name, "link", "set", interface, "addrgenmode", "none")
        _ip("-n", name, "addr", "add", f"{addresses[side]}/24", "dev", interface)

    with _linked(secrets.token_hex(3), setup) as ns:
        yield ns


def _ipv6_only(global_too: bool) -> Callable[[str, str, str], None]:
    """IPv6 only: a link-local address each (fixed, without the kernel's duplicate
    detection, so usable at once), and a global one too if `global_too`."""

    def setup(name: str, interface: str, side: str) -> None:
        _ip("-n", name, "link", "set", interface, "addrgenmode", "none")
        addresses = [HOST_LINK_LOCAL if side == "host" else JOINER_LINK_LOCAL]
        if global_too:
            addresses.append(HOST_V6 if side == "host" else JOINER_V6)
        for address in addresses:
            _ip("-n", name, "addr", "add", f"{address}/64", "dev", interface, "nodad")

    return setup


# The suite sets CUTTLE_NO_LAN=1 (nothing multicast); inside these namespaces it may be.
LAN_ENV = {k: v for k, v in os.environ.items() if k != "CUTTLE_NO_LAN"}


class Process:
    """A process in a namespace whose output lines are read without ever blocking the test."""

    def __init__(self, ns: str, *argv: str) -> None:
        self.popen = subprocess.Popen(
            ["ip", "netns", "exec", ns, sys.executable, *argv],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=LAN_ENV,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.popen.stdout is not None
        for line in self.popen.stdout:
            self.lines.put(line.rstrip("\n"))

    def wait_for(self, accept: Callable[[str], bool]) -> str:
        deadline = time.monotonic() + WAIT
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                break
            if accept(line):
                return line
        self.stop()
        assert self.popen.stderr is not None
        raise AssertionError(f"no expected line within {WAIT}s; stderr: {self.popen.stderr.read()}")

    def stop(self) -> int:
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
        try:
            return self.popen.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            return self.popen.wait()


def run(ns: str, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["ip", "netns", "exec", ns, sys.executable, *argv],
        capture_output=True,
        text=True,
        timeout=WAIT,
        env=LAN_ENV,
    )


def test_a_host_is_found_joined_and_forgotten_across_namespaces(
    namespaces: Namespaces, tmp_path: Path
) -> None:
    processes: list[Process] = []
    try:
        watcher = Process(namespaces.joiner, "-m", "cuttle_protocol.shells.mdns", "watch")
        processes.append(watcher)
        watcher.wait_for(lambda line: line == "browsing")
        host = Process(
            namespaces.host,
            *("-m", "cuttle_client", "host", "--bind", HOST_ADDRESS, "--port", str(PORT)),
            *("--rules", "classic", "--variant", "joker", "--bot", "greedy", "--name", "Alice"),
            *("--config-dir", str(tmp_path / "a"), "--data-dir", str(tmp_path / "a")),
        )
        processes.append(host)
        host.wait_for(lambda line: line.startswith("cuttle: announced on the LAN"))

        # Found, with the announced fields, by the one-shot command...
        listed = run(namespaces.joiner, "-m", "cuttle_client", "lan", "--timeout", "2")
        assert listed.returncode == 0, listed.stderr
        (line,) = listed.stdout.splitlines()
        assert line.split()[:9] == [
            "Alice",
            f"{HOST_ADDRESS}:{PORT}",
            "cuttle",
            "classic+joker",
            "seat",
            "free,",
            "watchers",
            "welcome",
            "seen",
        ]
        # ...and by the live browser.
        found = watcher.wait_for(lambda line: "Alice" in line)
        assert json.loads(found) == [
            {
                "name": "Alice",
                "address": HOST_ADDRESS,
                "addresses": [HOST_ADDRESS],
                "port": PORT,
                "rules": "classic+joker",
                "seat_free": True,
                "version": 1,
                "game": "cuttle",
                "seats": 2,
                "taken": 1,
                "watchers": True,
            }
        ]

        # Joined from the other namespace at the announced address: a whole game is played.
        joined = run(
            namespaces.joiner,
            *("-m", "cuttle_client", "join", f"{HOST_ADDRESS}:{PORT}", "--bot", "random"),
            *("--name", "Bob", "--config-dir", str(tmp_path / "b")),
            *("--data-dir", str(tmp_path / "b")),
        )
        assert joined.returncode == 0, joined.stdout + joined.stderr
        assert "result: game 1: " in joined.stdout and "audit passed" in joined.stdout

        # The table took watchers, so it stayed listed while it played: it is withdrawn
        # once it ended.
        watcher.wait_for(lambda line: line == "[]")
        host.wait_for(lambda line: line.startswith("cuttle: record saved"))
        assert host.popen.wait(timeout=WAIT) == 0
    finally:
        for process in processes:
            process.stop()


def test_a_table_is_announced_while_a_seat_is_free(namespaces: Namespaces, tmp_path: Path) -> None:
    """A L'Unisson table of three: listed with one seat taken, then two as a player sits
    down, and withdrawn once the last one does; the game is then played to its end."""

    def files(name: str) -> tuple[str, ...]:
        return (
            "--name",
            name,
            "--config-dir",
            str(tmp_path / name),
            "--data-dir",
            str(tmp_path / name),
        )

    def listed(line: str) -> list[tuple[str, str, int, int]]:
        return [(g["name"], g["game"], g["taken"], g["seats"]) for g in json.loads(line)]

    processes: list[Process] = []
    try:
        watcher = Process(namespaces.joiner, "-m", "cuttle_protocol.shells.mdns", "watch")
        processes.append(watcher)
        watcher.wait_for(lambda line: line == "browsing")
        host = Process(
            namespaces.host,
            *("-m", "cuttle_client", "host", "--bind", HOST_ADDRESS, "--port", str(PORT)),
            *("--game", "unisson", "--players", "3", "--bot", "random", *files("Ann")),
        )
        processes.append(host)
        watcher.wait_for(lambda line: listed(line) == [("Ann", "unisson", 1, 3)])
        address = f"{HOST_ADDRESS}:{PORT}"
        for name, taken in (("Bob", [("Ann", "unisson", 2, 3)]), ("Cy", [])):
            join = ("-m", "cuttle_client", "join", address, "--bot", "random", *files(name))
            processes.append(Process(namespaces.joiner, *join))
            watcher.wait_for(lambda line, taken=taken: listed(line) == taken)
        for process in processes[1:]:
            process.wait_for(lambda line: line.startswith("result: game 1: Ann (seat 0)"))
    finally:
        for process in processes:
            process.stop()


@pytest.mark.parametrize("global_too", [True, False], ids=["global", "link-local"])
def test_an_ipv6_only_host_is_found_and_joined_at_the_address_listed(
    global_too: bool, tmp_path: Path
) -> None:
    """A host on an IPv6-only link (no IPv4 but loopback on either side) is announced over
    IPv6 mDNS, listed by `cuttle lan` and the live browser at its global address, or with
    none at its link-local one with the joiner's interface as its zone; joined at what
    the list shows, a whole game is played."""
    with _linked(secrets.token_hex(3), _ipv6_only(global_too)) as ns:
        zone = f"fe80::c1:1%{ns.joiner_if}"
        want = f"[{HOST_V6}]:{PORT}" if global_too else f"[{zone}]:{PORT}"
        processes: list[Process] = []
        try:
            watcher = Process(ns.joiner, "-m", "cuttle_protocol.shells.mdns", "watch")
            processes.append(watcher)
            watcher.wait_for(lambda line: line == "browsing")
            host = Process(
                ns.host,
                *("-m", "cuttle_client", "host", "--port", str(PORT), "--bot", "greedy"),
                *("--name", "Alice", "--config-dir", str(tmp_path / "a")),
                *("--data-dir", str(tmp_path / "a")),
            )
            processes.append(host)
            host.wait_for(lambda line: line.startswith("cuttle: announced on the LAN"))
            # Listed at the best address heard so far: the global one once its AAAA
            # record is in (a link-local one after it), else the zoned link-local one.
            best = HOST_V6 if global_too else zone
            watcher.wait_for(lambda line: f'"address": "{best}"' in line)

            listed = run(ns.joiner, "-m", "cuttle_client", "lan", "--timeout", "2")
            assert listed.returncode == 0, listed.stderr
            (line,) = listed.stdout.splitlines()
            assert line.split()[:3] == ["Alice", want, "cuttle"], line

            joined = run(
                ns.joiner,
                *("-m", "cuttle_client", "join", want, "--bot", "random", "--name", "Bob"),
                *("--config-dir", str(tmp_path / "b"), "--data-dir", str(tmp_path / "b")),
            )
            assert joined.returncode == 0, joined.stdout + joined.stderr
            assert f"connected to Alice at {want}" in joined.stdout, joined.stdout
            assert "compare this code" in joined.stdout  # an address: no key to check
            assert "result: game 1: " in joined.stdout and "audit passed" in joined.stdout
            watcher.wait_for(lambda line: line == "[]")  # the seat taken: withdrawn
            host.wait_for(lambda line: line.startswith("cuttle: record saved"))
            assert host.popen.wait(timeout=WAIT) == 0
        finally:
            for process in processes:
                process.stop()
