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

A concession may come at any moment, even during the deal, and may cross moves of the other
seat on the wire: it is signed at the point of the move chain its sender had reached, the
receiver finds that point, and moves after it (the receiver's own, which the conceder never
saw) are void (SPEC.md 4.2).  Everything else the peer could not have sent honestly is its
fault; the shell reports what the session cannot see itself (a wire fault, the peer's
``close``, a connection that did not come back) through ``peer_fault``, ``peer_closed`` and
``connection_lost``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cuttle_net.games.cuttle.engine import CHANCE, OVER, Game, IllegalMove, Outcome, RevealError
from cuttle_net.games.cuttle.motions import (
    Drawn,
    Exposed,
    HandOut,
    Motion,
    Revealed,
    Swapped,
    ToHand,
    ToTop,
)
from cuttle_net.games.cuttle.moves import CONCEDE, Kind, Move, MoveSyntaxError, move, parse_move
from cuttle_net.records.ending import Ending, closed_ending, fault_ending, unfinished_ending
from cuttle_net.records.header import GameHeader

from .deck import (
    Audit,
    AuditPassed,
    CardsLearned,
    CheatDetected,
    Deal,
    DeckPeer,
    Draw,
    ExposeHand,
    Op,
    OperationComplete,
    PlaceOnTop,
    RandomPick,
    RevealFromDeck,
    RevealFromHand,
    SwapHands,
    TakeToHand,
    UsageError,
)
from .deck.encoding import hash256
from .identity_key import identity_public_key

