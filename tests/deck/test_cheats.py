"""The catalogue of cheats at tables of 2..6: each tried by a malicious party in a given seat,
caught at the right step, named, attributed to that seat, and confirmed by a third party
from the evidence alone.

Every kind runs at every seat of a three-party table, and at one more seating that cycles
through tables of 2, 4, 5 and 6 (first, middle and last seats), with a 26-card deck to keep
the suite fast (the protocol does not depend on the deck's size beyond the counts).
"""

from __future__ import annotations

import itertools
import os

import pytest

from cuttle_net.deck import (
    Audit,
    CheatDetected,
    Deal,
    DeckPeer,
    Draw,
    ExposeHand,
    Message,
    RandomPick,
    RevealFromDeck,
    RevealFromHand,
    UsageError,
    equivocation,
)
from cuttle_net.deck import shuffle as sh
from cuttle_net.deck.audit import seed_commitment
from cuttle_net.deck.encoding import hash256
from cuttle_net.deck.group import IDENTITY, L, base_mul, card_point, mul, scalar_bytes
from cuttle_net.deck.proofs import _challenge, prove_key, prove_share
from cuttle_net.deck.state import deal_layout

from .helpers import SID, SMALL_DECK, Table, dealt, resign

DECK = SMALL_DECK
HAND = 3
NON_CANONICAL = b"\xff" * 31 + b"\x7f"  # not a canonical field element
NOT_A_POINT = bytes.fromhex("0100000000000000000000000000000000000000000000000000000000000000")

_EXTRA = itertools.cycle([(2, 0), (4, 3), (6, 5), (2, 1), (5, 2), (4, 0), (2, 1), (5, 4)])


def seatings(last_only: bool = False, not_last: bool = False) -> list[tuple[int, int]]:
    """(table size, cheating seat): every seat at three, and one more from the cycle."""
    out = [(3, s) for s in range(3)]
    while True:
        n, s = next(_EXTRA)
        if not (last_only and s != n - 1) and not (not_last and s == n - 1):
            break
    out.append((n, s))
    if last_only:
        out = [(n, n - 1) for n, _ in out[2:]]
    if not_last:
        out = [(n, s) for n, s in out if s != n - 1]
    return out


def ids(seating: tuple[int, int]) -> str:
    return f"{seating[0]}p-seat{seating[1]}"


def deal_op(seats: int) -> Deal:
    return Deal((HAND,) * seats, 1)


def table(seats: int, cheater: int | None = None, cls: type[DeckPeer] | None = None) -> Table:
    classes = {cheater: cls} if cls is not None and cheater is not None else {}
    return Table(classes=classes, deck_size=DECK, seats=seats)


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


def other(seats: int, seat: int) -> int:
    return (seat + 1) % seats


# ---- shares, keys and reveals: caught at the step ---------------------------------------------


@pytest.mark.parametrize("seating", seatings(), ids=ids)
def test_wrong_share(seating):
    n, c = seating
    t = dealt(n)
    edit(t, c, "shares", share_edit(lambda e: [e[0], base_mul(12345), e[2]]))
    caught(t, lambda: t.run(Draw(other(n, c))), "wrong_share", c)


def _plus_l(proof: bytes) -> bytes:
    """The same proof with its response s written as s + L: the same point, not canonical."""
    s = int.from_bytes(proof[32:], "little") + L
    return proof[:32] + s.to_bytes(32, "little")


def test_a_scalar_not_below_l_fails_its_proof() -> None:
    """SPEC 2.2: a received scalar ≥ L is refused, as the proof it is in failing; s + L
    would pass the proof's equations (L·P = O), so only that check refuses it."""
    t = dealt(3)
    edit(t, 1, "shares", share_edit(lambda e: [e[0], e[1], _plus_l(e[2])]))
    caught(t, lambda: t.run(Draw(2)), "wrong_share", 1)
    t = table(3)
    edit(t, 2, "key", lambda w: {**w, "body": {**w["body"], "proof": _plus_l(w["body"]["proof"])}})
    caught(t, lambda: t.run(deal_op(3)), "bad_key_proof", 2)


