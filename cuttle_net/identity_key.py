"""Ed25519 identity keys as they arrive from outside: a hello, a deck peer, a record tag.

``Ed25519PublicKey.from_public_bytes`` accepts any 32 bytes that decode to a curve point,
including the eight small-order points, for which one fixed signature verifies every
message.  An identity key here must be a canonical encoding of a point in the prime-order
subgroup, which every honestly generated key is (``a·B``); libsodium's point check says
exactly that.
"""

from __future__ import annotations

import nacl.bindings as _na
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

IDENTITY_KEY_LEN = 32
SIGNATURE_LEN = 64


class BadIdentityKey(ValueError):
    """The bytes are not a usable Ed25519 identity key; the message says why."""


def check_identity_key(raw: bytes) -> bytes:
    """Return ``raw`` if it is a usable identity key, else raise ``BadIdentityKey``."""
    if not isinstance(raw, bytes) or len(raw) != IDENTITY_KEY_LEN:
        raise BadIdentityKey(f"an identity key is {IDENTITY_KEY_LEN} bytes")
    if not _na.crypto_core_ed25519_is_valid_point(raw):
        raise BadIdentityKey(
            "the identity key is not a canonical point of the prime-order subgroup "
            "(small-order, non-canonical or off the curve)"
        )
    return raw


def identity_public_key(raw: bytes) -> Ed25519PublicKey:
    """The verifying key for ``raw``, after ``check_identity_key``."""
    return Ed25519PublicKey.from_public_bytes(check_identity_key(raw))


def sign(key: Ed25519PrivateKey, data: bytes) -> bytes:
    """``key.sign(data)``, byte for byte (Ed25519 signatures are deterministic, RFC 8032),
    made by libsodium: about twice as fast as OpenSSL's, and a move signs several times."""
    return _na.crypto_sign(data, _secret(key))[: _na.crypto_sign_BYTES]


_SECRETS: dict[int, tuple[Ed25519PrivateKey, bytes]] = {}


def _secret(key: Ed25519PrivateKey) -> bytes:
    """libsodium's secret key (seed and public key) for `key`: taken once per key object
    (taking it costs a fifth of a signature). The entry holds the object, so its id is not
    reused while it is here; a process holds a few identity keys, tests many: at 16 the
    memo starts again."""
    held = _SECRETS.get(id(key))
    if held is None or held[0] is not key:
        if len(_SECRETS) >= 16:
            _SECRETS.clear()
        secret = key.private_bytes_raw() + key.public_key().public_bytes_raw()
        held = _SECRETS[id(key)] = (key, secret)
    return held[1]


def verify(key: Ed25519PublicKey, signature: bytes, data: bytes) -> None:
    """``key.verify(signature, data)``: raise ``InvalidSignature`` unless it verifies.

    libsodium checks first (about twice as fast as OpenSSL); what it refuses, OpenSSL
    decides. libsodium accepts a subset of what OpenSSL does (the same cofactorless
    equation, plus refusals of small-order points), so the signatures accepted are exactly
    those ``key.verify`` accepts: a peer's odd but valid signature is not refused here when
    another implementation would take it."""
    if type(signature) is not bytes or len(signature) != SIGNATURE_LEN:
        # libsodium's combined form (signature ‖ data) would read a longer "signature" as
        # one of a longer text, which no other implementation accepts.
        raise InvalidSignature(f"an Ed25519 signature is {SIGNATURE_LEN} bytes")
    try:
        _na.crypto_sign_open(signature + data, key.public_bytes_raw())
        return
    except Exception:  # refused, or not bytes: OpenSSL's verdict (and its exception)
        pass
    key.verify(signature, data)


__all__ = [
    "IDENTITY_KEY_LEN",
    "BadIdentityKey",
    "check_identity_key",
    "identity_public_key",
    "sign",
    "verify",
]
