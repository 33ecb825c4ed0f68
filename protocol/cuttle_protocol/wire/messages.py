"""The message catalogue: small frozen values with exact wire forms (SPEC.md 3.5-3.7).

A message on the wire is a msgpack map whose key "t" names its type. Constructing a message
with bad field values raises `ValueError`; `from_wire` turns the same checks on a peer's map
into a `RemoteProtocolError`.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Self

from ..errors import ErrorCode, RemoteProtocolError
from .codec import check_value

TOKEN = re.compile(r"[a-z0-9][a-z0-9-]{0,31}")
MAX_NAME_LEN = 32
MAX_TEXT_LEN = 200
MAX_LIST_LEN = 32
KEY_SIZE = 32
SIGNATURE_SIZE = 64

# Characters never shown as-is: controls, format (bidi overrides), surrogates, private use,
# unassigned, and line/paragraph separators.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def display_safe(text: str) -> str:
    """`text` with whitespace runs made one space and other invisible or control characters
    (escape sequences, bidi overrides...) replaced by U+FFFD, so a peer's text cannot disguise
    itself or drive the terminal."""
    shown = "".join(
        " " if c.isspace() else "\ufffd" if unicodedata.category(c) in _HIDDEN_CATEGORIES else c
        for c in unicodedata.normalize("NFC", text)
    )
    return " ".join(shown.split())


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(message)


# Each check words its error only when it fails: formatting it every time was a third of
# building a message, and every frame sent or read builds one.


def _check_int(value: object, name: str, low: int, high: int) -> None:
    if not (type(value) is int and low <= value <= high):
        raise ValueError(f"{name} must be an int in {low}..{high}")


def _check_text(value: object, name: str, low: int, high: int) -> None:
    if not (type(value) is str and low <= len(value) <= high):
        raise ValueError(f"{name} must be a str of {low}..{high} characters")


def _check_token(value: object, name: str) -> None:
    if not (type(value) is str and TOKEN.fullmatch(value) is not None):
        raise ValueError(f"{name} must be a token")


def _check_bytes(value: object, name: str, size: int) -> None:
    if not (type(value) is bytes and len(value) == size):
        raise ValueError(f"{name} must be {size} bytes")


def _check_tokens(value: object, name: str, high: int, low: int = 0) -> None:
    _check(type(value) is tuple and low <= len(value) <= high, f"{name}: {low}..{high} items")
    for item in value:  # type: ignore[union-attr]
        _check_token(item, f"an item of {name}")
    _check(len(set(value)) == len(value), f"{name} has duplicates")  # type: ignore[arg-type]


@functools.cache
def _names(cls: type) -> tuple[str, ...]:
    """A message class's field names in declared order (`fields` walks the class each call,
    and every frame sent or read asks)."""
    return tuple(f.name for f in fields(cls))


@functools.cache
def _name_set(cls: type) -> frozenset[str]:
    return frozenset(_names(cls))


@dataclass(frozen=True)
class Message:
    """Base of every message; `TYPE` is its "t" value on the wire."""

    TYPE: ClassVar[str]
    # The first frames (commit, hello) ignore unknown keys, so later versions can extend
    # them and still meet this one (SPEC.md 3.10).
    IGNORES_UNKNOWN_KEYS: ClassVar[bool] = False

    def __post_init__(self) -> None:
        # Lists from the wire or the caller become tuples so every message stays immutable.
        for name in _names(type(self)):
            if type(getattr(self, name)) is list:
                object.__setattr__(self, name, tuple(getattr(self, name)))
        self.validate()

    def validate(self) -> None:
        """Raise ValueError unless every field has its exact type and bounds."""

    def to_wire(self) -> dict[str, Any]:
        """The msgpack map for this message: "t" first, then the fields in declared order."""
        wire: dict[str, Any] = {"t": self.TYPE}
        for name in _names(type(self)):
            value = getattr(self, name)
            wire[name] = list(value) if type(value) is tuple else value
        return wire

    @classmethod
    def from_wire(cls, wire: dict[str, Any]) -> Self:
        """Build the message from a peer's map, or raise `malformed-message`."""
        names = _name_set(cls)
        keys = wire.keys() - {"t"}
        missing = names - keys
        if missing:
            raise RemoteProtocolError(
                ErrorCode.MALFORMED_MESSAGE, f"{cls.TYPE}: missing {', '.join(sorted(missing))}"
            )
        if keys - names and not cls.IGNORES_UNKNOWN_KEYS:
            raise RemoteProtocolError(
                ErrorCode.MALFORMED_MESSAGE,
                f"{cls.TYPE}: unknown field(s) {', '.join(sorted(keys - names))}",
            )
        try:
            return cls(**{name: wire[name] for name in names})
        except ValueError as exc:
            raise RemoteProtocolError(ErrorCode.MALFORMED_MESSAGE, f"{cls.TYPE}: {exc}") from None


