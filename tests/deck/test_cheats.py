"""The catalogue of cheats: each tried by a malicious peer, caught at the right step, named,
attributed to the right seat, and confirmed by a third party from the evidence alone."""

from __future__ import annotations

import os

import pytest

from cuttle_net.deck import (
    Audit,
    CheatDetected,
    DeckPeer,
    Draw,
    RandomPick,
    RevealFromHand,
    ShuffleAndDeal,
)
from cuttle_net.deck import shuffle as sh
from cuttle_net.deck.audit import seed_commitment
from cuttle_net.deck.encoding import hash256
from cuttle_net.deck.group import IDENTITY, L, add, base_mul, card_point, mul, scalar_bytes
from cuttle_net.deck.proofs import _challenge, prove_key

from .helpers import Table, resign

SMALL_ORDER = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")
NON_CANONICAL = b"\xff" * 31 + b"\x7f"  # y = 2^255 - 1 >= p


def caught(t: Table, action, kind: str, culprit: int) -> CheatDetected:
    with pytest.raises(CheatDetected) as info:
        action()
    cheat = info.value
    assert (cheat.kind, cheat.culprit) == (kind, culprit), cheat
    again = t.recheck(cheat.evidence)
    assert again is not None and (again.kind, again.culprit) == (kind, culprit), again
    return cheat


def edit(t: Table, seat: int, step: str, change, *, sign: bool = True, nth: int = 0):
    """Let seat ``seat`` alter its ``nth`` message of ``step`` (re-signed: it is the
    cheater's own signature)."""
    seen = []

    def tamper(sender: int, wire: dict) -> list[dict]:
        if sender == seat and wire["step"] == step:
            seen.append(wire)
            if len(seen) == nth + 1:
                wire = change(dict(wire))
                return [resign(wire, t.keys[seat]) if sign else wire]
        return [wire]

    t.tamper = tamper


def share_edit(change):
    def f(wire):
        body = dict(wire["body"])
        body["shares"] = [change(list(e)) for e in body["shares"]]
        return {**wire, "body": body}

    return f


def dealt(**kw) -> Table:
    t = Table(**kw)
    t.run(ShuffleAndDeal())
    return t


# ---- shares, keys and reveals: caught at the step ---------------------------------------------


def test_wrong_share():
    t = dealt()
    edit(t, 1, "shares", share_edit(lambda e: [e[0], base_mul(12345), e[2]]))
    caught(t, lambda: t.run(Draw(0)), "wrong_share", 1)


class OtherPosition(DeckPeer):
    """Answers a draw with a valid share and proof, for the wrong card."""

    def _share_entry(self, stub, pos):
        if not isinstance(self.op, Draw):
            return super()._share_entry(stub, pos)
        from cuttle_net.deck.proofs import prove_share

        c1 = self.deck[(pos + 7) % self.n][0]
        d = mul(self.x, c1)
        return [pos, d, prove_share(self.x, self.y, c1, d, self._ctx(stub, "share", pos), self.rng)]


def test_share_for_another_position():
    t = dealt(classes=(DeckPeer, OtherPosition))
    caught(t, lambda: t.run(Draw(0)), "share_for_other_position", 1)


def _reveal_as(t: Table, seat: int, real: int, claimed: int, change):
    """Seat ``seat`` shows ``real`` but its message says ``claimed``."""
    victim = 1 - seat
    out = t.peers[seat].begin(RevealFromHand(seat, (real,)))
    (wire,) = out.messages
    wire = resign(change(dict(wire)), t.keys[seat])
    t.peers[victim].begin(RevealFromHand(seat, (claimed,)))
    t.peers[victim].receive(wire)


def test_claiming_a_card_not_held():
    t = dealt()
    real = t.peers[0].my_hand()[0]
    claimed = next(c for c in range(52) if c not in t.peers[0].my_hand())

    def change(w):
        entry = list(w["body"]["reveal"][0])
        entry[1] = claimed
        return {**w, "op": ["reveal_hand", 0, [claimed], False], "body": {"reveal": [entry]}}

    caught(t, lambda: _reveal_as(t, 0, real, claimed, change), "false_claim", 0)


def test_revealing_a_position_not_held():
    t = dealt()
    real = t.peers[0].my_hand()[0]

    def change(w):
        entry = list(w["body"]["reveal"][0])
        entry[0] = 20  # a position in the draw pile
        return {**w, "body": {"reveal": [entry]}}

    caught(t, lambda: _reveal_as(t, 0, real, real, change), "position_not_held", 0)


class NonceReuser(DeckPeer):
    """Makes its Chaum–Pedersen proofs with one fixed nonce (which reveals its key)."""

    def _share_entry(self, stub, pos):
        c1 = self.deck[pos][0]
        d, k = mul(self.x, c1), 424242
        ctx = self._ctx(stub, "share", pos)
        c = _challenge("chaum-pedersen", ctx, self.y, c1, d, base_mul(k), mul(k, c1))
        return [pos, d, scalar_bytes(c) + scalar_bytes((k + c * self.x) % L)]


