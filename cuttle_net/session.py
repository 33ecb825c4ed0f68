"""One peer's side of one networked game: the rules engine, the deck protocol and signed moves.

Sans-I/O.  The caller (the trio shell, or a test) carries ``Output.sends`` to the other peer
and hands what arrives to ``receive_move`` / ``receive_deck``.  Nothing here knows about
sockets or frames.

A move goes like this, on both sides alike:
1. the mover's session checks it on its view, signs it and sends it (``SendMove``); the other
   session checks the signature and the move's legality on *its* view — an illegal move or a
   bad signature is the mover's fault (``Fault``);
2. both ask the engine which card motions the move causes (``Game.motions``) and turn them
   into the same deck-protocol operations (``deck_plan``), which they run one after another;
3. with the cards those operations showed this seat, both apply the move to their views.
When the game ends normally, both run the deck protocol's audit.  A concession ends the game
at once, without an audit (an operation in flight cannot be completed by one side alone).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from .deck import (
    Audit,
    AuditPassed,
    CardsLearned,
    CheatDetected,
    DeckPeer,
    Draw,
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
    UsageError,
)
from .deck.encoding import hash256
from .engine import CHANCE, OVER, Game, IllegalMove, Outcome, RevealError
from .header import GameHeader
from .identity_key import identity_public_key
from .motions import Drawn, Exposed, HandOut, Motion, Revealed, Swapped, ToHand, ToTop
from .moves import CONCEDE, Kind, Move, MoveSyntaxError, move, parse_move

NO_DECK_HEAD = bytes(32)  # a concession is not bound to the deck chain (it may cut an op short)


# ---------------------------------------------------------------------- outputs


@dataclass(frozen=True)
class SendMove:
    """Send the peer this signed move."""

    text: str
    signature: bytes


@dataclass(frozen=True)
class SendDeck:
    """Send the peer this deck-protocol message (its wire form)."""

    data: dict[str, Any]


@dataclass(frozen=True)
class Dealt:
    """The deal is done: ``view`` exists and the game begins."""


@dataclass(frozen=True)
class MovePlayed:
    """A move was applied to this seat's view (``seat`` made it; ``None`` for chance)."""

    seat: int | None
    move: Move


@dataclass(frozen=True)
class GameOver:
    outcome: Outcome


@dataclass(frozen=True)
class Audited:
    """Both peers re-checked the whole deck and every claim, and signed this verdict."""

    digest: bytes


@dataclass(frozen=True)
class Fault:
    """The game stopped because seat ``culprit`` broke the protocol or the rules.

    ``kind`` is stable: ``illegal_move``, ``bad_move_signature``, ``malformed_move``,
    ``timeout``, one of the deck protocol's cheat kinds, or ``internal_error`` (this side
    lost its way: a bug, blamed on no one else).  ``evidence`` is what a third
    party needs to check it (the deck transcript, or the signed move).
    """

    kind: str
    culprit: int
    message: str
    evidence: Any = None


@dataclass
class Output:
    sends: list[SendMove | SendDeck] = field(default_factory=list)
    events: list[Dealt | MovePlayed | GameOver | Audited | Fault] = field(default_factory=list)

    def extend(self, other: Output) -> None:
        self.sends.extend(other.sends)
        self.events.extend(other.events)


@dataclass(frozen=True)
class MoveRecord:
    """A move as the game record keeps it: signed by its seat, chained to the move before
    and to the deck transcript (``deck_at`` entries of it had been processed)."""

    seat: int
    text: str
    signature: bytes
    deck_at: int


# ----------------------------------------------------------------- deck planning


