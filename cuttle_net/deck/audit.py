"""The end-of-game audit: with both secrets revealed, everything said in play is checked.

Each peer reveals its key share's secret and its shuffle seed. The other checks the secret
against the published key share, the seed against its commitment and by re-running the shuffle,
and every decryption share the peer published. With both secrets, both shuffled decks are
decrypted: each must be the whole deck of distinct cards, and every card claimed in play must be
the one its position holds. The digest of the outcome is what both peers sign as the verdict.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import shuffle as sh
from .encoding import hash256
from .errors import Deviation
from .group import L, base_mul, mul, scalar_bytes, sub

if TYPE_CHECKING:
    from .state import DeckState


def seed_commitment(sid: bytes, seat: int, seed: bytes) -> bytes:
    """The commitment to a shuffle seed sent with the shuffle."""
    return hash256("seed-commit", sid, seat, seed)


def check_opening(state: DeckState, seat: int, x: int, seed: bytes) -> None:
    """Check ``seat``'s revealed secret and shuffle seed against everything it published."""
    if not x or base_mul(x) != state.keys[seat]:
        raise Deviation("bad_audit_secret", "the secret does not match the key share")
    if seed_commitment(state.sid, seat, seed) != state.shuffles[seat]["seed_commit"]:
        raise Deviation("audit_opening_mismatch", "the shuffle seed does not match its commitment")
    perm, rands = sh.derive(seed, state.n)
    if sh.apply(state.decks[seat], perm, rands, state.joint) != state.decks[seat + 1]:
        raise Deviation("audit_opening_mismatch", "the shuffle seed does not reproduce the deck")
    for pos, d in state.shares[seat].items():
        if mul(x, state.deck[pos][0]) != d:
            raise Deviation("wrong_share", f"the share for position {pos} was not x·C1")


def deck_order(state: DeckState, seat: int = 1) -> list[int]:
    """With both secrets revealed: the card at each position of ``seat``'s shuffled deck
    (seat 1's is the deck that was dealt); -1 where a point is no card."""
    x0, x1 = state.secrets
    assert x0 is not None and x1 is not None
    x = (x0 + x1) % L
    return [state.cards.get(sub(c2, mul(x, c1)), -1) for c1, c2 in state.decks[seat + 1]]


def verdict_digest(state: DeckState) -> bytes:
    """With both secrets: check both shuffled decks and every claim made in play; return the
    digest of the outcome (the verdict both peers sign)."""
    x0, x1 = state.secrets
    assert x0 is not None and x1 is not None
    order: list[int] = []
    for seat in (0, 1):
        order = deck_order(state, seat)
        if sorted(order) != list(range(state.n)):
            raise Deviation("duplicate_card", f"seat {seat}'s shuffle is not the deck", seat)
    for pos, card in state.shown.items():
        if order[pos] != card:
            raise Deviation("false_claim", f"position {pos} is not {card}", state.claimant[pos])
    return hash256("verdict", state.sid, scalar_bytes(x0), scalar_bytes(x1), order)