# --- handshake --------------------------------------------------------------------------


@dataclass(frozen=True)
class Commit(Message):
    """The joiner's first frame, in plaintext: a hash of the hello it will send once it has
    the host's, so neither hello can be chosen after seeing the other (SPEC.md 3.6)."""

    TYPE = "commit"
    IGNORES_UNKNOWN_KEYS = True  # the first frame, like hello: later versions may extend it
    hello: bytes

    def validate(self) -> None:
        _check_bytes(self.hello, "hello", KEY_SIZE)


@dataclass(frozen=True)
class Hello(Message):
    """Each side's key-exchange frame, sent in plaintext."""

    TYPE = "hello"
    IGNORES_UNKNOWN_KEYS = True

    versions: tuple[int, ...]
    caps: tuple[str, ...]
    role: str
    name: str
    identity: bytes
    ephemeral: bytes

    def validate(self) -> None:
        _check(type(self.versions) is tuple and 1 <= len(self.versions) <= 16, "versions: 1..16")
        for version in self.versions:
            _check_int(version, "a version", 1, 65_535)
        _check_tokens(self.caps, "caps", MAX_LIST_LEN)
        _check(self.role in ("host", "joiner"), "role must be host or joiner")
        _check_text(self.name, "name", 1, MAX_NAME_LEN)
        _check_bytes(self.identity, "identity", KEY_SIZE)
        _check_bytes(self.ephemeral, "ephemeral", KEY_SIZE)


@dataclass(frozen=True)
class Auth(Message):
    """The sender's Ed25519 signature over the handshake transcript."""

    TYPE = "auth"
    signature: bytes

    def validate(self) -> None:
        _check_bytes(self.signature, "signature", SIGNATURE_SIZE)


@dataclass(frozen=True)
class Flip(Message):
    """Retired (wire version 5): the joiner's coin-flip commitment of earlier versions'
    handshakes. Reserved, decoded, and never allowed (`unexpected-message`)."""

    TYPE = "flip"
    commit: bytes

    def validate(self) -> None:
        _check_bytes(self.commit, "commit", KEY_SIZE)


@dataclass(frozen=True)
class Propose(Message):
    """The host's game (`rules`) and its options (`variants`)."""

    TYPE = "propose"
    rules: str
    variants: tuple[str, ...]

    def validate(self) -> None:
        _check_token(self.rules, "rules")
        _check_tokens(self.variants, "variants", MAX_LIST_LEN)


@dataclass(frozen=True)
class Accept(Message):
    """The joiner agrees to the proposed rules: the handshake is complete."""

    TYPE = "accept"


# --- game -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Move(Message):
    """One move in the rules notation (SPEC.md part 1), signed by its player (SPEC.md 4.2)."""

    TYPE = "move"
    text: str
    sig: bytes

    def validate(self) -> None:
        _check_text(self.text, "text", 1, MAX_TEXT_LEN)
        _check_bytes(self.sig, "sig", SIGNATURE_SIZE)


@dataclass(frozen=True)
class DeckPayload(Message):
    """An opaque deck-protocol message; the deck protocol validates its contents."""

    TYPE = "deck"
    data: dict[str, Any] = field(hash=False)

    def validate(self) -> None:
        _check(type(self.data) is dict, "data must be a map")
        try:
            check_value({"t": self.TYPE, "data": self.data})
        except RemoteProtocolError as exc:
            raise ValueError(exc.message) from None


@dataclass(frozen=True)
class RematchRequest(Message):
    """Asks for another game on this connection."""

    TYPE = "rematch"


@dataclass(frozen=True)
class RematchAnswer(Message):
    """Answers a `RematchRequest`."""

    TYPE = "rematch-answer"
    accept: bool

    def validate(self) -> None:
        _check(type(self.accept) is bool, "accept must be a bool")


@dataclass(frozen=True)
class Resume(Message):
    """First message on a reconnection: how many game messages (`move`, `deck`) of game
    number `game` the sender had received; the other side re-sends the rest (SPEC 4.6)."""

    TYPE = "resume"
    game: int
    received: int

    def validate(self) -> None:
        _check_int(self.game, "game", 0, 2**32 - 1)
        _check_int(self.received, "received", 0, 2**32 - 1)


@dataclass(frozen=True)
class Ping(Message):
    """Keepalive; the receiver answers with a `Pong` carrying the same `n`."""

    TYPE = "ping"
    n: int

    def validate(self) -> None:
        _check_int(self.n, "n", 0, 2**32 - 1)


@dataclass(frozen=True)
class Pong(Message):
    """The answer to a `Ping`."""

    TYPE = "pong"
    n: int

    def validate(self) -> None:
        _check_int(self.n, "n", 0, 2**32 - 1)