def test_proof_with_a_reused_nonce():
    t = Table(classes=(DeckPeer, NonceReuser))
    caught(t, lambda: t.run(ShuffleAndDeal()), "reused_nonce", 1)


@pytest.mark.parametrize(
    "point",
    [SMALL_ORDER, add(base_mul(5), SMALL_ORDER), NON_CANONICAL, IDENTITY],
    ids=["small-order", "outside-prime-subgroup", "non-canonical", "identity"],
)
def test_invalid_point(point):
    t = dealt()
    edit(t, 1, "shares", share_edit(lambda e: [e[0], point, e[2]]))
    caught(t, lambda: t.run(Draw(0)), "invalid_point", 1)


def test_invalid_point_in_a_shuffled_deck():
    t = Table()

    def change(w):
        deck = [list(c) for c in w["body"]["deck"]]
        deck[3][0] = SMALL_ORDER
        return {**w, "body": {**w["body"], "deck": deck}}

    edit(t, 1, "shuffle", change)
    caught(t, lambda: t.run(ShuffleAndDeal()), "invalid_point", 1)


def test_bad_key_proof():
    t = Table()

    def change(w):
        other = hash256("context", b"elsewhere")
        return {**w, "body": {**w["body"], "proof": prove_key(7, base_mul(7), other, os.urandom)}}

    edit(t, 1, "key", change)
    caught(t, lambda: t.run(ShuffleAndDeal()), "bad_key_proof", 1)


class KeySwitcher(DeckPeer):
    """Opens a different key share than the one it committed to."""

    def _build_key_open(self, stub, step):
        self.x = 99
        self.y = base_mul(99)
        return super()._build_key_open(stub, step)


def test_key_differs_from_its_commitment():
    t = Table(classes=(KeySwitcher, DeckPeer))
    caught(t, lambda: t.run(ShuffleAndDeal()), "key_commitment_mismatch", 0)


class Biased(DeckPeer):
    """Opens its random-pick commitment with another salt, to choose the picked cards."""

    def _build_pick_open(self, stub, step):
        self.pick_salt = bytes(32)
        return super()._build_pick_open(stub, step)


def test_biased_random_pick():
    t = dealt(classes=(Biased, DeckPeer))
    caught(t, lambda: t.run(RandomPick(0, 2)), "biased_randomness", 0)


# ---- shuffles: caught before the first card is dealt (full 40-round proofs) ----------------


class Duplicator(DeckPeer):
    """Seat 0 duplicates a card in its shuffle (and drops another)."""

    def _shuffle(self, stub):
        body = super()._shuffle(stub)
        self.own_deck[1] = sh.remask(self.own_deck[0], 5, self.joint)
        return {**body, "deck": [list(c) for c in self.own_deck]}


class Substituter(DeckPeer):
    """Seat 1 ignores its input and deals from a deck it encrypted itself (it knows every
    position), proving a shuffle of that fake input."""

    def _shuffle(self, stub):
        real = self.decks[-1]
        self.decks[-1] = [(IDENTITY, card_point(c)) for c in reversed(range(self.n))]
        try:
            return super()._shuffle(stub)
        finally:
            self.decks[-1] = real


class Stacker(DeckPeer):
    """Seat 1 shuffles honestly but puts the four kings and two queens where its own hand
    will be dealt (positions 5..10), encrypted with randomness it knows."""

    def _shuffle(self, stub):
        body = super()._shuffle(stub)
        for pos, card in zip(range(5, 11), (48, 49, 50, 51, 44, 45), strict=True):
            self.own_deck[pos] = sh.remask((IDENTITY, card_point(card)), 77 + pos, self.joint)
        return {**body, "deck": [list(c) for c in self.own_deck]}


class Forger(DeckPeer):
    """Seat 1 deals from a deck it encrypted itself, in an order it chose, and runs the prover
    on that false statement (as if it were a shuffle of its real input)."""

    def _shuffle(self, stub):
        inp, y = self.decks[-1], self.joint
        self.seed = self.rng(32)
        order = list(range(self.n))
        rands = [1000 + j for j in range(self.n)]
        out = sh.apply([(IDENTITY, card_point(c)) for c in range(self.n)], order, rands, y)
        self.own_deck = out
        argument = sh.prove(inp, out, order, rands, y, self._ctx(stub, "shuffle"), self.rng)
        return {
            "deck": [list(c) for c in out],
            "seed_commit": seed_commitment(self.sid, self.me, self.seed),
            "argument": argument.to_wire(),
        }


