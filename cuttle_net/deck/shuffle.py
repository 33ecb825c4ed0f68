"""Re-masking shuffles of ElGamal-encrypted decks, and their cut-and-choose proof.

A ciphertext is (C1, C2) = (r·G, M + r·Y) under the joint key Y. Re-masking adds a fresh
encryption of the identity: (C1 + r'·G, C2 + r'·Y). A shuffle with permutation π and
randomness r maps ``inp`` to ``out[j] = remask(inp[π(j)], r[j])``.

Proof (interactive cut-and-choose, one challenge bit per round): for each round k the prover
makes a shadow shuffle S_k of the input from a fresh 32-byte seed and commits to H(S_k). The
verifier answers with random bits. Bit 0: the prover reveals the seed (the verifier rebuilds
S_k from the input). Bit 1: the prover reveals the shuffle taking S_k to the output
(ρ = σ⁻¹∘π and u[j] = r[j] - t[ρ(j)]; the verifier rebuilds S_k from the output). Either
answer alone is a uniformly random shuffle, independent of π, so nothing leaks; a prover
whose output is not a shuffle of its input can answer at most one bit per round: it is caught
with probability 1 - 2^-rounds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .encoding import hash256, hash512
from .group import (
    IDENTITY,
    L,
    Rng,
    add,
    base_mul,
    mul,
    scalar_bytes,
    scalar_from_hash,
    scalar_from_wire,
    sub,
)

Ciphertext = tuple[bytes, bytes]
SEED_BYTES = 32


class BadShuffle(ValueError):
    """A shuffle proof does not verify."""


def remask(ct: Ciphertext, r: int, y: bytes) -> Ciphertext:
    # The unshuffled deck has C1 = identity: skip that addition (a tenth of the first shuffle).
    c1 = base_mul(r) if ct[0] == IDENTITY else add(ct[0], base_mul(r))
    return c1, add(ct[1], mul(r, y))


def unmask(ct: Ciphertext, r: int, y: bytes) -> Ciphertext:
    return sub(ct[0], base_mul(r)), sub(ct[1], mul(r, y))


def derive_permutation(seed: bytes, n: int) -> list[int]:
    """The permutation of 0..n-1 a seed stands for (Fisher–Yates; the modulo bias of a 64-bit
    draw over at most 53 values is below 2^-57)."""
    perm = list(range(n))
    for i in range(n - 1, 0, -1):
        j = int.from_bytes(hash512("perm", seed, i)[:8], "big") % (i + 1)
        perm[i], perm[j] = perm[j], perm[i]
    return perm


def derive(seed: bytes, n: int) -> tuple[list[int], list[int]]:
    """The permutation and re-masking scalars a shuffle seed stands for."""
    rands = [scalar_from_hash(hash512("remask", seed, j)) for j in range(n)]
    return derive_permutation(seed, n), rands


def apply(inp: Sequence[Ciphertext], perm: Sequence[int], rands: Sequence[int], y: bytes):
    return [remask(inp[perm[j]], rands[j], y) for j in range(len(inp))]


def deck_digest(context: bytes, k: int, deck: Sequence[Ciphertext]) -> bytes:
    return hash256("shadow", context, k, b"".join(c1 + c2 for c1, c2 in deck))


@dataclass
class ShuffleProver:
    """The prover's side of one shuffle: the commitments now, the answers after the
    challenge."""

    n: int
    perm: list[int]
    rands: list[int]
    seeds: list[bytes]
    commitments: list[bytes]

    @classmethod
    def start(cls, inp, perm, rands, y: bytes, context: bytes, rounds: int, rng: Rng):
        seeds = [rng(SEED_BYTES) for _ in range(rounds)]
        commitments = []
        for k, seed in enumerate(seeds):
            sp, sr = derive(seed, len(inp))
            commitments.append(deck_digest(context, k, apply(inp, sp, sr, y)))
        return cls(len(inp), list(perm), list(rands), seeds, commitments)

    def answer(self, bits: Sequence[int]) -> list[bytes]:
        n = self.n
        answers = []
        for seed, bit in zip(self.seeds, bits, strict=True):
            if not bit:
                answers.append(seed)
                continue
            sp, sr = derive(seed, n)
            inv = [0] * n
            for j, i in enumerate(sp):
                inv[i] = j
            rho = [inv[self.perm[j]] for j in range(n)]
            u = [(self.rands[j] - sr[rho[j]]) % L for j in range(n)]
            answers.append(bytes(rho) + b"".join(map(scalar_bytes, u)))
        return answers


def answer_size(bit: int, n: int) -> int:
    return SEED_BYTES if not bit else n + 32 * n


def verify(inp, out, y: bytes, context: bytes, commitments, bits, answers) -> None:
    """Check a cut-and-choose shuffle proof; raises BadShuffle naming the failing round."""
    n = len(inp)
    for k, (commitment, bit, ans) in enumerate(zip(commitments, bits, answers, strict=True)):
        if len(ans) != answer_size(bit, n):
            raise BadShuffle(f"round {k}: answer has the wrong size")
        if not bit:
            sp, sr = derive(ans, n)
            shadow = apply(inp, sp, sr, y)
        else:
            rho = list(ans[:n])
            if sorted(rho) != list(range(n)):
                raise BadShuffle(f"round {k}: not a permutation")
            try:
                u = [scalar_from_wire(ans[n + 32 * j : n + 32 * j + 32]) for j in range(n)]
            except ValueError as exc:
                raise BadShuffle(f"round {k}: {exc}") from exc
            shadow = [None] * n
            for j in range(n):
                shadow[rho[j]] = unmask(out[j], u[j], y)
        if deck_digest(context, k, shadow) != commitment:
            raise BadShuffle(f"round {k} (challenge {bit}) does not match its commitment")


def challenge_bits(challenge: bytes, rounds: int) -> list[int]:
    return [(challenge[k // 8] >> (k % 8)) & 1 for k in range(rounds)]
