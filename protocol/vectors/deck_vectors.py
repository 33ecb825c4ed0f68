"""Test vectors for the deck protocol (SPEC.md part 2): card encodings, and two whole
deterministic games from fixed seeds: two parties (deal, private draw, reveal from hand,
audit) and three parties with a 32-card deck (deal with face-up cards, private draw, public
draw, reveal from hand, random pick, audit).

    python protocol/vectors/deck_vectors.py          # rewrite the JSON files
    python protocol/vectors/deck_vectors.py --check  # compare (what the test suite does)

In the JSON, every byte string is lowercase hex; ints and strs are themselves.
"""

from __future__ import annotations

import hashlib
import json
import sys
from functools import partial
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from cuttle_net.deck import Audit, Deal, DeckPeer, Draw, RandomPick, RevealFromHand
from cuttle_net.deck.encoding import DOMAIN, hash512
from cuttle_net.deck.group import card_point

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a script or loaded by path
from vectorfiles import shake_rng, write_or_check

HERE = Path(__file__).resolve().parent
SESSION_ID = hashlib.sha256(b"cuttle-net deck vector session").digest()[:16]


def hexed(v: Any) -> Any:
    if isinstance(v, bytes):
        return v.hex()
    if isinstance(v, dict):
        return {k: hexed(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [hexed(x) for x in v]
    return v


def card_encodings() -> dict[str, Any]:
    return {
        "description": "card id c -> libsodium crypto_core_ristretto255_from_hash of "
        "SHA-512(domain || 'card' || 0x00 || canon([c])); ids 0..103 (in Cuttle, ids 0..52 "
        "are the cards of SPEC 1.6)",
        "domain": DOMAIN.decode(),
        "cards": [
            {"card": c, "hash": hash512("card", c).hex(), "point": card_point(c).hex()}
            for c in range(104)
        ],
    }


def game(seats: int, deck_size: int, ops: list, description: str) -> dict[str, Any]:
    """Play ``ops`` (each an op, or a function of the parties returning one) at a table of
    ``seats`` parties; every message in the transcript's order (each round's messages by
    ascending sender, SPEC 2.7)."""
    identity_seeds = [hashlib.sha256(b"identity %d" % s).digest() for s in range(seats)]
    rng_seeds = [hashlib.sha256(b"rng %d" % s).digest() for s in range(seats)]
    keys = [Ed25519PrivateKey.from_private_bytes(s) for s in identity_seeds]
    public_keys = [k.public_key() for k in keys]
    peers = [
        DeckPeer(s, SESSION_ID, keys[s], public_keys, deck_size, rng=shake_rng(rng_seeds[s]))
        for s in range(seats)
    ]
    hands: list[list[int]] = []

    def run(op) -> None:
        queue = []
        for s in range(seats):
            queue += [(s, m) for m in peers[s].begin(op).messages]
        while queue:
            sender, wire = queue.pop(0)
            for other in range(seats):
                if other != sender:
                    queue += [(other, m) for m in peers[other].receive(wire).messages]

    for op in ops:
        run(op(peers) if callable(op) else op)
        if not hands:
            hands = [p.my_hand() for p in peers]
    messages = [wire for kind, wire in peers[0].transcript() if kind == "msg"]
    public = [k.public_bytes(Encoding.Raw, PublicFormat.Raw) for k in public_keys]
    return {
        "description": description,
        "seats": seats,
        "deck_size": deck_size,
        "session_id": SESSION_ID.hex(),
        "identity_private_keys": [s.hex() for s in identity_seeds],
        "identity_public_keys": [p.hex() for p in public],
        "rng_seeds": [s.hex() for s in rng_seeds],
        "rng": "call i (from 1) of a party's rng returns SHAKE-256(seed || i as 8-byte "
        "big-endian), truncated to n bytes",
        "hands_after_deal": hands,
        "hands_at_end": [p.my_hand() for p in peers],
        "deck_order": peers[0].deck_order(),
        "messages": [{"digest": _digest(m), "wire": hexed(m)} for m in messages],
    }


def deal() -> dict[str, Any]:
    return game(
        2,
        52,
        [Deal((5, 6)), Draw(0), lambda p: RevealFromHand(0, (p[0].my_hand()[0],)), Audit()],
        "two parties, 52 cards: Deal([5, 6], 0), Draw(0), RevealFromHand(0, [the lowest card "
        "id in seat 0's hand]), Audit",
    )


def deal3() -> dict[str, Any]:
    return game(
        3,
        32,
        [
            Deal((4, 4, 4), 4),
            Draw(1),
            Draw(2, public=True),
            lambda p: RevealFromHand(1, (p[1].my_hand()[0],)),
            RandomPick(0, 1),
            Audit(),
        ],
        "three parties, 32 cards: Deal([4, 4, 4], 4), Draw(1), Draw(2, public), "
        "RevealFromHand(1, [the lowest card id in seat 1's hand]), RandomPick(0, 1), Audit",
    )


def _digest(wire: dict) -> str:
    from cuttle_net.deck import Message

    return Message.from_wire(wire).digest().hex()


FILES = {
    "deck-card-encodings.json": card_encodings,
    "deck-deal.json": deal,
    "deck-deal-3.json": deal3,
}


def render(name: str) -> str:
    return json.dumps(FILES[name](), indent=1) + "\n"


def main(argv: list[str]) -> int:
    return write_or_check(HERE, {name: partial(render, name) for name in FILES}, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