class OtherPosition(DeckPeer):
    """Answers a draw with a valid share and proof, for another position's card."""

    def _share_entry(self, stub, pos):
        if not isinstance(self.op, Draw):
            return super()._share_entry(stub, pos)
        c1 = self.deck[(pos + 7) % self.n][0]
        d = mul(self.x, c1)
        return [pos, d, prove_share(self.x, self.y, c1, d, self._ctx(stub, "share", pos), self.rng)]


@pytest.mark.parametrize("seating", seatings(), ids=ids)
def test_share_for_another_position(seating):
    n, c = seating
    t = dealt(n, c, OtherPosition)
    caught(t, lambda: t.run(Draw(other(n, c))), "share_for_other_position", c)


def _reveal_as(t: Table, seat: int, real: int, claimed: int, change):
    """Seat ``seat`` shows ``real`` but its message says ``claimed``; the first other party
    checks it."""
    out = t.peers[seat].begin(RevealFromHand(seat, (real,)))
    (wire,) = out.messages
    wire = resign(change(dict(wire)), t.keys[seat])
    victim = t.peers[other(t.seats, seat)]
    victim.begin(RevealFromHand(seat, (claimed,)))
    victim.receive(wire)


@pytest.mark.parametrize("seating", seatings(), ids=ids)
def test_claiming_a_card_not_held(seating):
    n, c = seating
    t = dealt(n)
    real = t.peers[c].my_hand()[0]
    claimed = next(x for x in range(DECK) if x not in t.peers[c].my_hand())

    def change(w):
        entry = list(w["body"]["reveal"][0])
        entry[1] = claimed
        return {**w, "op": ["reveal_hand", c, [claimed], False], "body": {"reveal": [entry]}}

    caught(t, lambda: _reveal_as(t, c, real, claimed, change), "false_claim", c)


@pytest.mark.parametrize("seating", seatings(), ids=ids)
def test_revealing_a_position_not_held(seating):
    n, c = seating
    t = dealt(n)
    real = t.peers[c].my_hand()[0]

    def change(w):
        entry = list(w["body"]["reveal"][0])
        entry[0] = DECK - 1  # a position in the draw pile
        return {**w, "body": {"reveal": [entry]}}

    caught(t, lambda: _reveal_as(t, c, real, real, change), "position_not_held", c)


class NonceReuser(DeckPeer):
    """Makes its Chaum–Pedersen proofs with one fixed nonce (which reveals its key)."""

    def _share_entry(self, stub, pos):
        c1 = self.deck[pos][0]
        d, k = mul(self.x, c1), 424242
        ctx = self._ctx(stub, "share", pos)
        c = _challenge("chaum-pedersen", ctx, self.y, c1, d, base_mul(k), mul(k, c1))
        return [pos, d, scalar_bytes(c) + scalar_bytes((k + c * self.x) % L)]


@pytest.mark.parametrize("seating", seatings(), ids=ids)
def test_proof_with_a_reused_nonce(seating):
    n, c = seating
    t = table(n, c, NonceReuser)
    caught(t, lambda: t.run(deal_op(n)), "reused_nonce", c)


@pytest.mark.parametrize(
    "point", [NON_CANONICAL, NOT_A_POINT, IDENTITY], ids=["non-canonical", "no-point", "identity"]
)
def test_invalid_point_in_a_share(point):
    t = dealt(3)
    edit(t, 1, "shares", share_edit(lambda e: [e[0], point, e[2]]))
    caught(t, lambda: t.run(Draw(2)), "invalid_point", 1)


@pytest.mark.parametrize("seating", seatings(), ids=ids)
def test_invalid_point_in_a_shuffled_deck(seating):
    n, c = seating
    t = table(n)

    def change(w):
        deck = [list(x) for x in w["body"]["deck"]]
        deck[3][0] = NOT_A_POINT
        return {**w, "body": {**w["body"], "deck": deck}}

    edit(t, c, "shuffle", change)
    caught(t, lambda: t.run(deal_op(n)), "invalid_point", c)


@pytest.mark.parametrize("seating", seatings(), ids=ids)
def test_bad_key_proof(seating):
    n, c = seating
    t = table(n)

    def change(w):
        elsewhere = hash256("context", b"elsewhere")
        proof = prove_key(7, base_mul(7), elsewhere, os.urandom)
        return {**w, "body": {**w["body"], "proof": proof}}

    edit(t, c, "key" if c == n - 1 else "key_open", change)
    caught(t, lambda: t.run(deal_op(n)), "bad_key_proof", c)


