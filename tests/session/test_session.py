"""Two sessions (engine + deck protocol + signed moves) playing whole games in memory."""

from __future__ import annotations

import pytest

from cuttle_net.deck import (
    Draw,
    ExposeHand,
    PlaceOnTop,
    RevealFromDeck,
    RevealFromHand,
    SwapHands,
    TakeToHand,
)
from cuttle_net.games.cuttle.cards import card_display, card_text
from cuttle_net.games.cuttle.engine import OVER
from cuttle_net.games.cuttle.module import deck_plan
from cuttle_net.games.cuttle.moves import Kind, move
from cuttle_net.games.cuttle.rules import VARIANTS, Rules
from cuttle_net.games.interface import Outcome
from cuttle_net.identity_key import sign
from cuttle_net.session import Audited, Fault, GameOver, SendDeck, SendMove
from tests.rules.build import cards, position

from .link import Link

RULE_SETS = (
    ["classic", "standard"]
    + [f"classic+{v}" for v in VARIANTS]
    + [
        "standard+joker+random-fours+ten-blocks-scuttle+queens-protect-queens",
        "standard+nine-to-deck+eight-one-off",
    ]
)


def public_part(view) -> tuple:
    return (
        view.turn,
        view.phase,
        view.points,
        view.perms,
        view.scrap,
        len(view.deck),
        [view.hand_size(s) for s in (0, 1)],
        view.outcome,
    )


@pytest.mark.parametrize("rules", RULE_SETS)
def test_whole_games_end_alike_on_both_sides_with_a_clean_audit(rules: str) -> None:
    for seed in range(3):
        link = Link(Rules.parse(rules), seed, bots=("greedy", "random"))
        link.play()
        a, b = link.sessions
        assert a.fault is None and b.fault is None
        assert a.view.phase == b.view.phase == OVER
        assert public_part(a.view) == public_part(b.view)
        assert a.audit == b.audit is not None
        assert [r.text for r in a.records] == [r.text for r in b.records]
        assert any(isinstance(e, Audited) for e in link.events[0])
        # Neither view ever held the other's hidden cards: at the end, what each knows of
        # the other's hand is a subset of that hand.
        assert set(a.view.hands[1]) <= set(b.view.hands[1])
        assert set(b.view.hands[0]) <= set(a.view.hands[0])


def started(rules: str = "classic", seed: int = 1) -> Link:
    link = Link(Rules.parse(rules), seed)
    for s in (0, 1):
        link.post(s, link.sessions[s].start())
    link.pump()
    return link


def test_an_illegal_move_is_the_movers_fault() -> None:
    link = started()
    # Seat 0 claims to play a card that seat 1 holds: forged past seat 0's own check.
    theirs = link.sessions[1].view.hands[1][0]
    record = link.sessions[0]._sign(str(move(Kind.POINTS, theirs)))
    (fault,) = link.sessions[1].receive_move(0, record.text, record.signature).events
    assert isinstance(fault, Fault) and fault.kind == "illegal_move" and fault.culprit == 0
    assert (
        fault.message == f"points {card_text(theirs)}: {card_display(theirs)} is not in your hand"
    )
    assert link.sessions[1].finished


def test_a_move_out_of_turn_is_the_movers_fault() -> None:
    link = started()
    record = link.sessions[1]._sign("draw")
    (fault,) = link.sessions[0].receive_move(1, record.text, record.signature).events
    assert fault.kind == "illegal_move" and fault.culprit == 1
    assert "not seat 1's decision" in fault.message


def test_a_tampered_move_signature_is_caught() -> None:
    link = started()
    out = link.sessions[0].play("draw")
    sent = next(s for s in out.sends if isinstance(s, SendMove))
    sig = bytes([sent.signature[0] ^ 1]) + sent.signature[1:]
    (fault,) = link.sessions[1].receive_move(0, sent.text, sig).events
    assert fault.kind == "bad_move_signature" and fault.culprit == 0


def test_a_move_signed_with_more_than_64_bytes_is_caught() -> None:
    """Seat 0's own key signs "x" + the move's digest and sends that signature then "x": an
    Ed25519 signature is 64 bytes, and no other implementation (nor a record) takes it."""
    link = started()
    mover, other = link.sessions
    digest = other._move_digest(0, "draw")
    long_sig = sign(mover._key, b"x" + digest) + b"x"
    (fault,) = other.receive_move(0, "draw", long_sig).events
    assert fault.kind == "bad_move_signature" and fault.culprit == 0


