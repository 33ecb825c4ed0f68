"""Honest tables of 2..6 parties: every operation, the audit, and a third party's re-check;
decks of up to 104 cards, including two identical 32-card decks (duplicate faces)."""

from __future__ import annotations

import pytest

from cuttle_net.deck import (
    Audit,
    AuditPassed,
    CardsLearned,
    Deal,
    Draw,
    ExposeHand,
    PlaceOnTop,
    RandomPick,
    RevealFromDeck,
    RevealFromHand,
    SwapHands,
    TakeToHand,
    UsageError,
)
from cuttle_net.deck.group import card_point

from .helpers import Table


def learned(t: Table, seat: int, source: str | None = None) -> list[CardsLearned]:
    return [
        e
        for e in t.events[seat]
        if isinstance(e, CardsLearned) and (source is None or e.source == source)
    ]


@pytest.mark.parametrize(("seats", "deck_size"), [(2, 24), (3, 32), (4, 32), (5, 40), (6, 40)])
def test_a_whole_game_at_every_table_size(seats, deck_size):
    t = Table(seats=seats, deck_size=deck_size)
    t.run(Deal((4,) * seats, 4))
    hands = [p.my_hand() for p in t.peers]
    assert all(len(h) == 4 for h in hands)
    dealt = [c for h in hands for c in h]
    face_up = learned(t, 0, "deck")[0].cards
    assert len(set(dealt) | set(face_up)) == 4 * seats + 4  # all distinct ids
    # Each party learned its own hand privately, the face-up cards publicly, nothing else.
    for s in range(seats):
        (deal,) = learned(t, s, "deal")
        assert (deal.seat, sorted(deal.cards), deal.public) == (s, hands[s], False)
        assert learned(t, s, "deck")[0] == CardsLearned(None, face_up, True, "deck")
        assert set(t.peers[s].known) == set(range(4 * s, 4 * s + 4))
        assert t.peers[s].hand_view((s + 1) % seats) == ([], 4)
    assert t.peers[0].pile_size() == deck_size - 4 * seats - 4

    last = seats - 1
    before = [list(e) for e in t.events]
    t.run(Draw(last))  # private: only the drawer learns it
    assert [
        len(learned(t, s)) - len([e for e in before[s] if isinstance(e, CardsLearned)])
        for s in range(seats)
    ] == [0] * last + [1]
    t.run(Draw(0, public=True))
    card = t.peers[last].my_hand()[0]
    t.run(RevealFromHand(last, (card,)))  # a card from a hand to the table
    assert all(learned(t, s)[-1] == CardsLearned(last, (card,), True, "hand") for s in range(seats))
    t.run(RevealFromDeck(2))
    t.run(RandomPick(1, 2))
    picks = {learned(t, s)[-1] for s in range(seats)}
    assert len(picks) == 1 and len(picks.pop().cards) == 2
    h0, h_last = t.peers[0].my_hand(), t.peers[last].my_hand()
    t.run(SwapHands(0, last))
    assert t.peers[0].my_hand() == h_last and t.peers[last].my_hand() == h0
    t.run(ExposeHand(1))
    shown = sorted(t.peers[0].hand_view(1)[0])
    assert shown == t.peers[1].my_hand()
    t.run(PlaceOnTop(shown[0]))
    t.run(Draw(last))  # the public card on top: no messages
    t.run(TakeToHand(0, face_up[0]))
    assert face_up[0] in t.peers[0].my_hand()
    t.run(Audit())
    verdicts = {e for s in range(seats) for e in t.events[s] if isinstance(e, AuditPassed)}
    assert len(verdicts) == 1
    transcripts = [p.transcript() for p in t.peers]
    assert all(tr == transcripts[0] for tr in transcripts)
    assert t.recheck(transcripts[0]) is None
    order = t.peers[0].deck_order()
    assert sorted(order) == list(range(deck_size))
    assert [order[p] for p in range(4 * seats, 4 * seats + 4)] == list(face_up)


def test_the_largest_deck():
    t = Table(seats=2, deck_size=104)
    t.run(Deal((10, 10), 2))
    assert len(set(t.peers[0].my_hand()) | set(t.peers[1].my_hand())) == 20
    assert t.peers[0].pile_size() == 82