class KeySwitcher(DeckPeer):
    """Opens a different key share than the one it committed to."""

    def _build_key_open(self, stub, step):
        self.x = 99
        self.y = base_mul(99)
        return super()._build_key_open(stub, step)


@pytest.mark.parametrize("seating", seatings(not_last=True), ids=ids)
def test_key_differs_from_its_commitment(seating):
    n, c = seating
    t = table(n, c, KeySwitcher)
    caught(t, lambda: t.run(deal_op(n)), "key_commitment_mismatch", c)


class Biased(DeckPeer):
    """Opens its random-pick commitment with another salt, to choose the picked cards."""

    def _build_pick_open(self, stub, step):
        self.pick_salt = bytes(32)
        return super()._build_pick_open(stub, step)


@pytest.mark.parametrize("seating", seatings(), ids=ids)
def test_biased_random_pick(seating):
    n, c = seating
    t = dealt(n, c, Biased)
    caught(t, lambda: t.run(RandomPick(c, 2)), "biased_randomness", c)


# ---- shuffles: caught before the first card is dealt ------------------------------------------


class Duplicator(DeckPeer):
    """Duplicates a card in its shuffle (and drops another)."""

    def _build_shuffle(self, stub, step):
        body = super()._build_shuffle(stub, step)
        self.own_deck[1] = sh.remask(self.own_deck[0], 5, self.joint)
        return {**body, "deck": [list(x) for x in self.own_deck]}


class Substituter(DeckPeer):
    """Ignores its input and deals from a deck it encrypted itself (it knows every
    position), proving a shuffle of that fake input."""

    def _build_shuffle(self, stub, step):
        real = self.decks[-1]
        self.decks[-1] = [(IDENTITY, card_point(x)) for x in reversed(range(self.n))]
        try:
            return super()._build_shuffle(stub, step)
        finally:
            self.decks[-1] = real


class Stacker(DeckPeer):
    """Shuffles honestly but puts cards 0, 1, 2 where its own hand will be dealt, encrypted
    with randomness it knows."""

    def _build_shuffle(self, stub, step):
        body = super()._build_shuffle(stub, step)
        hands, _, _ = deal_layout(self.op)
        for card, pos in enumerate(hands[self.me]):
            self.own_deck[pos] = sh.remask((IDENTITY, card_point(card)), 77 + pos, self.joint)
        return {**body, "deck": [list(x) for x in self.own_deck]}


class Forger(DeckPeer):
    """Deals from a deck it encrypted itself, in an order it chose, and runs the prover on
    that false statement (as if it were a shuffle of its real input)."""

    def _build_shuffle(self, stub, step):
        inp, y = self.decks[-1], self.joint
        self.seed = self.rng(32)
        order = list(range(self.n))
        rands = [1000 + j for j in range(self.n)]
        # Its own order (reversed), claimed to be the identity permutation of its input.
        mine = [(IDENTITY, card_point(x)) for x in reversed(range(self.n))]
        out = sh.apply(mine, order, rands, y)
        self.own_deck = out
        argument = sh.prove(inp, out, order, rands, y, self._ctx(stub, "shuffle"), self.rng)
        return {
            "deck": [list(x) for x in out],
            "seed_commit": seed_commitment(self.sid, self.me, self.seed),
            "argument": argument.to_wire(),
        }


SHUFFLE_CHEATS = {
    "duplicated-card": Duplicator,
    "substituted-deck": Substituter,
    "stacked-shuffle": Stacker,
    "forged-shuffle-proof": Forger,
}


@pytest.mark.parametrize(
    ("name", "seating"),
    [(name, s) for name in SHUFFLE_CHEATS for s in seatings()],
    ids=lambda v: v if isinstance(v, str) else ids(v),
)
def test_shuffle_cheats_are_caught_before_any_card_is_dealt(name, seating):
    n, c = seating
    t = table(n, c, SHUFFLE_CHEATS[name])
    cheat = caught(t, lambda: t.run(deal_op(n)), "bad_shuffle_proof", c)
    # No card was learned by anybody, and no share was sent.
    assert not any(p.known for p in t.peers)
    assert all(m["step"] != "shares" for _, m in t.wire)
    assert f"shuffle by seat {c}" in str(cheat)


