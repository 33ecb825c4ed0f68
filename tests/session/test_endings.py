"""How a game ends at the session level: concessions at any moment (crossing moves on the
wire), moves out of turn, lost connections, the peer's close (SPEC.md 4.2, 4.4)."""

from __future__ import annotations

import pytest

from cuttle_net.games.cuttle.rules import Rules
from cuttle_net.games.interface import Outcome
from cuttle_net.records.record import build_record
from cuttle_net.records.verify import Verdict, verify_text
from cuttle_net.session import Closed, Fault, GameOver, SendMove

from .link import Link

DATE = "2026-11-22T00:00:00Z"


def verdict(session) -> Verdict:
    return verify_text(build_record(session, ("ann", "bob"), DATE)).verdict


def dealing(seed: int = 1) -> Link:
    """Both sides started the deal; its messages are still in flight."""
    link = Link(Rules.parse("classic"), seed)
    for s in (0, 1):
        link.post(s, link.sessions[s].start())
    return link


def started(seed: int = 1) -> Link:
    link = dealing(seed)
    link.pump()
    return link


def agree(link: Link, winner: int) -> None:
    a, b = link.sessions
    assert a.finished and b.finished and a.fault is None and b.fault is None
    assert a.outcome == b.outcome == Outcome((winner,), "concede")
    assert [(r.seat, r.text) for r in a.records] == [(r.seat, r.text) for r in b.records]
    assert [str(m) for _, m in a.played] == [str(m) for _, m in b.played]
    assert verdict(a) == verdict(b) == Verdict.UNAUDITED


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("delivered", [0, 1, 3])
def test_a_concession_during_the_deal_ends_the_game_on_both_sides(
    seat: int, delivered: int
) -> None:
    link = dealing()
    for _ in range(delivered):  # part of the deal has arrived
        for s in (0, 1):
            if link.inbox[s]:
                link.deliver_one(s)
    link.post(seat, link.sessions[seat].concede())
    link.pump()
    agree(link, 1 - seat)
    assert any(isinstance(e, GameOver) for e in link.events[1 - seat])


def test_a_concession_crossing_a_move_voids_the_move_on_both_sides() -> None:
    link = started()
    a, b = link.sessions
    link.post(0, a.play("draw"))  # in flight to seat 1 ...
    link.post(1, b.concede())  # ... while seat 1, not having seen it, concedes
    link.pump()
    agree(link, 0)
    assert [r.text for r in a.records] == ["concede"]  # the crossed draw is void


def test_a_concession_crossing_several_moves_and_their_cards() -> None:
    link = started(seed=3)
    a, b = link.sessions
    link.post(0, a.play("draw"))
    link.pump()
    link.post(1, b.play("draw"))
    link.pump()
    before = len(a.records)
    link.post(0, a.play(a.view.legal_moves()[0]))  # a move and its deck messages in flight
    link.post(1, b.concede())
    link.pump()
    agree(link, 0)
    assert len(a.records) == before + 1


@pytest.mark.parametrize("first", [0, 1])
def test_two_concessions_at_the_same_point_seat_0s_holds(first: int) -> None:
    link = started()
    outs = {s: link.sessions[s].concede() for s in (first, 1 - first)}
    for s, out in outs.items():
        link.post(s, out)
    link.pump()
    agree(link, 1)


def test_of_two_crossing_concessions_the_earlier_holds() -> None:
    link = started()
    a, b = link.sessions
    link.post(1, b.concede())  # seat 1 concedes first ...
    link.post(0, a.play("draw"))  # ... seat 0 draws, not knowing,
    link.post(0, a.concede())  # then concedes too
    link.pump()
    agree(link, 0)


def until_over(link: Link) -> None:
    """Play until both views are over by the rules, the audit's messages left in flight."""
    a, b = link.sessions

    def over() -> bool:
        return all(s.outcome is not None for s in link.sessions)

    while not over():
        mover = a if a.my_turn else b
        if mover.my_turn:
            link.post(mover.seat, mover.play(link.bots[mover.seat].choose(mover.view, link.rng)))
        while not over() and (link.inbox[0] or link.inbox[1]):
            link.deliver_one(0 if link.inbox[0] else 1)


