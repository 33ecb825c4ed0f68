"""This machine's addresses, for the host screen's "the other player runs: cuttle join …".

Every usable address of the interfaces a host listens on: LAN addresses first, loopback last
(a second terminal on the same machine).  Link-local IPv6 addresses are left out: they need
a zone (``%eth0``) that means nothing on the other machine.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

import ifaddr


@dataclass(frozen=True)
class HostAddress:
    address: str  # as typed after "cuttle join": 192.168.1.20 or [fd00::2]
    interface: str
    loopback: bool

    def join_command(self, port: int) -> str:
        return f"cuttle join {self.address}:{port}"

    @property
    def where(self) -> str:
        if self.loopback:
            return "from this machine"
        return f"on network {self.interface}" if self.interface else "at this address"


def host_addresses(bind: str) -> list[HostAddress]:
    """The addresses a joiner can reach a host listening on ``bind`` by, LAN first."""
    ip = ipaddress.ip_address(bind)
    if not ip.is_unspecified:  # listening on one address: that one only
        return [_entry(ip, "")]
    found: dict[str, HostAddress] = {}
    try:
        adapters = ifaddr.get_adapters()
    except OSError:  # no way to list interfaces here: loopback still works
        adapters = []
    for adapter in adapters:
        for entry in adapter.ips:
            raw = entry.ip if isinstance(entry.ip, str) else entry.ip[0]
            try:
                addr = ipaddress.ip_address(raw)
            except ValueError:
                continue
            # "::" listens on IPv4 too (dual stack); "0.0.0.0" on IPv4 only.
            if (addr.version == 6 and ip.version == 4) or addr.is_link_local or addr.is_multicast:
                continue
            host = _entry(addr, adapter.nice_name)
            found.setdefault(host.address, host)
    for loop in ("127.0.0.1", "::1") if ip.version == 6 else ("127.0.0.1",):
        host = _entry(ipaddress.ip_address(loop), "lo")
        found.setdefault(host.address, host)
    return sorted(found.values(), key=lambda h: (h.loopback, h.address.startswith("[")))


def _entry(addr: ipaddress.IPv4Address | ipaddress.IPv6Address, interface: str) -> HostAddress:
    text = str(addr) if addr.version == 4 else f"[{addr}]"
    return HostAddress(text, interface, addr.is_loopback)