# ---- the envelope: session, order, chain, signature, shape ----------------------------------


@pytest.mark.parametrize("seating", seatings(), ids=ids)
def test_replayed_message(seating):
    n, c = seating
    t = table(n)
    t.tamper = lambda s, w: [w, w] if (s, w["step"]) == (c, "shuffle") else [w]
    caught(t, lambda: t.run(deal_op(n)), "replayed_message", c)


@pytest.mark.parametrize("seating", seatings(), ids=ids)
def test_reordered_message(seating):
    n, c = seating
    t = dealt(n)
    mine = t.peers[c].my_hand()[0]
    first = t.peers[c].begin(RevealFromHand(c, (mine,))).messages
    second = t.peers[c].begin(ExposeHand(c)).messages
    victim = t.peers[other(n, c)]
    victim.begin(RevealFromHand(c, (mine,)))
    caught(t, lambda: victim.receive(second[0]), "reordered_message", c)
    assert first


def _envelope_case(seating, change, kind, *, sign=True):
    n, c = seating
    t = dealt(n)
    edit(t, c, "shares", change, sign=sign)
    return caught(t, lambda: t.run(Draw(other(n, c))), kind, c)


@pytest.mark.parametrize("seating", seatings(), ids=ids)
def test_message_from_another_session(seating):
    _envelope_case(seating, lambda w: {**w, "sid": bytes(16)}, "wrong_session")


@pytest.mark.parametrize("seating", seatings(), ids=ids)
def test_broken_hash_chain(seating):
    _envelope_case(seating, lambda w: {**w, "prev": bytes(32)}, "broken_chain")


@pytest.mark.parametrize("seating", seatings(), ids=ids)
def test_bad_signature(seating):
    change = share_edit(lambda e: [e[0], base_mul(3), e[2]])
    _envelope_case(seating, change, "bad_signature", sign=False)


@pytest.mark.parametrize("seating", seatings(), ids=ids)
def test_malformed_message(seating):
    change = share_edit(lambda e: [e[0], "not bytes", e[2]])
    cheat = _envelope_case(seating, change, "malformed_message")
    assert "body.shares[0][1]" in str(cheat)


@pytest.mark.parametrize("seating", seatings(), ids=ids)
def test_message_for_another_operation(seating):
    _, c = seating
    _envelope_case(seating, lambda w: {**w, "op": ["draw", c, False]}, "unexpected_message")


@pytest.mark.parametrize("seating", [s for s in seatings() if s[0] > 2], ids=ids)
def test_a_message_out_of_turn_is_charged_to_its_signer(seating):
    # Seat c signs a well-formed share while other seats' are due, none of its own (it
    # draws the card).
    n, c = seating
    t = dealt(n)
    op, due = Draw(c), (1 if c == 0 else 0)
    outs = [t.peers[s].begin(op) for s in range(n)]
    victim = next(s for s in range(n) if s not in (c, due))
    forged = resign({**outs[due].messages[0], "from": c}, t.keys[c])
    caught(t, lambda: t.peers[victim].receive(forged), "unexpected_message", c)


# ---- the relay (the host in a star) -------------------------------------------------------


def test_a_relay_that_alters_a_message_in_transit_is_caught_by_the_signature():
    # The relay edits seat 2's share on its way to the others: it cannot sign as seat 2.
    t = dealt(3)
    edit(t, 2, "shares", share_edit(lambda e: [e[0], base_mul(9), e[2]]), sign=False)
    cheat = caught(t, lambda: t.run(Draw(0)), "bad_signature", 2)
    assert "not signed by seat 2" in str(cheat)


@pytest.mark.parametrize("seating", seatings(), ids=ids)
def test_showing_parties_different_logs_is_equivocation_named_from_the_two_messages(seating):
    # Seat c signs two different messages for one place in the log and the relay shows one
    # to some parties and the other to the rest. Their chains diverge (the table compares
    # heads, SPEC part 3); the two signed messages side by side name seat c.
    n, c = seating
    t = dealt(n)
    t.run(RevealFromDeck(1))
    first = next(m for s, m in t.wire if s == c and m["step"] == "shares")
    entry = [*first["body"]["shares"][0][:2], bytes(64)]
    second = resign({**first, "body": {"shares": [entry]}}, t.keys[c])
    cheat = equivocation(first, second, t.public_keys(), session_id=SID)
    assert cheat is not None and (cheat.kind, cheat.culprit) == ("equivocation", c)
    assert cheat.evidence == [first, second]
    assert equivocation(first, first, t.public_keys(), session_id=SID) is None
    # A message not signed by its named author proves nothing against that seat.
    unsigned = {**second, "sig": bytes(64)}
    assert equivocation(first, unsigned, t.public_keys(), session_id=SID) is None


