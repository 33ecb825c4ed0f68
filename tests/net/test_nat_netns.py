"""A home router in a network namespace: NAT (nftables masquerade) and a real UPnP IGD
daemon, Debian's miniupnpd. `cuttle host` behind it maps its port, a joiner outside plays a
whole game through the mapping, and the mapping is gone afterwards.

Three namespaces made and removed here: "inside" (the host, 192.168.77.2), "router"
(192.168.77.1 inside, 11.200.0.1 outside) and "outside" (the joiner, 11.200.0.2). The
outside address only has to look public to miniupnpd (it refuses reserved ranges as an
external address); it exists nowhere but on the veth end in the router namespace.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

INSIDE_IP, ROUTER_LAN, ROUTER_WAN, OUTSIDE_IP = (
    "192.168.77.2",
    "192.168.77.1",
    "11.200.0.1",
    "11.200.0.2",
)
PORT = 47125
WAIT = 180.0  # seconds: the bound on every wait (only a failure waits it out)


def _ip(*argv: str) -> None:
    subprocess.run(["ip", *argv], check=True, capture_output=True, text=True, timeout=WAIT)


def _in(ns: str, *argv: str, stdin: str | None = None) -> str:
    done = subprocess.run(
        ["ip", "netns", "exec", ns, *argv],
        input=stdin,
        check=True,
        capture_output=True,
        text=True,
        timeout=WAIT,
    )
    return done.stdout


@dataclass(frozen=True)
class Home:
    method: str
    inside: str
    router: str
    outside: str


def _ruleset(wan: str) -> str:
    # The chains miniupnpd-nftables fills (named in its config below), and the NAT itself.
    return f"""
table inet filter {{
  chain forward {{ type filter hook forward priority 0; policy accept; jump miniupnpd; }}
  chain miniupnpd {{ }}
  chain prerouting {{ type nat hook prerouting priority -100; policy accept;
                      jump prerouting_miniupnpd; }}
  chain postrouting {{ type nat hook postrouting priority 100; policy accept;
                       jump postrouting_miniupnpd; oifname "{wan}" masquerade; }}
  chain prerouting_miniupnpd {{ }}
  chain postrouting_miniupnpd {{ }}
}}
"""


def _config(wan: str, lan: str, upnp: bool) -> str:
    return f"""ext_ifname={wan}
