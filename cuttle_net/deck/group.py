"""The ed25519 prime-order subgroup, through libsodium's raw group operations (PyNaCl).

Points are their 32-byte canonical encodings; scalars are Python ints modulo ``L``, encoded
as 32 bytes little-endian on the wire. Only the ``noclamp`` functions are used: clamping
would change the scalar and break the algebra of ElGamal and of the proofs.
"""

from __future__ import annotations

from collections.abc import Callable

from nacl import bindings as _na
from nacl.exceptions import RuntimeError as _NaclError

from .encoding import hash512

L = 2**252 + 27742317777372353535851937790883648493
IDENTITY = bytes([1]) + bytes(31)

Rng = Callable[[int], bytes]


class InvalidPoint(ValueError):
    """A received point is not a canonical encoding of a prime-order subgroup element."""


def scalar_bytes(s: int) -> bytes:
    return s.to_bytes(32, "little")


def scalar_from_wire(data: bytes) -> int:
    """A received scalar: exactly 32 bytes, canonical (< L). Raises ValueError otherwise."""
    s = int.from_bytes(data, "little")
    if len(data) != 32 or s >= L:
        raise ValueError("scalar is not a canonical 32-byte encoding below L")
    return s


def scalar_from_hash(digest: bytes) -> int:
    """A scalar from 64 uniform bytes: the reduction is uniform mod L to within 2^-259."""
    return int.from_bytes(digest, "little") % L


def random_scalar(rng: Rng) -> int:
    """A uniform non-zero scalar from 64 random bytes."""
    while True:
        s = scalar_from_hash(rng(64))
        if s:
            return s


def check_point(p: bytes) -> bytes:
    """Validate a received point: canonical, on the curve, in the prime-order subgroup, not
    of small order (so not the identity). Returns it, or raises InvalidPoint."""
    if not isinstance(p, bytes) or len(p) != 32 or not _na.crypto_core_ed25519_is_valid_point(p):
        raise InvalidPoint("not a canonical point of the prime-order subgroup")
    return p


def base_mul(s: int) -> bytes:
    """s·G (the identity for s = 0, which libsodium refuses)."""
    s %= L
    return _na.crypto_scalarmult_ed25519_base_noclamp(scalar_bytes(s)) if s else IDENTITY


def mul(s: int, p: bytes) -> bytes:
    """s·P for a valid point P (the identity for s = 0 or an identity result)."""
    s %= L
    if not s or p == IDENTITY:
        return IDENTITY
    try:
        return _na.crypto_scalarmult_ed25519_noclamp(scalar_bytes(s), p)
    except _NaclError as exc:  # libsodium refuses points outside the subgroup
        raise InvalidPoint("scalar multiplication refused the point") from exc


def add(p: bytes, q: bytes) -> bytes:
    return _na.crypto_core_ed25519_add(p, q)


def sub(p: bytes, q: bytes) -> bytes:
    return _na.crypto_core_ed25519_sub(p, q)


def card_point(card: int) -> bytes:
    """The group element encoding ``card``: Elligator 2 over a domain-separated hash, with the
    cofactor cleared by libsodium. No discrete-log relation between two cards is known, so
    no peer can relate two encrypted cards (unlike small-integer encodings)."""
    digest = hash512("card", card)[:32]
    return _na.crypto_core_ed25519_from_uniform(digest)


def generator(label: str) -> bytes:
    """An extra generator nobody knows a discrete log of (the shuffle argument's H[i])."""
    return _na.crypto_core_ed25519_from_uniform(hash512("generator", label)[:32])


def card_table(deck_size: int) -> dict[bytes, int]:
    """Point → card for the cards 0..deck_size-1, checked valid and pairwise distinct."""
    table = {card_point(c): c for c in range(deck_size)}
    if len(table) != deck_size or not all(map(_na.crypto_core_ed25519_is_valid_point, table)):
        raise AssertionError("card encodings collide or are invalid")  # never, for SHA-512
    return table
