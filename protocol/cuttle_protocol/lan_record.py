"""The LAN announcement of a hosted game: the DNS-SD TXT record, encoded and strictly decoded.

Pure: no sockets, no zeroconf. Anything on the LAN may answer for ``_cuttle._tcp``, so decoding
treats every byte as hostile and fails only with ``RecordError``. An announcement is a hint;
the handshake and its short authentication code decide who is really at the other end.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

from cuttle_net.games.cuttle.rules import Rules

SERVICE_TYPE = "_cuttle._tcp.local."
# The wire protocol version a host speaks; a record with another version is not offered.
PROTOCOL_VERSION = 1

MAX_NAME_CHARS = 32
MAX_NAME_BYTES = 96
MAX_RULES_BYTES = 128
MAX_KEYS = 16  # unknown keys are ignored, but a record may not be padded without end
MAX_RECORD_BYTES = 512
SEAT_VALUES = {"free": True, "taken": False}

_VERSION = re.compile(rb"[1-9][0-9]{0,2}")


class RecordError(ValueError):
    """An announcement that is malformed, hostile or otherwise unusable."""


class IncompatibleVersion(RecordError):
    """A well-formed version number that this program does not speak."""

    def __init__(self, version: int) -> None:
        super().__init__(
            f"protocol version {version} (this program speaks version {PROTOCOL_VERSION})"
        )
        self.version = version


@dataclass(frozen=True)
class Announcement:
    """What a host tells the LAN: who, on which TCP port, which rules, and if the seat is free."""

    name: str
    port: int
    rules: Rules
    seat_free: bool = True
    version: int = PROTOCOL_VERSION

    def __post_init__(self) -> None:
        if not 1 <= self.port <= 65535:
            raise RecordError(f"port {self.port} is not between 1 and 65535")
        check_name(self.name)


def check_name(name: str) -> None:
    """Raise ``RecordError`` unless ``name`` is a displayable player name within the limits."""
    if not name or name != name.strip():
        raise RecordError("the name is empty or has surrounding spaces")
    if len(name) > MAX_NAME_CHARS or len(name.encode()) > MAX_NAME_BYTES:
        raise RecordError(f"the name is longer than {MAX_NAME_CHARS} characters")
    if any(_unprintable(c) for c in name):
        raise RecordError("the name contains control or formatting characters")


def display_text(text: str) -> str:
    """``text`` with every control, formatting or line-breaking character replaced by ``?``.

    Keeps terminal escape sequences and bidirectional overrides out of anyone's screen.
    """
    return "".join("?" if _unprintable(c) else c for c in text)


def _unprintable(char: str) -> bool:
    category = unicodedata.category(char)
    return category[0] == "C" or category in ("Zl", "Zp")


def encode(announcement: Announcement) -> dict[bytes, bytes]:
    """The TXT properties of ``announcement`` (its port goes in the SRV record)."""
    return {
        b"v": str(announcement.version).encode(),
        b"name": announcement.name.encode(),
        b"rules": announcement.rules.name.encode(),
        b"seat": b"free" if announcement.seat_free else b"taken",
    }


def decode(properties: Mapping[bytes, bytes | None], port: int | None) -> Announcement:
    """Read an announcement from TXT ``properties`` and the SRV ``port``.

    The version is checked first: a record of another version is ``IncompatibleVersion`` and
    the rest of it is not read. Names are made displayable with ``display_text``.
    """
    if len(properties) > MAX_KEYS:
        raise RecordError(f"more than {MAX_KEYS} keys")
    size = sum(len(k) + 1 + len(v or b"") for k, v in properties.items())
    if size > MAX_RECORD_BYTES:
        raise RecordError(f"the record is larger than {MAX_RECORD_BYTES} bytes")
    raw_version = _field(properties, b"v", 3)
    if not _VERSION.fullmatch(raw_version):
        raise RecordError(f"the version {raw_version!r} is not a number")
    version = int(raw_version)
    if version != PROTOCOL_VERSION:
        raise IncompatibleVersion(version)
    if port is None or not 1 <= port <= 65535:
        raise RecordError(f"port {port} is not between 1 and 65535")
    name = display_text(_text(properties, b"name", MAX_NAME_BYTES)).strip()
    try:
        rules = Rules.parse(_text(properties, b"rules", MAX_RULES_BYTES))
    except ValueError as e:  # Rules.parse names the unknown rule set or variant
        raise RecordError(f"bad rules: {display_text(str(e))}") from None
    seat = _text(properties, b"seat", 5)
    if seat not in SEAT_VALUES:
        raise RecordError(f"seat is {display_text(seat)!r}, not free or taken")
    return Announcement(name, port, rules, SEAT_VALUES[seat], version)


def _field(properties: Mapping[bytes, bytes | None], key: bytes, limit: int) -> bytes:
    value = properties.get(key)
    if value is None:
        raise RecordError(f"the key {key.decode()!r} is missing or has no value")
    if len(value) > limit:
        raise RecordError(f"{key.decode()!r} is longer than {limit} bytes")
    return value


def _text(properties: Mapping[bytes, bytes | None], key: bytes, limit: int) -> str:
    try:
        return _field(properties, key, limit).decode()
    except UnicodeDecodeError:
        raise RecordError(f"{key.decode()!r} is not UTF-8") from None
