"""Peer addresses as players type them: `HOST[:PORT]`, IPv6 in brackets."""

from __future__ import annotations

DEFAULT_PORT = 4454
"""The TCP port a host listens on unless told otherwise."""


def parse_address(text: str, default_port: int = DEFAULT_PORT) -> tuple[str, int]:
    """Split `host`, `host:port`, `[v6]` or `[v6]:port` into (host, port)."""
    text = text.strip()
    if text.startswith("["):
        host, bracket, rest = text[1:].partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            raise ValueError(f"bad address {text!r}: expected [IPv6]:PORT")
        port_text = rest[1:]
    elif text.count(":") == 1:
        host, _, port_text = text.partition(":")
    else:  # a bare name, IPv4 address or unbracketed IPv6 address
        host, port_text = text, ""
    if not host:
        raise ValueError(f"bad address {text!r}: no host")
    if not port_text:
        return host, default_port
    if not port_text.isdigit() or not 0 < int(port_text) < 65_536:
        raise ValueError(f"bad address {text!r}: the port must be 1..65535")
    return host, int(port_text)


def format_address(host: str, port: int) -> str:
    """The inverse of `parse_address`: 192.0.2.1:4454, or [2001:db8::1]:4454 for IPv6."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