@pytest.mark.parametrize(
    ("seats", "op"),
    [
        (3, Deal((4, 4), 0)),  # a count per seat
        (3, Deal((11, 11, 11), 0)),  # more than the deck
        (2, Deal((4, 4), 25)),
    ],
)
def test_a_deal_that_does_not_fit_is_a_local_error(seats, op):
    t = Table(seats=seats, deck_size=32)
    with pytest.raises(UsageError):
        t.peers[0].begin(op)


def test_table_and_deck_sizes_are_bounded():
    for seats, size in ((1, 32), (7, 32), (3, 105), (3, 1)):
        with pytest.raises(UsageError):
            Table(seats=seats, deck_size=size)


def _walk(value, seen):
    if isinstance(value, bytes):
        seen.add(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            _walk(k, seen)
            _walk(v, seen)
    elif isinstance(value, list | tuple | set):
        for v in value:
            _walk(v, seen)
    elif hasattr(value, "__dict__"):
        _walk(vars(value), seen)


def test_at_four_no_party_holds_the_plaintext_of_a_card_it_was_not_shown():
    t = Table(seats=4, deck_size=32)
    t.run(Deal((4,) * 4, 2))
    t.run(Draw(2))
    t.run(Draw(3, public=True))
    for s, peer in enumerate(t.peers):
        others = [o.known[p] for o in t.peers if o is not peer for p in o.hands[o.me].hidden]
        # The card table and the unshuffled deck hold every card's encoding, by design.
        state = {k: v for k, v in vars(peer).items() if k not in ("cards", "decks")}
        state["shuffled"] = peer.decks[1:]
        seen: set = set()
        _walk(state, seen)
        assert others and not {card_point(c) for c in others} & seen, s
        assert set(peer.known) == set(peer.hands[s].hidden)


def _pair_in_hand(t: Table, seat: int) -> int:
    """Draw to ``seat`` until it holds both copies of a face; that face."""
    while True:
        faces = [c % 32 for c in t.peers[seat].my_hand()]
        twice = [f for f in set(faces) if faces.count(f) == 2]
        if twice:
            return min(twice)
        t.run(Draw(seat))


def test_two_decks_ops_name_faces_and_the_holder_picks_the_copy():
    t = Table(seats=5, deck_size=64, faces=32)
    t.run(Deal((4,) * 5, 4))
    ids = [c for p in t.peers for c in p.my_hand()]
    assert len(set(ids)) == 20 and all(0 <= c < 64 for c in ids)
    f = _pair_in_hand(t, 0)
    low, high = f, f + 32
    hidden_low = min(p for p in t.peers[0].hands[0].hidden if t.peers[0].known[p] % 32 == f)
    first = t.peers[0].known[hidden_low]  # the copy at the lowest hidden position goes first
    t.run(RevealFromHand(0, (f,), keep=True))
    assert all(learned(t, s)[-1] == CardsLearned(0, (first,), True, "hand") for s in range(5))
    assert t.peers[3].hand_view(0)[0] == [first]
    # The public copy is played first: no message, and the same id leaves the hand.
    sent = len(t.wire)
    t.run(RevealFromHand(0, (f,)))
    assert len(t.wire) == sent
    assert learned(t, 2)[-1] == CardsLearned(0, (first,), True, "hand")
    # Now the other copy, still hidden, must be proven.
    t.run(RevealFromHand(0, (f,)))
    assert len(t.wire) == sent + 1
    other = low + high - first
    assert learned(t, 4)[-1] == CardsLearned(0, (other,), True, "hand")
    assert f not in [c % 32 for c in t.peers[0].my_hand()]
    # Both copies are on the table: TakeToHand takes the lowest id, PlaceOnTop the other.
    t.run(TakeToHand(1, f))
    assert low in t.peers[1].my_hand()
    t.run(PlaceOnTop(f))
    t.run(Draw(2))
    assert high in t.peers[2].my_hand() and t.peers[0].hand_view(2)[0] == [high]
    with pytest.raises(UsageError, match="no card of face"):
        t.peers[0].begin(TakeToHand(3, f))
    with pytest.raises(UsageError):
        t.peers[0].begin(RevealFromHand(0, (40,)))  # a face is below 32
    t.run(Audit())
    assert t.recheck(t.peers[0].transcript()) is None
    assert sorted(t.peers[0].deck_order()) == list(range(64))
