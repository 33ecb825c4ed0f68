"""The suite's memo of deck proofs (tests/proofmemo.py) skips only a check that passed on
exactly the same inputs: anything changed is checked again, and a failure every time."""

from __future__ import annotations

import os

import pytest

from cuttle_net.deck import proofs, state
from cuttle_net.deck import shuffle as sh
from cuttle_net.deck.group import IDENTITY, base_mul, card_point, mul, random_scalar
from tests import proofmemo


def test_only_the_same_passing_argument_is_taken_from_the_memo(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert sh.verify is proofmemo._verify  # installed for the whole suite by conftest
    checked: list[bytes] = []
    real = proofmemo._real_verify

    def counted(inp, out, y, context, arg) -> None:
        checked.append(context)
        real(inp, out, y, context, arg)

    monkeypatch.setattr(proofmemo, "_real_verify", counted)
    y = base_mul(random_scalar(os.urandom))
    inp = [(IDENTITY, card_point(c)) for c in range(5)]
    perm, rands = sh.derive(os.urandom(32), 5)
    out = sh.apply(inp, perm, rands, y)
    arg = sh.prove(inp, out, perm, rands, y, b"memo", os.urandom)
    sh.verify(inp, out, y, b"memo", arg)
    sh.verify(list(inp), list(out), y, b"memo", sh.ShuffleArgument.from_wire(arg.to_wire(), 5))
    assert checked == [b"memo"]  # the second, equal in every byte, was remembered
    swapped = [out[1], out[0], *out[2:]]
    other_y = base_mul(random_scalar(os.urandom))
    bent = sh.ShuffleArgument.from_wire(arg.to_wire(), 5)
    bent.s_hat[0] = (bent.s_hat[0] + 1) % sh.L
    for changed in [
        (inp, swapped, y, b"memo", arg),  # the output
        (out, out, y, b"memo", arg),  # the input
        (inp, out, other_y, b"memo", arg),  # the key
        (inp, out, y, b"other", arg),  # the context
        (inp, out, y, b"memo", bent),  # the argument
    ]:
        for _ in range(2):  # a failure is never remembered
            before = len(checked)
            with pytest.raises(sh.BadShuffle):
                sh.verify(*changed)
            assert len(checked) == before + 1


def test_a_share_proof_is_taken_from_the_memo_only_for_the_same_bytes() -> None:
    check = state.verify_share
    assert check.real is proofs.verify_share  # type: ignore[attr-defined]
    calls: list[tuple[bytes, ...]] = []
    memo = proofmemo.remembered(lambda *a: calls.append(a) or check.real(*a))  # type: ignore[attr-defined]
    x = random_scalar(os.urandom)
    y, c1 = base_mul(x), base_mul(random_scalar(os.urandom))
    d = mul(x, c1)
    proof = proofs.prove_share(x, y, c1, d, b"memo", os.urandom)
    first = memo(y, c1, d, proof, b"memo")
    assert memo(y, c1, d, proof, b"memo") == first and len(calls) == 1
    for changed in [(y, c1, base_mul(3), proof, b"memo"), (y, c1, d, proof, b"other")]:
        for _ in range(2):  # a failure is never remembered
            with pytest.raises(proofs.BadProof):
                memo(*changed)
    assert len(calls) == 5
