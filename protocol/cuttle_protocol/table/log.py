"""The table's relayed log (SPEC.md 3.15): signed entries, hash-chained heads, and the
evidence that convicts a host who shows different logs to different players.

Every entry is signed by its author over the log head it had seen; the host, which orders
the entries, signs the head after each one. Two host signatures over two different heads of
the same length prove that the host equivocated; anyone holding the host's key can check.
"""

from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from cuttle_net.identity_key import verify as _verify

from ..wire.crypto import DOMAIN


def _hash(label: bytes, *parts: bytes) -> bytes:
    return hashlib.sha256(DOMAIN + b"\x00" + label + b"\x00" + b"".join(parts)).digest()


def _u32(n: int) -> bytes:
    return struct.pack(">I", n)


def genesis(table_id: bytes) -> bytes:
    """The head of the empty log of table `table_id`."""
    return _hash(b"table log", table_id)


def post_digest(table_id: bytes, seat: int, seen: int, head: bytes, body: bytes) -> bytes:
    """What an entry's author signs: its seat, the log it had seen, and the body's bytes."""
    return _hash(b"post", table_id, _u32(seat), _u32(seen), head, hashlib.sha256(body).digest())


def watcher_digest(table_id: bytes, key: bytes, seen: int, head: bytes, body: bytes) -> bytes:
    """What a watcher signs for a chat line (SPEC 3.15 *Watchers*): its key stands where a
    seat's number does, under another label, so no seat's entry can pass for a watcher's."""
    return _hash(b"watcher post", table_id, key, _u32(seen), head, hashlib.sha256(body).digest())


def next_head(head: bytes, digest: bytes) -> bytes:
    """The head after appending the entry with `digest` to the log ending at `head`."""
    return _hash(b"log", head, digest)


def relay_statement(length: int, head: bytes) -> bytes:
    """What the host signs after each entry: "the log of `length` entries ends at `head`"."""
    return DOMAIN + b"\x00relay\x00" + _u32(length) + head


def verify(key: Ed25519PublicKey, signature: bytes, data: bytes) -> bool:
    try:
        _verify(key, signature, data)
    except InvalidSignature:
        return False
    return True


@dataclass(frozen=True)
class Equivocation:
    """Proof that the host signed two different logs of one length."""

    length: int
    head: bytes
    signature: bytes
    other_head: bytes
    other_signature: bytes

    def proves(self, host: Ed25519PublicKey) -> bool:
        return (
            self.head != self.other_head
            and verify(host, self.signature, relay_statement(self.length, self.head))
            and verify(host, self.other_signature, relay_statement(self.length, self.other_head))
        )

    def describe(self) -> str:
        return (
            f"the host signed two different logs of {self.length} entries"
            f" (heads {self.head.hex()[:16]}... and {self.other_head.hex()[:16]}...)"
        )


@dataclass(frozen=True)
class LogEntry:
    """One entry as its author signed it."""

    seat: int
    seen: int
    head: bytes  # the head of the log the author had seen (`seen` entries)
    vouch: bytes  # the host's signature over that head
    body: bytes
    sig: bytes


class RelayLog:
    """One player's copy of the log: entries, the head after each, the host's signatures."""

    def __init__(self, table_id: bytes, genesis_relay: bytes) -> None:
        self.table_id = table_id
        self.entries: list[LogEntry] = []
        self.heads: list[bytes] = [genesis(table_id)]  # heads[n]: after n entries
        self.relays: list[bytes] = [genesis_relay]  # relays[n]: the host's signature of heads[n]
        self._digested: tuple[LogEntry, bytes] | None = None  # the last entry digested

    def __len__(self) -> int:
        return len(self.entries)

    @property
    def head(self) -> bytes:
        return self.heads[-1]

    def digest(self, entry: LogEntry) -> bytes:
        # Taking an entry asks for its digest three times (its signature, the head after
        # it, the relay's duplicate check): hashed once. An entry is immutable, so the same
        # object has the same digest.
        if self._digested is not None and self._digested[0] is entry:
            return self._digested[1]
        digest = post_digest(self.table_id, entry.seat, entry.seen, entry.head, entry.body)
        self._digested = (entry, digest)
        return digest

    def holds(self, length: int, head: bytes, signature: bytes) -> bool:
        """Is `signature` the host's over `head` as the log of `length` entries that this log
        holds, checked already? Then checking it again would prove nothing new: Ed25519
        signatures are deterministic, so an honest host's vouch is byte for byte the
        signature it relayed (a verify is the costliest step of taking an entry)."""
        return (
            0 <= length < len(self.heads)
            and head == self.heads[length]
            and signature == self.relays[length]
        )

    def following(self, entry: LogEntry) -> bytes:
        """The head the log would have with `entry` appended."""
        return next_head(self.head, self.digest(entry))

    def append(self, entry: LogEntry, relay: bytes) -> None:
        self.heads.append(self.following(entry))
        self.entries.append(entry)
        self.relays.append(relay)
