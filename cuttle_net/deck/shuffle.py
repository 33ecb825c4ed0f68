"""Re-masking shuffles of ElGamal-encrypted decks, and their zero-knowledge shuffle argument.

A ciphertext is (C1, C2) = (r·G, M + r·Y) under the joint key Y. Re-masking adds a fresh
encryption of the identity: (C1 + r'·G, C2 + r'·Y). A shuffle with permutation ψ and scalars
r maps ``inp`` to ``out[i] = remask(inp[ψ(i)], r[i])``.

The proof is the Terelius–Wikström shuffle argument, in the form of Haenni, Locher, Koenig
and Dubuis, "Pseudo-code algorithms for verifiable re-encryption mix-nets" (FC 2017), written
additively and made non-interactive with Fiat–Shamir. The prover commits to the permutation
matrix with Pedersen commitments c[ψ(i)] = ρ[ψ(i)]·G + H[i] over independent generators H[i];
for hash-derived challenges u it proves, in one sigma protocol, that the committed matrix maps
the all-ones vector to itself and u to a vector u' with the same product (so it is a
permutation matrix, by Schwartz–Zippel), and that Σ u'[i]·out[i] = Σ u[k]·inp[k] plus a
re-masking it knows. SPEC.md part 2 gives every equation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from .encoding import hash256, hash512
from .group import (
    IDENTITY,
    L,
    Rng,
    add,
    base_mul,
    check_point,
    generator,
    mul,
    random_scalar,
    scalar_bytes,
    scalar_from_hash,
    scalar_from_wire,
    sub,
)

Ciphertext = tuple[bytes, bytes]


class BadShuffle(ValueError):
    """A shuffle argument does not verify."""


def remask(ct: Ciphertext, r: int, y: bytes) -> Ciphertext:
    # The unshuffled deck has C1 = identity: skip that addition.
    c1 = base_mul(r) if ct[0] == IDENTITY else add(ct[0], base_mul(r))
    return c1, add(ct[1], mul(r, y))


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


@cache
def generators(n: int) -> tuple[bytes, tuple[bytes, ...], bytes]:
    """H0 and H[0..n-1] for the commitments, hashed to the group like the cards (under their
    own tag, so nobody knows a relation between them, G or the cards), and ΣH[i]."""
    h0 = generator("chain")
    hs = tuple(generator(f"commit-{i}") for i in range(n))
    total = hs[0]
    for h in hs[1:]:
        total = add(total, h)
    return h0, hs, total


def _flat(deck: Sequence[Ciphertext]) -> bytes:
    return b"".join(c1 + c2 for c1, c2 in deck)


def _msm(scalars: Sequence[int], points: Sequence[bytes]) -> bytes:
    acc = IDENTITY
    for s, p in zip(scalars, points, strict=True):
        acc = add(acc, mul(s, p))
    return acc


def _u(context: bytes, y: bytes, inp, out, commitments) -> tuple[bytes, list[int]]:
    seed = hash256("shuffle-u", context, y, _flat(inp), _flat(out), b"".join(commitments))
    return seed, [scalar_from_hash(hash512("shuffle-u-i", seed, i)) for i in range(len(inp))]


def _challenge(seed: bytes, chain, t, t_hat) -> int:
    points = (b"".join(chain), b"".join(t), b"".join(t_hat))
    return scalar_from_hash(hash512("shuffle-c", seed, *points))


@dataclass(frozen=True)
class ShuffleArgument:
    """The proof: commitments c, chain ĉ, t = (t1, t2, t3, t41, t42), t̂, s = (s1..s4), ŝ, s'."""

    c: list[bytes]
    chain: list[bytes]
    t: list[bytes]
    t_hat: list[bytes]
    s: list[int]
    s_hat: list[int]
    s_prime: list[int]

    def to_wire(self) -> list:
        return [
            self.c,
            self.chain,
            self.t,
            self.t_hat,
            [scalar_bytes(x) for x in self.s],
            [scalar_bytes(x) for x in self.s_hat],
            [scalar_bytes(x) for x in self.s_prime],
        ]

    @classmethod
    def from_wire(cls, data: list, n: int) -> ShuffleArgument:
        """Sizes, point validity and canonical scalars; raises BadShuffle or InvalidPoint."""
        c, chain, t, t_hat, s, s_hat, s_prime = data
        if [len(c), len(chain), len(t), len(t_hat), len(s), len(s_hat), len(s_prime)] != [
            n, n, 5, n, 4, n, n,
        ]:  # fmt: skip
            raise BadShuffle("the shuffle argument has the wrong number of elements")
        for p in (*c, *chain, *t, *t_hat):
            check_point(p)
        try:
            scalars = [[scalar_from_wire(x) for x in group] for group in (s, s_hat, s_prime)]
        except ValueError as exc:
            raise BadShuffle(str(exc)) from exc
        return cls(list(c), list(chain), list(t), list(t_hat), *scalars)


