"""One party of the deck protocol: the public checks of :class:`DeckState` plus its secrets.

Usage (each party; the shell carries ``out.messages`` to every other party's ``receive`` and
reads ``out.events``)::

    party = DeckPeer(seat, session_id, my_identity_key, every_seats_public_key, deck_size)
    out = party.begin(Deal((5, 6)))         # every party, then exchange messages
    out = party.receive(message)            # -> Output(messages=[...], events=[...])
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from ..identity_key import BadIdentityKey, identity_public_key
from . import audit
from . import shuffle as sh
from .audit import seed_commitment
from .errors import Deviation, UsageError
from .group import Rng, base_mul, mul, random_scalar, scalar_bytes
from .messages import Message
from .ops import CardsLearned, ExposeHand, ExposeHands, Op, RandomPick, RevealFromHand
from .proofs import prove_key, prove_share
from .state import DeckState, Output, _Step, key_commitment, pick_commitment


def _private_key(key: Ed25519PrivateKey | bytes) -> Ed25519PrivateKey:
    return key if isinstance(key, Ed25519PrivateKey) else Ed25519PrivateKey.from_private_bytes(key)


def _public_key(key: Ed25519PublicKey | bytes) -> Ed25519PublicKey:
    """A party's identity key, refused if small-order or non-canonical (a key for which one
    signature verifies everything would make its deck messages worthless)."""
    raw = key.public_bytes_raw() if isinstance(key, Ed25519PublicKey) else key
    try:
        return identity_public_key(raw)
    except BadIdentityKey as exc:
        raise UsageError(f"an identity key is refused: {exc}") from None


class DeckPeer(DeckState):
    """The party in ``seat`` (0..N-1) of a table of N = ``len(public_keys)`` seats.

    ``signing_key`` is this party's long-term Ed25519 identity key and ``public_keys`` every
    seat's, in seat order, its own included (key objects or 32 raw bytes). ``rng(n)`` returns
    n random bytes (default ``os.urandom``; a fixed one only for test vectors).
    """

    def __init__(
        self,
        seat: int,
        session_id: bytes,
        signing_key: Ed25519PrivateKey | bytes,
        public_keys: Sequence[Ed25519PublicKey | bytes],
        deck_size: int,
        *,
        faces: int | None = None,
        rng: Rng = os.urandom,
    ):
        keys = [_public_key(k) for k in public_keys]
        if type(seat) is not int or not 0 <= seat < len(keys):
            raise UsageError(f"seat must be 0..{len(keys) - 1}")
        self.signing_key = _private_key(signing_key)
        own = self.signing_key.public_key().public_bytes_raw()
        if keys[seat].public_bytes_raw() != own:
            raise UsageError(f"the signing key is not seat {seat}'s public key")
        super().__init__(session_id, keys, deck_size, faces)
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
        """The cards in this party's hand (hidden ones it knows, and public ones)."""
        hand = self.hands[self.me]
        return sorted([self.known[p] for p in hand.hidden] + hand.public)

    def _plan(self, op: Op) -> list[_Step]:
        if isinstance(op, RevealFromHand) and op.seat == self.me and self.dealt:
            missing = set(op.cards) - {self.face(c) for c in self.my_hand()}
            if missing:
                raise UsageError(f"this party does not hold {sorted(missing)}")
        return super()._plan(op)

    # ---- sending --------------------------------------------------------------------------

    def _send(self, step: _Step, out: Output) -> None:
        stub = Message(self.sid, self.seq, self.head, self.me, self.op, step.name, {})
        try:
            body = getattr(self, f"_build_{step.name}")(stub, step)
        except Deviation as cheat:  # found while preparing our message (the audit names it)
            self._fail(cheat, self.me)
        unsigned = Message(stub.sid, stub.seq, stub.prev, stub.sender, stub.op, stub.step, body)
        msg, digest = unsigned.signed_with_digest(self.signing_key)
        self._record(msg, step, digest)
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

    def _build_key_commit(self, stub: Message, step: _Step) -> dict[str, Any]:
        return {"commit": key_commitment(self.sid, self.me, self.y, self.key_salt)}

    def _build_key(self, stub: Message, step: _Step) -> dict[str, Any]:
        return {"key": self.y, "proof": prove_key(self.x, self.y, self._ctx(stub, "key"), self.rng)}

    def _build_key_open(self, stub: Message, step: _Step) -> dict[str, Any]:
        return {**self._build_key(stub, step), "salt": self.key_salt}

    def _build_shuffle(self, stub: Message, step: _Step) -> dict[str, Any]:
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

    def _build_shares(self, stub: Message, step: _Step) -> dict[str, Any]:
        return {"shares": [self._share_entry(stub, p) for p in step.positions]}

    def _reveal_entry(self, stub: Message, pos: int) -> list[Any]:
        p, d, proof = self._share_entry(stub, pos)
        return [p, self.known[pos], d, proof]

    def _build_reveal(self, stub: Message, step: _Step) -> dict[str, Any]:
        hand = self.hands[self.me]
        if isinstance(self.op, ExposeHand | ExposeHands):
            positions = sorted(hand.hidden)
        else:
            assert isinstance(self.op, RevealFromHand)
            by_face: dict[int, int] = {}  # the copy shown: the lowest hidden position
            for p in sorted(hand.hidden):
                by_face.setdefault(self.face(self.known[p]), p)
            positions = sorted(by_face[f] for f in self._needed(self.op))
        return {"reveal": [self._reveal_entry(stub, p) for p in positions]}

    def _build_pick_commit(self, stub: Message, step: _Step) -> dict[str, Any]:
        self.pick_salt = self.rng(32)
        return {"commit": pick_commitment(self.sid, stub.seq, self.pick_salt)}

    def _build_pick_salt(self, stub: Message, step: _Step) -> dict[str, Any]:
        return {"salt": self.rng(32)}

    def _build_pick_open(self, stub: Message, step: _Step) -> dict[str, Any]:
        assert isinstance(self.op, RandomPick)
        picked = self.picked(self.op, self.pick_salt)
        positions = sorted(v for k, v in picked if k == "pos")
        return {"salt": self.pick_salt, "reveal": [self._reveal_entry(stub, p) for p in positions]}

    def _build_audit(self, stub: Message, step: _Step) -> dict[str, Any]:
        return {"secret": scalar_bytes(self.x), "seed": self.seed}

    def _build_verdict(self, stub: Message, step: _Step) -> dict[str, Any]:
        if self.verdict_digest is None:  # every secret is in: the audit round is complete
            self.verdict_digest = audit.verdict_digest(self)
        return {"verdict": [True, self.verdict_digest]}

    # ---- learning one's own cards -----------------------------------------------------------

    def _learn(self, pos: int) -> int:
        """A card of my hand: every other party's share of it is published; I add mine."""
        self.known[pos] = self._card_of(self._unmask(pos, self._share(pos)), pos)
        return self.known[pos]

    def _private_deal(self) -> None:
        cards = tuple(self._learn(p) for p in self.hands[self.me].hidden)
        self.events.append(CardsLearned(self.me, cards, False, "deal"))

    def _private_draw(self, seat: int, pos: int) -> None:
        if seat == self.me:
            self.events.append(CardsLearned(seat, (self._learn(pos),), False, "draw"))
