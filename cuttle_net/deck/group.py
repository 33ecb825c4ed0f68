"""The ristretto255 group, through libsodium's ristretto255 functions (bundled by ``rbcl``).

Points are their 32-byte canonical encodings; scalars are Python ints modulo ``L``, encoded
as 32 bytes little-endian on the wire. ristretto255 is a prime-order group built on
edwards25519: every canonical encoding is a group element, so there is no cofactor to clear
and no small subgroup to guard against; validation is a cheap canonical-decoding check.
libsodium's ``crypto_scalarmult_ristretto255`` does not clamp (it ignores only the top bit,
and our scalars are below L < 2^253), so the algebra of ElGamal and of the proofs holds.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from collections.abc import Callable

import rbcl as _rb

from .encoding import hash512


def _remove_libsodium_copy() -> None:
    """rbcl (1.1.2) writes its bundled libsodium to a fresh temporary file at every import
    and never removes it: 2.7 MB left in the temporary folder by every process. The library
    is loaded by now, so its file can go; where a loaded library cannot be removed (Windows)
    it stays."""
    path = getattr(sys.modules.get("rbcl._sodium"), "lib_path", None)
    if isinstance(path, str):
        with contextlib.suppress(OSError):
            os.remove(path)


_remove_libsodium_copy()

L = 2**252 + 27742317777372353535851937790883648493
IDENTITY = bytes(32)

Rng = Callable[[int], bytes]


class InvalidPoint(ValueError):
    """A received point is not the canonical encoding of a group element other than the
    identity."""


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
    """Validate a received point: a canonical ristretto255 encoding, not the identity.
    Returns it, or raises InvalidPoint."""
    if (
        not isinstance(p, bytes)
        or len(p) != 32
        or p == IDENTITY
        or not _rb.crypto_core_ristretto255_is_valid_point(p)
    ):
        raise InvalidPoint("not the canonical encoding of a ristretto255 group element")
    return p


def base_mul(s: int) -> bytes:
    """s·G (the identity for s = 0, which libsodium refuses)."""
    s %= L
    return _rb.crypto_scalarmult_ristretto255_base(scalar_bytes(s)) if s else IDENTITY


def mul(s: int, p: bytes) -> bytes:
    """s·P for a valid point P (the identity for s = 0 or P the identity)."""
    s %= L
    if not s or p == IDENTITY:
        return IDENTITY
    try:
        return _rb.crypto_scalarmult_ristretto255(scalar_bytes(s), p)
    except RuntimeError as exc:  # libsodium refuses an encoding that does not decode
        raise InvalidPoint("scalar multiplication refused the point") from exc


def add(p: bytes, q: bytes) -> bytes:
    return _rb.crypto_core_ristretto255_add(p, q)


def sub(p: bytes, q: bytes) -> bytes:
    return _rb.crypto_core_ristretto255_sub(p, q)


def hash_to_group(tag: str, *parts: object) -> bytes:
    """A group element nobody knows a discrete log of: ristretto255's one-way map of a
    domain-separated SHA-512 hash."""
    return _rb.crypto_core_ristretto255_from_hash(hash512(tag, *parts))


@functools.cache  # a constant: each game's deal asked for every card twice, at every seat
def card_point(card: int) -> bytes:
    """The group element encoding card id ``card``. No discrete-log relation between two
    cards is known, so no peer can relate two encrypted cards (unlike small-integer
    encodings)."""
    return hash_to_group("card", card)


def generator(label: str) -> bytes:
    """An extra generator nobody knows a discrete log of (the shuffle argument's H[i])."""
    return hash_to_group("generator", label)


def card_table(deck_size: int) -> dict[bytes, int]:
    """Point → card for the cards 0..deck_size-1, checked valid and pairwise distinct."""
    return dict(_card_table(deck_size))  # the caller's own copy


@functools.cache
def _card_table(deck_size: int) -> dict[bytes, int]:
    table = {card_point(c): c for c in range(deck_size)}
    if len(table) != deck_size or IDENTITY in table:
        raise AssertionError("card encodings collide")  # never, for SHA-512
    return table
