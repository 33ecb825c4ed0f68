"""A deterministic random byte generator: all of one side's randomness in one game, from a seed.

The session is deterministic given its randomness and its inputs.  Drawing that randomness
from a 32-byte secret seed (itself from ``os.urandom``) lets a restarted process rebuild the
game exactly by replaying its inputs (``cuttle_protocol.store.journal``): same key share, same
shuffle, same proofs, byte for byte.

The generator is the ChaCha20 keystream under the seed (a standard stream-cipher DRBG):
its output is indistinguishable from uniform to anyone without the seed, so the seed is as
secret as the key share it yields, and is kept only in the private journal.  The proofs'
nonces stay hedged (secret, statement and these bytes), so a replay that diverged could not
reuse a nonce for another statement.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms

SEED_SIZE = 32


def new_seed() -> bytes:
    return os.urandom(SEED_SIZE)


def seeded_rng(seed: bytes) -> Callable[[int], bytes]:
    """``rng(n)``: the next ``n`` bytes of the keystream of ``seed`` (32 bytes)."""
    if len(seed) != SEED_SIZE:
        raise ValueError(f"a seed is {SEED_SIZE} bytes, not {len(seed)}")
    # The 16-byte nonce is the 64-bit block counter then the 64-bit nonce, all zero: the key
    # (the seed) is used for this one stream only.
    stream = Cipher(algorithms.ChaCha20(seed, bytes(16)), mode=None).encryptor()

    def rng(n: int) -> bytes:
        return stream.update(bytes(n))

    return rng
