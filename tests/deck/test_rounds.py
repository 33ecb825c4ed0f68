"""Rounds (SPEC 2.7-2.8): the steps of an operation that need no message of each other go out
at once, may arrive in any order, and chain as one round; a seat that sends twice in a round,
or holds its message back, is named."""

from __future__ import annotations

import os
import random

import pytest

from cuttle_net.deck import (
    Audit,
    CheatDetected,
    Deal,
    Draw,
    ExposeHands,
    Message,
    RandomPick,
    RevealFromDeck,
    WireError,
    equivocation,
    op_from_wire,
)
from cuttle_net.deck.encoding import hash256
from cuttle_net.deck.messages import genesis
from cuttle_net.deck.proofs import prove_share

from .helpers import SID, SMALL_DECK, Table, dealt, resign

DECK = SMALL_DECK


def rounds_of(t: Table, seat: int = 0) -> list[list[tuple[str, int]]]:
    """Each operation's messages in seat ``seat``'s transcript, as (step, sender) by round."""
    ops: list[list[tuple[str, int]]] = []
    last_seq = None
    for kind, value in t.peers[seat].transcript():
        if kind == "op":
            ops.append([])
        elif value["seq"] != last_seq:
            ops[-1].append([(value["step"], value["from"])])
            last_seq = value["seq"]
        else:
            ops[-1][-1].append((value["step"], value["from"]))
    return ops


def test_every_seat_sends_its_share_of_a_draw_at_once() -> None:
    # At six seats a private draw is one round: each of the five others' shares leaves as the
    # operation begins, before any message of it has come in.
    t = dealt(6)
    for s in range(6):
        out = t.peers[s].begin(Draw(2))
        assert len(out.messages) == (0 if s == 2 else 1)
        t.wire += [(s, m) for m in out.messages]
    sent = [m for _, m in t.wire[-5:]]
    assert {m["seq"] for m in sent} == {sent[0]["seq"]} and len({m["prev"] for m in sent}) == 1


@pytest.mark.parametrize("seats", [2, 3, 6])
def test_each_operation_takes_its_rounds(seats: int) -> None:
    t = dealt(seats)
    t.run(Draw(1))
    t.run(RevealFromDeck(2))
    t.run(RandomPick(0, 1))
    t.run(Audit())
    deal, draw, turn, pick, audit = rounds_of(t)
    last = seats - 1
    assert deal == [
        [("key_commit", s) for s in range(last)],
        [("key", last)],
        [("key_open", s) for s in range(last)],
        *([("shuffle", s)] for s in range(seats)),
        [("shares", s) for s in range(seats)],
    ]
    assert draw == [[("shares", s) for s in range(seats) if s != 1]]
    assert turn == [[("shares", s) for s in range(seats)]]
    assert pick == [[("pick_commit", 0)], [("pick_salt", s) for s in range(1, seats)],
                    [("pick_open", 0)]]  # fmt: skip
    assert audit == [[("audit", s) for s in range(seats)], [("verdict", s) for s in range(seats)]]
    # Every seat lists each complete round by ascending sender: the transcripts are the same.
    assert all(p.transcript() == t.peers[0].transcript() for p in t.peers)
    assert all(p.audited for p in t.peers)


def test_the_head_of_a_round_hashes_its_messages_by_sender() -> None:
    t = Table(seats=3, deck_size=DECK)
    t.run(Deal((3, 3, 3), 1))
    commits = [m for _, m in t.wire[:2]]
    assert [m["from"] for m in commits] == [0, 1] and all(m["seq"] == 0 for m in commits)
    assert all(m["prev"] == genesis(SID) for m in commits)
    digests = [Message.from_wire(m).digest() for m in commits]
    key = t.wire[2][1]
    assert key["step"] == "key" and key["prev"] == hash256("round", digests)
    opens = [m for _, m in t.wire[3:5]]  # a round of one message chains on that message
    assert all(m["prev"] == Message.from_wire(key).digest() for m in opens)


