"""Ed25519 identity keys as they arrive from outside: a hello, a deck peer, a record tag.

``Ed25519PublicKey.from_public_bytes`` accepts any 32 bytes that decode to a curve point,
including the eight small-order points, for which one fixed signature verifies every
message.  An identity key here must be a canonical encoding of a point in the prime-order
subgroup, which every honestly generated key is (``a·B``); libsodium's point check says
exactly that.
"""

from __future__ import annotations

import nacl.bindings as _na
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

IDENTITY_KEY_LEN = 32


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


__all__ = ["IDENTITY_KEY_LEN", "BadIdentityKey", "check_identity_key", "identity_public_key"]