def deck_plan(motions: list[Motion], *, chance: bool = False) -> list[Op]:
    """The deck operations that carry out ``motions``; both peers derive the same list.

    ``chance``: the move is a random-fours pick, whose cards a ``RandomPick`` already took
    out of the hand.
    """
    ops: list[Op] = []
    for m in motions:
        last = ops[-1] if ops else None
        if isinstance(m, HandOut):
            if chance:
                continue
            if isinstance(last, RevealFromHand) and last.seat == m.seat:
                ops[-1] = RevealFromHand(m.seat, tuple(sorted((*last.cards, m.card))))
            else:
                ops.append(RevealFromHand(m.seat, (m.card,)))
        elif isinstance(m, Drawn):
            ops.append(Draw(m.seat, public=m.exposed))
        elif isinstance(m, Revealed):
            if isinstance(last, RevealFromDeck):
                ops[-1] = RevealFromDeck(last.count + 1)
            else:
                ops.append(RevealFromDeck(1))
        elif isinstance(m, Exposed):
            ops.append(ExposeHand(m.seat))
        elif isinstance(m, Swapped):
            ops.append(SwapHands())
        elif isinstance(m, ToTop):
            ops.append(PlaceOnTop(m.card))
        elif isinstance(m, ToHand):
            ops.append(TakeToHand(m.seat, m.card))
    return ops


# ------------------------------------------------------------------------ session


@dataclass
class _Pending:
    """A move being carried out: its deck operations still to run, and what they showed."""

    seat: int | None
    move: Move | None  # None for a random-fours pick until the pick is known
    ops: list[Op]
    unseen: set[int]
    learned: list[int] = field(default_factory=list)