listening_ip={lan}
port=0
upnp_table_name=filter
upnp_nat_table_name=filter
upnp_forward_chain=miniupnpd
upnp_nat_chain=prerouting_miniupnpd
upnp_nat_postrouting_chain=postrouting_miniupnpd
enable_natpmp=yes
enable_upnp={"yes" if upnp else "no"}
secure_mode=yes
system_uptime=yes
uuid=6f0c1a52-8c1e-4d1b-9a55-3c3e0d2b7a11
allow 1024-65535 192.168.77.0/24 1024-65535
deny 0-65535 0.0.0.0/0 0-65535
"""


@pytest.fixture(params=["UPnP", "NAT-PMP"])
def home(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Home]:
    """The router answers UPnP, or (UPnP off) only NAT-PMP."""
    for tool, why in (("ip", "ip"), ("nft", "nftables"), ("miniupnpd", "miniupnpd")):
        if shutil.which(tool) is None and not Path(f"/usr/sbin/{tool}").exists():
            pytest.skip(f"NAT test: {why} is not installed (.ci/run installs it as root)")
    if os.geteuid() != 0:
        pytest.skip("NAT test: creating network namespaces needs root")
    pytest.importorskip("miniupnpc", reason="NAT test: the miniupnpc package is not installed")
    tag = secrets.token_hex(3)
    home = Home(
        request.param, f"cuttle-test-{tag}-in", f"cuttle-test-{tag}-rt", f"cuttle-test-{tag}-out"
    )
    lan, wan = f"ct{tag}l", f"ct{tag}w"
    created: list[str] = []
    daemon: subprocess.Popen[bytes] | None = None
    try:
        try:
            for name in (home.inside, home.router, home.outside):
                _ip("netns", "add", name)
                created.append(name)
                _ip("-n", name, "link", "set", "lo", "up")
            _ip("link", "add", lan, "netns", home.router, "type", "veth",
                "peer", "name", "eth0", "netns", home.inside)  # fmt: skip
            _ip("link", "add", wan, "netns", home.router, "type", "veth",
                "peer", "name", "eth0", "netns", home.outside)  # fmt: skip
            for ns, dev, address in (
                (home.router, lan, f"{ROUTER_LAN}/24"),
                (home.router, wan, f"{ROUTER_WAN}/24"),
                (home.inside, "eth0", f"{INSIDE_IP}/24"),
                (home.outside, "eth0", f"{OUTSIDE_IP}/24"),
            ):
                _ip("-n", ns, "addr", "add", address, "dev", dev)
                _ip("-n", ns, "link", "set", dev, "up")
            _ip("-n", home.inside, "route", "add", "default", "via", ROUTER_LAN)
            _in(home.router, "sysctl", "-qw", "net.ipv4.ip_forward=1")
            _in(home.router, "nft", "-f", "-", stdin=_ruleset(wan))
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
            reason = getattr(e, "stderr", None) or e
            pytest.skip(f"NAT test: could not set up the namespaces: {reason}")
        config = tmp_path / "miniupnpd.conf"
        config.write_text(_config(wan, lan, upnp=request.param == "UPnP"))
        log = tmp_path / "miniupnpd.log"
        # -d: in the foreground, logging to stderr; -P: its own pid file, not the shared
        # /var/run/miniupnpd.pid (a second suite's router would exit: "already running").
        pid = tmp_path / "miniupnpd.pid"
        with log.open("w") as sink:
            daemon = subprocess.Popen(
                ["ip", "netns", "exec", home.router]
                + ["miniupnpd", "-d", "-f", str(config), "-P", str(pid)],
                stdout=subprocess.DEVNULL,
                stderr=sink,
            )
        time.sleep(0.5)  # it binds its sockets at once; a failure shows as an exit
        if daemon.poll() is not None:
            pytest.skip(f"NAT test: miniupnpd did not start: {log.read_text()[-500:]}")
        yield home
    finally:
        if daemon is not None and daemon.poll() is None:
            daemon.terminate()
            daemon.wait(timeout=WAIT)
        for name in created:
            subprocess.run(["ip", "netns", "del", name], capture_output=True, timeout=WAIT)


def _cuttle(ns: str, *argv: str) -> list[str]:
    return ["ip", "netns", "exec", ns, sys.executable, "-m", "cuttle_client", *argv]


def _forwarded(home: Home, port: int = PORT) -> bool:
    return f"dport {port} " in _in(home.router, "nft", "list", "ruleset")


def test_a_host_behind_nat_maps_its_port_and_a_joiner_outside_plays(
    home: Home, tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "CUTTLE_NO_LAN"}  # SSDP on the veth only
    # A host killed with its port mapped leaves the mapping behind...
    crashed = subprocess.Popen(
        _cuttle(home.inside, "host", "--port", str(PORT + 1), "--bot", "random")
        + ["--no-announce", "--config-dir", str(tmp_path / "a"), "--data-dir", str(tmp_path / "c")],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    assert crashed.stdout is not None
    for line in crashed.stdout:
        if "port mapped" in line or "no port mapping" in line:
            break
    crashed.kill()
    crashed.wait()
    assert _forwarded(home, PORT + 1)
    # ...which the next start removes.
    host = subprocess.Popen(
        _cuttle(home.inside, "host", "--port", str(PORT), "--bot", "random", "--name", "Alice")
        + ["--no-announce", "--config-dir", str(tmp_path / "a"), "--data-dir", str(tmp_path / "a")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    guard = threading.Timer(WAIT, host.kill)  # a host that never says is a failure, not a hang
    guard.start()
    try:
        assert host.stdout is not None
        seen: list[str] = []
        invitation = None
        for line in host.stdout:
            seen.append(line)
            if "no port mapping" in line:
                break
            if (found := re.search(r"cuttle join (cuttle:[a-z2-7]+)", line)) and any(
                "port mapped" in s for s in seen
            ):
                invitation = found[1]
                break
        text = "".join(seen)
        assert f"({home.method}): from the internet, cuttle join {ROUTER_WAN}:{PORT}" in text, text
        assert invitation is not None and _forwarded(home)

        joined = subprocess.run(
            _cuttle(home.outside, "join", invitation, "--bot", "random", "--name", "Bob")
            + ["--config-dir", str(tmp_path / "b"), "--data-dir", str(tmp_path / "b")],
            capture_output=True,
            text=True,
            timeout=WAIT,
            env=env,
        )
        assert joined.returncode == 0, joined.stdout + joined.stderr
        assert f"connected to Alice at {ROUTER_WAN}:{PORT}" in joined.stdout
        assert "verified" in joined.stdout and "audit passed" in joined.stdout
        out, err = host.communicate(timeout=WAIT)
        assert host.returncode == 0, out + err
        assert f"port mapping of {PORT} removed from the router ({home.method})" in out
    finally:
        guard.cancel()
        if host.poll() is None:
            host.kill()
            host.wait()
    assert not _forwarded(home) and not _forwarded(home, PORT + 1)  # no mapping is left
