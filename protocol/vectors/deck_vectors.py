"""Test vectors for the deck protocol (SPEC.md part 2): card encodings, and a whole
deterministic game (deal, private draw, reveal from hand, audit) from fixed seeds.

    python protocol/vectors/deck_vectors.py          # rewrite the JSON files
    python protocol/vectors/deck_vectors.py --check  # compare (what the test suite does)

In the JSON, every byte string is lowercase hex; ints and strs are themselves.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from cuttle_net.deck import Audit, DeckPeer, Draw, RevealFromHand, ShuffleAndDeal
from cuttle_net.deck.encoding import DOMAIN, hash512
from cuttle_net.deck.group import card_point
from cuttle_net.games.cuttle.cards import card_text

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


def rng_for(seed: bytes):
    """The vectors' byte source: call i (from 1) returns SHAKE-256(seed || i as 8 bytes
    big-endian), truncated to the n bytes asked for."""
    calls = 0

    def rng(n: int) -> bytes:
        nonlocal calls
        calls += 1
        return hashlib.shake_256(seed + calls.to_bytes(8, "big")).digest(n)

    return rng


def card_encodings() -> dict[str, Any]:
    return {
        "description": "card c -> Elligator 2 (libsodium crypto_core_ed25519_from_uniform) of "
        "the first 32 bytes of SHA-512(domain || 'card' || 0x00 || canon([c]))",
        "domain": DOMAIN.decode(),
        "cards": [
            {
                "card": c,
                "text": card_text(c),
                "uniform": hash512("card", c)[:32].hex(),
                "point": card_point(c).hex(),
            }
            for c in range(53)
        ],
    }


def deal() -> dict[str, Any]:
    identity_seeds = [hashlib.sha256(b"identity %d" % s).digest() for s in (0, 1)]
    rng_seeds = [hashlib.sha256(b"rng %d" % s).digest() for s in (0, 1)]
    keys = [Ed25519PrivateKey.from_private_bytes(s) for s in identity_seeds]
    peers = [
        DeckPeer(s, SESSION_ID, keys[s], keys[1 - s].public_key(), rng=rng_for(rng_seeds[s]))
        for s in (0, 1)
    ]
    messages: list[dict[str, Any]] = []
    hands: list[list[str]] = []

    def run(op) -> None:
        queue = []
        for s in (0, 1):
            queue += [(s, m) for m in peers[s].begin(op).messages]
        while queue:
            sender, wire = queue.pop(0)
            messages.append(wire)
            queue += [(1 - sender, m) for m in peers[1 - sender].receive(wire).messages]

    run(ShuffleAndDeal())
    hands.append([card_text(c) for c in peers[0].my_hand()])
    hands.append([card_text(c) for c in peers[1].my_hand()])
    run(Draw(0))
    shown = peers[0].my_hand()[0]
    run(RevealFromHand(0, (shown,)))
    run(Audit())
    public = [k.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw) for k in keys]
    return {
        "description": "seat 0 and seat 1 play: ShuffleAndDeal, Draw(0), "
        "RevealFromHand(0, [first card of seat 0's sorted hand]), Audit",
        "session_id": SESSION_ID.hex(),
        "identity_private_keys": [s.hex() for s in identity_seeds],
        "identity_public_keys": [p.hex() for p in public],
        "rng_seeds": [s.hex() for s in rng_seeds],
        "rng": "call i (from 1) of a peer's rng returns SHAKE-256(seed || i as 8-byte "
        "big-endian), truncated to n bytes",
        "hands_after_deal": hands,
        "hand_of_seat_0_at_end": [card_text(c) for c in peers[0].my_hand()],
        "revealed": card_text(shown),
        "messages": [{"digest": _digest(m), "wire": hexed(m)} for m in messages],
    }


def _digest(wire: dict) -> str:
    from cuttle_net.deck import Message

    return Message.from_wire(wire).digest().hex()


FILES = {"deck-card-encodings.json": card_encodings, "deck-deal.json": deal}


def render(name: str) -> str:
    return json.dumps(FILES[name](), indent=1) + "\n"


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for name in FILES:
        text, path = render(name), HERE / name
        if check:
            if not path.exists() or path.read_text() != text:
                stale.append(name)
        else:
            path.write_text(text)
    if stale:
        print("stale vectors:", ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
