"""One peer of the deck protocol: the public checks of :class:`DeckState` plus its secrets.

Usage (each side; the game session carries ``out.messages`` to the other side's
``receive`` and reads ``out.events``)::

    peer = DeckPeer(seat, session_id, my_identity_key, their_public_key)
    out = peer.begin(ShuffleAndDeal())      # both sides, then exchange messages
    out = peer.receive(message)             # -> Output(messages=[...], events=[...])
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from ..identity_key import BadIdentityKey, identity_public_key
from . import audit
from . import shuffle as sh
from .audit import seed_commitment
from .encoding import hash256
from .errors import Deviation, UsageError
from .group import Rng, add, base_mul, mul, random_scalar, scalar_bytes, sub
from .messages import Message
from .ops import CardsLearned, Draw, ExposeHand, Op, RevealFromHand, ShuffleAndDeal
from .proofs import prove_key, prove_share
from .state import (
    DEAL,
    DeckState,
    Output,
    _Step,
    pick_commitment,
)


def _private_key(key: Ed25519PrivateKey | bytes) -> Ed25519PrivateKey:
    return key if isinstance(key, Ed25519PrivateKey) else Ed25519PrivateKey.from_private_bytes(key)


def _public_key(key: Ed25519PublicKey | bytes) -> Ed25519PublicKey:
    """The peer's identity key, refused if small-order or non-canonical (a key for which one
    signature verifies everything would make its deck messages worthless)."""
    raw = key.public_bytes_raw() if isinstance(key, Ed25519PublicKey) else key
    try:
        return identity_public_key(raw)
    except BadIdentityKey as exc:
        raise UsageError(f"the peer's identity key is refused: {exc}") from None


class DeckPeer(DeckState):
    """A peer: ``seat`` 1 is the dealer (6 cards), seat 0 gets 5 and moves first.

    ``signing_key`` is this peer's long-term Ed25519 identity key and ``peer_public_key`` the
    other's (key objects or 32 raw bytes). ``rng(n)`` returns n random bytes (default
    ``os.urandom``; a fixed one only for test vectors).
    """

    def __init__(
        self,
        seat: int,
        session_id: bytes,
        signing_key: Ed25519PrivateKey | bytes,
        peer_public_key: Ed25519PublicKey | bytes,
        deck_size: int = 52,
        rng: Rng = os.urandom,
    ):
        if seat not in (0, 1):
            raise UsageError("seat must be 0 or 1")
        self.signing_key = _private_key(signing_key)
        keys = [self.signing_key.public_key(), _public_key(peer_public_key)]
        super().__init__(session_id, keys if seat == 0 else keys[::-1], deck_size)
        self.me = seat
        self.rng = rng
        self.x = random_scalar(rng)  # this game's key share: fresh per game
        self.y = base_mul(self.x)
        self.key_salt = rng(32)
        self.seed = b""
        self.own_deck: list[sh.Ciphertext] = []
        self.known: dict[int, int] = {}  # position -> card, for the cards in my hand
        self.my_shares: dict[int, bytes] = {}
        self.pick_salt = b""

    # ---- views --------------------------------------------------------------------------

    def my_hand(self) -> list[int]:
        """The cards in this peer's hand (hidden ones it knows, and public ones)."""
        hand = self.hands[self.me]
        return sorted([self.known[p] for p in hand.hidden] + hand.public)

    def opponent_view(self) -> tuple[list[int], int]:
        """The opponent's hand as this peer sees it: the cards known to both, and how many
        hidden cards it holds."""
        hand = self.hands[1 - self.me]
        return sorted(hand.public), len(hand.hidden)

    def _plan(self, op: Op) -> list[_Step]:
        if isinstance(op, RevealFromHand) and op.seat == self.me and self.dealt:
            missing = set(op.cards) - set(self.my_hand())
            if missing:
                raise UsageError(f"this peer does not hold {sorted(missing)}")
        return super()._plan(op)

    # ---- sending --------------------------------------------------------------------------

    def _send(self, step: _Step, out: Output) -> None:
        stub = Message(self.sid, self.seq, self.head, self.me, self.op, step.name, {})
        try:
            body = getattr(self, f"_build_{step.name}")(stub, step)
            msg = replace(stub, body=body).signed(self.signing_key)
            self._record(msg)
        except Deviation as cheat:  # found while preparing our message (the audit)
            self._fail(cheat, self.peer)
        out.messages.append(msg.to_wire())

    def _share(self, pos: int) -> bytes:
        if pos not in self.my_shares:
            self.my_shares[pos] = mul(self.x, self.deck[pos][0])
        return self.my_shares[pos]

    def _share_entry(self, stub: Message, pos: int) -> list[Any]:
        d = self._share(pos)
        proof = prove_share(
            self.x, self.y, self.deck[pos][0], d, self._ctx(stub, "share", pos), self.rng
        )
        return [pos, d, proof]

    def _shuffle(self, stub: Message) -> dict[str, Any]:
        inp = self.decks[-1]
        self.seed = self.rng(32)
        perm, rands = sh.derive(self.seed, self.n)
        self.own_deck = sh.apply(inp, perm, rands, self.joint)
        ctx = self._ctx(stub, "shuffle")
        argument = sh.prove(inp, self.own_deck, perm, rands, self.joint, ctx, self.rng)
        return {
            "deck": [[c1, c2] for c1, c2 in self.own_deck],
            "seed_commit": seed_commitment(self.sid, self.me, self.seed),
            "argument": argument.to_wire(),
        }

    def _build_key_commit(self, stub: Message, step: _Step) -> dict[str, Any]:
        return {"commit": hash256("key-commit", self.sid, self.y, self.key_salt)}

    def _build_key(self, stub: Message, step: _Step) -> dict[str, Any]:
        return {"key": self.y, "proof": prove_key(self.x, self.y, self._ctx(stub, "key"), self.rng)}

    def _build_key_open(self, stub: Message, step: _Step) -> dict[str, Any]:
        self.joint = add(self.y, self.keys[1])
        return {**self._build_key(stub, step), "salt": self.key_salt, **self._shuffle(stub)}

    def _build_shuffle(self, stub: Message, step: _Step) -> dict[str, Any]:
        body = self._shuffle(stub)
        self.decks.append(self.own_deck)  # the shares are for the final deck
        try:
            shares = [self._share_entry(stub, p) for p in range(DEAL[0])]
        finally:
            self.decks.pop()
        return {**body, "shares": shares}

    def _build_shares(self, stub: Message, step: _Step) -> dict[str, Any]:
        positions = self.hands[1].hidden if isinstance(self.op, ShuffleAndDeal) else step.positions
        return {"shares": [self._share_entry(stub, p) for p in positions]}

    def _reveal_entry(self, stub: Message, pos: int) -> list[Any]:
        p, d, proof = self._share_entry(stub, pos)
        return [p, self.known[pos], d, proof]

    def _build_reveal(self, stub: Message, step: _Step) -> dict[str, Any]:
        hand = self.hands[self.me]
        if isinstance(self.op, ExposeHand):
            positions = sorted(hand.hidden)
        else:
            assert isinstance(self.op, RevealFromHand)
            by_card = {self.known[p]: p for p in hand.hidden}
            positions = sorted(by_card[c] for c in self.op.cards if c not in hand.public)
        return {"reveal": [self._reveal_entry(stub, p) for p in positions]}

    def _build_pick_commit(self, stub: Message, step: _Step) -> dict[str, Any]:
        self.pick_salt = self.rng(32)
        return {"commit": pick_commitment(self.sid, stub.seq, self.pick_salt)}

    def _build_pick_salt(self, stub: Message, step: _Step) -> dict[str, Any]:
        return {"salt": self.rng(32)}

    def _build_pick_open(self, stub: Message, step: _Step) -> dict[str, Any]:
        picked = self.picked(self.op, self.pick_salt, self.pick["salt"])
        positions = sorted(v for k, v in picked if k == "pos")
        return {"salt": self.pick_salt, "reveal": [self._reveal_entry(stub, p) for p in positions]}

    def _build_audit(self, stub: Message, step: _Step) -> dict[str, Any]:
        return {"secret": scalar_bytes(self.x), "seed": self.seed}

    def _build_audit_verdict(self, stub: Message, step: _Step) -> dict[str, Any]:
        self.secrets[self.me] = self.x
        self.verdict_digest = audit.verdict_digest(self)
        return {**self._build_audit(stub, step), "verdict": [True, self.verdict_digest]}

    def _build_verdict(self, stub: Message, step: _Step) -> dict[str, Any]:
        return {"verdict": [True, self.verdict_digest]}

    # ---- learning one's own cards -----------------------------------------------------------

    def _shares_received(self, msg: Message, positions: tuple[int, ...]) -> None:
        if msg.sender == self.me:
            return
        op = self.op
        mine = isinstance(op, ShuffleAndDeal) or (
            isinstance(op, Draw) and op.to_seat == self.me and not op.public
        )
        if not mine:
            return
        other = self.shares[1 - self.me]
        for pos in positions:
            point = sub(sub(self.deck[pos][1], self._share(pos)), other[pos])
            self.known[pos] = self._card_of(point, pos)

    def _private_deal(self) -> None:
        cards = tuple(self.known[p] for p in self.hands[self.me].hidden)
        self.events.append(CardsLearned(self.me, cards, False, "deal"))

    def _private_draw(self, seat: int, pos: int) -> None:
        if seat == self.me:
            self.events.append(CardsLearned(seat, (self.known[pos],), False, "draw"))