def test_a_concession_after_the_game_ended_by_the_rules_is_void() -> None:
    link = started()
    until_over(link)
    a, b = link.sessions
    outcome = a.outcome
    record = b._sign("concede")  # forged past b's own check: it saw the game end
    assert a.receive_move(1, record.text, record.signature).events == []
    assert a.outcome == outcome and a.outcome.reason != "concede"


@pytest.mark.parametrize("text", ["draw", "pass", "concede"])
def test_a_move_during_the_deal_is_illegal_not_a_bad_signature(text: str) -> None:
    link = dealing()
    a, _b = link.sessions
    if text == "concede":  # a concession that does not fit: its signature is wrong
        (fault,) = a.receive_move(1, text, bytes(64)).events
        assert (fault.kind, fault.culprit) == ("bad_move_signature", 1)
        return
    (fault,) = a.receive_move(1, text, bytes(64)).events
    assert (fault.kind, fault.culprit) == ("illegal_move", 1)
    assert "during the deal" in fault.message


def test_a_move_while_cards_are_shown_is_illegal() -> None:
    link = started()
    a, _b = link.sessions
    link.post(0, a.play("draw"))  # seat 0 waits for seat 1's share of the top card
    assert a.busy
    (fault,) = a.receive_move(1, "draw", bytes(64)).events
    assert (fault.kind, fault.culprit) == ("illegal_move", 1)
    assert "while cards were being shown" in fault.message


def test_a_lost_connection_is_a_timeout_of_the_seat_that_owed_the_next_step() -> None:
    link = started()
    a, b = link.sessions
    assert a.owes == b.owes == 0  # seat 0 decides first
    (fault,) = b.connection_lost("the other player did not come back").events
    assert (fault.kind, fault.culprit) == ("timeout", 0)
    (fault,) = a.connection_lost("the other player did not come back").events
    assert (fault.kind, fault.culprit) == ("timeout", 0)
    assert verdict(a) == verdict(b) == Verdict.UNAUDITED


def test_a_lost_connection_during_the_deal_blames_the_seat_owing_the_deck_step() -> None:
    link = dealing()
    _a, b = link.sessions
    link.deliver_one(1)  # seat 1 received seat 0's key commitment and answered
    (fault,) = b.connection_lost("gone").events
    assert (fault.kind, fault.culprit) == ("timeout", 0)


def test_the_audit_refused_by_the_loser_is_the_losers_fault() -> None:
    link = started(seed=2)
    until_over(link)
    a, _b = link.sessions
    # Seat 1 owes the audit's second step once seat 0's first has arrived.
    while link.inbox[1]:
        link.deliver_one(1)
    link.inbox[0].clear()  # ... and never sends it
    (fault,) = a.connection_lost("the other player did not come back").events
    assert (fault.kind, fault.culprit) == ("timeout", 1)
    honest = a
    assert "unproven" in fault.message
    assert verdict(honest) == Verdict.UNAUDITED


def test_the_peers_close_is_its_claim() -> None:
    link = started()
    a, b = link.sessions
    (closed,) = b.peer_closed(0, "cheat-detected", "bad_shuffle_proof: you cheated").events
    assert closed == Closed(0, "cheat-detected", "bad_shuffle_proof: you cheated")
    assert b.fault is None and b.finished
    # Told that it was too slow when it did owe the move, a side accepts its timeout.
    (fault,) = a.peer_closed(1, "timeout", "no move in time").events
    assert isinstance(fault, Fault) and (fault.kind, fault.culprit) == ("timeout", 0)
    assert "no move in time" in fault.message


def test_a_peer_that_closes_mid_game_forfeits_and_its_words_are_quoted() -> None:
    link = started()
    a = link.sessions[0]
    a.peer_closed(1, "cheat-detected", "you cheated\x1b[2J" + "!" * 300)
    ending = a.ending()
    assert str(ending).startswith('closed by seat 1: cheat-detected "you cheated')
    assert "\x1b" not in str(ending) and len(ending.text) <= 200
    assert a.result == "0"
    b = link.sessions[1]
    b.peer_closed(0, "peer-quit", "")
    assert str(b.ending()) == 'closed by seat 0: peer-quit ""' and b.result == "1"


def test_the_concession_is_sent_signed() -> None:
    link = dealing()
    out = link.sessions[0].concede()
    assert [type(s) for s in out.sends] == [SendMove]
    with pytest.raises(RuntimeError):
        link.sessions[0].concede()
