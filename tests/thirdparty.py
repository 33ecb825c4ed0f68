"""A third party's reading of SPEC.md's formulas, written from the text alone.

Nothing here imports the product: the canonical encoding and hashes of part 2 §2.2, a deck
message's signature and the round chain of §2.7, the verdict of §2.10, the game header of
§4.1, the move digest of §4.2 and a record's signature of §5.2, over libsodium's
ristretto255 (rbcl) and `cryptography`'s Ed25519. The vector tests check the published
vectors with it, so a formula the code and SPEC read differently fails there.
"""

from __future__ import annotations

import hashlib
from typing import Any

import rbcl
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

DECK_DOMAIN = b"cuttle-net/deck/v2/"
L = 2**252 + 27742317777372353535851937790883648493


def canon(v: Any) -> bytes:
    """SPEC 2.2's table, row by row."""
    if v is True or v is False:
        return b"T" if v else b"F"
    if isinstance(v, int):
        assert 0 <= v < 2**64
        return b"i" + v.to_bytes(8, "big")
    if isinstance(v, bytes):
        return b"b" + len(v).to_bytes(4, "big") + v
    if isinstance(v, str):
        data = v.encode("utf-8")
        return b"s" + len(data).to_bytes(4, "big") + data
    if isinstance(v, list | tuple):
        return b"l" + len(v).to_bytes(4, "big") + b"".join(canon(x) for x in v)
    if isinstance(v, dict):
        keys = sorted(v, key=lambda k: k.encode("utf-8"))
        items = b"".join(canon(k) + canon(v[k]) for k in keys)
        return b"d" + len(v).to_bytes(4, "big") + items
    raise TypeError(type(v))


def h256(tag: str, *parts: Any) -> bytes:
    return hashlib.sha256(DECK_DOMAIN + tag.encode() + b"\x00" + canon(list(parts))).digest()


def h512(tag: str, *parts: Any) -> bytes:
    return hashlib.sha512(DECK_DOMAIN + tag.encode() + b"\x00" + canon(list(parts))).digest()


def card_point(c: int) -> bytes:
    """M_c = HG("card", c) (2.2)."""
    return rbcl.crypto_core_ristretto255_from_hash(h512("card", c))


def decrypt(c1: bytes, c2: bytes, x: int) -> bytes:
    """C2 − x·C1 (2.5), with the joint secret x (the audit's Σ x_i)."""
    if x % L == 0 or c1 == bytes(32):
        return c2
    return rbcl.crypto_core_ristretto255_sub(
        c2, rbcl.crypto_scalarmult_ristretto255((x % L).to_bytes(32, "little"), c1)
    )


def verify_ed25519(key: bytes, sig: bytes, data: bytes) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(key).verify(sig, data)
    except Exception:
        return False
    return True


def message_signed_bytes(message: dict) -> bytes:
    """What a deck message's `sig` signs (2.7): D ‖ "message" ‖ 0x00 ‖ canon(it without sig)."""
    return DECK_DOMAIN + b"message\x00" + canon({k: v for k, v in message.items() if k != "sig"})


class Chain:
    """The hash chain of rounds (2.7): a round is the messages of one `seq`; its head is the
    hash of its one message, else H256("round", their hashes by ascending sender)."""

    def __init__(self, sid: bytes) -> None:
        self.head = h256("genesis", sid)
        self.seq = 0
        self.round: dict[int, bytes] = {}

    def add(self, message: dict) -> None:
        if message["seq"] != self.seq:  # the round before is complete: close it
            assert message["seq"] == self.seq + 1, "a round skipped"
            self.close()
        assert message["prev"] == self.head, "prev is not the head of the round before"
        assert message["from"] not in self.round, "two messages of one seat in a round"
        self.round[message["from"]] = h256("message", message)

    def close(self) -> None:
        if self.round:
            digests = [self.round[s] for s in sorted(self.round)]
            self.head = digests[0] if len(digests) == 1 else h256("round", digests)
            self.seq += 1
            self.round = {}

    def complete_head(self) -> bytes:
        """The head after every message so far (a move is made between operations)."""
        self.close()
        return self.head


def game_session_id(
    connection: bytes, number: int, game: str, rules: str, dealer: int, keys: list[bytes]
) -> bytes:
    """The game header of 4.1: bytes, int, text, text, int, list of bytes."""
    return h256("game", connection, number, game, rules, dealer, keys)


def move_digest(sid: bytes, n: int, prev: bytes, deck_head: bytes, seat: int, text: str) -> bytes:
    """4.2's digest: the move's place, the move before, the deck chain's head, seat, text."""
    return h256("move", sid, n, prev, deck_head, seat, text)


def verdict_digest(sid: bytes, secrets: list[bytes], order: list[int]) -> bytes:
    """2.10: the secrets as 32-byte scalars, the card id at each position of the deck."""
    return h256("verdict", sid, secrets, order)


def deck_order(final_deck: list[list[bytes]], secrets: list[bytes]) -> list[int]:
    """Decrypt the dealt deck with x = Σ x_i and look each point up among the card points."""
    x = sum(int.from_bytes(s, "little") for s in secrets) % L
    n = len(final_deck)
    points = {card_point(c): c for c in range(n)}
    return [points[decrypt(c1, c2, x)] for c1, c2 in final_deck]
