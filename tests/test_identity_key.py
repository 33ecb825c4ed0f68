"""Identity keys from outside: honest keys pass; small-order and non-canonical ones do not."""

import hashlib
import os

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from cuttle_net.identity_key import (
    BadIdentityKey,
    check_identity_key,
    identity_public_key,
    sign,
    verify,
)

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


L = 2**252 + 27742317777372353535851937790883648493  # the prime order of the base point


def test_fast_signatures_are_openssls_byte_for_byte() -> None:
    # A record's and the table log's signatures must not change with the library: RFC 8032
    # signatures are deterministic, so libsodium's are the same bytes as OpenSSL's.
    for size in (0, 1, 32, 64, 200, 5000):
        key = Ed25519PrivateKey.generate()
        data = os.urandom(size)
        assert sign(key, data) == key.sign(data)
        verify(key.public_key(), sign(key, data), data)


def test_each_key_signs_as_itself_past_the_memo_of_secrets() -> None:
    # The libsodium secret is kept per key object (16 at most, then the memo starts again):
    # every key signs with its own secret, before and after the memo is cleared.
    keys = [Ed25519PrivateKey.generate() for _ in range(40)]
    for key in keys + keys[::-1]:
        assert sign(key, b"move") == key.sign(b"move")


def test_verify_refuses_what_openssl_refuses() -> None:
    key = Ed25519PrivateKey.generate()
    good = key.sign(b"move")
    bad = [
        (good, b"move!"),  # another message
        (good[:63] + bytes([good[63] ^ 1]), b"move"),  # a flipped bit
        (good[:32] + L.to_bytes(32, "little"), b"move"),  # s not below L
        (good[:10], b"move"),  # too short
        (Ed25519PrivateKey.generate().sign(b"move"), b"move"),  # another key's
        # Too long: the key's own signature of "extra" + "move", then "extra". libsodium's
        # combined form (signature ‖ data) read it as a signature of the longer text, so a
        # seat's move signed so passed here and nowhere else (and broke its records).
        (key.sign(b"extra" + b"move") + b"extra", b"move"),
    ]
    for signature, data in bad:
        with pytest.raises(InvalidSignature):
            key.public_key().verify(signature, data)
        with pytest.raises(InvalidSignature):
            verify(key.public_key(), signature, data)


def test_verify_accepts_what_openssl_accepts_though_libsodium_refuses_it() -> None:
    # A signer can make a signature whose R is the identity point (s = h·a): OpenSSL takes
    # it, libsodium refuses small-order R. A seat checking with libsodium alone would then
    # refuse an entry that a host checking with OpenSSL (another client) relayed, and blame
    # that honest host: what libsodium refuses, OpenSSL decides.
    key = Ed25519PrivateKey.generate()
    public = key.public_key().public_bytes_raw()
    digest = hashlib.sha512(key.private_bytes_raw()).digest()
    clamped = bytearray(digest[:32])
    clamped[0] &= 248
    clamped[31] = (clamped[31] & 127) | 64
    a = int.from_bytes(clamped, "little")
    r = (1).to_bytes(32, "little")  # the identity point
    h = int.from_bytes(hashlib.sha512(r + public + b"move").digest(), "little") % L
    signature = r + (h * a % L).to_bytes(32, "little")
    key.public_key().verify(signature, b"move")  # OpenSSL: valid
    verify(key.public_key(), signature, b"move")  # and so here