def test_a_replayed_move_is_caught() -> None:
    link = started()
    out = link.sessions[0].play("draw")
    link.post(0, out)
    link.pump()
    sent = next(s for s in out.sends if isinstance(s, SendMove))
    # The same signed move again: it no longer fits the chain.
    events = link.sessions[1].receive_move(0, sent.text, sent.signature).events
    assert events and isinstance(events[0], Fault) and events[0].culprit == 0


def test_garbage_move_text_is_the_senders_fault() -> None:
    link = started()
    (fault,) = link.sessions[1].receive_move(0, "fly to the moon", b"x" * 64).events
    assert fault.kind == "malformed_move" and fault.culprit == 0


def test_a_tampered_deck_message_is_caught_and_attributed() -> None:
    link = started()
    # Any play from the hand: seat 0 reveals the card, so seat 0 sends a deck message.
    first = next(m for m in link.sessions[0].view.legal_moves() if m.card >= 0)
    out = link.sessions[0].play(first)
    tampered = [item for item in out.sends if isinstance(item, SendDeck)]
    assert tampered
    for item in tampered:
        item.data["sig"] = bytes(64)  # break the deck message's signature
    link.post(0, out)
    link.pump()
    faults = [e for e in link.events[1] if isinstance(e, Fault)]
    assert faults and faults[0].culprit == 0


def test_silence_is_a_timeout_naming_the_silent_peer() -> None:
    link = started()
    assert link.sessions[1].waiting_for == (0, "move")
    (fault,) = link.sessions[1].timed_out().events
    assert fault.kind == "timeout" and fault.culprit == 0
    with pytest.raises(RuntimeError):
        link.sessions[0].timed_out()  # seat 0 owes the move: nothing is due to it


def test_either_player_may_concede_at_once() -> None:
    link = started()
    out = link.sessions[1].concede()  # not seat 1's turn
    link.post(1, out)
    link.pump()
    for s in link.sessions:
        assert s.outcome == Outcome((0,), "concede") and s.finished and s.audit is None
    assert any(isinstance(e, GameOver) for e in link.events[0])


def test_a_local_illegal_move_raises_and_sends_nothing() -> None:
    link = started()
    from cuttle_net.games.cuttle.engine import IllegalMove

    with pytest.raises(IllegalMove):
        link.sessions[0].play("pass")
    with pytest.raises(RuntimeError):
        link.sessions[1].play("draw")
    assert not link.inbox[0] and not link.inbox[1]


@pytest.mark.parametrize(
    ("rules", "setup", "moves", "expected"),
    [
        (
            "classic",
            {"hand0": "8S", "hand1": "3C"},
            ["permanent 8S"],
            [RevealFromHand(0, tuple(cards("8S"))), ExposeHand(1)],
        ),
        ("classic", {"hand0": "5S", "hand1": "3C"}, ["oneoff 5S", "decline"], [Draw(0), Draw(0)]),
        (
            "classic",
            {"hand0": "4S", "hand1": "3C,5C"},
            ["oneoff 4S", "decline", "discard 3C 5C"],
            [RevealFromHand(1, tuple(cards("3C,5C")))],
        ),
        (
            "standard",
            {"hand0": "7S", "hand1": "3C", "deck": "KD,5H"},
            ["oneoff 7S", "decline", "permanent KD"],
            [PlaceOnTop(cards("5H")[0])],
        ),
        ("classic", {"hand0": "7S", "hand1": "3C"}, ["oneoff 7S", "decline"], [RevealFromDeck(1)]),
        (
            "classic",
            {"hand0": "3S", "hand1": "3C", "scrap": "TH"},
            ["oneoff 3S", "decline", "pick TH"],
            [TakeToHand(0, cards("TH")[0])],
        ),
        (
            "classic+joker",
            {"hand0": "JK,4D", "hand1": "3C"},
            ["oneoff JK", "decline"],
            [SwapHands(0, 1)],
        ),
        (
            "classic+nine-to-deck",
            {"hand0": "9S", "perms1": "KH", "hand1": "3C"},
            ["oneoff 9S KH", "decline"],
            [PlaceOnTop(cards("KH")[0])],
        ),
        (
            "classic",
            {"hand0": "2S", "hand1": "2C", "points1": "5D"},
            ["oneoff 2S"] and ["draw"],
            [Draw(0)],
        ),
    ],
)
def test_deck_plan_of_a_move(rules: str, setup: dict, moves: list[str], expected: list) -> None:
    g = position(rules, **setup)
    for text in moves[:-1]:
        g.apply(text)
    assert deck_plan(g.motions(moves[-1])) == expected