CUTTLE_DEAL = Deal((5, 6))  # seat 0 (moves first) gets 5 cards, seat 1 (the dealer) 6
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
    ``timeout``, one of the deck protocol's cheat kinds, a wire fault the shell caught
    (``wire_decrypt_failed``, ``wire_unexpected_message``, …: ``wire_`` and part 3's close
    code with ``_``), or
    ``internal_error`` (this side lost its way: a bug, blamed on no one else).  The culprit
    forfeits (SPEC 4.4).  ``evidence`` is what a third
    party needs to check it (the deck transcript, or the signed move).
    """

    kind: str
    culprit: int
    message: str
    evidence: Any = None


@dataclass(frozen=True)
class Closed:
    """The peer (``seat``) closed the connection mid-game with ``code`` and ``reason``: its
    own claim, which this side cannot check; leaving the game is a forfeit."""

    seat: int
    code: str
    reason: str


@dataclass
class Output:
    sends: list[SendMove | SendDeck] = field(default_factory=list)
    events: list[Dealt | MovePlayed | GameOver | Audited | Fault | Closed] = field(
        default_factory=list
    )

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
            ops.append(SwapHands(0, 1))
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
        keys = [signing_key.public_key(), peer_key]
        self.deck = DeckPeer(
            seat,
            session_id,
            signing_key,
            keys if seat == 0 else keys[::-1],
            rules.deck_size,
            rng=rng,
        )
        self.view: Game | None = None
        self.records: list[MoveRecord] = []  # the signed moves, both seats'
        # Where the record's deck transcript ends, if a concession voided moves of ours
        # whose deck operations had begun (SPEC 5.1): the deck log's length when the first
        # voided move was signed.
        self.deck_cut: int | None = None
        self.played: list[tuple[int | None, Move]] = []  # every applied move (chance: None)
        self.fault: Fault | None = None
        self.closed: Closed | None = None  # the peer left mid-game with a close
        self.conceded: int | None = None  # the seat whose concession ended the game
        self.audit: bytes | None = None
        # _heads[n]: the ``prev`` of move n (the digest of move n-1); _played_at[n]: how many
        # moves had been applied when move n was signed (to void moves a concession crossed)
        self._heads = [hash256("moves", session_id)]
        self._played_at: list[int] = []
        self._pending: _Pending | None = None
        self._auditing = False

    # ------------------------------------------------------------ what is going on

    @property
    def outcome(self) -> Outcome | None:
        """How the game ended by the rules or by a concession (a fault is ``fault``)."""
        if self.conceded is not None:
            return Outcome(1 - self.conceded, "concede")
        return self.view.outcome if self.view is not None else None

    @property
    def finished(self) -> bool:
        """Nothing more will happen: faulted, closed, conceded, or over and audited."""
        if self.fault is not None or self.closed is not None or self.conceded is not None:
            return True
        return self.outcome is not None and self.audit is not None

    def ending(self, note: str = "") -> Ending:
        """How the game ended, as the record's ``Ending`` tag says it (SPEC 4.4, 5.2.1);
        ``note`` says why a game that did not finish stopped, when the session cannot know."""
        if self.fault is not None:
            return fault_ending(self.fault.kind, self.fault.culprit, self.fault.message)
        if self.closed is not None:
            return closed_ending(self.closed.seat, self.closed.code, self.closed.reason)
        if self.outcome is not None and (self.audit is not None or self.conceded is not None):
            return Ending(self.outcome.reason)
        return unfinished_ending(note or "the game stopped")

    @property
    def result(self) -> str:
        """The record's ``Result``: the winning seat, ``draw``, or ``*``."""
        outcome = self.outcome
        return self.ending("-").result(outcome.winner if outcome is not None else None)

    @property
    def owes(self) -> int | None:
        """The seat that owes the next step (a decision or a deck-protocol message), or None
        once nothing more will happen.  Our own deck steps are always sent at once."""
        if self.finished:
            return None
        if self.deck.awaiting_peer():
            return self.peer
        if self.view is None or self._pending is not None or self._auditing:
            return self.peer  # cannot happen: an operation runs, and we sent our part
        return self.view.to_act if self.view.to_act in (0, 1) else self.peer

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
        return self._run_deck(lambda: self.deck.begin(CUTTLE_DEAL))

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
        """Give up: allowed at any moment until the game is over (the deal included)."""
        if self.finished or (self.view is not None and self.view.phase == OVER):
            raise RuntimeError("there is no game to concede")
        record = self._sign(CONCEDE)
        out = Output(sends=[SendMove(record.text, record.signature)])
        out.extend(self._concession(self.seat, len(self.records) - 1))
        return out

    def receive_move(self, text: str, signature: bytes) -> Output:
        """A move from the peer; a bad one ends the game as the peer's fault."""
        if self.fault is not None or self.closed is not None or self.audit is not None:
            return Output()  # the game is over; nothing the peer says changes it
        try:
            m = parse_move(text)
        except MoveSyntaxError as e:
            if self.finished:
                return Output()
            return self._faulted(Fault("malformed_move", self.peer, str(e), text))
        if m.kind == Kind.CONCEDE:
            return self._receive_concession(text, signature)
        if self.finished:
            return Output()  # a move that crossed our concession: void
        if self.busy or self.view.phase == OVER:  # type: ignore[union-attr]
            when = (
                "during the deal"
                if self.view is None
                else "after the game ended"
                if self.view.phase == OVER
                else "while cards were being shown"
            )
            self._verify(m, signature)  # kept as evidence if it is signed where it came
            return self._faulted(Fault("illegal_move", self.peer, f"{text} came {when}", text))
        assert self.view is not None
        if self.view.to_act != self.peer:
            try:
                self.view.check(m, by=self.peer)  # raises, naming whose decision it is
            except IllegalMove as e:
                self._verify(m, signature)
                return self._faulted(Fault("illegal_move", self.peer, f"{text}: {e}", text))
        if not self._verify(m, signature):
            evidence = {"text": text, "signature": signature}
            why = "the move's signature does not check"
            return self._faulted(Fault("bad_move_signature", self.peer, why, evidence))
        try:
            self.view.check(m, by=self.peer)
        except IllegalMove as e:
            return self._faulted(Fault("illegal_move", self.peer, f"{text}: {e}", text))
        return self._carry_out(self.peer, m)

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

    def connection_lost(self, why: str) -> Output:
        """The connection is gone for good (not resumed): whoever owed the next step forfeits
        it as a timeout, so walking away is never a free way out of a game."""
        owes = self.owes
        if owes is None:
            return Output()
        if owes == self.peer and self.deck.awaiting_peer():
            step = self.deck.timed_out().detail  # names the missing step; stops the deck
        elif self.view is not None and self.view.phase != OVER:
            step = "no move"
        else:
            step = "no step"
        return self._faulted(Fault("timeout", owes, f"{step}: {why}"))

    def peer_fault(self, kind: str, message: str) -> Output:
        """The shell caught the peer breaking the wire protocol (a bad frame, a replay, a
        message out of place): only the peer could have sent it, so it is the peer's fault."""
        if self.finished:
            return Output()
        return self._faulted(Fault(kind, self.peer, message))

    def broke_down(self, message: str) -> Output:
        """This side broke the protocol itself (a bug): its own fault, never the peer's."""
        if self.finished:
            return Output()
        return self._faulted(Fault("internal_error", self.seat, message))

    def peer_closed(self, code: str, reason: str) -> Output:
        """The peer closed the connection mid-game.  Its words are its claim, not our
        finding: if it says we were too slow and we did owe the next step, that is our
        timeout; otherwise it left the game, which is a forfeit (``Closed``)."""
        if self.finished:
            return Output()
        if code == "timeout" and self.owes == self.seat:
            said = f"seat {self.peer} closed the connection: {reason or 'timeout'}"
            return self._faulted(Fault("timeout", self.seat, said))
        self.closed = Closed(self.peer, code, reason)
        self._stop()
        return Output(events=[self.closed])

    # ------------------------------------------------------------------- internals

    def sign(self, data: bytes) -> bytes:
        """Sign ``data`` with this player's identity key (for the game record)."""
        return self._key.sign(data)

    def _stop(self) -> None:
        self._pending = None
        self._auditing = False

    def _faulted(self, fault: Fault) -> Output:
        if self._auditing and self.view is not None and self.view.outcome is not None:
            # A fault in the audit: the culprit forfeits even a game the rules gave it.
            fault = Fault(
                fault.kind,
                fault.culprit,
                f"{fault.message} (in the audit after {self.view.outcome.reason}: "
                "the cards never shown stay unproven)",
                fault.evidence,
            )
        self.fault = fault
        self._stop()
        return Output(events=[fault])

    def _move_digest(self, seat: int, m: Move, n: int | None = None) -> bytes:
        """SPEC 4.2: the digest a move signs, at point ``n`` of the move chain (default:
        the end).  A concession is not bound to the deck chain: it may cut an op short."""
        n = len(self.records) if n is None else n
        deck_head = NO_DECK_HEAD if m.kind == Kind.CONCEDE else self.deck.head
        return hash256("move", self.session_id, n, self._heads[n], deck_head, seat, str(m))

    def _sign(self, m: Move) -> MoveRecord:
        digest = self._move_digest(self.seat, m)
        record = MoveRecord(self.seat, str(m), self._key.sign(digest), len(self.deck.log))
        self._keep(record, digest)
        return record

    def _verify(self, m: Move, signature: bytes) -> bool:
        """Check the peer's signature of ``m`` at the end of the chain; keep the move."""
        digest = self._move_digest(self.peer, m)
        try:
            self._peer_key.verify(signature, digest)
        except InvalidSignature:
            return False
        self._keep(MoveRecord(self.peer, str(m), signature, len(self.deck.log)), digest)
        return True

    def _keep(self, record: MoveRecord, digest: bytes) -> None:
        self.records.append(record)
        self._played_at.append(len(self.played))
        self._heads.append(digest)

    def _void_from(self, n: int) -> None:
        """Drop moves ``n`` on: moves of ours that a concession crossed (SPEC 4.2).  We were
        idle when we made move ``n``, so every deck operation before it is complete, and
        everything in the deck log from there on belongs to the void moves."""
        if n < len(self.records):
            cut = self.records[n].deck_at
            self.deck_cut = cut if self.deck_cut is None else min(cut, self.deck_cut)
            del self.played[self._played_at[n] :]
            del self.records[n:], self._played_at[n:], self._heads[n + 1 :]

    def _receive_concession(self, text: str, signature: bytes) -> Output:
        """The peer's concession, signed at some point of the chain at or after its own
        last move: later moves are ours, which it had not seen when it conceded."""
        mine_since = len(self.records)
        while mine_since and self.records[mine_since - 1].seat == self.seat:
            mine_since -= 1
        over_at = None  # the move after which the game was over by the rules
        if self.conceded is None and self.view is not None and self.view.phase == OVER:
            over_at = len(self.records)
        for n in range(len(self.records), mine_since - 1, -1):
            if self.conceded == self.seat and n == len(self.records):
                continue  # our own concession is there: the peer had not seen it
            digest = self._move_digest(self.peer, CONCEDE, n)
            try:
                self._peer_key.verify(signature, digest)
            except InvalidSignature:
                continue
            if n == over_at:
                return Output()  # conceded after the game ended by the rules: void
            if self.conceded == self.seat and n == len(self.records) - 1 and self.seat == 0:
                return Output()  # both conceded at the same point: seat 0's concession holds
            self._void_from(n)
            at = len(self.deck.log) if self.deck_cut is None else self.deck_cut
            self._keep(MoveRecord(self.peer, text, signature, at), digest)
            return self._concession(self.peer, n)
        if self.finished:
            return Output()  # not a concession we can place: ours stands
        evidence = {"text": text, "signature": signature}
        why = "the concession's signature does not check at any point it could have been made"
        return self._faulted(Fault("bad_move_signature", self.peer, why, evidence))

    def _concession(self, seat: int, n: int) -> Output:
        """Seat ``seat`` conceded, as move ``n`` of the chain: the game is over."""
        self._stop()
        self.conceded = seat
        self.played.append((seat, CONCEDE))
        if self.view is not None:
            # As the engine concedes (waiting cards to the scrap), even over a crossed end.
            self.view._concede(1 - seat)
        out = Output(events=[MovePlayed(seat, CONCEDE)] if self.view is not None else [])
        out.events.append(GameOver(Outcome(1 - seat, "concede")))
        return out

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
                if isinstance(event.op, Deal):
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
