"""Two deck peers linked by an in-memory network that a test can tamper with."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cuttle_net.deck import DeckPeer, Op, check_transcript
from cuttle_net.deck.encoding import DOMAIN, canon

SID = bytes(range(16))


def seeded_rng(seed: bytes) -> Callable[[int], bytes]:
    """A deterministic byte source (SHAKE-256 stream) for reproducible tests."""
    counter = 0

    def rng(n: int) -> bytes:
        nonlocal counter
        counter += 1
        return hashlib.shake_256(seed + counter.to_bytes(8, "big")).digest(n)

    return rng


def identity_keys(seed: int = 0, seats: int = 2) -> list[Ed25519PrivateKey]:
    return [
        Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"id%d/%d" % (seed, s)).digest())
        for s in range(seats)
    ]


class Table:
    """N parties (optionally of malicious classes, by seat) and the messages between them:
    every message goes to every other party, in the order produced."""

    def __init__(
        self,
        classes: dict[int, type[DeckPeer]] | tuple[type[DeckPeer], ...] = (),
        deck_size: int = 52,
        seed: int = 0,
        seats: int = 2,
        faces: int | None = None,
    ):
        cls = dict(enumerate(classes)) if isinstance(classes, tuple) else classes
        self.seats = seats
        self.keys = identity_keys(seed, seats)
        self.deck_size = deck_size
        self.faces = faces
        public = self.public_keys()
        self.peers = [
            cls.get(s, DeckPeer)(
                s,
                SID,
                self.keys[s],
                public,
                deck_size,
                faces=faces,
                rng=seeded_rng(b"peer%d/%d" % (seed, s)),
            )
            for s in range(seats)
        ]
        self.events: list[list[Any]] = [[] for _ in range(seats)]
        self.wire: list[tuple[int, dict]] = []  # every message delivered: (sender, wire)
        # tamper(sender, wire) -> list of wires to deliver instead (re-sign with resign()).
        self.tamper: Callable[[int, dict], list[dict]] | None = None

    def run(self, op: Op, *, only: int | None = None) -> None:
        """Begin ``op`` on every party (or one) and deliver messages until quiet."""
        queue: list[tuple[int, dict]] = []
        for s in range(self.seats) if only is None else (only,):
            out = self.peers[s].begin(op)
            self.events[s] += out.events
            queue += [(s, m) for m in out.messages]
        self.deliver(queue)

    def deliver(self, queue: list[tuple[int, dict]]) -> None:
        while queue:
            sender, msg = queue.pop(0)
            sent = self.tamper(sender, msg) if self.tamper else [msg]
            for m in sent:
                self.wire.append((sender, m))
                for other in range(self.seats):
                    if other != sender:
                        out = self.peers[other].receive(m)
                        self.events[other] += out.events
                        queue += [(other, x) for x in out.messages]

    def public_keys(self):
        return [k.public_key() for k in self.keys]

    def recheck(self, transcript) -> Any:
        return check_transcript(
            transcript,
            self.public_keys(),
            session_id=SID,
            deck_size=self.deck_size,
            faces=self.faces,
        )


def resign(wire: dict, key: Ed25519PrivateKey) -> dict:
    """The message re-signed by ``key`` after a malicious edit."""
    unsigned = {k: v for k, v in wire.items() if k != "sig"}
    return {**unsigned, "sig": key.sign(DOMAIN + b"message\0" + canon(unsigned))}
