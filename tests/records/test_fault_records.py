"""Honest records of games that stopped early verify as far as they go (exit 3), each
stating what is proven and what is the signer's claim (SPEC.md §5.3)."""

from __future__ import annotations

import random

from cuttle_net.deck.encoding import DOMAIN, canon
from cuttle_net.games.cuttle.bots import make_bot
from cuttle_net.games.cuttle.rules import Rules
from cuttle_net.records.record import build_record
from cuttle_net.records.verify import Verdict, verify_text
from cuttle_net.session import SendDeck, SendMove
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


def first_move_with_a_reveal(link: Link) -> SendMove:
    """Seat 0 plays a move that shows a card from its hand: its own reveal completes it at
    seat 0 at once. The move goes to seat 1, the reveal does not."""
    s0, bot, rng = link.sessions[0], make_bot("random"), random.Random(1)
    for _ in range(200):
        m = bot.choose(s0.view, rng)
        ops = s0.module.deck_ops(s0.view, m)
        if [op.to_wire()[0] for op in ops] == ["reveal_hand"]:
            out = s0.play(m)
            move = next(i for i in out.sends if isinstance(i, SendMove))
            link.post(1, link.sessions[1].receive_move(0, move.text, move.signature))
            return move
    raise AssertionError("no move shows a card")


def test_a_move_whose_operations_never_finished_at_a_seat_is_not_listed_there() -> None:
    """SPEC 5.1: a move is listed once its deck operations are complete in the record's own
    transcript; the seat that never got the reveal does not list it, the mover does, both
    records verify, and one that lists the unfinished move does not."""
    link = dealt()
    move = first_move_with_a_reveal(link)
    s0, s1 = link.sessions
    s1.timed_out()  # seat 0's reveal never came
    s0.peer_closed(1, "timeout", "no deck step")
    text0, text1 = (build_record(s, ("ann", "bob"), DATE) for s in (s0, s1))
    assert f"\n1. 0 {move.text}" in text0 and "\n1. " not in text1
    assert f" {move.text}\n" in text1.split("[Transcript]")[1]  # signed, in the transcript
    for text in (text0, text1):
        assert verify_text(text).verdict == Verdict.UNAUDITED
    s1.played.append((0, s1.module.parse_move(move.text)))  # as if it had been applied
    listed = verify_text(build_record(s1, ("ann", "bob"), DATE))
    assert listed.verdict == Verdict.INVALID and "1 moves listed, 0 played" in listed.problem


def test_a_deck_message_crossing_a_concession_in_the_deal_is_in_its_senders_record_only() -> None:
    """SPEC 5.1: the conceder processes nothing once it has conceded, so a deck message sent
    before its sender received the concession is in the sender's record alone; both verify."""
    link = Link(Rules(), 3)
    a, b = link.sessions
    link.inbox[1].extend(a.start().sends)
    link.inbox[0].extend(b.start().sends)
    link.deliver_one(1)  # b answers a's opening: its message is on its way to a
    assert link.inbox[0]
    link.post(0, a.concede())
    link.pump()
    transcripts = [
        build_record(s, ("ann", "bob"), DATE).split("[Transcript]\n")[1].splitlines()
        for s in (a, b)
    ]
    kinds = [[line.split()[0] for line in t] for t in transcripts]
    assert kinds[1].count("msg") == kinds[0].count("msg") + 1
    assert kinds[0][-1] == kinds[1][-1] == "move"  # the concession ends both
    for s in (a, b):
        assert verify_text(build_record(s, ("ann", "bob"), DATE)).verdict == Verdict.UNAUDITED
