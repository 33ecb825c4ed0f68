"""Deck messages nobody asked for, at the session (SPEC 2.7, 4.4): while no deck operation
runs, a deck message is checked before anything is kept; one signed by its sender is that
seat's deck-protocol fault with the message as evidence, one it did not sign is its wire
fault; nothing is buffered, and every honest seat's record verifies naming the sender."""

from __future__ import annotations

import pytest

from cuttle_net.deck import Draw, check_transcript
from cuttle_net.deck.messages import Message
from cuttle_net.games.cuttle.rules import Rules
from cuttle_net.records.record import build_record
from cuttle_net.records.verify import Verdict, verify_text
from cuttle_net.session import Fault, GameSession

from .link import Link
from .table import Table

DATE = "2026-11-22T00:00:00Z"


def idle_pair() -> Link:
    """Two seats after the deal, seat 0 to move: seat 1 waits, no deck operation runs."""
    link = Link(Rules.parse("classic"), 3)
    for s in (0, 1):
        link.post(s, link.sessions[s].start())
    link.pump()
    assert link.sessions[0].my_turn and link.sessions[1].deck.op is None
    return link


def out_of_place(session: GameSession, sender: int, key) -> dict:
    """A message ``sender`` signed on the chain's head, for an operation nobody began."""
    deck = session.deck
    msg = Message(deck.sid, deck.seq, deck.head, sender, Draw(1 - sender % 2), "key_commit", {})
    return Message(**{**msg.__dict__, "body": {"commit": bytes(32)}}).signed(key).to_wire()


def checks(session: GameSession, names: tuple[str, ...], culprit: int, kind: str) -> None:
    fault = session.fault
    assert fault is not None and (fault.kind, fault.culprit) == (kind, culprit), fault
    assert not session.deck.pending
    report = verify_text(build_record(session, names, DATE))
    assert report.verdict == Verdict.UNAUDITED, report.lines


def test_a_signed_deck_message_while_a_move_is_due_is_the_senders_fault() -> None:
    link = idle_pair()
    victim = link.sessions[1]
    wire = out_of_place(victim, 0, link.sessions[0]._key)
    out = victim.receive_deck(0, wire)
    assert [type(e) for e in out.events] == [Fault]
    checks(victim, ("ann", "bob"), 0, "unexpected_message")
    fault = victim.fault
    assert fault is not None and fault.evidence[-1] == ("msg", wire)  # the message it signed
    again = check_transcript(
        fault.evidence,
        victim.deck.public_keys,
        session_id=victim.session_id,
        deck_size=victim.deck.n,
    )
    assert again is not None and (again.kind, again.culprit) == ("unexpected_message", 0)


@pytest.mark.parametrize("frames", [1, 100])
def test_unsigned_junk_while_a_move_is_due_is_a_wire_fault_and_nothing_is_kept(frames) -> None:
    link = idle_pair()
    victim = link.sessions[1]
    junk = {"v": 2, "from": 0, "blob": bytes(2**16)}
    before = len(victim.deck.log)
    for _ in range(frames):
        victim.receive_deck(0, junk)
    checks(victim, ("ann", "bob"), 0, "wire_unexpected_message")
    assert len(victim.deck.log) == before  # no evidence a third party could weigh


@pytest.mark.parametrize("signed", [True, False])
@pytest.mark.parametrize("culprit", [0, 1, 2])
def test_at_a_table_every_other_seat_names_the_sender_and_its_record_verifies(
    signed: bool, culprit: int
) -> None:
    t = Table("unisson", "one-deck", 3, seed=2)
    t.start()
    assert all(s.deck.op is None and not s.finished for s in t.sessions)
    anyone = t.sessions[(culprit + 1) % 3]
    wire = out_of_place(anyone, culprit, t.keys[culprit]) if signed else {"junk": bytes(99)}
    names = ("ann", "bob", "cy")
    for s in t.sessions:
        if s.seat != culprit:
            s.receive_deck(culprit, wire)
            checks(s, names, culprit, "unexpected_message" if signed else "wire_unexpected_message")


def test_a_record_missing_an_operation_every_seat_begins_is_cut_not_a_fault() -> None:
    link = idle_pair()
    victim = link.sessions[1]
    victim.receive_deck(0, out_of_place(victim, 0, link.sessions[0]._key))
    del victim.deck.log[0]  # the deal's op: its messages now stand where it is due
    report = verify_text(build_record(victim, ("ann", "bob"), DATE))
    assert report.verdict == Verdict.INVALID
    assert "where an operation every player begins at once is due" in report.problem
