"""Two honest peers through every operation; what each learns, and a clean audit."""

from __future__ import annotations

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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
from cuttle_net.deck.messages import Message
from cuttle_net.games.cuttle.cards import JOKER

from .helpers import Table


def learned(table: Table, seat: int) -> list[CardsLearned]:
    return [e for e in table.events[seat] if isinstance(e, CardsLearned)]


def test_deal_gives_five_and_six_distinct_cards_each_known_only_to_its_holder():
    t = Table()
    t.run(Deal((5, 6)))
    h0, h1 = t.peers[0].my_hand(), t.peers[1].my_hand()
    assert len(h0) == 5 and len(h1) == 6
    assert not set(h0) & set(h1)
    assert t.peers[0].hand_view(1) == ([], 6)
    assert t.peers[1].hand_view(0) == ([], 5)
    assert learned(t, 0)[0] == CardsLearned(0, tuple(learned(t, 0)[0].cards), False, "deal")
    # Nobody's view holds the other's cards.
    assert set(t.peers[0].known) == set(range(5))
    assert set(t.peers[1].known) == set(range(5, 11))


def test_private_draw_only_the_drawer_learns():
    t = Table()
    t.run(Deal((5, 6)))
    t.events = [[], []]
    t.run(Draw(0))
    (ev,) = learned(t, 0)
    assert ev.public is False and ev.source == "draw"
    assert learned(t, 1) == []
    assert ev.cards[0] in t.peers[0].my_hand()
    assert t.peers[1].hand_view(0) == ([], 6)


def test_public_draw_both_learn():
    t = Table()
    t.run(Deal((5, 6)))
    t.events = [[], []]
    t.run(Draw(1, public=True))
    assert learned(t, 0) == learned(t, 1)
    (card,) = learned(t, 0)[0].cards
    assert t.peers[0].hand_view(1) == ([card], 6)


def test_reveal_from_hand_play_and_keep():
    t = Table()
    t.run(Deal((5, 6)))
    a, b = t.peers[1].my_hand()[:2]
    t.events = [[], []]
    t.run(RevealFromHand(1, (a,)))
    assert learned(t, 0) == [CardsLearned(1, (a,), True, "hand")]
    assert t.peers[0].hand_view(1) == ([], 5)
    t.run(RevealFromHand(1, (b,), keep=True))
    assert t.peers[0].hand_view(1) == ([b], 4)
    # A card already known to both needs no message.
    sent = len(t.wire)
    t.run(RevealFromHand(1, (b,)))
    assert len(t.wire) == sent
    assert t.peers[0].hand_view(1) == ([], 4)


def test_expose_hand_then_later_draws_under_glasses():
    t = Table()
    t.run(Deal((5, 6)))
    t.run(ExposeHand(0))
    assert sorted(t.peers[1].hand_view(0)[0]) == t.peers[0].my_hand()
    t.run(Draw(0, public=True))
    assert sorted(t.peers[1].hand_view(0)[0]) == t.peers[0].my_hand()


def test_reveal_from_deck_and_place_back_on_top():
    t = Table()
    t.run(Deal((5, 6)))
    t.events = [[], []]
    t.run(RevealFromDeck(2))
    (ev,) = learned(t, 0)
    assert ev.seat is None and len(ev.cards) == 2 and learned(t, 1) == [ev]
    _chosen, back = ev.cards
    t.run(PlaceOnTop(back))
    sent = len(t.wire)
    t.events = [[], []]
    t.run(Draw(0))  # the face-up card: no crypto, both know it
    assert len(t.wire) == sent
    assert learned(t, 1) == [CardsLearned(0, (back,), True, "draw")]
    t.run(Draw(1))  # the next hidden card is private again
    assert len(t.wire) == sent + 1


def test_random_pick_is_the_same_on_both_sides_and_leaves_the_hand():
    t = Table()
    t.run(Deal((5, 6)))
    t.run(TakeToHand(0, 99 % 52))  # a public card (from the scrap) in the hand too
    before = t.peers[0].my_hand()
    t.events = [[], []]
    t.run(RandomPick(0, 2))
    assert learned(t, 0) == learned(t, 1)
    picked = learned(t, 0)[0].cards
    assert len(picked) == 2 and set(picked) <= set(before)
    assert sorted(t.peers[0].my_hand() + list(picked)) == sorted(before)


def test_swap_hands_each_learns_the_other():
    t = Table()
    t.run(Deal((5, 6)))
    h0, h1 = t.peers[0].my_hand(), t.peers[1].my_hand()
    t.run(SwapHands(0, 1))
    assert t.peers[0].my_hand() == h1 and t.peers[1].my_hand() == h0
    assert sorted(t.peers[0].hand_view(1)[0]) == h0


def play_a_game(t: Table) -> None:
    t.run(Deal((5, 6)))
    for i in range(8):
        t.run(Draw(i % 2))
    t.run(RevealFromHand(0, (t.peers[0].my_hand()[0],)))
    t.run(RevealFromDeck(1))
    t.run(RandomPick(1, 2))
    t.run(ExposeHand(0))
    t.run(Draw(0, public=True))
    t.run(Audit())


