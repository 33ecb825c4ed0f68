"""The published vectors are what the code produces, and a third party can check them."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from cuttle_net.deck import check_transcript
from cuttle_net.deck.encoding import hash256, hash512
from cuttle_net.deck.group import IDENTITY, L, add, base_mul, card_point, hash_to_group, mul
from tests import thirdparty as tp

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors"


def load_generator():
    spec = importlib.util.spec_from_file_location("deck_vectors", VECTORS / "deck_vectors.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def unhex(v):
    """JSON back to wire form: every string is a hex byte string (op and step aside)."""
    if isinstance(v, str):
        return bytes.fromhex(v)
    if isinstance(v, dict):
        return {k: unhex(x) for k, x in v.items()}
    if isinstance(v, list):
        return [unhex(x) for x in v]
    return v


def test_vectors_are_up_to_date():
    assert load_generator().main(["--check"]) == 0


def test_card_encodings_vector():
    data = json.loads((VECTORS / "deck-card-encodings.json").read_text())
    assert [bytes.fromhex(e["point"]) for e in data["cards"]] == [card_point(c) for c in range(104)]


@pytest.mark.parametrize("name", ["deck-deal.json", "deck-deal-3.json"])
def test_a_third_party_checks_the_deal_vectors(name):
    data = json.loads((VECTORS / name).read_text())
    transcript, last_op = [], None
    for m in data["messages"]:
        wire = {k: v if k in ("op", "step") else unhex(v) for k, v in m["wire"].items()}
        if wire["op"] != last_op:
            transcript.append(("op", wire["op"]))
            last_op = wire["op"]
        transcript.append(("msg", wire))
    keys = [
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(k)) for k in data["identity_public_keys"]
    ]
    sid = bytes.fromhex(data["session_id"])
    assert check_transcript(transcript, keys, session_id=sid, deck_size=data["deck_size"]) is None


# --- the draws of SPEC 2.6, read from the text: what a third party needs to remake them ----


class SpecDraws:
    """One party's byte source as SPEC 2.6 says the vectors draw: call i (from 1) is
    SHAKE-256(seed ‖ u64be(i)), truncated; a scalar is 64 bytes, int_le mod L, never 0."""

    def __init__(self, seed: bytes) -> None:
        self.seed, self.calls = seed, 0

    def bytes(self, n: int) -> bytes:
        self.calls += 1
        return hashlib.shake_256(self.seed + self.calls.to_bytes(8, "big")).digest(n)

    def scalar(self) -> int:
        while True:
            if s := int.from_bytes(self.bytes(64), "little") % L:
                return s

    def nonce(self, x: int, statement: bytes) -> int:
        while True:
            raw = hash512("nonce", x.to_bytes(32, "little"), statement, self.bytes(32))
            if k := int.from_bytes(raw, "little") % L:
                return k


def _scalar(raw: bytes) -> int:
    return int.from_bytes(raw, "little") % L


def _le(s: int) -> bytes:
    return s.to_bytes(32, "little")


def _perm(seed: bytes, n: int) -> list[int]:
    perm = list(range(n))
    for i in range(n - 1, 0, -1):
        j = int.from_bytes(hash512("perm", seed, i)[:8], "big") % (i + 1)
        perm[i], perm[j] = perm[j], perm[i]
    return perm


def _msm(scalars, points) -> bytes:
    acc = IDENTITY
    for s, p in zip(scalars, points, strict=True):
        acc = add(acc, mul(s % L, p))
    return acc


@pytest.mark.parametrize("name", ["deck-deal.json", "deck-deal-3.json"])
def test_the_deal_vectors_draw_as_the_spec_says(name):
    """Every random value in the vectors (key shares and salts, proof nonces, shuffle seeds
    and the shuffle argument's draws, pick salts) is remade from the seeds with SPEC 2.6's
    order of draws and nonce statements, and every proof and commitment they make matches."""
    data = json.loads((VECTORS / name).read_text())
    sid, n, seats = bytes.fromhex(data["session_id"]), data["deck_size"], data["seats"]
    draws = [SpecDraws(bytes.fromhex(s)) for s in data["rng_seeds"]]
    x = [d.scalar() for d in draws]
    salts = [d.bytes(32) for d in draws]
    y = [base_mul(s) for s in x]
    joint = y[0]
    for k in y[1:]:
        joint = add(joint, k)
    deck = [(IDENTITY, card_point(c)) for c in range(n)]
    h0 = hash_to_group("generator", "chain")
    hs = [hash_to_group("generator", f"commit-{i}") for i in range(n)]
    seeds, pick_salt = [b""] * seats, b""
    for m in data["messages"]:
        w = {k: v if k in ("op", "step") else unhex(v) for k, v in m["wire"].items()}
        s, body, step, draw = w["from"], w["body"], w["step"], draws[w["from"]]

        def ctx(label: str, index: int = 0, w=w) -> bytes:
            return hash256("context", sid, w["seq"], w["prev"], w["from"], label, index)

        def share_proof(pos: int, d: bytes, s=s, draw=draw, ctx=ctx, deck=deck) -> bytes:
            c1 = deck[pos][0]
            assert d == mul(x[s], c1)
            k = draw.nonce(x[s], ctx("share", pos) + c1 + d)
            a, b = base_mul(k), mul(k, c1)
            c = _scalar(hash512("chaum-pedersen", ctx("share", pos), y[s], c1, d, a, b))
            return _le(c) + _le((k + c * x[s]) % L)

        if step == "key_commit":
            assert body["commit"] == hash256("key-commit", sid, s, y[s], salts[s])
        elif step in ("key", "key_open"):
            assert body["key"] == y[s]
            k = draw.nonce(x[s], ctx("key") + y[s])
            c = _scalar(hash512("schnorr", ctx("key"), y[s], base_mul(k)))
            assert body["proof"] == _le(c) + _le((k + c * x[s]) % L)
            assert step == "key" or body["salt"] == salts[s]
        elif step == "shuffle":
            seeds[s] = seed = draw.bytes(32)
            assert body["seed_commit"] == hash256("seed-commit", sid, s, seed)
            psi = _perm(seed, n)
            r = [_scalar(hash512("remask", seed, j)) for j in range(n)]
            out = [
                (add(deck[psi[j]][0], base_mul(r[j])), add(deck[psi[j]][1], mul(r[j], joint)))
                for j in range(n)
            ]
            assert [tuple(ct) for ct in body["deck"]] == out
            c_, chain, t, t_hat, s_, s_hat, s_prime = body["argument"]
            rho = [draw.scalar() for _ in range(n)]  # in index order (SPEC 2.6, step 1)
            assert all(c_[psi[i]] == add(base_mul(rho[psi[i]]), hs[i]) for i in range(n))
            flat = [b"".join(a + b for a, b in d) for d in (deck, out)]
            u_seed = hash256("shuffle-u", ctx("shuffle"), joint, *flat, b"".join(c_))
            u = [_scalar(hash512("shuffle-u-i", u_seed, k)) for k in range(n)]
            r_hat = [draw.scalar() for _ in range(n)]
            prev = h0
            for i in range(n):
                prev = add(base_mul(r_hat[i]), mul(u[psi[i]], prev))
                assert chain[i] == prev
            omega = [draw.scalar() for _ in range(4)]
            omega_hat = [draw.scalar() for _ in range(n)]
            omega_p = [draw.scalar() for _ in range(n)]
            assert t[0] == base_mul(omega[0]) and t[1] == base_mul(omega[1])
            assert t[2] == add(base_mul(omega[2]), _msm(omega_p, hs))
            e = _scalar(hash512("shuffle-c", u_seed, b"".join(chain), b"".join(t), b"".join(t_hat)))
            assert s_[0] == _le((omega[0] + e * sum(rho)) % L)
            assert s_hat == [_le((omega_hat[i] + e * r_hat[i]) % L) for i in range(n)]
            assert s_prime == [_le((omega_p[i] + e * u[psi[i]]) % L) for i in range(n)]
            deck = out
        elif step == "shares":
            assert all(proof == share_proof(p, d) for p, d, proof in body["shares"])
        elif step in ("reveal", "pick_open"):
            assert all(proof == share_proof(p, d) for p, _, d, proof in body["reveal"])
            assert step == "reveal" or body["salt"] == pick_salt
        elif step == "pick_commit":
            pick_salt = draw.bytes(32)
            assert body["commit"] == hash256("pick-commit", sid, w["seq"], pick_salt)
        elif step == "pick_salt":
            assert body["salt"] == draw.bytes(32)
        else:  # the audit draws nothing: it opens what was drawn
            assert step in ("audit", "verdict")
            assert step == "verdict" or (body["secret"], body["seed"]) == (_le(x[s]), seeds[s])


@pytest.mark.parametrize("name", ["deck-deal.json", "deck-deal-3.json"])
def test_the_vectors_chain_in_rounds_as_the_spec_says(name):
    """SPEC 2.7 from scratch: a round is the messages of one seq, listed by ascending sender,
    each naming the previous round's head: the hash of its one message, else H256("round",
    the hashes of its messages by sender)."""
    data = json.loads((VECTORS / name).read_text())
    sid = bytes.fromhex(data["session_id"])
    head, rounds = hash256("genesis", sid), []
    for m in data["messages"]:
        w = {k: v if k in ("op", "step") else unhex(v) for k, v in m["wire"].items()}
        if not rounds or w["seq"] != rounds[-1][0]["seq"]:
            rounds.append([])
        rounds[-1].append(w)
    for seq, messages in enumerate(rounds):
        assert [w["seq"] for w in messages] == [seq] * len(messages)
        assert [w["prev"] for w in messages] == [head] * len(messages)
        senders = [w["from"] for w in messages]
        assert senders == sorted(set(senders))
        digests = [hash256("message", w) for w in messages]
        head = digests[0] if len(digests) == 1 else hash256("round", digests)
    assert max(len(r) for r in rounds) == data["seats"]  # some round has every seat


@pytest.mark.parametrize("name", ["deck-deal.json", "deck-deal-3.json"])
def test_the_deal_vectors_sign_and_audit_as_the_spec_says(name):
    """With tests/thirdparty.py (SPEC 2.2's encoding, no code of the product): every message
    signed as 2.7 says, the card points of 2.2, and the verdict of 2.10 over the deck order
    the secrets decrypt."""
    data = json.loads((VECTORS / name).read_text())
    sid, keys = bytes.fromhex(data["session_id"]), data["identity_public_keys"]
    wires = [
        {k: v if k in ("op", "step") else unhex(v) for k, v in m["wire"].items()}
        for m in data["messages"]
    ]
    for w in wires:
        assert tp.verify_ed25519(
            bytes.fromhex(keys[w["from"]]), w["sig"], tp.message_signed_bytes(w)
        )
    cards = json.loads((VECTORS / "deck-card-encodings.json").read_text())["cards"]
    assert [bytes.fromhex(e["point"]) for e in cards] == [tp.card_point(c) for c in range(104)]
    secrets = [w["body"]["secret"] for w in wires if w["step"] == "audit"]
    last_deck = [w["body"]["deck"] for w in wires if w["step"] == "shuffle"][-1]
    order = tp.deck_order(last_deck, secrets)
    assert order == data["deck_order"]
    digest = tp.verdict_digest(sid, secrets, order)
    assert [w["body"]["verdict"] for w in wires if w["step"] == "verdict"] == [
        [True, digest]
    ] * data["seats"]


def test_the_random_pick_of_the_vectors_follows_the_spec():
    """SPEC 2.8, *Random pick*, with tests/thirdparty.py: seat 0's pick of one card from its
    dealt hand (positions 0–3, all hidden) is the first of its slots permuted by
    perm(H256("pick", sid, commitment, salt_s, [the other salts in seat order]), 4)."""
    data = json.loads((VECTORS / "deck-deal-3.json").read_text())
    sid = bytes.fromhex(data["session_id"])
    wires = [
        {k: v if k in ("op", "step") else unhex(v) for k, v in m["wire"].items()}
        for m in data["messages"]
        if m["wire"]["op"][0] == "random_pick"
    ]
    (commit,) = [w["body"]["commit"] for w in wires if w["step"] == "pick_commit"]
    (opened,) = [w["body"] for w in wires if w["step"] == "pick_open"]
    salts = [
        w["body"]["salt"]
        for w in sorted(wires, key=lambda w: w["from"])
        if w["step"] == "pick_salt"
    ]
    seed = tp.h256("pick", sid, commit, opened["salt"], salts)
    perm = list(range(4))
    for i in range(3, 0, -1):
        j = int.from_bytes(tp.h512("perm", seed, i)[:8], "big") % (i + 1)
        perm[i], perm[j] = perm[j], perm[i]
    slots = [0, 1, 2, 3]
    assert [entry[0] for entry in opened["reveal"]] == [slots[perm[0]]]