@pytest.mark.parametrize(
    ("cheater", "seat"),
    [(Duplicator, 0), (Substituter, 1), (Stacker, 1), (Forger, 1)],
    ids=["duplicated-card", "substituted-deck", "stacked-shuffle", "forged-shuffle-proof"],
)
def test_shuffle_cheats_are_caught_before_any_card_is_dealt(cheater, seat):
    classes = (cheater, DeckPeer) if seat == 0 else (DeckPeer, cheater)
    t = Table(classes=classes)
    cheat = caught(t, lambda: t.run(ShuffleAndDeal()), "bad_shuffle_proof", seat)
    # No card was learned by anybody.
    assert not t.peers[0].known and not t.peers[1].known
    assert all(step != "shares" for step in (m["step"] for _, m in t.wire))
    assert "shuffle by seat" in str(cheat)


# ---- the envelope: session, order, chain, signature, shape ----------------------------------


def test_replayed_message():
    t = Table()
    t.tamper = lambda s, w: [w, w] if (s, w["step"]) == (1, "key") else [w]
    caught(t, lambda: t.run(ShuffleAndDeal()), "replayed_message", 1)


def test_reordered_message():
    t = dealt()
    mine = t.peers[0].my_hand()[0]
    first = t.peers[0].begin(RevealFromHand(0, (mine,))).messages
    second = t.peers[0].begin(Draw(1)).messages
    victim = t.peers[1]
    victim.begin(RevealFromHand(0, (mine,)))
    caught(t, lambda: victim.receive(second[0]), "reordered_message", 0)
    assert first


def test_message_from_another_session():
    t = dealt()
    edit(t, 1, "shares", lambda w: {**w, "sid": bytes(16)})
    caught(t, lambda: t.run(Draw(0)), "wrong_session", 1)


def test_broken_hash_chain():
    t = dealt()
    edit(t, 1, "shares", lambda w: {**w, "prev": bytes(32)})
    caught(t, lambda: t.run(Draw(0)), "broken_chain", 1)


def test_bad_signature():
    t = dealt()
    edit(t, 1, "shares", share_edit(lambda e: [e[0], base_mul(3), e[2]]), sign=False)
    caught(t, lambda: t.run(Draw(0)), "bad_signature", 1)


def test_malformed_message():
    t = dealt()
    edit(t, 1, "shares", share_edit(lambda e: [e[0], "not bytes", e[2]]))
    cheat = caught(t, lambda: t.run(Draw(0)), "malformed_message", 1)
    assert "body.shares[0][1]" in str(cheat)


def test_message_for_another_operation():
    t = dealt()
    edit(t, 1, "shares", lambda w: {**w, "op": ["draw", 1, False]})
    caught(t, lambda: t.run(Draw(0)), "unexpected_message", 1)


# ---- the audit ----------------------------------------------------------------------------


def audited_game(**kw) -> Table:
    t = dealt(**kw)
    t.run(Draw(0))
    t.run(Draw(1))
    return t


def test_refusing_the_audit_is_a_timeout_forfeit_with_the_transcript_kept():
    t = audited_game()
    t.tamper = lambda s, w: [] if s == 1 else [w]  # seat 1 goes silent
    t.run(Audit())
    assert t.peers[0].awaiting_peer()
    forfeit = t.peers[0].timed_out()
    assert (forfeit.kind, forfeit.culprit) == ("timeout", 1)
    assert forfeit.evidence == t.peers[0].transcript()
    assert t.recheck(forfeit.evidence) is None  # everything up to the silence was fine


def test_false_audit_secret():
    t = audited_game()
    edit(t, 0, "audit", lambda w: {**w, "body": {**w["body"], "secret": scalar_bytes(5)}})
    caught(t, lambda: t.run(Audit()), "bad_audit_secret", 0)


def test_audit_seed_does_not_open_the_shuffle():
    t = audited_game()
    edit(t, 0, "audit", lambda w: {**w, "body": {**w["body"], "seed": bytes(32)}})
    caught(t, lambda: t.run(Audit()), "audit_opening_mismatch", 0)


def test_false_verdict():
    t = audited_game()
    edit(t, 0, "verdict", lambda w: {**w, "body": {"verdict": [True, bytes(32)]}})
    caught(t, lambda: t.run(Audit()), "false_verdict", 0)


def test_the_catalogue_covers_at_least_fifteen_kinds():
    import inspect
    import sys

    source = inspect.getsource(sys.modules[__name__])
    kinds = {k for k in __import__("cuttle_net.deck").deck.CHEAT_KINDS if f'"{k}"' in source}
    assert len(kinds) >= 15, kinds


def test_the_audit_would_catch_a_duplicated_card_that_slipped_through():
    # Unreachable while the shuffle arguments hold; the audit checks the decks regardless.
    from cuttle_net.deck import audit
    from cuttle_net.deck.errors import Deviation

    t = audited_game()
    t.run(Audit())
    peer = t.peers[0]
    peer.decks[2][7] = peer.decks[2][8]
    peer.verdict_digest = None
    with pytest.raises(Deviation) as info:
        audit.verdict_digest(peer)
    assert (info.value.kind, info.value.culprit) == ("duplicate_card", 1)