@pytest.mark.parametrize("seed", range(4))
def test_a_rounds_messages_are_accepted_in_any_order(seed: int) -> None:
    # Four seats: a relay takes the next message of a random seat (each seat's own in the
    # order sent, as over TCP), so a round's messages reach everyone in a random order; every
    # seat ends with the same cards, heads and transcript, and a third party accepts the
    # transcript with each round shuffled too.
    rng = random.Random(seed)
    t = Table(seats=4, deck_size=DECK)
    ops = [Deal((3,) * 4, 1), Draw(1), RevealFromDeck(3), Draw(2, public=True), RandomPick(3, 2)]
    for op in [*ops, Audit()]:
        sent: list[list[dict]] = [t.peers[s].begin(op).messages for s in range(4)]
        while any(sent):
            sender = rng.choice([s for s in range(4) if sent[s]])
            msg = sent[sender].pop(0)
            for other in range(4):
                if other != sender:
                    sent[other] += t.peers[other].receive(msg).messages
    assert all(p.audited for p in t.peers)
    assert len({p.head for p in t.peers}) == 1
    assert all(p.transcript() == t.peers[0].transcript() for p in t.peers)
    shuffled, block = [], []
    for entry in t.peers[0].transcript():
        if entry[0] == "msg" and block and entry[1]["seq"] == block[0][1]["seq"]:
            block.append(entry)
            continue
        rng.shuffle(block)
        shuffled += block
        block = [entry] if entry[0] == "msg" else []
        if entry[0] == "op":
            shuffled.append(entry)
    rng.shuffle(block)
    shuffled += block
    assert shuffled != t.peers[0].transcript() and sorted(map(repr, shuffled)) == sorted(
        map(repr, t.peers[0].transcript())
    )
    assert t.recheck(shuffled) is None


def test_a_share_sent_twice_in_a_round_is_a_replay_of_its_sender() -> None:
    t = dealt(4)
    outs = [t.peers[s].begin(RevealFromDeck(1)) for s in range(4)]
    (first,) = outs[1].messages
    t.peers[0].receive(first)
    with pytest.raises(CheatDetected) as info:
        t.peers[0].receive(first)
    assert (info.value.kind, info.value.culprit) == ("replayed_message", 1)
    again = t.recheck(info.value.evidence)
    assert again is not None and (again.kind, again.culprit) == ("replayed_message", 1)


def test_a_second_different_message_in_a_round_is_named_and_convicts_its_signer() -> None:
    # Seat 1 proves its share again (a fresh nonce: valid too) and sends both: the second is
    # refused, and the two signed messages for one round prove equivocation.
    t = dealt(4)
    outs = [t.peers[s].begin(RevealFromDeck(1)) for s in range(4)]
    (first,) = outs[1].messages
    cheater = t.peers[1]
    pos, d, _ = first["body"]["shares"][0]
    ctx = cheater._ctx(Message.from_wire(first), "share", pos)
    proof = prove_share(cheater.x, cheater.y, cheater.deck[pos][0], d, ctx, os.urandom)
    second = resign({**first, "body": {"shares": [[pos, d, proof]]}}, t.keys[1])
    t.peers[2].receive(first)
    with pytest.raises(CheatDetected) as info:
        t.peers[2].receive(second)
    assert (info.value.kind, info.value.culprit) == ("replayed_message", 1)
    proven = equivocation(first, second, t.public_keys(), session_id=SID)
    assert proven is not None and (proven.kind, proven.culprit) == ("equivocation", 1)


