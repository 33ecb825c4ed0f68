"""The building blocks: card encodings, canonical encoding, proofs, shuffle proofs, and the
strict parsing of messages and operations."""

from __future__ import annotations

import os

import pytest

from cuttle_net.deck import (
    Deal,
    Draw,
    Message,
    RevealFromHand,
    WireError,
    op_from_wire,
)
from cuttle_net.deck import shuffle as sh
from cuttle_net.deck.encoding import canon
from cuttle_net.deck.group import (
    IDENTITY,
    InvalidPoint,
    L,
    base_mul,
    card_point,
    card_table,
    check_point,
    random_scalar,
    scalar_from_wire,
)
from cuttle_net.deck.proofs import BadProof, prove_share, verify_share

from .helpers import Table


def test_card_encodings_are_distinct_valid_and_not_small_multiples():
    table = card_table(53)
    assert len(table) == 53
    smalls = {base_mul(k) for k in range(1, 1000)}
    assert not smalls & set(table)
    for c in range(53):
        assert check_point(card_point(c)) == card_point(c)


def test_each_card_table_is_its_callers_own():
    # The points are computed once per deck size; a seat that changed its table (none
    # does) would not change another's.
    first = card_table(52)
    first.clear()
    assert len(card_table(52)) == 52
    assert card_table(52) == {card_point(c): c for c in range(52)}


def test_shuffle_generators_are_distinct_from_each_other_the_base_and_the_cards():
    h0, hs, _ = sh.generators(53)
    points = {h0, *hs, base_mul(1), *card_table(53)}
    assert len(points) == 1 + 53 + 1 + 53
    assert all(check_point(p) for p in (h0, *hs))


def test_canonical_encoding_is_unambiguous():
    assert canon([b"ab", b"c"]) != canon([b"a", b"bc"])
    assert canon({"a": 1, "b": 2}) == canon({"b": 2, "a": 1})
    assert canon(True) != canon(1)
    with pytest.raises(ValueError):
        canon(-1)


def test_canonical_encoding_is_the_specs_grammar_byte_for_byte():
    # SPEC 2.2's grammar, written out plainly: the fast encoder (exact types first) must
    # give the same bytes for every kind of value, nested, and subclasses too.
    class Number(int):
        pass

    def spec(v):
        if v is True or v is False:
            return b"T" if v else b"F"
        if isinstance(v, int):
            return b"i" + v.to_bytes(8, "big")
        if isinstance(v, bytes):
            return b"b" + len(v).to_bytes(4, "big") + v
        if isinstance(v, str):
            return b"s" + len(v.encode()).to_bytes(4, "big") + v.encode()
        if isinstance(v, list | tuple):
            return b"l" + len(v).to_bytes(4, "big") + b"".join(spec(x) for x in v)
        keys = sorted(v, key=str.encode)
        return b"d" + len(v).to_bytes(4, "big") + b"".join(spec(k) + spec(v[k]) for k in keys)

    values = [
        0,
        2**64 - 1,
        Number(7),
        True,
        False,
        b"",
        b"\x00" * 32,
        "",
        "é♠",
        [],
        (1, b"x"),
        {"z": [1, {"é": False, "a": b"k"}], "b": "t", "B": 2},
        [[[], [b"ab", "c"]], {"": 0}],
        # keys whose code point order is their UTF-8 order, across the surrogate range
        {"\uffff": 1, "\U0001f600": 2, "\u00e9": [b"p", Number(3), [b"q"]], "~": True},
        [b"a", [b"b", 1], {"k": [b"c", "d"]}],
    ]
    for v in values:
        assert canon(v) == spec(v), v


def test_canonical_encoding_refuses_a_map_key_that_is_no_string():
    # A plain error, not the AttributeError of calling `encode` on an int.
    with pytest.raises(TypeError, match="map key"):
        canon({1: b"x"})


def test_scalars_are_canonical_and_non_zero():
    assert 0 < random_scalar(os.urandom) < L
    with pytest.raises(ValueError):
        scalar_from_wire(L.to_bytes(32, "little"))
    with pytest.raises(InvalidPoint):
        check_point(IDENTITY)


