"""Non-interactive zero-knowledge proofs (Fiat–Shamir, SHA-512 challenges).

* Schnorr proof of knowledge of x with Y = x·G (a peer's key share).
* Chaum–Pedersen proof that log_G(Y) = log_C(D) (a decryption share D = x·C is made with
  the secret behind the peer's published key share Y).

A proof is 64 bytes: challenge c then response s, each a canonical 32-byte scalar. The
verifier recomputes the commitments from (c, s) and returns them, so the caller can notice a
commitment it has seen before: a reused nonce, which would reveal the secret key.
"""

from __future__ import annotations

from .encoding import hash512
from .group import L, Rng, base_mul, mul, scalar_bytes, scalar_from_hash, scalar_from_wire, sub

PROOF_BYTES = 64


class BadProof(ValueError):
    """A proof does not verify."""


def _nonce(secret: int, context: bytes, rng: Rng) -> int:
    # Hedged nonce: secret, statement and fresh randomness, so neither a weak rng nor a
    # repeated statement can repeat it.
    while True:
        k = scalar_from_hash(hash512("nonce", scalar_bytes(secret), context, rng(32)))
        if k:
            return k


def _split(proof: bytes) -> tuple[int, int]:
    if len(proof) != PROOF_BYTES:
        raise BadProof("a proof is 64 bytes")
    try:
        return scalar_from_wire(proof[:32]), scalar_from_wire(proof[32:])
    except ValueError as exc:
        raise BadProof(str(exc)) from exc


def _challenge(tag: str, context: bytes, *points: bytes) -> int:
    return scalar_from_hash(hash512(tag, context, *points))


def prove_key(x: int, y: bytes, context: bytes, rng: Rng) -> bytes:
    """Proof of knowledge of x with y = x·G, bound to ``context``."""
    k = _nonce(x, context + y, rng)
    c = _challenge("schnorr", context, y, base_mul(k))
    return scalar_bytes(c) + scalar_bytes((k + c * x) % L)


def verify_key(y: bytes, proof: bytes, context: bytes) -> bytes:
    """Check a key proof; return its commitment A = s·G - c·Y. Raises BadProof."""
    c, s = _split(proof)
    a = sub(base_mul(s), mul(c, y))
    if _challenge("schnorr", context, y, a) != c:
        raise BadProof("key proof does not verify")
    return a


def prove_share(x: int, y: bytes, c1: bytes, d: bytes, context: bytes, rng: Rng) -> bytes:
    """Chaum–Pedersen proof that d = x·c1 where y = x·G, bound to ``context``."""
    k = _nonce(x, context + c1 + d, rng)
    c = _challenge("chaum-pedersen", context, y, c1, d, base_mul(k), mul(k, c1))
    return scalar_bytes(c) + scalar_bytes((k + c * x) % L)


def verify_share(y: bytes, c1: bytes, d: bytes, proof: bytes, context: bytes) -> bytes:
    """Check a decryption-share proof; return its first commitment A = s·G - c·Y."""
    c, s = _split(proof)
    a = sub(base_mul(s), mul(c, y))
    b = sub(mul(s, c1), mul(c, d))
    if _challenge("chaum-pedersen", context, y, c1, d, a, b) != c:
        raise BadProof("decryption share proof does not verify")
    return a