@pytest.mark.parametrize("deck_size", [52, 53])
def test_whole_game_audits_clean_and_the_transcript_rechecks(deck_size):
    t = Table(deck_size=deck_size)
    play_a_game(t)
    passed = [e for e in t.events[0] + t.events[1] if isinstance(e, AuditPassed)]
    assert len(passed) == 2 and passed[0] == passed[1]
    assert t.peers[0].transcript() == t.peers[1].transcript()
    assert t.recheck(t.peers[0].transcript()) is None
    if deck_size == 53:
        assert JOKER in t.peers[0].cards.values()


def test_messages_survive_msgpack():
    t = Table()
    t.tamper = lambda s, m: [msgpack.unpackb(msgpack.packb(m), raw=False)]
    play_a_game(t)
    assert t.recheck(t.peers[1].transcript()) is None


def test_usage_errors_are_local_and_clear():
    t = Table()
    with pytest.raises(UsageError):
        t.peers[0].begin(Draw(0))  # nothing dealt yet
    t.run(Deal((5, 6)))
    with pytest.raises(UsageError):
        t.peers[0].begin(Deal((5, 6)))
    with pytest.raises(UsageError):
        t.peers[0].timed_out()  # nothing is due from the peer


@pytest.mark.parametrize(
    "raw",
    [bytes([1]) + bytes(31), (1 + 2**255 - 19).to_bytes(32, "little")],
    ids=["small-order", "non-canonical"],
)
def test_a_peer_key_that_proves_nothing_is_refused(raw: bytes) -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (
        Ed25519PrivateKey,
        Ed25519PublicKey,
    )

    from cuttle_net.deck import DeckPeer

    me = Ed25519PrivateKey.generate()
    # As raw bytes, and as a key object (which `cryptography` builds from these bytes).
    for key in (raw, Ed25519PublicKey.from_public_bytes(raw)):
        with pytest.raises(UsageError, match="identity key is refused"):
            DeckPeer(0, bytes(32), me, [me.public_key(), key], 52)


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


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), draws=st.lists(st.booleans(), max_size=6))
def test_an_honest_peer_never_holds_the_plaintext_of_an_unshown_card(seed, draws):
    t = Table(seed=seed)
    t.run(Deal((5, 6)))
    for public in draws:
        t.run(Draw(1, public=public))
    for seat in (0, 1):
        peer, other = t.peers[seat], t.peers[1 - seat]
        hidden = [other.known[p] for p in other.hands[1 - seat].hidden]
        # The card table and the unshuffled deck hold every card's encoding, by design.
        state = {k: v for k, v in vars(peer).items() if k not in ("cards", "decks")}
        state["shuffled"] = peer.decks[1:]
        seen: set = set()
        _walk(state, seen)
        assert not {card_point(c) for c in hidden} & seen
        assert not set(peer.known) & set(other.hands[1 - seat].hidden)
        # The pile's order is unknown too: no pile position is known to either peer.
        assert not {p for k, p in peer.pile if k == "pos"} & set(peer.known)


def test_showing_a_card_one_does_not_hold_is_a_local_error():
    t = Table()
    t.run(Deal((5, 6)))
    absent = next(c for c in range(52) if c not in t.peers[0].my_hand())
    with pytest.raises(UsageError, match="does not hold"):
        t.peers[0].begin(RevealFromHand(0, (absent,)))


def test_an_invalid_operation_is_a_local_error():
    t = Table()
    t.run(Deal((5, 6)))
    for op in (Draw(2), RevealFromHand(0, (3, 3)), RandomPick(0, 105), SwapHands(0, 2), "draw"):
        with pytest.raises(UsageError):
            t.peers[0].begin(op)


def test_random_pick_of_a_hand_known_to_all_still_sends_every_step():
    """SPEC 2.8: only an empty hand or a count of 0 makes a random pick send nothing; a hand
    every card of which is public still needs the salts, and pick_open reveals nothing."""
    t = Table()
    t.run(Deal((5, 6)))
    t.run(ExposeHand(0))
    before, sent = t.peers[0].my_hand(), len(t.wire)
    t.events = [[], []]
    t.run(RandomPick(0, 2))
    steps = [w["step"] for _, w in t.wire[sent:]]
    assert steps == ["pick_commit", "pick_salt", "pick_open"]
    assert t.wire[-1][1]["body"]["reveal"] == []
    assert learned(t, 0) == learned(t, 1) and len(learned(t, 0)[0].cards) == 2
    assert set(learned(t, 0)[0].cards) <= set(before)
    sent = len(t.wire)
    t.run(RandomPick(0, 0))
    assert len(t.wire) == sent


def test_a_message_signed_with_its_digest_gets_the_digest_of_its_wire_form():
    # `signed_with_digest` hashes the bytes it signed with the signature spliced in (each
    # party's own messages): for every kind of message of a game it is `digest()`, the
    # hash of the wire form (SPEC 2.7), byte for byte.
    t = Table()
    play_a_game(t)
    steps = set()
    key = Ed25519PrivateKey.generate()
    for _, wire in t.wire:
        msg = Message.from_wire(wire)
        resigned, digest = msg.signed_with_digest(key)
        assert resigned.sig != msg.sig and digest == resigned.digest()
        assert resigned == Message.from_wire({**wire, "sig": resigned.sig})
        steps.add(msg.step)
    assert {"key_commit", "shuffle", "shares", "reveal", "pick_open", "audit"} <= steps
