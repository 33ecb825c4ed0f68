"""Two deck peers linked by an in-memory network that a test can tamper with."""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cuttle_net.deck import Deal, DeckPeer, Op, check_transcript
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


SMALL_DECK = 26  # the protocol does not depend on the deck's size beyond the counts
_DEALT: dict[int, Table] = {}


def dealt(seats: int = 3, cheater: int | None = None, cls: type[DeckPeer] | None = None) -> Table:
    """A table of ``seats`` after an honest deal of three cards each and one face up from a
    26-card deck, ``cheater`` then of class ``cls`` (a class that cheats only after the
    deal). The deal, most of a test's time, is made once per size and copied; each copy
    draws from its own fresh random stream."""
    if seats not in _DEALT:
        _DEALT[seats] = Table(deck_size=SMALL_DECK, seats=seats)
        _DEALT[seats].run(Deal((3,) * seats, 1))
    t = copy.deepcopy(_DEALT[seats])
    for seat, peer in enumerate(t.peers):
        peer.rng = seeded_rng(b"dealt%d/%d" % (seats, seat))  # a copied closure is shared
    if cls is not None and cheater is not None:
        t.peers[cheater].__class__ = cls
    return t