# ---- the audit ----------------------------------------------------------------------------


def audited_game(seats: int) -> Table:
    t = dealt(seats)
    for s in range(seats):
        t.run(Draw(s))
    return t


@pytest.mark.parametrize("seating", seatings(), ids=ids)
def test_refusing_the_audit_is_a_timeout_forfeit_with_the_transcript_kept(seating):
    n, c = seating
    t = audited_game(n)
    t.tamper = lambda s, w: [] if s == c else [w]  # seat c goes silent
    t.run(Audit())
    waiting = [p for p in t.peers if p.me != c]
    assert all(p.awaiting_peer() and p.next_sender() == c for p in waiting)
    forfeit = waiting[0].timed_out()
    assert (forfeit.kind, forfeit.culprit) == ("timeout", c)
    assert forfeit.evidence == waiting[0].transcript()
    assert t.recheck(forfeit.evidence) is None  # everything up to the silence was fine


def _audit_step(n: int, c: int) -> str:
    return "audit"  # every seat's, in the audit's first round


@pytest.mark.parametrize("seating", seatings(), ids=ids)
def test_false_audit_secret(seating):
    n, c = seating
    t = audited_game(n)
    edit(t, c, _audit_step(n, c), lambda w: {**w, "body": {**w["body"], "secret": scalar_bytes(5)}})
    caught(t, lambda: t.run(Audit()), "bad_audit_secret", c)


@pytest.mark.parametrize("seating", seatings(), ids=ids)
def test_audit_seed_does_not_open_the_shuffle(seating):
    n, c = seating
    t = audited_game(n)
    edit(t, c, _audit_step(n, c), lambda w: {**w, "body": {**w["body"], "seed": bytes(32)}})
    caught(t, lambda: t.run(Audit()), "audit_opening_mismatch", c)


@pytest.mark.parametrize("seating", seatings(), ids=ids)
def test_false_verdict(seating):
    n, c = seating
    t = audited_game(n)
    edit(t, c, "verdict", lambda w: {**w, "body": {**w["body"], "verdict": [True, bytes(32)]}})
    caught(t, lambda: t.run(Audit()), "false_verdict", c)


@pytest.mark.parametrize("seating", seatings(), ids=ids)
def test_the_audit_would_catch_a_duplicated_card_that_slipped_through(seating):
    # Unreachable while the shuffle arguments hold; the audit checks the decks regardless.
    from cuttle_net.deck import audit
    from cuttle_net.deck.errors import Deviation

    n, c = seating
    t = audited_game(n)
    t.run(Audit())
    peer = t.peers[0]
    peer.decks[c + 1][7] = peer.decks[c + 1][8]
    with pytest.raises(Deviation) as info:
        audit.verdict_digest(peer)
    assert (info.value.kind, info.value.culprit) == ("duplicate_card", c)


def test_the_catalogue_covers_every_kind_but_the_internal_ones():
    import inspect
    import sys

    from cuttle_net.deck import CHEAT_KINDS

    source = inspect.getsource(sys.modules[__name__])
    missing = {k for k in CHEAT_KINDS if f'"{k}"' not in source}
    assert missing <= {"timeout"} or not missing, missing