class GameSession:
    """One seat's side of one game.  Seat 1 deals; seat 0 moves first."""

    def __init__(
        self,
        seat: int,
        header: GameHeader,
        signing_key: Ed25519PrivateKey,
        *,
        rng: Callable[[int], bytes] = os.urandom,
    ) -> None:
        if signing_key.public_key().public_bytes_raw() != header.keys[seat]:
            raise ValueError(f"the signing key is not seat {seat}'s key in the game header")
        self.seat = seat
        self.peer = 1 - seat
        self.header = header
        self.rules = rules = header.rules
        self.session_id = session_id = header.session_id
        self._key = signing_key
        self._peer_key = peer_key = identity_public_key(header.keys[1 - seat])
        self.deck = DeckPeer(
            seat,
            session_id,
            signing_key,
            peer_key,
            rules.deck_size,
            rng,
        )
        self.view: Game | None = None
        self.records: list[MoveRecord] = []  # the signed moves, both seats'
        # Where the record's deck transcript ends, if a concession voided moves of ours
        # whose deck operations had begun (SPEC 5.1): the deck log's length when the first
        # voided move was signed.
        self.deck_cut: int | None = None
        self.played: list[tuple[int | None, Move]] = []  # every applied move (chance: None)
        self.fault: Fault | None = None
        self.audit: bytes | None = None
        self._head = hash256("moves", session_id)
        self._pending: _Pending | None = None
        self._auditing = False

    # ------------------------------------------------------------ what is going on

    @property
    def outcome(self) -> Outcome | None:
        return self.view.outcome if self.view is not None else None

    @property
    def finished(self) -> bool:
        """Nothing more will happen: faulted, or over and audited (or conceded)."""
        if self.fault is not None:
            return True
        if self.outcome is None:
            return False
        return self.audit is not None or self.outcome.reason == "concede"

    @property
    def busy(self) -> bool:
        """Deck operations are running: no move can be made now."""
        return self._pending is not None or self._auditing or self.view is None

    @property
    def my_turn(self) -> bool:
        """This seat must decide, and may call ``play``."""
        return (
            not self.finished
            and not self.busy
            and self.view is not None
            and self.view.phase != OVER
            and self.view.to_act == self.seat
        )

    @property
    def waiting_for_peer(self) -> str | None:
        """What the peer owes us now: ``"move"`` (a decision), ``"deck"`` (a protocol step)."""
        if self.finished:
            return None
        if self.deck.awaiting_peer():  # our own steps are always sent at once
            return "deck"
        if not self.busy and self.view is not None and self.view.phase != OVER:
            return "move" if self.view.to_act == self.peer else None
        return None

    # --------------------------------------------------------------------- inputs

    def start(self) -> Output:
        """Both sides: shuffle and deal."""
        return self._run_deck(lambda: self.deck.begin(ShuffleAndDeal()))

    def play(self, m: Move | str) -> Output:
        """This seat's move.  Raises ``IllegalMove`` (with the rule) or ``RuntimeError``."""
        if isinstance(m, str):
            m = parse_move(m)
        if m.kind == Kind.CONCEDE:
            return self.concede()
        if not self.my_turn:
            raise RuntimeError("it is not this player's decision now")
        assert self.view is not None
        self.view.check(m, by=self.seat)
        out = Output()
        record = self._sign(m)
        out.sends.append(SendMove(record.text, record.signature))
        out.extend(self._carry_out(self.seat, m))
        return out

    def concede(self) -> Output:
        if self.finished or self.view is None or self.view.phase == OVER:
            raise RuntimeError("there is no game to concede")
        record = self._sign(CONCEDE)
        out = Output(sends=[SendMove(record.text, record.signature)])
        self._pending = None
        self.view.apply(CONCEDE, by=self.seat)
        self.played.append((self.seat, CONCEDE))
        out.events += [MovePlayed(self.seat, CONCEDE), GameOver(self.view.outcome)]
        return out

    def receive_move(self, text: str, signature: bytes) -> Output:
        """A move from the peer; a bad one ends the game as the peer's fault."""
        if self.finished:
            return Output()  # e.g. a move that crossed our concession
        out = Output()
        try:
            m = parse_move(text)
        except MoveSyntaxError as e:
            return self._faulted(Fault("malformed_move", self.peer, str(e), text))
        conceding = m.kind == Kind.CONCEDE
        if not self._verify(m, signature, conceding):
            evidence = {"text": text, "signature": signature}
            why = "the move's signature does not check"
            return self._faulted(Fault("bad_move_signature", self.peer, why, evidence))
        if conceding:
            self._pending = None
            assert self.view is not None
            self.view.apply(CONCEDE, by=self.peer)
            self.played.append((self.peer, CONCEDE))
            out.events += [MovePlayed(self.peer, CONCEDE), GameOver(self.view.outcome)]
            return out
        if self.busy or self.view is None or self.view.phase == OVER:
            why = f"{text!r} came out of turn"
            return self._faulted(Fault("illegal_move", self.peer, why, text))
        try:
            self.view.check(m, by=self.peer)
        except IllegalMove as e:
            return self._faulted(Fault("illegal_move", self.peer, f"{text}: {e}", text))
        out.extend(self._carry_out(self.peer, m))
        return out

    def receive_deck(self, data: dict[str, Any]) -> Output:
        if self.finished:
            return Output()
        return self._run_deck(lambda: self.deck.receive(data))

    def timed_out(self) -> Output:
        """The shell's deadline for the peer passed: the peer forfeits."""
        owed = self.waiting_for_peer
        if owed is None:
            raise RuntimeError("nothing is due from the peer")
        if owed == "deck":
            cheat = self.deck.timed_out()
            return self._faulted(Fault("timeout", self.peer, cheat.detail, cheat.evidence))
        return self._faulted(Fault("timeout", self.peer, "no move in time"))

    # ------------------------------------------------------------------- internals

    def sign(self, data: bytes) -> bytes:
        """Sign ``data`` with this player's identity key (for the game record)."""
        return self._key.sign(data)

    def _faulted(self, fault: Fault) -> Output:
        self.fault = fault
        self._pending = None
        return Output(events=[fault])

    def _move_digest(self, seat: int, m: Move, deck_head: bytes) -> bytes:
        return hash256(
            "move", self.session_id, len(self.records), self._head, deck_head, seat, str(m)
        )

    def _deck_head(self, conceding: bool) -> bytes:
        return NO_DECK_HEAD if conceding else self.deck.head

    def _sign(self, m: Move) -> MoveRecord:
        digest = self._move_digest(self.seat, m, self._deck_head(m.kind == Kind.CONCEDE))
        record = MoveRecord(self.seat, str(m), self._key.sign(digest), len(self.deck.log))
        self._keep(record, digest)
        return record

    def _verify(self, m: Move, signature: bytes, conceding: bool) -> bool:
        digest = self._move_digest(self.peer, m, self._deck_head(conceding))
        try:
            self._peer_key.verify(signature, digest)
        except InvalidSignature:
            return False
        self._keep(MoveRecord(self.peer, str(m), signature, len(self.deck.log)), digest)
        return True

    def _keep(self, record: MoveRecord, digest: bytes) -> None:
        self.records.append(record)
        self._head = digest

    def _carry_out(self, seat: int | None, m: Move | None) -> Output:
        """Start the deck operations of a move (or of a random-fours pick)."""
        assert self.view is not None
        if m is None:  # chance: a joint random pick from the victim's hand
            victim = 1 - self.view.player
            ops: list[Op] = [RandomPick(victim, min(2, self.view.hand_size(victim)))]
        else:
            ops = deck_plan(self.view.motions(m))
        self._pending = _Pending(seat, m, ops, self.view.unseen())
        return self._next_op()

    def _next_op(self) -> Output:
        p = self._pending
        assert p is not None
        if p.ops:
            op = p.ops.pop(0)
            return self._run_deck(lambda: self.deck.begin(op))
        return self._finish_move()

    def _run_deck(self, call: Callable[[], Any]) -> Output:
        try:
            deck_out = call()
        except CheatDetected as cheat:
            return self._faulted(Fault(cheat.kind, cheat.culprit, cheat.detail, cheat.evidence))
        except UsageError as e:  # our own side lost step: stop, saying so, rather than crash
            return self._faulted(Fault("internal_error", self.seat, str(e)))
        out = Output(sends=[SendDeck(d) for d in deck_out.messages])
        for event in deck_out.events:
            if isinstance(event, CardsLearned) and self._pending is not None:
                self._pending.learned.extend(event.cards)
            elif isinstance(event, AuditPassed):
                self.audit = event.digest
                self._auditing = False
                out.events.append(Audited(event.digest))
            elif isinstance(event, OperationComplete):
                if isinstance(event.op, ShuffleAndDeal):
                    self._dealt()
                    out.events.append(Dealt())
                    out.extend(self._after_move())
                elif self._pending is not None:
                    out.extend(self._next_op())
        return out

    def _dealt(self) -> None:
        self.view = Game.dealt_view(self.rules, self.seat, self.deck.my_hand())

    def _finish_move(self) -> Output:
        p = self._pending
        assert p is not None and self.view is not None
        self._pending = None
        m = p.move
        if m is None:  # the pick is known now: it is chance's discard
            m = move(Kind.DISCARD, *sorted(p.learned))
            reveal: list[int] = []
        else:
            # The view learns what the deck showed it, except cards the move names itself.
            named = {m.card, m.target}
            reveal = [c for c in dict.fromkeys(p.learned) if c in p.unseen and c not in named]
        try:
            self.view.apply(m, by=p.seat, reveal=reveal)
        except (IllegalMove, RevealError) as e:  # cannot happen when both sides are sound
            return self._faulted(Fault("internal_error", self.seat, f"{m}: {e}"))
        self.played.append((p.seat, m))
        out = Output(events=[MovePlayed(p.seat, m)])
        out.extend(self._after_move())
        return out

    def _after_move(self) -> Output:
        view = self.view
        assert view is not None
        if view.phase == OVER:
            self._auditing = True
            out = Output(events=[GameOver(view.outcome)])
            out.extend(self._run_deck(lambda: self.deck.begin(Audit())))
            return out
        if view.to_act == CHANCE:
            return self._carry_out(None, None)
        return Output()
