"""The end-of-game audit: with every secret revealed, everything said in play is checked.

Each party reveals its key share's secret and its shuffle seed. The others check the secret
against the published key share, the seed against its commitment and by re-running the
shuffle, and every decryption share the party published. With all the secrets, every shuffled
deck is decrypted: each must be the whole deck of distinct cards, and every card claimed in
play must be the one its position holds. The digest of the outcome is what every party signs
as the verdict.

This module reads the public state of :class:`~cuttle_net.deck.state.DeckState` through the
few attributes named in :class:`Audited` (it does not import the state module, which uses it).
"""

from __future__ import annotations

from typing import Protocol

from . import shuffle as sh
from .encoding import hash256
from .errors import Deviation
from .group import L, base_mul, mul, scalar_bytes, scalar_from_wire, sub


class Audited(Protocol):
    """What the audit reads of the public state."""

    sid: bytes
    n: int
    joint: bytes
    keys: list[bytes | None]
    decks: list[list[sh.Ciphertext]]
    seed_commits: list[bytes]
    shares: list[dict[int, bytes]]
    secrets: list[int | None]
    shown: dict[int, int]
    claimant: dict[int, int]
    cards: dict[bytes, int]


def seed_commitment(sid: bytes, seat: int, seed: bytes) -> bytes:
    """The commitment to a shuffle seed sent with the shuffle."""
    return hash256("seed-commit", sid, seat, seed)


def secret_from_wire(data: bytes) -> int:
    try:
        return scalar_from_wire(data)
    except ValueError as exc:
        raise Deviation("bad_audit_secret", str(exc)) from exc


def check_opening(state: Audited, seat: int, x: int, seed: bytes) -> None:
    """Check ``seat``'s revealed secret and shuffle seed against everything it published."""
    if not x or base_mul(x) != state.keys[seat]:
        raise Deviation("bad_audit_secret", "the secret does not match the key share")
    if seed_commitment(state.sid, seat, seed) != state.seed_commits[seat]:
        raise Deviation("audit_opening_mismatch", "the shuffle seed does not match its commitment")
    perm, rands = sh.derive(seed, state.n)
    if sh.apply(state.decks[seat], perm, rands, state.joint) != state.decks[seat + 1]:
        raise Deviation("audit_opening_mismatch", "the shuffle seed does not reproduce the deck")
    final = state.decks[-1]
    for pos, d in state.shares[seat].items():
        if mul(x, final[pos][0]) != d:
            raise Deviation("wrong_share", f"the share for position {pos} was not x·C1")


def deck_order(state: Audited, seat: int | None = None) -> list[int]:
    """With every secret revealed: the card at each position of ``seat``'s shuffled deck
    (default: the last, the deck that was dealt); -1 where a point is no card."""
    assert all(x is not None for x in state.secrets)
    x = sum(state.secrets) % L  # type: ignore[arg-type]
    deck = state.decks[-1 if seat is None else seat + 1]
    return [state.cards.get(sub(c2, mul(x, c1)), -1) for c1, c2 in deck]


def verdict_digest(state: Audited) -> bytes:
    """With every secret: check every shuffled deck and every claim made in play; return the
    digest of the outcome (the verdict every party signs)."""
    order: list[int] = []
    for seat in range(len(state.secrets)):
        order = deck_order(state, seat)
        if sorted(order) != list(range(state.n)):
            raise Deviation("duplicate_card", f"seat {seat}'s shuffle is not the deck", seat)
    for pos, card in state.shown.items():
        if order[pos] != card:
            raise Deviation("false_claim", f"position {pos} is not {card}", state.claimant[pos])
    secrets = [scalar_bytes(x) for x in state.secrets]  # type: ignore[arg-type]
    return hash256("verdict", state.sid, secrets, order)