def test_a_seat_withholding_its_share_is_the_one_timed_out() -> None:
    # Seat 2 sees every other share of a card turned face up, and sends nothing: it learned no
    # more than the last sender did before rounds, and it forfeits.
    t = dealt(4)
    t.tamper = lambda s, w: [] if s == 2 else [w]
    t.run(RevealFromDeck(1))
    for p in (t.peers[0], t.peers[1], t.peers[3]):
        assert p.owing() == [2] and p.next_sender() == 2 and p.awaiting_peer()
    assert t.peers[2].owing() == [] and not t.peers[2].awaiting_peer()
    forfeit = t.peers[3].timed_out()
    assert (forfeit.kind, forfeit.culprit) == ("timeout", 2)
    assert t.recheck(forfeit.evidence) is None


def test_with_two_silent_seats_both_owe_and_the_lowest_is_named() -> None:
    t = dealt(5)
    t.tamper = lambda s, w: [] if s in (1, 3) else [w]
    t.run(Draw(0))
    assert t.peers[0].owing() == [1, 3]
    assert t.peers[0].timed_out().culprit == 1


def test_a_message_of_the_next_round_before_its_round_is_reordered() -> None:
    # Causal delivery is the transport's part (SPEC 2.7): the key, sent once both commitments
    # were in, reaching a seat that has only one of them is out of order.
    t = Table(seats=3, deck_size=DECK)
    op = Deal((3, 3, 3), 1)
    outs = [t.peers[s].begin(op) for s in range(3)]
    (key,) = t.peers[2].receive(outs[0].messages[0]).messages or [None]
    assert key is None
    (key,) = t.peers[2].receive(outs[1].messages[0]).messages
    with pytest.raises(CheatDetected) as info:
        t.peers[0].receive(key)  # seat 0 has not yet got seat 1's commitment
    assert (info.value.kind, info.value.culprit) == ("reordered_message", 2)


def test_a_slow_party_keeps_a_rounds_messages_in_any_order() -> None:
    # Seat 3 of four has not begun the deal: the three commitments come in reverse order and
    # are kept (its own step, the key, is next); it then deals with the others.
    t = Table(seats=4, deck_size=DECK)
    op = Deal((3,) * 4, 1)
    outs = [t.peers[s].begin(op) for s in range(3)]
    for s in (2, 1, 0):
        for other in range(3):
            if other != s:
                t.peers[other].receive(outs[s].messages[0])
        t.peers[3].receive(outs[s].messages[0], author=s)
    assert len(t.peers[3].pending) == 3
    t.deliver([(3, m) for m in t.peers[3].begin(op).messages])
    assert all(p.dealt for p in t.peers) and not t.peers[3].pending


def test_the_hands_shown_at_the_end_are_one_round() -> None:
    t = dealt(4)
    hands = [p.my_hand() for p in t.peers]
    t.run(ExposeHands((0, 2, 3)))
    (shown,) = rounds_of(t)[-1]
    assert shown == [("reveal", 0), ("reveal", 2), ("reveal", 3)]
    for s in (0, 2, 3):
        assert all(p.hand_view(s) == (hands[s], 0) for p in t.peers)
    assert t.peers[0].hand_view(1) == ([], 3)


def test_a_hand_shown_in_part_at_the_end_is_refused() -> None:
    t = dealt(3)
    t.tamper = lambda s, w: (
        [resign({**w, "body": {"reveal": w["body"]["reveal"][:-1]}}, t.keys[1])] if s == 1 else [w]
    )
    with pytest.raises(CheatDetected) as info:
        t.run(ExposeHands((0, 1)))
    assert (info.value.kind, info.value.culprit) == ("unexpected_message", 1)
    again = t.recheck(info.value.evidence)
    assert again is not None and (again.kind, again.culprit) == ("unexpected_message", 1)


@pytest.mark.parametrize("seats", [[], [1, 0], [0, 0], [0, 6], "0"])
def test_expose_hands_names_distinct_seats_in_order(seats) -> None:
    with pytest.raises(WireError):
        op_from_wire(["expose_hands", seats])
    assert op_from_wire(["expose_hands", [0, 2]]) == ExposeHands((0, 2))
