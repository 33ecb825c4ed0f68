"""The public side of the deck protocol: everything anyone holding the transcript can check.

:class:`DeckState` replays operations and signed messages, verifies every signature, chain
link, proof and claim, and keeps the public bookkeeping (deck ciphertexts, draw pile, hands,
published shares, cards shown to both). It is the third-party checker
(:func:`check_transcript`) and the base of :class:`~cuttle_net.deck.peer.DeckPeer`, which
adds the peer's secrets. Each step has a handler ``_on_<step>(msg, mine)``; ``mine`` skips
the checks of one's own messages, which were built honestly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from . import audit
from . import shuffle as sh
from .encoding import DOMAIN, canon, hash256
from .errors import CheatDetected, Deviation, UsageError, WireError
from .group import (
    IDENTITY,
    InvalidPoint,
    add,
    card_point,
    card_table,
    check_point,
    scalar_from_wire,
    sub,
)
from .messages import Message, genesis
from .ops import (
    Audit,
    AuditPassed,
    CardsLearned,
    Draw,
    Event,
    ExposeHand,
    Op,
    OperationComplete,
    PlaceOnTop,
    RandomPick,
    RevealFromDeck,
    RevealFromHand,
    ShuffleAndDeal,
    SwapHands,
    TakeToHand,
    op_from_wire,
)
from .proofs import BadProof, verify_key, verify_share

DEAL = (5, 6)  # cards dealt to seat 0 (moves first) and seat 1 (the dealer)
MAX_PENDING = 16


@dataclass
class Hand:
    """A seat's hand as the protocol sees it: hidden deck positions, and cards known to both."""

    hidden: list[int] = field(default_factory=list)
    public: list[int] = field(default_factory=list)

    def slots(self) -> list[tuple[str, int]]:
        """The hand in its canonical order (random picks index into it)."""
        return [("pos", p) for p in sorted(self.hidden)] + [
            ("card", c) for c in sorted(self.public)
        ]


