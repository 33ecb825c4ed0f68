"""Asking the home router to forward the game's port: UPnP IGD through the optional
``miniupnpc`` package (the MiniUPnP project's own client), else NAT-PMP (RFC 6886, a few
bytes over UDP, done here).  Without either, the host still plays: the player is told to
forward the port by hand (README).

The mapping is asked for in a worker thread (the library blocks), beside the host's wait,
so neither the terminal client nor the listener waits on the router.  It is removed when the
host is done; a mapping left by a killed host is named in ``portmap.json`` in the config
dir and removed on the next start.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import socket
import struct
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from .peer import _beside

DESCRIPTION = "cuttle-net game"
DISCOVERY_MS = 1500  # how long to wait for routers to answer (SSDP)
REMOVE_TIMEOUT = 3.0  # seconds granted to removing the mapping on the way out
STATE_FILE = "portmap.json"
SSDP = ("239.255.255.250", 1900)  # where UPnP devices are looked for
NATPMP_PORT = 5351
NATPMP_FIRST_WAIT = 0.25  # seconds, doubled at each of the tries
NATPMP_TRIES = 3
NATPMP_LIFETIME = 7200  # seconds; a host that crashed leaves a mapping that expires


@dataclass(frozen=True)
class Mapping:
    external_ip: str
    external_port: int
    internal_ip: str
    internal_port: int
    method: str  # "UPnP" or "NAT-PMP"


@dataclass(frozen=True)
class NotMapped:
    """No mapping of `port` was made: `reason` is `NoMapping`'s (or the system's) words; the
    player may forward the port by hand (README)."""

    port: int
    reason: str


@dataclass(frozen=True)
class MappingRemoved:
    """The mapping of `port` was removed from the router on the way out."""

    port: int
    method: str


MappingEvent = Mapping | NotMapped | MappingRemoved
"""What `port_mapping` tells: the mapping made, none made, or the mapping removed."""


class NoMapping(Exception):
    """Why no mapping was made, in words for the player."""


# --- UPnP IGD, through miniupnpc (blocking: run in a worker thread) ------------------------


def _router() -> Any:
    try:
        import miniupnpc
    except ImportError:
        raise NoMapping("the optional miniupnpc package is not installed") from None
    # No route for the discovery multicast: say so here (the library would only print
    # "sendto: Network is unreachable" on our terminal).
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(SSDP)
    except OSError as e:
        raise NoMapping(f"no network to look for a router on ({e.strerror or e})") from None
    upnp = miniupnpc.UPnP()
    upnp.discoverdelay = DISCOVERY_MS
    try:  # miniupnpc raises bare Exceptions
        found = upnp.discover()
        if not found:
            raise NoMapping("no router answered")
        upnp.selectigd()
    except NoMapping:
        raise
    except Exception as e:
        # miniupnpc's errors read "Success" when nothing answered: only a real reason is said
        why = str(e).strip()
        said = f": {why}" if why and why.lower() != "success" else ""
        raise NoMapping(f"no router found{said}") from None
    return upnp


def _upnp_add(port: int) -> Mapping:
    upnp = _router()
    try:
        external = upnp.externalipaddress()
        upnp.addportmapping(port, "TCP", upnp.lanaddr, port, DESCRIPTION, "")
    except Exception as e:
        raise NoMapping(f"the router refused the mapping: {e}") from None
    return Mapping(external, port, upnp.lanaddr, port, "UPnP")


def _upnp_remove(port: int, internal_ip: str) -> None:
    """Remove our mapping of ``port`` (only if it still points at us)."""
    upnp = _router()
    with contextlib.suppress(Exception):
        found = upnp.getspecificportmapping(port, "TCP")
        if found and found[0] == internal_ip and found[2] == DESCRIPTION:
            upnp.deleteportmapping(port, "TCP")


# --- NAT-PMP (RFC 6886), trio-native: two small UDP exchanges with the default gateway ----


def _default_gateway() -> str:
    """The IPv4 default gateway (Linux: /proc/net/route); NoMapping where unknown."""
    try:
        lines = Path("/proc/net/route").read_text().splitlines()[1:]
    except OSError:
        raise NoMapping("the default gateway is unknown on this system") from None
    for line in lines:
        fields = line.split()
        if len(fields) > 3 and fields[1] == "00000000" and int(fields[3], 16) & 2:
            return str(ipaddress.IPv4Address(struct.pack("<I", int(fields[2], 16))))
    raise NoMapping("no default gateway")


async def _natpmp_ask(sock: Any, request: bytes, opcode: int, size: int) -> bytes:
    wait = NATPMP_FIRST_WAIT
    for _ in range(NATPMP_TRIES):  # RFC 6886 3.1: resend, doubling the wait
        await sock.send(request)
        with trio.move_on_after(wait):
            while True:
                try:
                    data = await sock.recv(64)
                except OSError as e:  # ICMP port unreachable: nothing listens there
                    raise NoMapping(f"the router does not speak NAT-PMP ({e.strerror})") from None
                if len(data) >= size and data[0] == 0 and data[1] == opcode:
                    result = int.from_bytes(data[2:4], "big")
                    if result:
                        raise NoMapping(f"the router refused the mapping (NAT-PMP result {result})")
                    return data
        wait *= 2
    raise NoMapping("no answer to NAT-PMP")


async def _natpmp(port: int, lifetime: int) -> Mapping:
    """Map TCP ``port`` (``lifetime`` 0: remove our mapping of it)."""
    gateway = _default_gateway()
    with trio.socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        try:
            await sock.connect((gateway, NATPMP_PORT))
        except OSError as e:
            raise NoMapping(f"cannot reach the gateway {gateway}: {e.strerror}") from None
        internal_ip = sock.getsockname()[0]
        reply = await _natpmp_ask(sock, b"\x00\x00", 128, 12)
        external_ip = str(ipaddress.IPv4Address(reply[8:12]))
        request = struct.pack(">BBHHHI", 0, 2, 0, port, port if lifetime else 0, lifetime)
        reply = await _natpmp_ask(sock, request, 130, 16)
    (external_port,) = struct.unpack(">H", reply[10:12])
    return Mapping(external_ip, external_port, internal_ip, port, "NAT-PMP")


# --- either -----------------------------------------------------------------------------


async def _add(port: int) -> Mapping:
    """UPnP first (the common case), then NAT-PMP; NoMapping naming both failures."""
    try:
        return await trio.to_thread.run_sync(_upnp_add, port, abandon_on_cancel=True)
    except NoMapping as upnp:
        try:
            return await _natpmp(port, NATPMP_LIFETIME)
        except NoMapping as natpmp:
            raise NoMapping(f"UPnP: {upnp}; NAT-PMP: {natpmp}") from None


async def _remove(port: int, internal_ip: str, method: str) -> None:
    if method == "NAT-PMP":
        await _natpmp(port, 0)
    else:
        await trio.to_thread.run_sync(_upnp_remove, port, internal_ip, abandon_on_cancel=True)


def _remember(state: Path | None, mapping: Mapping | None) -> None:
    if state is None:
        return
    with contextlib.suppress(OSError):
        if mapping is None:
            state.unlink(missing_ok=True)
        else:
            m = mapping
            state.write_text(
                json.dumps({"port": m.internal_port, "ip": m.internal_ip, "method": m.method})
            )


def _leftover(state: Path | None) -> tuple[int, str, str] | None:
    if state is None:
        return None
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        data = json.loads(state.read_text())
        return int(data["port"]), str(data["ip"]), str(data["method"])
    return None


def disabled_by_environment() -> bool:
    """CUTTLE_NO_LAN=1 (the test suite): nothing multicast on the network, SSDP included."""
    return os.environ.get("CUTTLE_NO_LAN") == "1"


@contextlib.asynccontextmanager
async def port_mapping(
    port: int,
    tell: Callable[[MappingEvent], None],
    config_dir: Path | None,
) -> AsyncIterator[None]:
    """For the block: ask the router to forward TCP ``port`` to us, beside whatever the
    block does; ``tell`` hears the `Mapping` made, or `NotMapped`, and `MappingRemoved`
    on exit."""
    state = config_dir / STATE_FILE if config_dir is not None else None
    made: list[Mapping] = []

    async def map_it() -> None:
        leftover = _leftover(state)
        if leftover is not None and leftover[0] != port:  # the same port is simply renewed
            with contextlib.suppress(NoMapping, OSError):
                await _remove(*leftover)
            _remember(state, None)
        try:
            mapping = await _add(port)
        except (NoMapping, OSError) as e:  # never a reason for the host to stop
            tell(NotMapped(port, str(e)))
            return
        made.append(mapping)
        _remember(state, mapping)
        tell(mapping)

    try:
        async with _beside(map_it):  # the block's own exception comes back unwrapped
            yield
    finally:
        if made:
            m = made[0]
            with trio.move_on_after(REMOVE_TIMEOUT) as scope:
                scope.shield = True
                with contextlib.suppress(NoMapping, OSError):
                    await _remove(m.internal_port, m.internal_ip, m.method)
                    _remember(state, None)
                    tell(MappingRemoved(port, m.method))
