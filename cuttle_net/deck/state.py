"""The public side of the deck protocol: everything anyone holding the transcript can check.

:class:`DeckState` replays operations and signed messages, verifies every signature, chain
link, proof and claim, and keeps the public bookkeeping (deck ciphertexts, draw pile, hands,
published shares, cards shown to all). It is the third-party checker
(:func:`check_transcript`) and the base of :class:`~cuttle_net.deck.peer.DeckPeer`, which
adds a party's secrets. ``_plan`` says, from public state alone, which messages an operation
takes, who sends each, and in which round (the steps of a round need no message of each
other: their senders send them at once, and they may come in any order); each step has a
handler ``_on_<step>(msg, step, mine)``; ``mine`` skips the checks of one's own messages,
which were built honestly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NoReturn

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from ..identity_key import verify
from . import audit
from . import shuffle as sh
from .encoding import DOMAIN, canon, hash256
from .errors import CheatDetected, Deviation, UsageError, WireError
from .group import IDENTITY, InvalidPoint, add, card_point, card_table, check_point, sub
from .messages import VERSION, VERSIONS, Message, genesis, round_head
from .ops import (
    MAX_DECK,
    MAX_SEATS,
    Audit,
    AuditPassed,
    CardsLearned,
    Deal,
    Draw,
    Event,
    ExposeHand,
    ExposeHands,
    Op,
    OperationComplete,
    PlaceOnTop,
    RandomPick,
    RevealFromDeck,
    RevealFromHand,
    SwapHands,
    TakeToHand,
    op_from_wire,
)
from .proofs import BadProof, verify_key, verify_share


@dataclass
class Hand:
    """A seat's hand as the protocol sees it: hidden deck positions, and cards known to all."""

    hidden: list[int] = field(default_factory=list)
    public: list[int] = field(default_factory=list)

    def slots(self) -> list[tuple[str, int]]:
        """The hand in its canonical order (random picks index into it)."""
        return [("pos", p) for p in sorted(self.hidden)] + [
            ("card", c) for c in sorted(self.public)
        ]


@dataclass
class Output:
    """What a call produced: messages to send to every other party (wire form, in order),
    and events."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)


@dataclass
class _Step:
    sender: int
    name: str
    positions: tuple[int, ...] = ()  # the positions a shares/reveal step must cover


# A round: the steps of an operation that do not depend on each other, one per sender (in
# ascending seat order). Every message of a round names the same ``seq`` and ``prev``.
Round = tuple[_Step, ...]


@dataclass
class _Progress:
    """Where an operation's rounds stand: the round under way, its ``seq`` and ``prev``, and
    the digest of each message of it already in (by sender)."""

    op: Op
    plan: list[Round]
    round_i: int
    seq: int
    head: bytes
    got: dict[int, bytes] = field(default_factory=dict)

    def round(self) -> Round:
        return self.plan[self.round_i] if self.round_i < len(self.plan) else ()

    def step_of(self, sender: int) -> _Step | None:
        """``sender``'s step of the round under way, if it has not sent it yet."""
        if sender in self.got:
            return None
        return next((s for s in self.round() if s.sender == sender), None)

    def due(self) -> list[_Step]:
        return [s for s in self.round() if s.sender not in self.got]

    def take(self, sender: int, digest: bytes) -> None:
        """One more message of the round; once every one is in, the next round begins, its
        ``prev`` the round's head."""
        self.got[sender] = digest
        if len(self.got) == len(self.round()):
            self.head = round_head([self.got[s] for s in sorted(self.got)])
            self.seq, self.round_i, self.got = self.seq + 1, self.round_i + 1, {}


def deal_layout(op: Deal) -> tuple[list[list[int]], list[int], int]:
    """Where a deal puts the shuffled deck's positions: each seat's hand (from the top, in
    seat order), then the face-up cards; the draw pile starts after them."""
    hands, at = [], 0
    for count in op.hands:
        hands.append(list(range(at, at + count)))
        at += count
    return hands, list(range(at, at + op.face_up)), at + op.face_up