@dataclass
class Output:
    """What a call produced: messages to send (wire form, in order) and events."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)


@dataclass
class _Step:
    sender: int
    name: str
    positions: tuple[int, ...] = ()  # the positions a shares/reveal step must cover


class DeckState:
    """Public verification of one game's deck protocol (observer, and the base of a peer)."""

    me: int | None = None

    def __init__(
        self,
        session_id: bytes,
        public_keys: Sequence[Ed25519PublicKey],
        deck_size: int = 52,
    ):
        if deck_size not in (52, 53):
            raise UsageError("deck_size must be 52, or 53 with the joker")
        if not 16 <= len(session_id) <= 64:
            raise UsageError("session_id must be 16..64 bytes")
        self.sid = session_id
        self.public_keys = list(public_keys)
        self.n = deck_size
        self.cards = card_table(deck_size)
        self.seq = 0
        self.head = genesis(session_id)
        self.log: list[tuple[str, Any]] = []
        self.op: Op | None = None
        self.plan: list[_Step] = []
        self.step_i = 0
        self.pending: list[Any] = []
        self.events: list[Event] = []
        self.failed: CheatDetected | None = None
        self.dealt = False
        self.audited = False
        # Keys and decks.
        self.key_commit = b""
        self.keys: list[bytes | None] = [None, None]
        self.joint = IDENTITY
        self.decks: list[list[sh.Ciphertext]] = [[(IDENTITY, card_point(c)) for c in range(self.n)]]
        self.shuffles: list[dict[str, Any]] = [{}, {}]
        self.nonces: list[set[bytes]] = [set(), set()]
        # Shares published (proved) per seat and position; cards shown to both, by position.
        self.shares: list[dict[int, bytes]] = [{}, {}]
        self.shown: dict[int, int] = {}
        self.claimant: dict[int, int] = {}
        # Bookkeeping: the draw pile (top first; ("pos", p) hidden, ("card", c) known to both).
        self.pile: list[tuple[str, int]] = []
        self.hands = [Hand(), Hand()]
        self.pick: dict[str, Any] = {}
        self.secrets: list[int | None] = [None, None]
        self.verdict_digest: bytes | None = None

    # ---- public API ---------------------------------------------------------------------

    @property
    def deck(self) -> list[sh.Ciphertext]:
        """The final (doubly shuffled) deck, by position."""
        return self.decks[-1]

    def transcript(self) -> list[tuple[str, Any]]:
        """Operations begun and messages processed, in order: what :func:`check_transcript`
        takes. Entries are ``("op", op_wire)`` and ``("msg", message_wire)``."""
        return list(self.log)

    def begin(self, op: Op) -> Output:
        """Start ``op`` (both peers start the same operations in the same order)."""
        self._alive()
        if self.op is not None:
            raise UsageError(f"{self.op} is still running")
        try:
            op_from_wire(op.to_wire())  # the peer will parse it strictly: so do we
        except (WireError, AttributeError) as exc:
            raise UsageError(f"not a valid operation: {op!r} ({exc})") from exc
        self.plan = self._plan(op)
        self.op, self.step_i = op, 0
        self.log.append(("op", op.to_wire()))
        out = Output()
        self._advance(out)
        while self.op is not None and self.pending:
            self._process(self.pending.pop(0), out)
            self._advance(out)
        return out

    def receive(self, data: Any) -> Output:
        """Process one message from the peer (its wire form). Raises CheatDetected."""
        self._alive()
        out = Output()
        if self.op is None:
            if len(self.pending) >= MAX_PENDING:
                self._fail(Deviation("unexpected_message", "too many messages ahead"), self.peer)
            self.pending.append(data)
            return out
        self._process(data, out)
        self._advance(out)
        return out

    @property
    def peer(self) -> int:
        return 1 - self.me if self.me is not None else self._expected_sender()

    def awaiting_peer(self) -> bool:
        """Whether a message from the peer is due (so a silence can be a timeout)."""
        return self.op is not None and self.step_i < len(self.plan)

    def timed_out(self) -> CheatDetected:
        """The shell declares the peer silent past its deadline: a forfeit naming it, with
        the transcript so far as the record. The protocol object stops."""
        if not self.awaiting_peer():
            raise UsageError("no message is due from the peer")
        culprit = self._expected_sender()
        verdict = CheatDetected(
            "timeout", culprit, f"no {self.plan[self.step_i].name} message", self.transcript()
        )
        self.failed = verdict
        return verdict

    # ---- driving ------------------------------------------------------------------------

    def _alive(self) -> None:
        if self.failed is not None:
            raise UsageError(f"the protocol stopped: {self.failed}")

    def _expected_sender(self) -> int:
        return self.plan[self.step_i].sender if self.awaiting_peer() else 0

    def _advance(self, out: Output) -> None:
        """Send our own steps (peers only), and finish the operation when its plan is done."""
        while self.op is not None:
            if self.step_i < len(self.plan):
                step = self.plan[self.step_i]
                if step.sender != self.me:
                    break
                self._send(step, out)
                continue
            op, self.op = self.op, None
            self._finish(op)
            self.events.append(OperationComplete(op))
        out.events.extend(self.events)
        self.events = []

    def _send(self, step: _Step, out: Output) -> None:  # pragma: no cover - peers override
        raise UsageError("an observer sends nothing")

    def _fail(self, cheat: Deviation, culprit: int) -> None:
        who = cheat.culprit if cheat.culprit is not None else culprit
        self.failed = CheatDetected(cheat.kind, who, cheat.detail, self.transcript())
        raise self.failed

    def _process(self, data: Any, out: Output) -> None:
        step = self.plan[self.step_i] if self.step_i < len(self.plan) else None
        sender = step.sender if step is not None else self.peer
        self.log.append(("msg", data))
        if not _signature_ok(data, self.public_keys[sender]):
            self._fail(Deviation("bad_signature", "not signed by the peer's identity key"), sender)
        try:
            msg = Message.from_wire(data)
        except WireError as exc:
            self._fail(Deviation("malformed_message", str(exc)), sender)
        try:
            self._check_envelope(msg, step)
            self.seq, self.head = self.seq + 1, msg.digest()
            self.step_i += 1
            getattr(self, f"_on_{msg.step}")(msg, False)
        except Deviation as cheat:
            self._fail(cheat, sender)
        except InvalidPoint as exc:
            self._fail(Deviation("invalid_point", str(exc)), sender)

    def _check_envelope(self, msg: Message, step: _Step | None) -> None:
        if msg.sid != self.sid:
            raise Deviation("wrong_session", "the message belongs to another session")
        if msg.seq < self.seq:
            raise Deviation("replayed_message", f"sequence number {msg.seq} was already used")
        if msg.seq > self.seq:
            raise Deviation("reordered_message", f"sequence number {msg.seq}, expected {self.seq}")
        if msg.prev != self.head:
            raise Deviation("broken_chain", "prev is not the hash of the previous message")
        if (
            step is None
            or self.op is None
            or msg.op.to_wire() != self.op.to_wire()
            or (msg.step, msg.sender) != (step.name, step.sender)
        ):
            raise Deviation("unexpected_message", f"{msg.step} for {msg.op} is not due now")

    def _record(self, msg: Message) -> None:
        self.log.append(("msg", msg.to_wire()))
        self.seq, self.head = self.seq + 1, msg.digest()
        self.step_i += 1
        getattr(self, f"_on_{msg.step}")(msg, True)

    # ---- planning: which messages an operation takes, from public state alone -----------

    def _plan(self, op: Op) -> list[_Step]:
        if isinstance(op, ShuffleAndDeal):
            if self.dealt:
                raise UsageError("the deck is shuffled and dealt once per session")
            names = ("key_commit", "key", "key_open", "shuffle", "shares")
            return [_Step(i % 2, name) for i, name in enumerate(names)]
        if not self.dealt or self.audited:
            raise UsageError(f"{op} needs a dealt game that is not yet audited")
        if isinstance(op, Draw):
            if not self.pile:
                raise UsageError("the draw pile is empty")
            kind, value = self.pile[0]
            if kind == "card":
                return []
            steps = [_Step(1 - op.to_seat, "shares", (value,))]
            return [*steps, _Step(op.to_seat, "shares", (value,))] if op.public else steps
        if isinstance(op, RevealFromDeck):
            if not 1 <= op.count <= len(self.pile):
                raise UsageError(f"cannot reveal {op.count} of {len(self.pile)} cards")
            hidden = tuple(v for k, v in self.pile[: op.count] if k == "pos")
            return [_Step(0, "shares", hidden), _Step(1, "shares", hidden)] if hidden else []
        if isinstance(op, RevealFromHand):
            hand = self.hands[op.seat]
            needed = [c for c in op.cards if c not in hand.public]
            if len(needed) > len(hand.hidden) or not op.cards:
                raise UsageError(f"seat {op.seat} cannot show {op.cards}")
            return [_Step(op.seat, "reveal")] if needed else []
        if isinstance(op, ExposeHand):
            hidden = tuple(sorted(self.hands[op.seat].hidden))
            return [_Step(op.seat, "reveal", hidden)] if hidden else []
        if isinstance(op, RandomPick):
            if not self.hands[op.seat].slots() or not op.count:
                return []
            return [
                _Step(op.seat, "pick_commit"),
                _Step(1 - op.seat, "pick_salt"),
                _Step(op.seat, "pick_open"),
            ]
        if isinstance(op, SwapHands):
            hidden = [tuple(sorted(h.hidden)) for h in self.hands]
            return [_Step(s, "shares", hidden[s]) for s in (0, 1)] if any(hidden) else []
        if isinstance(op, PlaceOnTop | TakeToHand):
            return []
        if isinstance(op, Audit):
            return [_Step(0, "audit"), _Step(1, "audit_verdict"), _Step(0, "verdict")]
        raise UsageError(f"unknown operation {op!r}")

    # ---- finishing: bookkeeping once every message of an operation is in ----------------

    def _finish(self, op: Op) -> None:
        if isinstance(op, ShuffleAndDeal):
            self.dealt = True
            self._private_deal()
        elif isinstance(op, Draw):
            kind, value = self.pile.pop(0)
            hand = self.hands[op.to_seat]
            if kind == "card":
                hand.public.append(value)
                self._learned(op.to_seat, [value], True, "draw")
            elif op.public:
                card = self._open(value)
                hand.public.append(card)
                self._learned(op.to_seat, [card], True, "draw")
            else:
                hand.hidden.append(value)
                self._private_draw(op.to_seat, value)
        elif isinstance(op, RevealFromDeck):
            taken, self.pile = self.pile[: op.count], self.pile[op.count :]
            cards = [v if k == "card" else self._open(v) for k, v in taken]
            self._learned(None, cards, True, "deck")
        elif isinstance(op, RevealFromHand):
            hand = self.hands[op.seat]
            for card in op.cards:
                pos = next((p for p in hand.hidden if self.shown.get(p) == card), None)
                if pos is not None:
                    hand.hidden.remove(pos)
                    hand.public.append(card)
            if not op.keep:
                for card in op.cards:
                    hand.public.remove(card)
            self._learned(op.seat, list(op.cards), True, "hand")
        elif isinstance(op, ExposeHand):
            hand = self.hands[op.seat]
            cards = [self.shown[p] for p in sorted(hand.hidden)]
            hand.public += cards
            hand.hidden = []
            self._learned(op.seat, cards, True, "hand")
        elif isinstance(op, RandomPick):
            self._finish_pick(op)
        elif isinstance(op, SwapHands):
            for hand in self.hands:
                hand.public += [self._open(p) for p in sorted(hand.hidden)]
                hand.hidden = []
            self.hands.reverse()
            for s in (0, 1):
                self._learned(s, list(self.hands[s].public), True, "swap")
        elif isinstance(op, PlaceOnTop):
            self.pile.insert(0, ("card", op.card))
        elif isinstance(op, TakeToHand):
            self.hands[op.seat].public.append(op.card)
        elif isinstance(op, Audit):
            self.audited = True
            assert self.verdict_digest is not None
            self.events.append(AuditPassed(self.verdict_digest))

    def _finish_pick(self, op: RandomPick) -> None:
        hand = self.hands[op.seat]
        picked = self.pick.get("picked", [])
        cards = []
        for kind, value in picked:
            if kind == "pos":
                hand.hidden.remove(value)
                cards.append(self.shown[value])
            else:
                hand.public.remove(value)
                cards.append(value)
        self.pick = {}
        self._learned(op.seat, cards, True, "random_pick")

    def _learned(self, seat: int | None, cards: list[int], public: bool, source: str) -> None:
        if cards:
            self.events.append(CardsLearned(seat, tuple(cards), public, source))

    def _private_deal(self) -> None:
        """Hook: a peer reports the cards it was dealt."""

    def _private_draw(self, seat: int, pos: int) -> None:
        """A hidden card joined ``seat``'s hand (a peer that drew it learns it)."""

    # ---- checks shared by the handlers ----------------------------------------------------

    def _ctx(self, msg: Message, label: str, index: int = 0) -> bytes:
        """The Fiat–Shamir context of a proof: session, place in the transcript (sequence
        number and previous message's hash), sender, what is proved, and the position."""
        return hash256("context", msg.sid, msg.seq, msg.prev, msg.sender, label, index)

    def _nonce(self, seat: int, commitment: bytes) -> None:
        if commitment in self.nonces[seat]:
            raise Deviation("reused_nonce", "a proof repeats an earlier proof's commitment")
        self.nonces[seat].add(commitment)

    def _deck(self, msg: Message, mine: bool) -> list[sh.Ciphertext]:
        deck = [(c1, c2) for c1, c2 in msg.body["deck"]]
        if len(deck) != self.n:
            raise Deviation("malformed_message", f"a deck has {self.n} ciphertexts")
        for c1, c2 in deck if not mine else ():
            check_point(c1)
            check_point(c2)
        return deck

    def _shuffle_step(self, msg: Message, seat: int, mine: bool) -> None:
        """A shuffle of the latest deck by ``seat``, checked before anything else is used."""
        inp, out = self.decks[-1], self._deck(msg, mine)
        if not mine:
            try:
                arg = sh.ShuffleArgument.from_wire(msg.body["argument"], self.n)
                sh.verify(inp, out, self.joint, self._ctx(msg, "shuffle"), arg)
            except sh.BadShuffle as exc:
                raise Deviation("bad_shuffle_proof", f"shuffle by seat {seat}: {exc}") from exc
        self.shuffles[seat] = {"seed_commit": msg.body["seed_commit"]}
        self.decks.append(out)

    def _check_share(self, msg: Message, pos: int, d: bytes, proof: bytes, mine: bool) -> None:
        """Verify a decryption share of ``pos`` by the sender and publish it."""
        seat = msg.sender
        if not mine:
            check_point(d)
            c1 = self.deck[pos][0]
            key = self.keys[seat]
            try:
                self._nonce(seat, verify_share(key, c1, d, proof, self._ctx(msg, "share", pos)))
            except BadProof:
                for other in range(self.n):
                    ctx = self._ctx(msg, "share", pos)
                    if other != pos and _verifies(key, self.deck[other][0], d, proof, ctx):
                        raise Deviation(
                            "share_for_other_position",
                            f"the share for position {pos} is one for position {other}",
                        ) from None
                raise Deviation(
                    "wrong_share", f"the share for position {pos} does not verify"
                ) from None
        self.shares[seat][pos] = d

    def _open(self, pos: int) -> int:
        """The card at ``pos`` from both published shares (a public reveal)."""
        if pos not in self.shown:
            point = sub(sub(self.deck[pos][1], self.shares[0][pos]), self.shares[1][pos])
            self.shown[pos] = self._card_of(point, pos)
        return self.shown[pos]

    def _card_of(self, point: bytes, pos: int) -> int:
        card = self.cards.get(point)
        if card is None:  # shares and shuffles are proved, so this is unreachable
            raise Deviation("duplicate_card", f"position {pos} holds no card")
        return card

    # ---- step handlers ----------------------------------------------------------------------

    def _on_key_commit(self, msg: Message, mine: bool) -> None:
        self.key_commit = msg.body["commit"]

    def _on_key(self, msg: Message, mine: bool) -> None:
        self._key(msg, mine)

    def _key(self, msg: Message, mine: bool) -> None:
        key, seat = msg.body["key"], msg.sender
        if not mine:
            check_point(key)
            try:
                self._nonce(seat, verify_key(key, msg.body["proof"], self._ctx(msg, "key")))
            except BadProof as exc:
                raise Deviation("bad_key_proof", str(exc)) from exc
        self.keys[seat] = key

    def _on_key_open(self, msg: Message, mine: bool) -> None:
        key, salt = msg.body["key"], msg.body["salt"]
        if not mine and hash256("key-commit", self.sid, key, salt) != self.key_commit:
            raise Deviation("key_commitment_mismatch", "the key share differs from its commitment")
        self._key(msg, mine)
        self.joint = add(self.keys[0], self.keys[1])
        self._shuffle_step(msg, 0, mine)

    def _on_shuffle(self, msg: Message, mine: bool) -> None:
        self._shuffle_step(msg, 1, mine)
        first, second = DEAL
        self.hands[0].hidden = list(range(first))
        self.hands[1].hidden = list(range(first, first + second))
        self.pile = [("pos", p) for p in range(first + second, self.n)]
        self._shares(msg, tuple(self.hands[0].hidden), mine)

    def _on_shares(self, msg: Message, mine: bool) -> None:
        if isinstance(self.op, ShuffleAndDeal):
            positions = tuple(self.hands[1].hidden)
        else:
            positions = self.plan[self.step_i - 1].positions
        self._shares(msg, positions, mine)

    def _shares(self, msg: Message, positions: tuple[int, ...], mine: bool) -> None:
        entries = msg.body["shares"]
        if tuple(e[0] for e in entries) != positions:
            raise Deviation("unexpected_message", f"shares must be for positions {positions}")
        for pos, d, proof in entries:
            self._check_share(msg, pos, d, proof, mine)
        self._shares_received(msg, positions)

    def _shares_received(self, msg: Message, positions: tuple[int, ...]) -> None:
        """Hook: a peer learns its own cards from the other's shares."""

    def _on_reveal(self, msg: Message, mine: bool) -> None:
        op = self.op
        hand = self.hands[msg.sender]
        claimed = sorted(e[1] for e in msg.body["reveal"])
        if isinstance(op, RevealFromHand):
            needed = sorted(c for c in op.cards if c not in hand.public)
            if claimed != needed:
                raise Deviation("unexpected_message", f"must show exactly {needed}")
        self._reveal(msg, msg.body["reveal"], mine)
        if isinstance(op, ExposeHand) and sorted(e[0] for e in msg.body["reveal"]) != sorted(
            hand.hidden
        ):
            raise Deviation("unexpected_message", "must show every hidden card of the hand")

    def _reveal(self, msg: Message, entries: list, mine: bool) -> None:
        hand, seat = self.hands[msg.sender], msg.sender
        if len({e[0] for e in entries}) != len(entries):
            raise Deviation("malformed_message", "a position is shown twice")
        for pos, card, d, proof in entries:
            if pos not in hand.hidden or pos >= self.n:
                raise Deviation("position_not_held", f"position {pos} is not in seat {seat}'s hand")
            self._check_share(msg, pos, d, proof, mine)
            point = sub(sub(self.deck[pos][1], self.shares[0][pos]), self.shares[1][pos])
            if card >= self.n or point != card_point(card):
                raise Deviation("false_claim", f"position {pos} does not hold card {card}")
            self.shown[pos] = card
            self.claimant[pos] = seat

    def _on_pick_commit(self, msg: Message, mine: bool) -> None:
        self.pick = {"commit": msg.body["commit"], "seq": msg.seq}

    def _on_pick_salt(self, msg: Message, mine: bool) -> None:
        self.pick["salt"] = msg.body["salt"]

    def _on_pick_open(self, msg: Message, mine: bool) -> None:
        op = self.op
        assert isinstance(op, RandomPick)
        salt = msg.body["salt"]
        if not mine and pick_commitment(self.sid, self.pick["seq"], salt) != self.pick["commit"]:
            raise Deviation("biased_randomness", "the salt does not open the pick commitment")
        picked = self.picked(op, salt, self.pick["salt"])
        positions = sorted(v for k, v in picked if k == "pos")
        if [e[0] for e in msg.body["reveal"]] != positions:
            raise Deviation("unexpected_message", f"must show the picked positions {positions}")
        self._reveal(msg, msg.body["reveal"], mine)
        self.pick["picked"] = picked

    def picked(self, op: RandomPick, holder_salt: bytes, other_salt: bytes):
        """The hand slots a random pick takes, from both salts (SPEC.md part 2)."""
        slots = self.hands[op.seat].slots()
        seed = hash256("pick", self.sid, self.pick["commit"], holder_salt, other_salt)
        order = sh.derive_permutation(seed, len(slots))
        return [slots[i] for i in order[: op.count]]

    def _on_audit(self, msg: Message, mine: bool) -> None:
        self._audit_secret(msg, mine)

    def _on_audit_verdict(self, msg: Message, mine: bool) -> None:
        self._audit_secret(msg, mine)
        self._verdict(msg, mine)

    def _on_verdict(self, msg: Message, mine: bool) -> None:
        self._verdict(msg, mine)

    def _audit_secret(self, msg: Message, mine: bool) -> None:
        try:
            x = scalar_from_wire(msg.body["secret"])
        except ValueError as exc:
            raise Deviation("bad_audit_secret", str(exc)) from exc
        if not mine:
            audit.check_opening(self, msg.sender, x, msg.body["seed"])
        self.secrets[msg.sender] = x

    def _verdict(self, msg: Message, mine: bool) -> None:
        if self.verdict_digest is None:
            self.verdict_digest = audit.verdict_digest(self)
        if not mine and msg.body["verdict"] != [True, self.verdict_digest]:
            raise Deviation("false_verdict", "the signed verdict differs from the audit's outcome")


def _verifies(key: bytes, c1: bytes, d: bytes, proof: bytes, ctx: bytes) -> bool:
    try:
        verify_share(key, c1, d, proof, ctx)
    except (BadProof, InvalidPoint):
        return False
    return True


def _signature_ok(data: Any, key: Ed25519PublicKey) -> bool:
    if type(data) is not dict or type(data.get("sig")) is not bytes:
        return False
    unsigned = {k: v for k, v in data.items() if k != "sig"}
    try:
        key.verify(data["sig"], DOMAIN + b"message\0" + canon(unsigned))
    except Exception:  # unencodable data, or InvalidSignature
        return False
    return True


def pick_commitment(sid: bytes, seq: int, salt: bytes) -> bytes:
    return hash256("pick-commit", sid, seq, salt)