@dataclass(frozen=True)
class Close(Message):
    """The sender is ending the connection; `code` says why (an `ErrorCode` or a new token)."""

    TYPE = "close"
    code: str
    reason: str

    def validate(self) -> None:
        _check_token(self.code, "code")
        _check_text(self.reason, "reason", 0, MAX_TEXT_LEN)


# --- the N-player table (SPEC.md 3.15) ----------------------------------------------------

MAX_SEATS = 6
MAX_ENTRY_BODY = 1_040_000
"""The largest body of a table entry: a frame holds it with the entry's other fields."""


def _check_bin(value: object, name: str, low: int, high: int) -> None:
    if not (type(value) is bytes and low <= len(value) <= high):
        raise ValueError(f"{name} must be {low}..{high} bytes")


@dataclass(frozen=True)
class TableStatus(Message):
    """Host -> joiner, in the lobby: the table and who sits at it so far (seat order)."""

    TYPE = "table"
    id: bytes
    game: str
    options: tuple[str, ...]
    seats: int
    you: int
    players: tuple[tuple[str, bytes], ...]

    def validate(self) -> None:
        _check_bytes(self.id, "id", KEY_SIZE)
        _check_token(self.game, "game")
        _check_tokens(self.options, "options", MAX_LIST_LEN)
        _check_int(self.seats, "seats", 2, MAX_SEATS)
        _check(type(self.players) is tuple, "players must be an array")
        players = tuple(tuple(p) if type(p) is list else p for p in self.players)
        object.__setattr__(self, "players", players)
        _check(1 <= len(players) <= self.seats, "players: 1..seats")
        for player in players:
            _check(type(player) is tuple and len(player) == 2, "a player is [name, identity]")
            _check_text(player[0], "a player's name", 1, MAX_NAME_LEN)
            _check_bytes(player[1], "a player's identity", KEY_SIZE)
        _check_int(self.you, "you", 1, len(players) - 1)

    def to_wire(self) -> dict[str, Any]:
        wire = super().to_wire()
        wire["players"] = [list(p) for p in self.players]
        return wire


@dataclass(frozen=True)
class Post(Message):
    """Joiner -> host: an entry for the table's log, signed by its author (SPEC 3.15)."""

    TYPE = "post"
    seen: int
    head: bytes
    vouch: bytes
    body: bytes
    sig: bytes

    def validate(self) -> None:
        _check_int(self.seen, "seen", 0, 2**32 - 1)
        _check_bytes(self.head, "head", KEY_SIZE)
        _check_bytes(self.vouch, "vouch", SIGNATURE_SIZE)
        _check_bin(self.body, "body", 1, MAX_ENTRY_BODY)
        _check_bytes(self.sig, "sig", SIGNATURE_SIZE)


@dataclass(frozen=True)
class Entry(Message):
    """Host -> joiner: entry `n` of the table's log, as its author signed it, with the host's
    signature over the log it ends (SPEC 3.15)."""

    TYPE = "entry"
    n: int
    seat: int
    seen: int
    head: bytes
    vouch: bytes
    body: bytes
    sig: bytes
    relay: bytes

    def validate(self) -> None:
        _check_int(self.n, "n", 0, 2**32 - 2)
        _check_int(self.seat, "seat", 0, MAX_SEATS - 1)
        _check_int(self.seen, "seen", 0, 2**32 - 1)
        _check_bytes(self.head, "head", KEY_SIZE)
        _check_bytes(self.vouch, "vouch", SIGNATURE_SIZE)
        _check_bin(self.body, "body", 1, MAX_ENTRY_BODY)
        _check_bytes(self.sig, "sig", SIGNATURE_SIZE)
        _check_bytes(self.relay, "relay", SIGNATURE_SIZE)


CATALOGUE: dict[str, type[Message]] = {
    m.TYPE: m
    for m in (
        Commit,
        Hello,
        Auth,
        Flip,
        Propose,
        Accept,
        Move,
        DeckPayload,
        RematchRequest,
        RematchAnswer,
        Resume,
        Ping,
        Pong,
        Close,
        TableStatus,
        Post,
        Entry,
    )
}
GAME_MESSAGES = frozenset(
    {Move, DeckPayload, RematchRequest, RematchAnswer, Resume, Ping, Pong, TableStatus, Post, Entry}
)


def message_from_wire(wire: object) -> Message:
    """Identify and build the message a decoded frame holds."""
    if type(wire) is not dict:
        raise RemoteProtocolError(ErrorCode.MALFORMED_MESSAGE, "a message must be a map")
    kind = wire.get("t")
    if type(kind) is not str:
        raise RemoteProtocolError(ErrorCode.MALFORMED_MESSAGE, 'a message needs a str "t"')
    cls = CATALOGUE.get(kind)
    if cls is None:
        raise RemoteProtocolError(
            ErrorCode.UNKNOWN_MESSAGE, f"unknown message type {display_safe(kind)[:40]!r}"
        )
    return cls.from_wire(wire)