def test_an_equivocating_party_splits_the_table_and_its_two_messages_name_it():
    # Seat 0 proves its share twice (fresh nonces: both valid) and the relay gives one to
    # seat 1, the other to seat 2. Each accepts what it saw; their chains now differ, which is
    # what the table compares (part 3), and the two messages convict seat 0.
    t = dealt(3)
    op = RevealFromDeck(1)
    outs = [t.peers[s].begin(op) for s in range(3)]
    (first,) = outs[0].messages
    cheater = t.peers[0]
    pos, d, _ = first["body"]["shares"][0]
    stub = Message.from_wire(first)
    proof = prove_share(
        cheater.x, cheater.y, cheater.deck[pos][0], d, cheater._ctx(stub, "share", pos), os.urandom
    )
    second = resign({**first, "body": {"shares": [[pos, d, proof]]}}, t.keys[0])
    t.peers[1].receive(first)
    t.peers[2].receive(second)
    t.peers[1].receive(outs[2].messages[0])  # the round completes: each hashes what it saw
    t.peers[2].receive(outs[1].messages[0])
    assert t.peers[1].head != t.peers[2].head
    cheat = equivocation(first, second, t.public_keys(), session_id=SID)
    assert cheat is not None and (cheat.kind, cheat.culprit) == ("equivocation", 0)


def test_showing_a_copy_of_another_face_when_faces_are_named():
    # Two identical decks: RevealFromHand names a face; seat 1 proves a real card of its
    # hand, but of another face.
    t = Table(seats=3, deck_size=64, faces=32)
    t.run(Deal((4, 4, 4), 0))
    hand = t.peers[1].my_hand()
    asked = next(f for f in range(32) if f not in {c % 32 for c in hand})
    wire = t.peers[1].begin(RevealFromHand(1, (hand[0] % 32,))).messages[0]
    forged = resign({**wire, "op": ["reveal_hand", 1, [asked], False]}, t.keys[1])
    t.peers[0].begin(RevealFromHand(1, (asked,)))
    caught(t, lambda: t.peers[0].receive(forged), "unexpected_message", 1)


def test_a_party_is_never_charged_for_its_own_message_sent_back_to_it():
    t = dealt(2)
    t.run(Draw(1))
    own = next(m for s, m in t.wire if s == 0)
    t.peers[0].begin(Draw(0))  # seat 1's share is due; the channel returns seat 0's own
    with pytest.raises(CheatDetected) as info:  # (bad_signature: the channel's word only)
        t.peers[0].receive(own)
    assert (info.value.kind, info.value.culprit) == ("bad_signature", 1)


@pytest.mark.parametrize(
    ("author", "kind", "culprit"),
    [(2, "replayed_message", 2), (1, "bad_signature", 1), (None, "replayed_message", 2)],
)
def test_the_authenticated_author_bears_the_fault(author, kind, culprit):
    # A relay hands seat 0 an old message of seat 2 while seat 1's share is due. If the
    # table's log says seat 2 posted it, seat 2 replayed it; if it says seat 1 posted it,
    # seat 1 posted something it did not sign. Without a table, the signer is charged.
    t = dealt(3)
    t.run(Draw(0))
    old = next(m for s, m in t.wire if s == 2 and m["step"] == "shares")
    t.peers[0].begin(Draw(0))
    with pytest.raises(CheatDetected) as info:
        t.peers[0].receive(old, author=author)
    assert (info.value.kind, info.value.culprit) == (kind, culprit)
    with pytest.raises(UsageError):
        dealt(3).peers[0].receive(old, author=0)  # one's own seat is not an author


# ---- the order of reveal entries (SPEC 2.8, *Reveal step*) ------------------------------------


def reversed_reveal(wire: dict) -> dict:
    return {**wire, "body": {**wire["body"], "reveal": wire["body"]["reveal"][::-1]}}


@pytest.mark.parametrize("op", ["reveal_hand", "expose_hand"])
def test_reveal_entries_in_any_order_are_accepted(op):
    t = Table()
    t.run(Deal((5, 6)))
    shown = tuple(t.peers[0].my_hand()[:3])
    edit(t, 0, "reveal", reversed_reveal)
    t.run(RevealFromHand(0, shown) if op == "reveal_hand" else ExposeHand(0))
    wire = next(w for _, w in t.wire if w["step"] == "reveal")
    positions = [e[0] for e in wire["body"]["reveal"]]
    assert positions == sorted(positions, reverse=True) and len(positions) > 1
    assert t.peers[1].failed is None and t.recheck([*t.peers[1].transcript()]) is None


def test_pick_open_entries_out_of_order_are_refused():
    t = Table()
    t.run(Deal((5, 6)))
    edit(t, 0, "pick_open", reversed_reveal)
    caught(t, lambda: t.run(RandomPick(0, 3)), "unexpected_message", 0)
