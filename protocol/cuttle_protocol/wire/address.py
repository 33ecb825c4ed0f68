"""Peer addresses as players type them: `HOST[:PORT]`, IPv6 in brackets."""

from __future__ import annotations

import ipaddress

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
    _check_host(host, text)
    if not port_text:
        return host, default_port
    if not port_text.isdigit() or not 0 < int(port_text) < 65_536:
        raise ValueError(f"bad address {text!r}: the port must be 1..65535")
    return host, int(port_text)


def format_address(host: str, port: int) -> str:
    """The inverse of `parse_address`: 192.0.2.1:4454, or [2001:db8::1]:4454 for IPv6."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _check_host(host: str, text: str) -> None:
    """Refuse what cannot name a host before it is looked up: a lookup of a URL or of
    ``300.1.1.1`` fails late and says only that the name is unknown."""
    if "://" in text or "/" in host:
        raise ValueError(f"bad address {text!r}: give HOST[:PORT], without http:// or a path")
    bracketed = text.startswith("[")  # brackets are for IPv6 only
    if ":" in host or bracketed or host.replace(".", "").isdigit():
        kind = 6 if ":" in host or bracketed else 4
        try:
            ok = ipaddress.ip_address(host).version == kind
        except ValueError:
            ok = False
        if not ok:
            raise ValueError(f"bad address {text!r}: {host!r} is not an IPv{kind} address")
        return
    labels = host.removesuffix(".").split(".")  # a final dot is a fully qualified name
    if not all(_is_label(label) for label in labels) or len(host) > 253:
        raise ValueError(
            f"bad address {text!r}: a host name has letters, digits and '-', in parts "
            "separated by dots"
        )


def _is_label(label: str) -> bool:
    """One part of a host name (underscores are let through: some local names have them)."""
    return (
        0 < len(label) <= 63
        and all(c.isalnum() or c in "-_" for c in label)
        and not label.startswith("-")
        and not label.endswith("-")
    )