def prove(inp, out, perm, rands, y: bytes, context: bytes, rng: Rng) -> ShuffleArgument:
    """Prove that ``out[i] = remask(inp[perm[i]], rands[i])``."""
    n = len(inp)
    h0, hs, _ = generators(n)
    # Commit to the permutation: c[perm[i]] = rho[perm[i]]·G + H[i].
    rho = [random_scalar(rng) for _ in range(n)]
    c = [b""] * n
    for i in range(n):
        c[perm[i]] = add(base_mul(rho[perm[i]]), hs[i])
    seed, u = _u(context, y, inp, out, c)
    u_p = [u[perm[i]] for i in range(n)]
    # Chain ĉ[i] = r̂[i]·G + u'[i]·ĉ[i-1], ĉ[-1] = H0.
    r_hat = [random_scalar(rng) for _ in range(n)]
    chain, prev = [], h0
    for i in range(n):
        prev = add(base_mul(r_hat[i]), mul(u_p[i], prev))
        chain.append(prev)
    # Aggregated witnesses.
    r_bar = sum(rho) % L
    v, acc = [0] * n, 1  # v[i] = Π_{j>i} u'[j]
    for i in range(n - 1, -1, -1):
        v[i] = acc
        acc = acc * u_p[i] % L
    r_hat_sum = sum(r_hat[i] * v[i] for i in range(n)) % L
    r_tilde = sum(rho[k] * u[k] for k in range(n)) % L
    r_prime = sum(rands[i] * u_p[i] for i in range(n)) % L
    # Commitments of the sigma protocol.
    w = [random_scalar(rng) for _ in range(4)]
    w_hat = [random_scalar(rng) for _ in range(n)]
    w_p = [random_scalar(rng) for _ in range(n)]
    t1 = base_mul(w[0])
    t2 = base_mul(w[1])
    t3 = add(base_mul(w[2]), _msm(w_p, hs))
    t41 = sub(_msm(w_p, [ct[1] for ct in out]), mul(w[3], y))
    t42 = sub(_msm(w_p, [ct[0] for ct in out]), base_mul(w[3]))
    prevs = [h0, *chain[:-1]]
    t_hat = [add(base_mul(w_hat[i]), mul(w_p[i], prevs[i])) for i in range(n)]
    t = [t1, t2, t3, t41, t42]
    e = _challenge(seed, chain, t, t_hat)
    s = [(w[0] + e * r_bar) % L, (w[1] + e * r_hat_sum) % L, (w[2] + e * r_tilde) % L]
    s.append((w[3] + e * r_prime) % L)
    s_hat = [(w_hat[i] + e * r_hat[i]) % L for i in range(n)]
    s_prime = [(w_p[i] + e * u_p[i]) % L for i in range(n)]
    return ShuffleArgument(c, chain, t, t_hat, s, s_hat, s_prime)


def verify(inp, out, y: bytes, context: bytes, arg: ShuffleArgument) -> None:
    """Check a shuffle argument; raises BadShuffle naming the failed equation."""
    n = len(inp)
    h0, hs, h_total = generators(n)
    seed, u = _u(context, y, inp, out, arg.c)
    e = _challenge(seed, arg.chain, arg.t, arg.t_hat)
    t1, t2, t3, t41, t42 = arg.t
    s1, s2, s3, s4 = arg.s
    u_prod = 1
    for x in u:
        u_prod = u_prod * x % L
    c_sum = arg.c[0]
    for x in arg.c[1:]:
        c_sum = add(c_sum, x)
    c_bar = sub(c_sum, h_total)
    c_hat = sub(arg.chain[-1], mul(u_prod, h0))
    c_tilde = _msm(u, arg.c)
    a_in = _msm(u, [ct[1] for ct in inp])
    b_in = _msm(u, [ct[0] for ct in inp])
    checks = {
        "t1": (t1, sub(base_mul(s1), mul(e, c_bar))),
        "t2": (t2, sub(base_mul(s2), mul(e, c_hat))),
        "t3": (t3, sub(add(base_mul(s3), _msm(arg.s_prime, hs)), mul(e, c_tilde))),
        "t41": (
            t41,
            sub(sub(_msm(arg.s_prime, [ct[1] for ct in out]), mul(s4, y)), mul(e, a_in)),
        ),
        "t42": (
            t42,
            sub(sub(_msm(arg.s_prime, [ct[0] for ct in out]), base_mul(s4)), mul(e, b_in)),
        ),
    }
    for name, (lhs, rhs) in checks.items():
        if lhs != rhs:
            raise BadShuffle(f"equation {name} fails")
    prevs = [h0, *arg.chain[:-1]]
    for i in range(n):
        rhs = add(base_mul(arg.s_hat[i]), mul(arg.s_prime[i], prevs[i]))
        if arg.t_hat[i] != sub(rhs, mul(e, arg.chain[i])):
            raise BadShuffle(f"chain equation {i} fails")