class DeckState:
    """Public verification of one game's deck protocol (observer, and the base of a party)."""

    me: int | None = None

    def __init__(
        self,
        session_id: bytes,
        public_keys: Sequence[Ed25519PublicKey],
        deck_size: int,
        faces: int | None = None,
        version: int = VERSION,
    ):
        if version not in VERSIONS:
            raise UsageError(f"deck protocol versions are {VERSIONS}")
        self.version = version  # 2: a record's older transcript (one step a round)
        if not 2 <= len(public_keys) <= MAX_SEATS:
            raise UsageError(f"a table has 2..{MAX_SEATS} seats")
        if type(deck_size) is not int or not 2 <= deck_size <= MAX_DECK:
            raise UsageError(f"deck_size must be 2..{MAX_DECK}")
        if not 16 <= len(session_id) <= 64:
            raise UsageError("session_id must be 16..64 bytes")
        self.sid = session_id
        self.public_keys = list(public_keys)
        self.seats = len(self.public_keys)
        self.n = deck_size
        # Card ids map to faces id % faces. With fewer faces than ids (two identical decks),
        # the card arguments of RevealFromHand, TakeToHand and PlaceOnTop name faces.
        self.faces = deck_size if faces is None else faces
        if type(self.faces) is not int or not 1 <= self.faces <= deck_size:
            raise UsageError(f"faces must be 1..{deck_size}")
        self.cards = card_table(deck_size)
        self.log: list[tuple[str, Any]] = []
        self.op: Op | None = None
        # The running operation's rounds (SPEC 2.7): the round under way, its seq and prev.
        self.at = _Progress(None, [], 0, 0, genesis(session_id))  # type: ignore[arg-type]
        self._round_at = 0  # where the round under way begins in the log
        # Messages that came before this party began their operation (SPEC 2.7, *Early
        # messages*), each checked before it was kept; ``_early``: how far they take that
        # operation's rounds, which the next early message must continue.
        self.pending: list[Any] = []
        self._early: _Progress | None = None
        self.events: list[Event] = []
        self.failed: CheatDetected | None = None
        self.dealt = False
        self.audited = False
        seats = range(self.seats)
        # Keys and decks: decks[0] is the open deck, decks[s + 1] seat s's shuffle of decks[s].
        self.key_commits: list[bytes] = [b""] * self.seats
        self.keys: list[bytes | None] = [None] * self.seats
        self.joint = IDENTITY
        self.decks: list[list[sh.Ciphertext]] = [[(IDENTITY, card_point(c)) for c in range(self.n)]]
        self.seed_commits: list[bytes] = [b""] * self.seats
        self.nonces: list[set[bytes]] = [set() for _ in seats]
        # Shares published (proved) per seat and position; cards shown to all, by position.
        self.shares: list[dict[int, bytes]] = [{} for _ in seats]
        self.shown: dict[int, int] = {}
        self.claimant: dict[int, int] = {}
        # Bookkeeping: the draw pile (top first; ("pos", p) hidden, ("card", c) known to all).
        self.pile: list[tuple[str, int]] = []
        self.hands = [Hand() for _ in seats]
        self.out: set[int] = set()  # cards known to all, in no hand and not on the pile
        self.pick: dict[str, Any] = {}
        self.secrets: list[int | None] = [None] * self.seats
        self.verdict_digest: bytes | None = None

    # ---- public API ---------------------------------------------------------------------

    @property
    def deck(self) -> list[sh.Ciphertext]:
        """The final deck (after every party's shuffle), by position."""
        return self.decks[-1]

    def transcript(self) -> list[tuple[str, Any]]:
        """Operations begun and messages processed, in order: what :func:`check_transcript`
        takes. Entries are ``("op", op_wire)`` and ``("msg", message_wire)``."""
        return list(self.log)

    def hand_view(self, seat: int) -> tuple[list[int], int]:
        """``seat``'s hand as everyone sees it: the cards known to all, and how many hidden
        cards it holds."""
        hand = self.hands[seat]
        return sorted(hand.public), len(hand.hidden)

    def pile_size(self) -> int:
        return len(self.pile)

    def deck_order(self) -> list[int]:
        """After the audit: the card id at each position of the dealt deck."""
        return audit.deck_order(self)

    @property
    def seq(self) -> int:
        """The ``seq`` of the round under way (or of the next one): rounds count from 0."""
        return self.at.seq

    @property
    def head(self) -> bytes:
        """The ``prev`` every message of the round under way names: the hash of the last
        complete round (SPEC 2.7)."""
        return self.at.head

    def begin(self, op: Op) -> Output:
        """Start ``op`` (every party starts the same operations in the same order)."""
        self._alive()
        if self.op is not None:
            raise UsageError(f"{self.op} is still running")
        try:
            op_from_wire(op.to_wire())  # the others will parse it strictly: so do we
        except (WireError, AttributeError) as exc:
            raise UsageError(f"not a valid operation: {op!r} ({exc})") from exc
        plan = self._plan(op)
        self.op, self.at = op, _Progress(op, plan, 0, self.seq, self.head)
        self.log.append(("op", op.to_wire()))
        self._round_at = len(self.log)
        out = Output()
        self._advance(out)
        self._early = None
        while self.op is not None and self.pending:
            self._process(*self.pending.pop(0), out)
            self._advance(out)
        return out

    def receive(self, data: Any, author: int | None = None) -> Output:
        """Process one message from another party (its wire form). Raises CheatDetected.

        ``author``: the seat the transport authenticated as the message's sender (a table's
        signed log), if it knows; every fault of the message is then that seat's.  The
        messages of one round may come in any order.  A message that comes while no
        operation runs here is checked before it is kept, and kept only if it is a step due
        before this party's own (``_early_problem``)."""
        self._alive()
        out = Output()
        if author is not None and (
            type(author) is not int or not 0 <= author < self.seats or author == self.me
        ):
            raise UsageError(f"author must be another seat, 0..{self.seats - 1}")
        if self.op is None:
            why = self._early_problem(data, author)
            if why is not None:
                self._refuse(data, author, why)
            self.pending.append((data, author))
            return out
        self._process(data, author, out)
        self._advance(out)
        return out

    def signed_by(self, data: Any, seat: int) -> bool:
        """Whether ``data`` carries ``seat``'s signature as a deck message (SPEC 2.7)."""
        return _signature_ok(data, self.public_keys[seat])

    def owing(self) -> list[int]:
        """The seats that owe a message of the round under way (none: idle)."""
        return [s.sender for s in self.at.due()] if self.op is not None else []

    def next_sender(self) -> int | None:
        """The lowest seat that owes a message of the running operation (None: idle)."""
        owing = self.owing()
        return owing[0] if owing else None

    def awaiting_peer(self) -> bool:
        """Whether another party owes a message (so a silence can be a timeout)."""
        return any(s != self.me for s in self.owing())

    def timed_out(self) -> CheatDetected:
        """The shell declares the parties that owe a message silent past its deadline: a
        forfeit naming the lowest such seat (SPEC 2.11), with the transcript so far as the
        record. The protocol stops."""
        if not self.awaiting_peer():
            raise UsageError("no message is due from another party")
        step = next(s for s in self.at.due() if s.sender != self.me)
        detail = f"no {step.name} message"
        verdict = CheatDetected("timeout", step.sender, detail, self.transcript())
        self.failed = verdict
        return verdict

    # ---- driving ------------------------------------------------------------------------

    def _alive(self) -> None:
        if self.failed is not None:
            raise UsageError(f"the protocol stopped: {self.failed}")

    def _advance(self, out: Output) -> None:
        """Send our own step of the round under way at once (parties only: it depends on no
        other message of the round), and finish the operation when its rounds are done."""
        while self.op is not None:
            if self.at.round():
                mine = self.at.step_of(self.me) if self.me is not None else None
                if mine is None:
                    break
                self._send(mine, out)
                continue
            op, self.op = self.op, None
            self._finish(op)
            self.events.append(OperationComplete(op))
        out.events.extend(self.events)
        self.events = []

    def _send(self, step: _Step, out: Output) -> None:  # pragma: no cover - parties override
        raise UsageError("an observer sends nothing")

    def _fail(self, cheat: Deviation, culprit: int) -> NoReturn:
        who = cheat.culprit if cheat.culprit is not None else culprit
        self.failed = CheatDetected(cheat.kind, who, cheat.detail, self.transcript())
        raise self.failed

    def _due_sender(self, claimed: int) -> int:
        """Whom a message that no transport authenticated is charged to: the seat its
        ``from`` names if that seat owes a message of the round, else the lowest that does."""
        owing = self.owing()
        return claimed if claimed in owing or not owing else owing[0]

    def _process(self, data: Any, author: int | None, out: Output) -> None:
        # Whom a fault is charged to: the authenticated author if the transport knows it;
        # else a seat that owes a message of the round, or another seat that signed the
        # message (out of turn). Never this party itself: its own messages are not received.
        claimed = self._claimed_sender(data) if author is None else author
        sender = self._due_sender(claimed) if author is None else author
        self.log.append(("msg", data))
        if not _signature_ok(data, self.public_keys[sender]):
            signer_ok = claimed not in (sender, self.me) and _signature_ok(
                data, self.public_keys[claimed]
            )
            if not signer_ok:
                self._fail(Deviation("bad_signature", f"not signed by seat {sender}"), sender)
            sender = claimed
        try:
            msg = Message.from_wire(data, self.version)
        except WireError as exc:
            self._fail(Deviation("malformed_message", str(exc)), sender)
        try:
            step = self._check_envelope(msg, sender)
            self._handle(msg, step, False)
            self._took(msg)
        except Deviation as cheat:
            self._fail(cheat, sender)
        except InvalidPoint as exc:
            self._fail(Deviation("invalid_point", str(exc)), sender)

    def _took(self, msg: Message, digest: bytes | None = None) -> None:
        """Count a message (already in the log) in its round; once the round is complete,
        list its messages by ascending sender (the order of a record, SPEC 5.1). `digest`:
        the message's, if known (our own, hashed as it was signed)."""
        before = self.at.round_i
        self.at.take(msg.sender, msg.digest() if digest is None else digest)
        if self.at.round_i != before:
            self.log[self._round_at :] = sorted(self.log[self._round_at :], key=_sender_of)
            self._round_at = len(self.log)

    def _handle(self, msg: Message, step: _Step, mine: bool) -> None:
        getattr(self, f"_on_{msg.step}")(msg, step, mine)

    def _early_problem(self, data: Any, author: int | None) -> str | None:
        """Why a message that came while no operation runs here cannot be kept (None: it can).

        A party keeps it only if it belongs to the operation it names, checked as far as
        possible before that operation begins here: signed by its author, of exact shape,
        of this session, of the round the kept messages have reached (its ``seq`` and
        ``prev``, a round complete without this party's step giving way to the next), of an
        operation that can begin now (the one those kept name), a step of that round not yet
        sent by its sender, and sized for that step. A round with a step of this party's own
        cannot complete before the party begins (the others cannot go further without it),
        so at most N-1 messages of bounded size are kept. An observer keeps none: a
        transcript begins each operation before its messages.
        """
        if self.me is None:
            return "no operation runs"
        sender = author if author is not None else self._claimed_sender(data)
        if sender == self.me or not _signature_ok(data, self.public_keys[sender]):
            return f"not signed by seat {sender}"
        try:
            msg = Message.from_wire(data, self.version)
        except WireError as exc:
            return str(exc)
        run = self._early
        if run is None:
            try:
                run = _Progress(msg.op, self._plan(msg.op), 0, self.seq, self.head)
            except UsageError as exc:
                return f"no such operation can begin now ({exc})"
        elif msg.op.to_wire() != run.op.to_wire():
            return f"the messages before it are for {run.op}"
        if (msg.sid, msg.sender, msg.seq, msg.prev) != (self.sid, sender, run.seq, run.head):
            return "it is not a message of the round under way"
        step = run.step_of(sender)
        if step is None or msg.step != step.name:
            return f"{msg.step} by seat {msg.sender} is not due in round {run.seq} of {msg.op}"
        why = self._size_problem(msg, step)
        if why is None:
            run = replace(run, got=dict(run.got))
            run.take(sender, msg.digest())
            self._early = run
        return why

    def _size_problem(self, msg: Message, step: _Step) -> str | None:
        """What the exact shape could not check before the session's sizes were known: a
        deck and its argument of exactly n, shares for exactly the planned positions, no
        more cards shown than the sender holds hidden."""
        body = msg.body
        if "deck" in body:
            n_lists = (body["argument"][i] for i in (0, 1, 3, 5, 6))
            if len(body["deck"]) != self.n or any(len(x) != self.n for x in n_lists):
                return f"a deck has {self.n} ciphertexts"
        if "shares" in body and tuple(e[0] for e in body["shares"]) != step.positions:
            return f"shares must be for positions {step.positions}"
        if "reveal" in body and len(body["reveal"]) > len(self.hands[msg.sender].hidden):
            return f"seat {msg.sender} does not hold {len(body['reveal'])} hidden cards"
        return None

    def _refuse(self, data: Any, author: int | None, why: str) -> NoReturn:
        """Refuse a message that came while no operation runs here and that cannot be kept.
        It goes in the transcript as the evidence, and is charged as a third party finds
        from the transcript alone: to the seat that signed it (the author the transport
        authenticated must be that seat), for its shape, its session, its place in the
        chain, or else for coming when none of its operation's steps was due."""
        self.log.append(("msg", data))
        others = [s for s in range(self.seats) if s != self.me]
        first = author if author is not None else self._claimed_sender(data)
        maybe = [first] if author is not None else [first, *others]
        signer = next(
            (s for s in maybe if s != self.me and _signature_ok(data, self.public_keys[s])), None
        )
        if signer is None:
            culprit = first if first != self.me else others[0]
            self._fail(Deviation("bad_signature", f"not signed by seat {culprit}"), culprit)
        try:
            msg = Message.from_wire(data, self.version)
        except WireError as exc:
            self._fail(Deviation("malformed_message", str(exc)), signer)
        try:
            self._check_envelope(msg, signer)
        except Deviation as cheat:
            if cheat.kind == "unexpected_message":  # nothing is due: say why it could not wait
                cheat = Deviation(cheat.kind, f"{msg.step} for {msg.op} came early: {why}")
            self._fail(cheat, signer)
        raise AssertionError("_check_envelope refuses every message while nothing is due")

    def _check_envelope(self, msg: Message, signer: int) -> _Step:
        """The checks of a message's place (SPEC 2.7, *Receiving a message*): its session,
        its round (``seq``), its sender's first message of the round, its ``prev``, then the
        operation, sender and step due. Returns the step."""
        if msg.sid != self.sid:
            raise Deviation("wrong_session", "the message belongs to another session")
        if msg.seq < self.seq:
            raise Deviation("replayed_message", f"sequence number {msg.seq} was already used")
        if msg.seq > self.seq:
            raise Deviation("reordered_message", f"sequence number {msg.seq}, expected {self.seq}")
        if self.op is not None and msg.sender in self.at.got:
            raise Deviation(
                "replayed_message", f"seat {msg.sender} already sent its message of round {msg.seq}"
            )
        if msg.prev != self.head:
            raise Deviation("broken_chain", "prev is not the hash of the previous round")
        step = self.at.step_of(msg.sender) if self.op is not None else None
        if (
            step is None
            or msg.sender != signer
            or msg.op.to_wire() != self.op.to_wire()  # type: ignore[union-attr]
            or msg.step != step.name
        ):
            raise Deviation("unexpected_message", f"{msg.step} for {msg.op} is not due now")
        return step

    def _record(self, msg: Message, step: _Step, digest: bytes | None = None) -> None:
        self.log.append(("msg", msg.to_wire()))
        self._handle(msg, step, True)
        self._took(msg, digest)

    # ---- planning: which messages an operation takes, from public state alone -----------

    def _claimed_sender(self, data: Any) -> int:
        """The seat a message names as its author (the due sender if it names none)."""
        sender = data.get("from") if type(data) is dict else None
        if type(sender) is int and 0 <= sender < self.seats:
            return sender
        due = self.next_sender()
        return due if due is not None else 0

    def _check_op(self, op: Op) -> None:
        seats = [getattr(op, name) for name in ("seat", "to_seat", "a", "b") if hasattr(op, name)]
        seats += getattr(op, "seats", ())
        cards = [*getattr(op, "cards", ()), *([op.card] if hasattr(op, "card") else [])]
        if any(s >= self.seats for s in seats) or any(c >= self.faces for c in cards):
            raise UsageError(f"{op} names a seat or card outside this table")

    def face(self, card: int) -> int:
        return card % self.faces

    def _public_copy(self, hand: Hand, face: int) -> int | None:
        """The lowest card of ``face`` in ``hand`` that everyone knows is there."""
        return min((c for c in hand.public if self.face(c) == face), default=None)

    def _needed(self, op: RevealFromHand) -> list[int]:
        """The faces (cards) of a reveal that the holder must prove: those without a public
        copy in its hand."""
        hand = self.hands[op.seat]
        return [f for f in op.cards if self._public_copy(hand, f) is None]

    def _table_card(self, face: int) -> int:
        """The card a PlaceOnTop or TakeToHand names: with one card per face, the id itself;
        else the lowest card of the face known to all and in no hand nor the pile."""
        if self.faces == self.n:
            return face
        card = min((c for c in self.out if self.face(c) == face), default=None)
        if card is None:
            raise UsageError(f"no card of face {face} is public outside the hands and pile")
        return card

    def _plan(self, op: Op) -> list[Round]:
        """The rounds of ``op`` (SPEC 2.8): a round holds the steps that need no message of
        the same round, so their senders send them at once; each round needs the one before.
        Version 2 had one step a round, in the same order."""
        rounds = self._rounds(op)
        if self.version == 2:
            if isinstance(op, Audit):
                *first, last = rounds[0]
                rounds = [(*first, _Step(last.sender, "audit_verdict")), rounds[1][:-1]]
            rounds = [(step,) for r in rounds for step in r]
        return rounds

    def _rounds(self, op: Op) -> list[Round]:
        self._check_op(op)
        everyone = range(self.seats)
        if isinstance(op, Deal):
            if self.dealt:
                raise UsageError("the deck is shuffled and dealt once per session")
            if len(op.hands) != self.seats or sum(op.hands) + op.face_up > self.n:
                raise UsageError(f"{op} does not fit {self.seats} seats and {self.n} cards")
            last = self.seats - 1
            hands, face_up, _ = deal_layout(op)
            dealt = [p for h in hands for p in h]
            # Each seat shares every dealt position outside its own hand, and the face-up ones.
            shared = [tuple(p for p in dealt if p not in h) + tuple(face_up) for h in hands]
            return [
                tuple(_Step(s, "key_commit") for s in range(last)),
                (_Step(last, "key"),),
                tuple(_Step(s, "key_open") for s in range(last)),
                *((_Step(s, "shuffle"),) for s in everyone),  # each shuffles the one before
                tuple(_Step(s, "shares", shared[s]) for s in everyone),
            ]
        if not self.dealt or self.audited:
            raise UsageError(f"{op} needs a dealt game that is not yet audited")
        if isinstance(op, Draw):
            if not self.pile:
                raise UsageError("the draw pile is empty")
            kind, value = self.pile[0]
            if kind == "card":
                return []
            senders = [s for s in everyone if op.public or s != op.to_seat]
            return [tuple(_Step(s, "shares", (value,)) for s in senders)]
        if isinstance(op, RevealFromDeck):
            if not 1 <= op.count <= len(self.pile):
                raise UsageError(f"cannot reveal {op.count} of {len(self.pile)} cards")
            hidden = tuple(v for k, v in self.pile[: op.count] if k == "pos")
            return [tuple(_Step(s, "shares", hidden) for s in everyone)] if hidden else []
        if isinstance(op, RevealFromHand):
            needed = self._needed(op)
            if len(needed) > len(self.hands[op.seat].hidden) or not op.cards:
                raise UsageError(f"seat {op.seat} cannot show {op.cards}")
            return [(_Step(op.seat, "reveal"),)] if needed else []
        if isinstance(op, ExposeHand):
            hidden = tuple(sorted(self.hands[op.seat].hidden))
            return [(_Step(op.seat, "reveal", hidden),)] if hidden else []
        if isinstance(op, ExposeHands):
            shown = {s: tuple(sorted(self.hands[s].hidden)) for s in op.seats}
            steps = tuple(_Step(s, "reveal", pos) for s, pos in shown.items() if pos)
            return [steps] if steps else []
        if isinstance(op, RandomPick):
            if not self.hands[op.seat].slots() or not op.count:
                return []
            return [
                (_Step(op.seat, "pick_commit"),),
                tuple(_Step(s, "pick_salt") for s in everyone if s != op.seat),
                (_Step(op.seat, "pick_open"),),
            ]
        if isinstance(op, SwapHands):
            if op.a == op.b:
                raise UsageError("a seat cannot swap hands with itself")
            hidden = {s: tuple(sorted(self.hands[s].hidden)) for s in sorted((op.a, op.b))}
            steps = tuple(_Step(s, "shares", pos) for s, pos in hidden.items() if pos)
            return [steps] if steps else []
        if isinstance(op, PlaceOnTop | TakeToHand):
            self._table_card(op.card)  # refuses a face with no public copy
            return []
        if isinstance(op, Audit):
            return [
                tuple(_Step(s, "audit") for s in everyone),
                tuple(_Step(s, "verdict") for s in everyone),
            ]
        raise UsageError(f"unknown operation {op!r}")

    # ---- finishing: bookkeeping once every message of an operation is in ----------------

    def _finish(self, op: Op) -> None:
        if isinstance(op, Deal):
            self.dealt = True
            hands, face_up, pile_at = deal_layout(op)
            for hand, positions in zip(self.hands, hands, strict=True):
                hand.hidden = positions
            self.pile = [("pos", p) for p in range(pile_at, self.n)]
            self._private_deal()
            shown = [self._open(p) for p in face_up]
            self.out.update(shown)
            self._learned(None, shown, True, "deck")
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
            self.out.update(cards)
            self._learned(None, cards, True, "deck")
        elif isinstance(op, RevealFromHand):
            hand, cards = self.hands[op.seat], []
            for face in op.cards:
                card = self._public_copy(hand, face)
                if card is None:  # shown just now, from a hidden position
                    pos = next(
                        p
                        for p in hand.hidden
                        if p in self.shown and self.face(self.shown[p]) == face
                    )
                    card = self.shown[pos]
                    hand.hidden.remove(pos)
                    hand.public.append(card)
                cards.append(card)
            if not op.keep:
                for card in cards:
                    hand.public.remove(card)
                self.out.update(cards)
            self._learned(op.seat, cards, True, "hand")
        elif isinstance(op, ExposeHand | ExposeHands):
            for seat in op.seats if isinstance(op, ExposeHands) else (op.seat,):
                hand = self.hands[seat]
                cards = [self.shown[p] for p in sorted(hand.hidden)]
                hand.public += cards
                hand.hidden = []
                self._learned(seat, cards, True, "hand")
        elif isinstance(op, RandomPick):
            self._finish_pick(op)
        elif isinstance(op, SwapHands):
            for s in (op.a, op.b):
                hand = self.hands[s]
                hand.public += [self._open(p) for p in sorted(hand.hidden)]
                hand.hidden = []
            self.hands[op.a], self.hands[op.b] = self.hands[op.b], self.hands[op.a]
            for s in sorted((op.a, op.b)):
                self._learned(s, list(self.hands[s].public), True, "swap")
        elif isinstance(op, PlaceOnTop):
            card = self._table_card(op.card)
            self.out.discard(card)
            self.pile.insert(0, ("card", card))
        elif isinstance(op, TakeToHand):
            card = self._table_card(op.card)
            self.out.discard(card)
            self.hands[op.seat].public.append(card)
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
        self.out.update(cards)
        self._learned(op.seat, cards, True, "random_pick")

    def _learned(self, seat: int | None, cards: list[int], public: bool, source: str) -> None:
        if cards:
            self.events.append(CardsLearned(seat, tuple(cards), public, source))

    def _private_deal(self) -> None:
        """Hook: a party reports the cards it was dealt."""

    def _private_draw(self, seat: int, pos: int) -> None:
        """Hook: a hidden card joined ``seat``'s hand (the party that drew it learns it)."""

    # ---- checks shared by the handlers ----------------------------------------------------

    def _ctx(self, msg: Message, label: str, index: int = 0) -> bytes:
        """The Fiat–Shamir context of a proof: session, place in the transcript (sequence
        number and previous message's hash), sender, what is proved, and the position."""
        return hash256("context", msg.sid, msg.seq, msg.prev, msg.sender, label, index)

    def _nonce(self, seat: int, commitment: bytes) -> None:
        if commitment in self.nonces[seat]:
            raise Deviation("reused_nonce", "a proof repeats an earlier proof's commitment")
        self.nonces[seat].add(commitment)

    def _check_share(self, msg: Message, pos: int, d: bytes, proof: bytes, mine: bool) -> None:
        """Verify a decryption share of ``pos`` by the sender and publish it."""
        seat = msg.sender
        if not mine:
            check_point(d)
            key = self.keys[seat]
            assert key is not None
            ctx = self._ctx(msg, "share", pos)
            try:
                self._nonce(seat, verify_share(key, self.deck[pos][0], d, proof, ctx))
            except BadProof:
                for other in range(self.n):
                    if other != pos and _verifies(key, self.deck[other][0], d, proof, ctx):
                        raise Deviation(
                            "share_for_other_position",
                            f"the share for position {pos} is one for position {other}",
                        ) from None
                raise Deviation(
                    "wrong_share", f"the share for position {pos} does not verify"
                ) from None
        self.shares[seat][pos] = d

    def _unmask(self, pos: int, *extra: bytes) -> bytes:
        """C2 minus every published share of ``pos`` (and ``extra`` ones not yet published)."""
        point = self.deck[pos][1]
        for shares in self.shares:
            if pos in shares:
                point = sub(point, shares[pos])
        for d in extra:
            point = sub(point, d)
        return point

    def _open(self, pos: int) -> int:
        """The card at ``pos`` from every party's published share (a public reveal)."""
        if pos not in self.shown:
            assert all(pos in shares for shares in self.shares)
            self.shown[pos] = self._card_of(self._unmask(pos), pos)
        return self.shown[pos]

    def _card_of(self, point: bytes, pos: int) -> int:
        card = self.cards.get(point)
        if card is None:  # shares and shuffles are proved, so this is unreachable
            raise Deviation("duplicate_card", f"position {pos} holds no card")
        return card

    # ---- step handlers ----------------------------------------------------------------------

    def _on_key_commit(self, msg: Message, step: _Step, mine: bool) -> None:
        self.key_commits[msg.sender] = msg.body["commit"]

    def _on_key(self, msg: Message, step: _Step, mine: bool) -> None:
        key, seat = msg.body["key"], msg.sender
        if not mine:
            check_point(key)
            try:
                self._nonce(seat, verify_key(key, msg.body["proof"], self._ctx(msg, "key")))
            except BadProof as exc:
                raise Deviation("bad_key_proof", str(exc)) from exc
        self.keys[seat] = key
        if all(k is not None for k in self.keys):
            joint = self.keys[0]
            for k in self.keys[1:]:
                joint = add(joint, k)
            self.joint = joint

    def _on_key_open(self, msg: Message, step: _Step, mine: bool) -> None:
        key, salt = msg.body["key"], msg.body["salt"]
        if (
            not mine
            and key_commitment(self.sid, msg.sender, key, salt) != self.key_commits[msg.sender]
        ):
            raise Deviation("key_commitment_mismatch", "the key share differs from its commitment")
        self._on_key(msg, step, mine)

    def _on_shuffle(self, msg: Message, step: _Step, mine: bool) -> None:
        """A shuffle of the latest deck, checked before anything is built on it."""
        inp, seat = self.decks[-1], msg.sender
        out = [(c1, c2) for c1, c2 in msg.body["deck"]]
        if not mine:
            if len(out) != self.n:
                raise Deviation("malformed_message", f"a deck has {self.n} ciphertexts")
            for c1, c2 in out:
                check_point(c1)
                check_point(c2)
            try:
                arg = sh.ShuffleArgument.from_wire(msg.body["argument"], self.n)
                sh.verify(inp, out, self.joint, self._ctx(msg, "shuffle"), arg)
            except sh.BadShuffle as exc:
                raise Deviation("bad_shuffle_proof", f"shuffle by seat {seat}: {exc}") from exc
        self.seed_commits[seat] = msg.body["seed_commit"]
        self.decks.append(out)

    def _on_shares(self, msg: Message, step: _Step, mine: bool) -> None:
        positions = step.positions
        entries = msg.body["shares"]
        if tuple(e[0] for e in entries) != positions:
            raise Deviation("unexpected_message", f"shares must be for positions {positions}")
        for pos, d, proof in entries:
            self._check_share(msg, pos, d, proof, mine)

    def _on_reveal(self, msg: Message, step: _Step, mine: bool) -> None:
        op = self.op
        hand = self.hands[msg.sender]
        if isinstance(op, RevealFromHand):
            claimed = sorted(self.face(e[1]) for e in msg.body["reveal"])
            needed = sorted(self._needed(op))
            if claimed != needed:
                raise Deviation("unexpected_message", f"must show exactly {needed}")
        self._reveal(msg, msg.body["reveal"], mine)
        if isinstance(op, ExposeHand | ExposeHands) and sorted(
            e[0] for e in msg.body["reveal"]
        ) != sorted(hand.hidden):
            raise Deviation("unexpected_message", "must show every hidden card of the hand")

    def _reveal(self, msg: Message, entries: list, mine: bool) -> None:
        """The sender shows hidden cards of its hand: its own share of each position (every
        other party's share was published when the card came to the hand) and the card."""
        hand, seat = self.hands[msg.sender], msg.sender
        if len({e[0] for e in entries}) != len(entries):
            raise Deviation("malformed_message", "a position is shown twice")
        for pos, card, d, proof in entries:
            if pos not in hand.hidden:
                raise Deviation("position_not_held", f"position {pos} is not in seat {seat}'s hand")
            self._check_share(msg, pos, d, proof, mine)
            if card >= self.n or self._unmask(pos) != card_point(card):
                raise Deviation("false_claim", f"position {pos} does not hold card {card}")
            self.shown[pos] = card
            self.claimant[pos] = seat

    def _on_pick_commit(self, msg: Message, step: _Step, mine: bool) -> None:
        self.pick = {"commit": msg.body["commit"], "seq": msg.seq, "salts": {}}

    def _on_pick_salt(self, msg: Message, step: _Step, mine: bool) -> None:
        self.pick["salts"][msg.sender] = msg.body["salt"]

    def _on_pick_open(self, msg: Message, step: _Step, mine: bool) -> None:
        op = self.op
        assert isinstance(op, RandomPick)
        salt = msg.body["salt"]
        if not mine and pick_commitment(self.sid, self.pick["seq"], salt) != self.pick["commit"]:
            raise Deviation("biased_randomness", "the salt does not open the pick commitment")
        picked = self.picked(op, salt)
        positions = sorted(v for k, v in picked if k == "pos")
        if [e[0] for e in msg.body["reveal"]] != positions:
            raise Deviation("unexpected_message", f"must show the picked positions {positions}")
        self._reveal(msg, msg.body["reveal"], mine)
        self.pick["picked"] = picked

    def picked(self, op: RandomPick, holder_salt: bytes) -> list[tuple[str, int]]:
        """The hand slots a random pick takes, from the holder's salt and every other
        party's salt in seat order (SPEC.md part 2)."""
        slots = self.hands[op.seat].slots()
        salts = [self.pick["salts"][s] for s in sorted(self.pick["salts"])]  # in seat order
        seed = hash256("pick", self.sid, self.pick["commit"], holder_salt, salts)
        order = sh.derive_permutation(seed, len(slots))
        return [slots[i] for i in order[: op.count]]

    def _on_audit(self, msg: Message, step: _Step, mine: bool) -> None:
        x = audit.secret_from_wire(msg.body["secret"])
        if not mine:
            audit.check_opening(self, msg.sender, x, msg.body["seed"])
        self.secrets[msg.sender] = x

    def _on_audit_verdict(self, msg: Message, step: _Step, mine: bool) -> None:
        self._on_audit(msg, step, mine)
        self._on_verdict(msg, step, mine)

    def _on_verdict(self, msg: Message, step: _Step, mine: bool) -> None:
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


def _sender_of(entry: tuple[str, Any]) -> int:
    return entry[1]["from"]


def _signature_ok(data: Any, key: Ed25519PublicKey) -> bool:
    if type(data) is not dict or type(data.get("sig")) is not bytes:
        return False
    unsigned = {k: v for k, v in data.items() if k != "sig"}
    try:
        verify(key, data["sig"], DOMAIN + b"message\0" + canon(unsigned))
    except Exception:  # unencodable data, or InvalidSignature
        return False
    return True


def key_commitment(sid: bytes, seat: int, key: bytes, salt: bytes) -> bytes:
    return hash256("key-commit", sid, seat, key, salt)


def pick_commitment(sid: bytes, seq: int, salt: bytes) -> bytes:
    return hash256("pick-commit", sid, seq, salt)
