"""An IPv6-only link between two network namespaces: `cuttle host` (listening on both IP
versions by default) is joined by its invitation and two bots play a whole game; joined at
an IPv6 literal with nobody listening, each address tried is named.

The namespaces, the veth pair and the addresses (documentation prefix 2001:db8::/32) exist
only for this test, which creates and removes them. Needs root and ``ip netns``.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

HOST_IP = "2001:db8:c0:1::1"
JOINER_IP = "2001:db8:c0:1::2"
PORT = 47124  # free by construction: the namespace is new
WAIT = 180.0  # seconds: the bound on every wait (only a failure waits it out)


def _ip(*argv: str) -> None:
    subprocess.run(["ip", *argv], check=True, capture_output=True, text=True, timeout=WAIT)


@pytest.fixture
def link() -> Iterator[tuple[str, str]]:
    """(host namespace, joiner namespace), joined by IPv6 only."""
    if shutil.which("ip") is None:
        pytest.skip("network-namespace test: the `ip` command is not installed")
    if os.geteuid() != 0:
        pytest.skip("network-namespace test: creating network namespaces needs root")
    tag = secrets.token_hex(3)
    host, joiner = f"cuttle-test-{tag}-v6h", f"cuttle-test-{tag}-v6j"
    created: list[str] = []
    try:
        try:
            for name in (host, joiner):
                _ip("netns", "add", name)
                created.append(name)
            _ip(
                "link", "add", f"ct{tag}h", "netns", host, "type", "veth",
                "peer", "name", f"ct{tag}j", "netns", joiner,
            )  # fmt: skip
            for name, interface, address in (
                (host, f"ct{tag}h", HOST_IP),
                (joiner, f"ct{tag}j", JOINER_IP),
            ):
                # nodad: usable at once, instead of after duplicate address detection.
                _ip("-n", name, "addr", "add", f"{address}/64", "dev", interface, "nodad")
                _ip("-n", name, "link", "set", "lo", "up")
                _ip("-n", name, "link", "set", interface, "up")
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
            reason = getattr(e, "stderr", None) or e
            pytest.skip(f"network-namespace test: `ip` refused to set up namespaces: {reason}")
        yield host, joiner
    finally:
        for name in created:
            subprocess.run(["ip", "netns", "del", name], capture_output=True, timeout=WAIT)


def _cuttle(ns: str, *argv: str) -> list[str]:
    return ["ip", "netns", "exec", ns, sys.executable, "-m", "cuttle_client", *argv]


def _host(ns: str, tmp: Path) -> tuple[subprocess.Popen[str], str]:
    """A bot host in ``ns`` on the default (dual-stack) address; and its invitation."""
    host = subprocess.Popen(
        _cuttle(ns, "host", "--port", str(PORT), "--bot", "random", "--name", "Alice")
        + ["--config-dir", str(tmp / "a"), "--data-dir", str(tmp / "a")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "CUTTLE_NO_LAN": "1"},
    )
    assert host.stdout is not None
    seen = []
    for line in host.stdout:
        seen.append(line)
        if "waiting for 1 more player" in line:
            break
    text = "".join(seen)
    # (not host.stderr.read() in the message: the host waits on, and the read would too)
    assert f"hosting Cuttle (classic) for 2 players on [::]:{PORT}" in text, text
    assert f"cuttle join [{HOST_IP}]:{PORT}" in text
    invitation = re.search(r"cuttle join (cuttle:[a-z2-7]+)", text)
    assert invitation, text
    return host, invitation[1]


def _join(ns: str, tmp: Path, address: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        _cuttle(ns, "join", address, "--bot", "random", "--name", "Bob")
        + ["--config-dir", str(tmp / "b"), "--data-dir", str(tmp / "b")],
        capture_output=True,
        text=True,
        timeout=WAIT,
        env={**os.environ, "CUTTLE_NO_LAN": "1"},
    )


def _played(host: subprocess.Popen[str], joined: subprocess.CompletedProcess[str]) -> str:
    out, err = host.communicate(timeout=WAIT)
    assert joined.returncode == 0, joined.stdout + joined.stderr
    assert host.returncode == 0, out + err
    (result,) = [line for line in joined.stdout.splitlines() if line.startswith("result:")]
    assert "audit passed" in result
    assert result in out  # the same result line on both sides
    return joined.stdout


def test_bots_play_over_an_ipv6_only_link(link: tuple[str, str], tmp_path: Path) -> None:
    host_ns, joiner_ns = link
    # (Joined at an IPv6 literal, a whole game with a code to compare: tests/lan/test_netns.py,
    # test_an_ipv6_only_host_is_found_and_joined_at_the_address_listed.)
    # By the invitation: the key is checked, no code to compare.
    host, invitation = _host(host_ns, tmp_path)
    out = _played(host, _join(joiner_ns, tmp_path, invitation))
    assert f"connected to Alice at [{HOST_IP}]:{PORT}" in out
    assert "verified: the host proved the key named by the invitation" in out
    assert "compare this code" not in out  # the host's is the only other key: proven

    # Nobody listening: each address tried is named, with the likely cause.
    failed = _join(joiner_ns, tmp_path, f"[{HOST_IP}]:{PORT}")
    assert failed.returncode == 1
    assert f"tried [{HOST_IP}]:{PORT}: refused" in failed.stdout
    assert "nothing is listening" in failed.stdout
