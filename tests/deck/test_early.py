"""Early messages (SPEC 2.7): a message that comes before a party began its operation is
checked before it is kept, and kept only if it is the next step due before the party's own;
anything else is refused at once, charged to the seat that signed it, and a third party
finds the same fault in the evidence."""

from __future__ import annotations

import pytest

from cuttle_net.deck import CheatDetected, Deal, Draw, RevealFromHand, UsageError
from cuttle_net.deck.messages import Message

from .helpers import SMALL_DECK, Table, dealt, resign

DECK = SMALL_DECK


def refused(t: Table, seat: int, wire, author: int | None, kind: str, culprit: int):
    with pytest.raises(CheatDetected) as info:
        t.peers[seat].receive(wire, author=author)
    cheat = info.value
    assert (cheat.kind, cheat.culprit) == (kind, culprit), cheat
    assert cheat.evidence[-1] == ("msg", wire)  # the message its signer signed, last
    again = t.recheck(cheat.evidence)
    assert again is not None and (again.kind, again.culprit) == (kind, culprit), again
    return cheat


def test_a_slow_party_keeps_the_steps_due_before_its_own_then_deals() -> None:
    t = Table(seats=3, deck_size=DECK)
    op = Deal((3, 3, 3), 1)
    queue = []
    for s in (0, 1):  # seat 2 has not begun the deal yet
        queue += [(s, m) for m in t.peers[s].begin(op).messages]
    t.deliver(queue)
    slow = t.peers[2]
    assert [m["step"] for m, _ in slow.pending] == ["key_commit", "key_commit"]
    t.deliver([(2, m) for m in slow.begin(op).messages])
    assert all(p.dealt for p in t.peers) and not slow.pending


def test_the_next_step_of_another_seats_operation_is_kept() -> None:
    t = dealt()
    card = t.peers[0].my_hand()[0]
    (wire,) = t.peers[0].begin(RevealFromHand(0, (card,))).messages
    t.peers[1].receive(wire, author=0)  # seat 1 has not begun it: kept, checked
    assert len(t.peers[1].pending) == 1
    t.peers[1].begin(RevealFromHand(0, (card,)))
    assert t.peers[1].shown == t.peers[0].shown and not t.peers[1].pending


@pytest.mark.parametrize("author", [0, None])
def test_a_step_of_no_operation_that_can_come_is_refused_and_charged_to_its_signer(author):
    t = dealt()
    card = t.peers[0].my_hand()[0]
    (wire,) = t.peers[0].begin(RevealFromHand(0, (card,))).messages
    # Signed by seat 0, chained on the head, but a reveal is no step of seat 1's draw.
    forged = resign({**wire, "op": ["draw", 1, False]}, t.keys[0])
    cheat = refused(t, 2, forged, author, "unexpected_message", 0)
    assert "came early" in cheat.detail and not t.peers[2].pending
    with pytest.raises(UsageError):  # the protocol stopped: nothing more is kept
        t.peers[2].receive(wire, author=0)


def test_a_message_beyond_the_partys_own_step_is_refused() -> None:
    t = Table(seats=3, deck_size=DECK)
    op = Deal((3, 3, 3), 1)
    queue = []
    for s in (0, 1):
        queue += [(s, m) for m in t.peers[s].begin(op).messages]
    t.deliver(queue)
    slow = t.peers[2]
    last = Message.from_wire(slow.pending[-1][0])
    # Seat 0 signs the next link of the chain: seat 2's key is due there, not seat 0's.
    ahead = Message(t.peers[0].sid, 2, last.digest(), 0, op, "key_open", {})
    body = {"key": bytes(32), "proof": bytes(64), "salt": bytes(32)}
    wire = resign({**ahead.to_wire(), "body": body}, t.keys[0])
    # Third parties see it after none of the two kept ones: a message from the future.
    refused(t, 2, wire, 0, "reordered_message", 0)


def test_a_misshapen_signed_message_is_malformed_and_its_signers() -> None:
    t = dealt()
    card = t.peers[0].my_hand()[0]
    (wire,) = t.peers[0].begin(RevealFromHand(0, (card,))).messages
    fat = resign({**wire, "body": {**wire["body"], "junk": bytes(2**16)}}, t.keys[0])
    refused(t, 1, fat, 0, "malformed_message", 0)


def test_a_share_for_positions_not_planned_is_refused_before_it_is_kept() -> None:
    t = dealt(2)
    (wire,) = t.peers[0].begin(Draw(1)).messages
    pos, d, proof = wire["body"]["shares"][0]
    other = resign({**wire, "body": {"shares": [[pos + 1, d, proof]]}}, t.keys[0])
    refused(t, 1, other, 0, "unexpected_message", 0)


def test_unsigned_junk_while_idle_is_the_authors_bad_signature_and_never_kept() -> None:
    t = dealt()
    junk = {"from": 1, "blob": bytes(2**20)}  # a megabyte nobody signed, as the author's
    with pytest.raises(CheatDetected) as info:
        t.peers[1].receive(junk, author=2)
    assert (info.value.kind, info.value.culprit) == ("bad_signature", 2)
    assert not t.peers[1].pending


def test_a_flood_of_early_messages_keeps_at_most_the_steps_before_ones_own() -> None:
    # 256 copies of a valid early message: the first is kept, the second is refused (what a
    # third party sees: the message where nothing is due, the kept copy being no evidence).
    t = dealt()
    card = t.peers[0].my_hand()[0]
    (wire,) = t.peers[0].begin(RevealFromHand(0, (card,))).messages
    t.peers[1].receive(wire, author=0)
    with pytest.raises(CheatDetected) as info:
        for _ in range(255):
            t.peers[1].receive(wire, author=0)
    assert (info.value.kind, info.value.culprit) == ("unexpected_message", 0)
    assert len(t.peers[1].pending) == 1


def test_an_observer_keeps_nothing_a_transcript_begins_each_operation_first() -> None:
    t = dealt()
    card = t.peers[0].my_hand()[0]
    op = RevealFromHand(0, (card,))
    (wire,) = t.peers[0].begin(op).messages
    transcript = t.peers[1].transcript()
    assert t.recheck([*transcript, ("op", op.to_wire()), ("msg", wire)]) is None
    again = t.recheck([*transcript, ("msg", wire), ("op", op.to_wire())])
    assert again is not None and (again.kind, again.culprit) == ("unexpected_message", 0)
