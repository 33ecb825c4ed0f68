"""Identity keys from outside: honest keys pass; small-order and non-canonical ones do not."""

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from cuttle_net.identity_key import BadIdentityKey, check_identity_key, identity_public_key

P = 2**255 - 19

# The eight small-order points of edwards25519 (canonical encodings), as libsodium lists them.
SMALL_ORDER = [
    bytes.fromhex("0100000000000000000000000000000000000000000000000000000000000000"),
    bytes.fromhex("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"),
    bytes.fromhex("0000000000000000000000000000000000000000000000000000000000000080"),
    bytes.fromhex("0000000000000000000000000000000000000000000000000000000000000000"),
    bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"),
    bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa"),
    bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"),
    bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85"),
]


def honest_key() -> bytes:
    return Ed25519PrivateKey.generate().public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def test_honest_keys_pass() -> None:
    for _ in range(20):
        raw = honest_key()
        assert check_identity_key(raw) == raw
        identity_public_key(raw)  # builds a verifying key


@pytest.mark.parametrize("raw", SMALL_ORDER, ids=[p.hex()[:8] for p in SMALL_ORDER])
def test_small_order_points_are_refused(raw: bytes) -> None:
    with pytest.raises(BadIdentityKey, match="prime-order"):
        check_identity_key(raw)


def test_non_canonical_encoding_is_refused() -> None:
    # y = 1 written as y + p (still < 2^255): the same point as 01 00…00, not canonical.
    raw = (1 + P).to_bytes(32, "little")
    with pytest.raises(BadIdentityKey):
        check_identity_key(raw)


def test_mixed_order_key_is_refused() -> None:
    # An honest key plus a point of order 2 (y = -1): valid curve point, outside the subgroup.
    import nacl.bindings as na

    mixed = na.crypto_core_ed25519_add(honest_key(), SMALL_ORDER[1])
    with pytest.raises(BadIdentityKey):
        check_identity_key(mixed)


@pytest.mark.parametrize("raw", [b"", bytes(31), bytes(33), "ab" * 16])
def test_wrong_length_or_type_is_refused(raw: object) -> None:
    with pytest.raises(BadIdentityKey, match="32 bytes"):
        check_identity_key(raw)  # type: ignore[arg-type]
