"""Honest records of games that stopped early verify as far as they go (exit 3), each
stating what is proven and what is the signer's claim (SPEC.md §5.3)."""

from __future__ import annotations

from cuttle_net.deck.encoding import DOMAIN, canon
from cuttle_net.games.cuttle.rules import Rules
from cuttle_net.records.record import build_record
from cuttle_net.records.verify import Verdict, verify_text
from cuttle_net.session import SendDeck
from tests.session.link import Link

DATE = "2026-11-21T12:00:00Z"


def dealt(seed: int = 4) -> Link:
    link = Link(Rules(), seed)
    for s in (0, 1):
        link.post(s, link.sessions[s].start())
    link.pump()
    return link


def checked(link: Link, seat: int) -> tuple[str, list[str], str]:
    text = build_record(link.sessions[seat], ("ann", "bob"), DATE)
    report = verify_text(text)
    assert report.verdict == Verdict.UNAUDITED, report.problem
    assert "never audited" in report.problem
    return text, report.lines, report.problem


def test_a_timeout_on_a_move_is_the_signers_claim_of_the_seat_to_act() -> None:
    link = dealt()
    assert link.sessions[1].waiting_for == (0, "move")  # seat 0 moves first
    link.sessions[1].timed_out()
    text, lines, _ = checked(link, 1)
    assert '[Ending "fault timeout by seat 0: no move in time"]' in text
    assert '[Result "1"]' in text
    assert any("seat 0's silence is seat 1's claim" in line for line in lines)
    # Blaming the other seat for the same silence is caught (in the tamper matrix too).
    forged = text.replace("by seat 0: no move", "by seat 1: no move")
    assert verify_text(forged).verdict == Verdict.INVALID


def test_a_timeout_during_the_deal_names_the_next_sender() -> None:
    link = Link(Rules(), 5)
    out = link.sessions[0].start()  # seat 1 never answers
    assert out.sends and link.sessions[0].waiting_for == (1, "deck")
    link.sessions[0].timed_out()
    text, lines, problem = checked(link, 0)
    assert "fault timeout by seat 1" in text
    assert "the deal was never completed" in problem
    assert any("signed by seat 0 only" in line for line in lines)


def test_a_move_out_of_turn_is_proven_illegal_by_the_record() -> None:
    link = dealt()
    rogue = link.sessions[1]._sign("draw")  # seat 0 is to act
    link.post(0, link.sessions[0].receive_move(1, rogue.text, rogue.signature))
    assert link.sessions[0].fault is not None
    assert link.sessions[0].fault.kind == "illegal_move"
    text, lines, _ = checked(link, 0)
    assert "fault illegal_move by seat 1" in text and '[Result "0"]' in text
    assert not any("claim" in line for line in lines)  # the transcript proves it


def test_a_deck_cheat_is_proven_by_the_signed_message_it_kept() -> None:
    link = Link(Rules(), 6)
    first = link.sessions[0].start()
    link.post(1, link.sessions[1].start())
    for item in first.sends:  # seat 0's opening messages reach seat 1
        link.post(1, link.sessions[1].receive_deck(0, item.data))
    reply = next(i for i in link.inbox[0] if isinstance(i, SendDeck))
    forged = {k: v for k, v in reply.data.items() if k != "sig"}
    forged["seq"] += 1  # out of sequence, yet properly signed by seat 1
    key = link.sessions[1]._key
    forged["sig"] = key.sign(DOMAIN + b"message\0" + canon(forged))
    link.sessions[0].receive_deck(1, forged)
    fault = link.sessions[0].fault
    assert fault is not None and (fault.kind, fault.culprit) == ("reordered_message", 1)
    text, lines, _ = checked(link, 0)
    assert "fault reordered_message by seat 1" in text
    assert not any("claim" in line for line in lines)