def test_chaum_pedersen_binds_secret_point_and_context():
    x, c1 = random_scalar(os.urandom), base_mul(random_scalar(os.urandom))
    y = base_mul(x)
    from cuttle_net.deck.group import mul

    d = mul(x, c1)
    proof = prove_share(x, y, c1, d, b"ctx", os.urandom)
    verify_share(y, c1, d, proof, b"ctx")
    for bad in [(y, c1, base_mul(3), proof, b"ctx"), (y, c1, d, proof, b"other")]:
        with pytest.raises(BadProof):
            verify_share(*bad)


def test_shuffle_argument_accepts_a_shuffle_and_rejects_anything_else():
    y = base_mul(random_scalar(os.urandom))
    inp = [(IDENTITY, card_point(c)) for c in range(52)]
    perm, rands = sh.derive(os.urandom(32), 52)
    out = sh.apply(inp, perm, rands, y)
    arg = sh.prove(inp, out, perm, rands, y, b"ctx", os.urandom)
    sh.verify(inp, out, y, b"ctx", sh.ShuffleArgument.from_wire(arg.to_wire(), 52))
    # A second shuffle, of a masked deck.
    perm2, rands2 = sh.derive(os.urandom(32), 52)
    out2 = sh.apply(out, perm2, rands2, y)
    arg2 = sh.prove(out, out2, perm2, rands2, y, b"ctx", os.urandom)
    sh.verify(out, out2, y, b"ctx", arg2)
    duplicated = [out2[0], *out2[1:51], sh.remask(out2[0], 9, y)]
    swapped = [out2[1], out2[0], *out2[2:]]
    for deck, context, proof in [
        (duplicated, b"ctx", arg2),  # another deck
        (swapped, b"ctx", arg2),  # the same cards, another order
        (out2, b"other", arg2),  # another context (session, place, sender)
        (out2, b"ctx", arg),  # another shuffle's argument
    ]:
        with pytest.raises(sh.BadShuffle):
            sh.verify(out, deck, y, context, proof)
    # The prover itself cannot prove a false statement.
    lie = sh.prove(out, swapped, perm2, rands2, y, b"ctx", os.urandom)
    with pytest.raises(sh.BadShuffle):
        sh.verify(out, swapped, y, b"ctx", lie)


def a_message() -> dict:
    t = Table()
    out = t.peers[0].begin(Deal((5, 6)))
    return out.messages[0]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda m: m.pop("sig"), "fields"),
        (lambda m: m.update(seq="1"), "seq"),
        (lambda m: m.update(prev=b"x"), "prev"),
        (lambda m: m.update({"from": 6}), "from"),
        (lambda m: m.update(op=["nope"]), "op"),
        (lambda m: m.update(step="dance"), "step"),
        (lambda m: m.update(body={"commit": b"x" * 31}), "body.commit"),
        (lambda m: m.update(body={"commit": b"x" * 32, "extra": 1}), "body"),
        (lambda m: m.update(sid=b"short"), "sid"),
        (lambda m: m.update(v=1), "v"),
    ],
)
def test_from_wire_names_the_bad_field(change, field):
    wire = a_message()
    change(wire)
    with pytest.raises(WireError, match=field):
        Message.from_wire(wire)


def test_message_round_trip():
    wire = a_message()
    assert Message.from_wire(wire).to_wire() == wire
    with pytest.raises(WireError):
        Message.from_wire([wire])


def test_ops_round_trip_and_reject_bad_arguments():
    for op in [Deal((5, 6)), Draw(1, True), RevealFromHand(0, (3, 9), True)]:
        assert op_from_wire(op.to_wire()) == op
    for bad in [
        ["draw", 6, False],
        ["deal", [5], 0],
        ["swap", 0],
        ["draw", 0],
        ["reveal_hand", 0, [9, 3], False],
        [],
        [1],
    ]:
        with pytest.raises(WireError):
            op_from_wire(bad)
