"""The LAN announcement of a hosted game: the DNS-SD TXT record, encoded and strictly decoded.

Pure: no sockets, no zeroconf. Anything on the LAN may answer for ``_cuttle._tcp``, so decoding
treats every byte as hostile and fails only with ``RecordError``. An announcement is a hint;
the handshake and its short authentication code decide who is really at the other end.

A two-player Cuttle game and a table of several players (SPEC 3.15) share the record: a table
adds the keys ``game``, ``seats`` and ``taken`` (SPEC 3.13).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cuttle_net.games import GAMES

SERVICE_TYPE = "_cuttle._tcp.local."
# The wire protocol version a host speaks; a record with another version is not offered.
PROTOCOL_VERSION = 1

MAX_NAME_CHARS = 32
MAX_NAME_BYTES = 96
MAX_RULES_BYTES = 128
MAX_GAME_BYTES = 32
MAX_KEYS = 16  # unknown keys are ignored, but a record may not be padded without end
MAX_RECORD_BYTES = 512
SEAT_VALUES = {"free": True, "taken": False}
CUTTLE = "cuttle"  # the game of a record without a `game` key

_VERSION = re.compile(rb"[1-9][0-9]{0,2}")
_COUNT = re.compile(rb"[1-9]")  # seats and taken: a table has at most 6 seats (SPEC 3.15)
_GAME = re.compile(r"[a-z][a-z0-9-]{0,31}")


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
    """What a host tells the LAN: who, on which TCP port, which game under which rules, and
    its seats: how many (the host's included) and how many are taken. A Cuttle game has two
    seats; a table (SPEC 3.15) two to six.

    ``rules`` is the game's rules object (``GameModule.parse_rules``): Cuttle's ``Rules``, or
    a table game's; its ``name`` is the token the record carries.
    """

    name: str
    port: int
    rules: Any
    taken: int = 1
    version: int = PROTOCOL_VERSION
    game: str = CUTTLE
    seats: int = 2
    watchers: bool = False  # a table that takes watchers (`cuttle watch`, SPEC 3.15)

    def __post_init__(self) -> None:
        if not 1 <= self.port <= 65535:
            raise RecordError(f"port {self.port} is not between 1 and 65535")
        check_name(self.name)
        if not 1 <= self.taken <= self.seats:
            raise RecordError(f"{self.taken} of {self.seats} seats taken")

    @property
    def seat_free(self) -> bool:
        return self.taken < self.seats

    @property
    def table(self) -> bool:
        """A table of several players, joined as in SPEC 3.15 (not a two-player Cuttle game)."""
        return self.game != CUTTLE


def seats_text(announcement: Announcement, watch_words: bool = True) -> str:
    """The seats as a list shows them: "seat free" (Cuttle), "2 of 4 seats taken" (a table),
    then whether watchers are welcome (unless the list says it its own way)."""
    watch = ", watchers welcome" if announcement.watchers and watch_words else ""
    if not announcement.table:
        return ("seat free" if announcement.seat_free else "seat taken") + watch
    return f"{announcement.taken} of {announcement.seats} seats taken{watch}"


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
    """The TXT properties of ``announcement`` (its port goes in the SRV record). A Cuttle
    game's record is the original one: no ``game``, ``seats`` or ``taken``."""
    a = announcement
    properties = {
        b"v": str(a.version).encode(),
        b"name": a.name.encode(),
        b"rules": a.rules.name.encode(),
        b"seat": b"free" if a.seat_free else b"taken",
    }
    if a.table:
        properties |= {b"game": a.game.encode(), b"seats": b"%d" % a.seats}
        properties[b"taken"] = b"%d" % a.taken
    if a.watchers:  # (a Cuttle game too: a reader of the original record ignores the key)
        properties[b"watch"] = b"yes"
    return properties


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
    if b"game" in properties:
        game = _text(properties, b"game", MAX_GAME_BYTES)
    elif b"seats" in properties or b"taken" in properties:
        # Seat counts belong to a record that names its game: a table's that lost its
        # `game`, not Cuttle's original record (which has none), so say what is missing.
        raise RecordError("the key 'game' is missing (a record with seat counts names its game)")
    else:
        game = CUTTLE  # the original two-player record, which a Cuttle host still sends
    if not _GAME.fullmatch(game):
        raise RecordError(f"the game {display_text(game)!r} is not a lower-case token")
    if game not in GAMES:
        raise RecordError(f"unknown game {game!r}")
    module = _module(game)
    # A Cuttle record may leave out the seat counts (the original record has none).
    seats = 2 if game == CUTTLE and b"seats" not in properties else _count(properties, b"seats")
    if seats not in module.seats:
        low, high = module.seats[0], module.seats[-1]
        raise RecordError(f"{game} is played by {low} to {high} players, not {seats}")
    try:
        rules = module.parse_rules(_text(properties, b"rules", MAX_RULES_BYTES), seats)
    except ValueError as e:  # the game names the unknown rule set, variant or option
        raise RecordError(f"bad rules: {display_text(str(e))}") from None
    seat = _text(properties, b"seat", 5)
    if seat not in SEAT_VALUES:
        raise RecordError(f"seat is {display_text(seat)!r}, not free or taken")
    free = SEAT_VALUES[seat]
    if game == CUTTLE and b"taken" not in properties:
        taken = 1 if free else 2
    else:
        taken = _count(properties, b"taken")
        if taken > seats or (taken < seats) != free:
            raise RecordError(f"{taken} of {seats} seats taken, and seat is {seat}")
    watch = properties.get(b"watch")
    if watch not in (None, b"yes"):
        raise RecordError(f"watch is {display_text(watch.decode(errors='replace'))!r}, not yes")
    return Announcement(name, port, rules, taken, version, game, seats, watch == b"yes")


def _module(game: str) -> Any:
    from cuttle_net.games.interface import game_module  # loads the game's engine: only here

    return game_module(game)


def _count(properties: Mapping[bytes, bytes | None], key: bytes) -> int:
    value = _field(properties, key, 1)
    if not _COUNT.fullmatch(value):
        raise RecordError(f"{key.decode()!r} is not a number from 1 to 9")
    return int(value)


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
