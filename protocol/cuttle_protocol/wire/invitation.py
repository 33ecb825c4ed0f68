"""Invitations: one string, pasted in a chat, that holds every address a host can be reached
at and its identity key's fingerprint (SPEC 3.14).

    cuttle:aeaq…   base32 (RFC 4648, lower case, no padding) of
    version (1 byte) | fingerprint (16 bytes) | addresses | CRC-32 (4 bytes, big-endian)

A joiner given one tries the addresses and, when the host proves the key whose fingerprint
it carries, knows it reached the right host without comparing codes; any other key is refused.
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import re
import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

from .address import format_address

PREFIX = "cuttle:"
VERSION = 1
FINGERPRINT_BYTES = 16  # the first half of SHA-256(key): the fingerprint players see
MAX_ADDRESSES = 8
_IPV4, _IPV6 = 4, 6
_SEPARATORS = re.compile(r"[\s\-]+")  # what chat programs and people put in long strings


class InvitationError(ValueError):
    """Not an invitation, mistyped, or from a newer version."""


_THIS_NETWORK = ipaddress.ip_network("0.0.0.0/8")


def unusable(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    """Why no joiner could dial ``ip`` (None: it can): an address that names no one host
    (unspecified, broadcast, multicast) or, for IPv6 link-local, needs a zone (``%eth0``) the
    16 bytes of an invitation cannot carry and that means nothing on another machine."""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return unusable(ip.ipv4_mapped)
    if ip.is_unspecified or (ip.version == 4 and ip in _THIS_NETWORK):
        return f"{ip} is the unspecified address (this host, any interface), not a host's"
    if ip == ipaddress.IPv4Address("255.255.255.255"):
        return f"{ip} is the broadcast address, not a host's"
    if ip.is_multicast:
        return f"{ip} is a multicast address, not a host's"
    if ip.version == 6 and ip.is_link_local:
        return f"{ip} is a link-local address, which needs a zone an invitation cannot carry"
    return None


def key_fingerprint(identity: bytes) -> bytes:
    """The 16 bytes an invitation carries for the identity key ``identity``."""
    return hashlib.sha256(identity).digest()[:FINGERPRINT_BYTES]


def fingerprint_text(raw: bytes) -> str:
    """``raw`` as players see a fingerprint: hex in 4-digit groups (see crypto.fingerprint)."""
    digits = raw.hex()
    return ":".join(digits[i : i + 4] for i in range(0, len(digits), 4))


def is_invitation(text: str) -> bool:
    return text.strip().lower().startswith(PREFIX)


@dataclass(frozen=True)
class Invitation:
    fingerprint: bytes
    addresses: tuple[tuple[str, int], ...]  # (IP address, port), the host's preference first

    def __post_init__(self) -> None:
        if len(self.fingerprint) != FINGERPRINT_BYTES:
            raise InvitationError(f"a key fingerprint is {FINGERPRINT_BYTES} bytes")
        if not 1 <= len(self.addresses) <= MAX_ADDRESSES:
            raise InvitationError(f"an invitation holds 1 to {MAX_ADDRESSES} addresses")
        for ip, port in self.addresses:
            why = unusable(ipaddress.ip_address(ip))  # a ValueError for anything but an IP
            if why is not None:
                raise InvitationError(f"no joiner can dial it: {why}")
            if not 0 < port < 65_536:
                raise InvitationError(f"port {port} is not 1..65535")

    @classmethod
    def for_key(cls, identity: bytes, addresses: Sequence[tuple[str, int]]) -> Invitation:
        return cls(key_fingerprint(identity), tuple(dict.fromkeys(addresses))[:MAX_ADDRESSES])

    def matches(self, identity: bytes) -> bool:
        return key_fingerprint(identity) == self.fingerprint

    def where(self) -> list[str]:
        return [format_address(ip, port) for ip, port in self.addresses]

    def encode(self) -> str:
        body = bytearray([VERSION]) + self.fingerprint
        for ip, port in self.addresses:
            packed = ipaddress.ip_address(ip).packed
            body += bytes([_IPV4 if len(packed) == 4 else _IPV6]) + packed + struct.pack(">H", port)
        body += struct.pack(">I", zlib.crc32(body))
        return PREFIX + base64.b32encode(bytes(body)).decode().rstrip("=").lower()

    @classmethod
    def decode(cls, text: str) -> Invitation:
        text = _SEPARATORS.sub("", text)
        if not is_invitation(text):
            raise InvitationError(f"an invitation starts with {PREFIX!r}")
        letters = text[len(PREFIX) :].upper()
        bad = sorted(set(letters) - set("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"))
        if bad:
            raise InvitationError(
                f"an invitation has only letters and the digits 2-7, not {''.join(bad)!r}: "
                "it was mistyped; copy it again"
            )
        try:
            raw = base64.b32decode(letters + "=" * (-len(letters) % 8))
        except ValueError:
            raise InvitationError("the invitation is cut or too long: copy it again") from None
        canonical = base64.b32encode(raw).decode().rstrip("=") == letters  # the last letter's
        # spare bits are zero: a typo there would otherwise decode to the same bytes
        if (
            not canonical
            or len(raw) < 1 + FINGERPRINT_BYTES + 4
            or zlib.crc32(raw[:-4]) != int.from_bytes(raw[-4:], "big")
        ):
            raise InvitationError("the invitation's checksum is wrong: it was mistyped or cut")
        if raw[0] != VERSION:
            raise InvitationError(
                f"invitation version {raw[0]}: this cuttle reads version {VERSION} (upgrade?)"
            )
        body = raw[1 + FINGERPRINT_BYTES : -4]
        addresses = []
        while body:
            size = {_IPV4: 4, _IPV6: 16}.get(body[0])
            if size is None or len(body) < 1 + size + 2:
                raise InvitationError("the invitation holds an address of an unknown kind")
            ip = ipaddress.ip_address(body[1 : 1 + size])
            (port,) = struct.unpack(">H", body[1 + size : 3 + size])
            addresses.append((str(ip), port))
            body = body[3 + size :]
        try:
            return cls(raw[1 : 1 + FINGERPRINT_BYTES], tuple(addresses))
        except ValueError as e:
            raise InvitationError(f"the invitation is not valid: {e}") from None
