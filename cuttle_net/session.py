"""One seat's side of one game at a table of N players: a game module, the deck protocol
and signed moves.

Sans-I/O and deterministic given its randomness.  The caller (the network shell, or a test)
carries every ``Output.sends`` item to every other seat, in order, and hands what arrives to
``receive_move`` / ``receive_deck`` with the seat that sent it.  Nothing here knows about
sockets, frames or which game is played: the game module of the header's game
(``cuttle_net.games.interface``) answers every question of the rules.

A move goes like this, at every seat alike (SPEC 4.3):
1. the mover's session checks it on its view, signs it and sends it (``SendMove``); every
   other session checks the signature and the move's legality on *its* view — an illegal
   move or a bad signature is the mover's fault (``Fault``);
2. each asks the game module which deck operations the move implies (the same in every
   view) and runs them one after another;
3. with the cards those operations showed this seat, each applies the move to its view.
Once nobody is to act, the game's final operations run (L'Unisson shows every hand), the
outcome is known, and every seat runs the deck protocol's audit.  A concession ends the
game at once, without an audit (an operation in flight cannot be completed without the
conceder).

A concession may come at any moment, even during the deal, and may cross moves of other
seats on the wire: it is signed at the point of the move chain its sender had reached, the
receiver finds that point, and moves after it (which the conceder never saw) are void
(SPEC 4.2).  Everything else a seat could not have sent honestly is its fault; the shell
reports what the session cannot see itself (a wire fault, a seat's ``close``, a connection
that did not come back) through ``peer_fault``, ``peer_closed`` and ``connection_lost``.
Any fault, close or concession stops the game for every seat: the culprit loses and every
other seat shares the win (SPEC 4.4).
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
    Deal,
    DeckPeer,
    Op,
    OperationComplete,
    UsageError,
)
from .deck.encoding import hash256
from .games.interface import CHANCE, NOBODY, GameModule, Outcome, game_module
from .identity_key import identity_public_key, sign, verify
from .records.ending import (
    Ending,
    closed_ending,
    fault_ending,
    table_fault_kind,
    unfinished_ending,
)
from .records.header import GameHeader

NO_DECK_HEAD = bytes(32)  # a concession is not bound to the deck chain (it may cut an op short)
CONCEDE = "concede"  # the one move every game has; the session handles it (SPEC 4.2)
MAX_MOVE_TEXT = 256  # characters of a move's notation
TABLE_HOST = 0  # the seat of an N-player table's host, the one relay (SPEC 3.15)
_MOVE_KEYS = {"t", "text", "sig"}
_DECK_KEYS = {"t", "msg"}


# ---------------------------------------------------------------------- outputs


def _carried(body: dict[str, Any], text: Any) -> bool:
    """A move body's ``deck``, if any, is well formed: a list of 1 or more maps (present only
    when the move carries a message: one form for each move), never on a concession (a
    concession starts no operation, so its author owes nothing with it)."""
    if "deck" not in body:
        return True
    deck = body["deck"]
    return (
        type(deck) is list
        and len(deck) > 0
        and all(type(msg) is dict for msg in deck)
        and text != CONCEDE
    )


@dataclass(frozen=True)
class SendMove:
    """Send every other seat this signed move.  ``carries``: how many of the ``SendDeck``
    right after it are the steps its mover owes as the move's operations start, which go
    in the move's own log entry (SPEC 4.2, ``message_bodies``)."""

    text: str
    signature: bytes
    carries: int = 0


@dataclass(frozen=True)
class SendDeck:
    """Send every other seat this deck-protocol message (its wire form)."""

    data: dict[str, Any]


@dataclass(frozen=True)
class Dealt:
    """The deal is done: ``view`` exists and the game begins."""


@dataclass(frozen=True)
class MovePlayed:
    """A move was applied to this seat's view (``seat`` made it; ``None`` for chance)."""

    seat: int | None
    move: Any


@dataclass(frozen=True)
class GameOver:
    outcome: Outcome


@dataclass(frozen=True)
class Audited:
    """Every seat re-checked the whole deck and every claim, and signed this verdict."""

    digest: bytes


@dataclass(frozen=True)
class Fault:
    """The game stopped because seat ``culprit`` broke the protocol or the rules.

    ``kind`` is stable: ``illegal_move``, ``bad_move_signature``, ``malformed_move``,
    ``timeout``, one of the deck protocol's cheat kinds, a wire fault the shell caught
    (``wire_decrypt_failed``, ``wire_unexpected_message``, …: ``wire_`` and part 3's close
    code with ``_``), a fault an N-player table found (``table_bad_relay``,
    ``table_equivocation``, …: ``table_`` and the table's kind, never a deck kind's name),
    or ``internal_error`` (this side lost its way: a bug, blamed on no one else).  The
    culprit forfeits (SPEC 4.4).  ``evidence`` is what a third party needs to
    check it (the deck transcript, or the signed move).
    """

    kind: str
    culprit: int
    message: str
    evidence: Any = None


@dataclass(frozen=True)
class Closed:
    """Seat ``seat`` closed its connection mid-game with ``code`` and ``reason``: its own
    claim, which this side cannot check; leaving the game is a forfeit."""

    seat: int
    code: str
    reason: str


Event = Dealt | MovePlayed | GameOver | Audited | Fault | Closed


def message_bodies(sends: list[SendMove | SendDeck]) -> list[dict[str, Any]]:
    """One output's sends as the bodies of a table's game messages (``GameSession.receive``),
    one log entry each, in order.  A move and the deck messages it carries (``carries``: the
    steps its mover owed as the move's operations started, which ``play`` makes with it) are
    one body (SPEC 4.2): one entry, not one each."""
    bodies: list[dict[str, Any]] = []
    carried = 0  # deck messages still to go in the last move's entry
    for item in sends:
        if isinstance(item, SendMove):
            bodies.append({"t": "move", "text": item.text, "sig": item.signature})
            carried = item.carries
        elif carried:
            bodies[-1].setdefault("deck", []).append(item.data)
            carried -= 1
        else:
            bodies.append({"t": "deck", "msg": item.data})
    return bodies


@dataclass
class Output:
    sends: list[SendMove | SendDeck] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)

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


# ------------------------------------------------------------------------ session


@dataclass
class _Pending:
    """Deck operations under way: the deal, a move's (or chance's), or the game's final ones;
    what they showed this seat so far."""

    kind: str  # "deal", "move" or "final"
    seat: int | None
    move: Any  # None for chance's decision until its operations show it
    ops: list[Op]
    learned: list[CardsLearned] = field(default_factory=list)


class GameSession:
    """One seat's side of one game."""

    def __init__(
        self,
        seat: int,
        header: GameHeader,
        signing_key: Ed25519PrivateKey,
        *,
        rng: Callable[[int], bytes] = os.urandom,
    ) -> None:
        if not 0 <= seat < header.seats:
            raise ValueError(f"seat {seat} is not at this table of {header.seats}")
        if signing_key.public_key().public_bytes_raw() != header.keys[seat]:
            raise ValueError(f"the signing key is not seat {seat}'s key in the game header")
        self.seat = seat
        self.seats = header.seats
        self.header = header
        self.module: GameModule = game_module(header.name)
        self.rules = header.rules
        self.session_id = session_id = header.session_id
        self._key = signing_key
        self._keys = [identity_public_key(k) for k in header.keys]
        self.deck = DeckPeer(
            seat,
            session_id,
            signing_key,
            list(header.keys),
            self.rules.deck_size,
            faces=self.module.faces(self.rules),
            rng=rng,
        )
        self.view: Any = None  # the game module's state: this seat's view, once dealt
        self.records: list[MoveRecord] = []  # the signed moves, every seat's
        # Where the record's deck transcript ends, if a concession voided moves whose deck
        # operations had begun (SPEC 5.1): the deck log's length when the first voided move
        # was signed.
        self.deck_cut: int | None = None
        self.played: list[tuple[int | None, Any]] = []  # every applied move (chance: None)
        # What rebuilds this seat's views move by move (`views`): its hand and the face-up
        # cards of the deal, and for each of `played` the move as asked with what the deck
        # showed this seat (None: a concession).
        self._dealt: tuple[list[int], list[int]] | None = None
        self._shown: list[tuple[Any, list[CardsLearned]] | None] = []
        self.fault: Fault | None = None
        self.closed: Closed | None = None  # a seat left mid-game with a close
        self.conceded: int | None = None  # the seat whose concession ended the game
        self.audit: bytes | None = None
        self._over: Outcome | None = None  # the outcome by the rules, once known
        # _heads[n]: the ``prev`` of move n (the digest of move n-1); _played_at[n]: how many
        # moves had been applied when move n was signed (to void moves a concession crossed)
        self._heads = [hash256("moves", session_id)]
        self._played_at: list[int] = []
        self._conceded_at = -1  # the chain index of the concession that holds
        self._pending: _Pending | None = None
        self._auditing = False
        # Deck messages this seat made so far, and how many when the last move's operations
        # were complete here: what a move of ours carries in its entry (`play`).
        self._sent = 0
        self._move_done = 0
        try:  # a concession, as the game's own move if its notation has one (Cuttle's does)
            self._concede_move: Any = self.module.parse_move(CONCEDE)
        except ValueError:
            self._concede_move = CONCEDE

    def views(self) -> list[tuple[int | None, Any, Any, Any]]:
        """Each of `played` as ``(seat, move, before, after)``: this seat's views around
        it, replayed from the deal on what the deck showed this seat then (a seat rebuilt
        from its journal saw no move played: its log is written from these)."""
        if self._dealt is None:
            return []
        module, view, out = self.module, self._dealt_view(), []
        for (seat, m), shown in zip(self.played, self._shown, strict=True):
            before = module.copy(view)
            if shown is None:
                assert seat is not None  # a concession is a seat's
                module.concede(view, seat)
            else:
                module.apply(view, shown[0], seat, shown[1])
            out.append((seat, m, before, module.copy(view)))
        return out

    def _dealt_view(self) -> Any:
        assert self._dealt is not None
        hand, face_up = self._dealt
        return self.module.new_view(
            self.rules, self.seats, self.header.dealer, self.seat, list(hand), face_up
        )

    # ------------------------------------------------------------ what is going on

    @property
    def outcome(self) -> Outcome | None:
        """How the game ended by the rules or by a concession (a fault is ``fault``)."""
        if self.conceded is not None:
            others = tuple(s for s in range(self.seats) if s != self.conceded)
            return Outcome(others, "concede")
        return self._over

    @property
    def finished(self) -> bool:
        """Nothing more will happen: faulted, closed, conceded, or over and audited."""
        if self.fault is not None or self.closed is not None or self.conceded is not None:
            return True
        return self._over is not None and self.audit is not None

    def ending(self, note: str = "") -> Ending:
        """How the game ended, as the record's ``Ending`` tag says it (SPEC 4.4, 5.2.1);
        ``note`` says why a game that did not finish stopped, when the session cannot know."""
        if self.fault is not None:
            return fault_ending(self.fault.kind, self.fault.culprit, self.fault.message)
        if self.closed is not None:
            return closed_ending(self.closed.seat, self.closed.code, self.closed.reason)
        if self.conceded is not None:
            return Ending("concede", self.conceded)
        if self._over is not None and self.audit is not None:
            return Ending(self._over.reason)
        return unfinished_ending(note or "the game stopped")

    @property
    def result(self) -> str:
        """The record's ``Result``: the winning seats, ``draw``, or ``*``."""
        outcome = self.outcome
        return self.ending("-").result(outcome.winners if outcome else None, self.seats)

    @property
    def busy(self) -> bool:
        """Deck operations are running: no move can be made now."""
        return self._pending is not None or self._auditing or self.view is None

    @property
    def to_act(self) -> int:
        """The seat whose decision the game waits for (``NOBODY`` while none is due)."""
        if self.finished or self.busy:
            return NOBODY
        return self.module.to_act(self.view)

    @property
    def owes(self) -> int | None:
        """The seat that owes the next step (a decision or a deck-protocol message), or None
        once nothing more will happen.  Our own deck steps are always sent at once."""
        if self.finished:
            return None
        sender = self.deck.next_sender()
        if sender is not None:
            return sender
        actor = self.to_act
        return actor if actor >= 0 else None

    @property
    def owing(self) -> list[int]:
        """Every seat that owes a step now: those that owe a message of the deck round under
        way (SPEC 2.7: they send at once, any may be the one that stays silent), else the
        one to decide."""
        if self.finished:
            return []
        owing = self.deck.owing()
        if owing:
            return owing
        return [] if self.owes is None else [self.owes]

    @property
    def waiting_for(self) -> tuple[int, str] | None:
        """What another seat owes us now: ``(seat, "move")`` (a decision) or
        ``(seat, "deck")`` (a deck-protocol step)."""
        owes = self.owes
        if owes is None or owes == self.seat:
            return None
        return owes, "deck" if self.deck.next_sender() is not None else "move"

    @property
    def my_turn(self) -> bool:
        """This seat must decide, and may call ``play``."""
        return self.to_act == self.seat

    # --------------------------------------------------------------------- inputs

    def start(self) -> Output:
        """Every seat: shuffle and deal."""
        deal: Deal = self.module.deal(self.rules, self.seats, self.header.dealer)
        self._pending = _Pending("deal", None, None, [deal])
        return self._next_op()

    def play(self, m: Any) -> Output:
        """This seat's move (text or the game's move).  Raises ``ValueError`` naming the
        rule (an illegal move, or bad notation) or ``RuntimeError`` (not our decision)."""
        text = m if isinstance(m, str) else self.module.move_text(m)
        if text == CONCEDE:
            return self.concede()
        if not self.my_turn:
            raise RuntimeError("it is not this player's decision now")
        m = self.module.parse_move(text) if isinstance(m, str) else m
        self.module.check(self.view, m, self.seat)
        text = self.module.move_text(m)
        record = self._sign(text)
        sent = self._sent
        carry = self._carry_out(self.seat, m)
        # The deck messages made until the move's own operations were done (or all of them,
        # if they wait for another seat) go with it; whatever came after (chance's
        # operations, the final ones, the audit) goes in entries of their own.
        owed = max(0, (self._sent if self._pending_move else self._move_done) - sent)
        out = Output(sends=[SendMove(record.text, record.signature, owed)])
        out.extend(carry)
        return out

    def concede(self) -> Output:
        """Give up: allowed at any moment until the game is over (the deal included)."""
        if self.finished or self._over is not None:
            raise RuntimeError("there is no game to concede")
        record = self._sign(CONCEDE)
        out = Output(sends=[SendMove(record.text, record.signature)])
        out.extend(self._concession(self.seat, len(self.records) - 1))
        return out

    def receive_move(self, seat: int, text: str, signature: bytes) -> Output:
        """A move from ``seat``; a bad one ends the game as that seat's fault."""
        self._check_author(seat)
        if self.fault is not None or self.closed is not None or self.audit is not None:
            return Output()  # the game is over; nothing anyone says changes it
        if text == CONCEDE:
            return self._receive_concession(seat, text, signature)
        if self.finished:
            return Output()  # a move that crossed a concession: void
        try:
            m = self.module.parse_move(text)
        except ValueError as e:
            return self._faulted(Fault("malformed_move", seat, str(e), text))
        text = self.module.move_text(m)
        if self.busy or self._over is not None:
            when = (
                "during the deal"
                if self.view is None
                else "after the game ended"
                if self._over is not None or self.module.to_act(self.view) == NOBODY
                else "while cards were being shown"
            )
            self._verify(seat, text, signature)  # kept as evidence if signed where it came
            return self._faulted(Fault("illegal_move", seat, f"{text} came {when}", text))
        actor = self.module.to_act(self.view)
        if actor != seat:
            self._verify(seat, text, signature)
            who = "chance" if actor == CHANCE else "nobody" if actor == NOBODY else f"seat {actor}"
            why = f"{text}: it is not seat {seat}'s decision: {who} decides now"
            return self._faulted(Fault("illegal_move", seat, why, text))
        if not self._verify(seat, text, signature):
            evidence = {"text": text, "signature": signature}
            why = "the move's signature does not check"
            return self._faulted(Fault("bad_move_signature", seat, why, evidence))
        try:
            self.module.check(self.view, m, seat)
        except ValueError as e:
            return self._faulted(Fault("illegal_move", seat, f"{text}: {e}", text))
        return self._carry_out(seat, m)

    def receive_deck(self, seat: int, data: dict[str, Any]) -> Output:
        """A deck-protocol message from ``seat``, the author the channel authenticated (the
        deck checks it signed it, and charges it with any fault of the message)."""
        self._check_author(seat)
        if self.finished:
            return Output()
        if self.deck.op is None and not self.deck.signed_by(data, seat):
            # Nothing is due and the message is not its sender's: only the channel can say
            # who sent it, so it is a wire fault, kept out of the transcript (SPEC 2.7).
            why = f"a deck message while none is due, not signed by seat {seat}"
            return self.peer_fault(seat, "wire_unexpected_message", why)
        return self._run_deck(lambda: self.deck.receive(data, author=seat))

    def receive(self, seat: int, body: Any) -> Output:
        """A game message from ``seat`` as the N-player table relays it (``message_bodies``);
        anything else in its place is that seat's fault.  A move's ``deck`` messages are
        taken after the move, one by one, as if each were an entry of its own."""
        self._check_author(seat)
        if isinstance(body, dict) and body.get("t") == "move":
            text, sig, deck = body.get("text"), body.get("sig"), body.get("deck", [])
            if (
                set(body) - {"deck"} == _MOVE_KEYS
                and type(text) is str
                and len(text) <= MAX_MOVE_TEXT
                and type(sig) is bytes
                and _carried(body, text)
            ):
                out = self.receive_move(seat, text, sig)
                for msg in deck:
                    if self.finished:
                        break  # the move ended the game: what it carried is moot
                    out.extend(self.receive_deck(seat, msg))
                return out
        elif isinstance(body, dict) and set(body) == _DECK_KEYS and body["t"] == "deck":
            msg = body["msg"]
            if isinstance(msg, dict):
                return self.receive_deck(seat, msg)
        why = (
            "a game message is {'t': 'move', 'text', 'sig'} (with 'deck': 1 or more messages"
            " but for a concession) or {'t': 'deck', 'msg'}"
        )
        return self.peer_fault(seat, "wire_malformed_message", why)

    def table_verdict(
        self,
        culprit: int,
        kind: str,
        detail: str,
        *,
        reporter: int | None = None,
        proven: bool = False,
        overdue: bool = True,
        host: int = TABLE_HOST,
    ) -> Output:
        """The N-player table stopped the game naming ``culprit`` for ``kind``: on this
        seat's own finding (``reporter`` None: the log the host relayed, our link to it, or,
        at the host, a seat it saw go or stall), or on ``reporter``'s entry (a ``fault``, or
        a ``leave``: then ``reporter`` is ``culprit``).  A game already stopped keeps the
        way it stopped.

        The verdict rule (SPEC 3.15, 4.4), the same at every seat, the host included:
        another seat's word convicts ``culprit`` only on evidence this seat checks itself —
        a proof the table checked (``proven``: two conflicting host signatures), or a
        ``timeout`` of the step ``culprit`` owes here, past its deadline on our clock
        (``overdue``).  Whatever a seat's own signed message breaks (a bad proof, a bad
        signature in its entry, an illegal move), this session found first, from the same
        log.  A seat's ``leave``, and the host's word that a seat's connection closed or
        did not come back (only the host sees connections), make it a seat that **left**.
        Anything else is ``reporter``'s claim: it costs ``culprit`` nothing, and ends the
        game as a two-player claim does (``peer_closed``): the claimant stopped playing.
        ``host``: the host's seat in this game (the table's seat 0, unless the game's
        seats are the table's rotated: SPEC 4.1)."""
        if not 0 <= culprit < self.seats:
            raise ValueError(f"seat {culprit!r} is not at this table")
        if reporter is not None:
            self._check_author(reporter)
        if self.finished:
            return Output()
        if kind == "left" and reporter in (None, culprit, host):
            return self._left(culprit, "left", detail)
        owed = kind == "timeout" and culprit in self.owing and overdue
        if reporter is None or proven or owed:
            return self._faulted(Fault(table_fault_kind(kind), culprit, detail))
        code = "internal-error" if (kind, culprit) == ("internal_error", reporter) else "fault"
        return self._left(reporter, code, f"{kind} by seat {culprit}: {detail}")

    def timed_out(self) -> Output:
        """The shell's deadline for the seat we wait for passed: that seat forfeits."""
        owed = self.waiting_for
        if owed is None:
            raise RuntimeError("nothing is due from another seat")
        seat, what = owed
        if what == "deck":
            cheat = self.deck.timed_out()
            return self._faulted(Fault("timeout", cheat.culprit, cheat.detail, cheat.evidence))
        return self._faulted(Fault("timeout", seat, "no move in time"))

    def connection_lost(self, why: str) -> Output:
        """The connection is gone for good (not resumed): whoever owed the next step forfeits
        it as a timeout, so walking away is never a free way out of a game."""
        owes = self.owes
        if owes is None:
            return Output()
        if owes != self.seat and self.deck.next_sender() is not None:
            step = self.deck.timed_out().detail  # names the missing step; stops the deck
        elif self.view is not None and self.module.to_act(self.view) != NOBODY:
            step = "no move"
        else:
            step = "no step"
        return self._faulted(Fault("timeout", owes, f"{step}: {why}"))

    def peer_fault(self, seat: int, kind: str, message: str) -> Output:
        """The shell caught ``seat`` breaking the wire protocol (a bad frame, a replay, a
        message out of place): only that seat could have sent it, so it is its fault."""
        self._check_author(seat)
        if self.finished:
            return Output()
        return self._faulted(Fault(kind, seat, message))

    def broke_down(self, message: str) -> Output:
        """This side broke the protocol itself (a bug): its own fault, never another's."""
        if self.finished:
            return Output()
        return self._faulted(Fault("internal_error", self.seat, message))

    def peer_closed(self, seat: int, code: str, reason: str) -> Output:
        """``seat`` closed its connection mid-game.  Its words are its claim, not our
        finding: if it says we were too slow and we did owe the next step, that is our
        timeout; otherwise it left the game, which is a forfeit (``Closed``)."""
        self._check_author(seat)
        if self.finished:
            return Output()
        if code == "timeout" and self.owes == self.seat:
            said = f"seat {seat} closed the connection: {reason or 'timeout'}"
            return self._faulted(Fault("timeout", self.seat, said))
        return self._left(seat, code, reason)

    # ------------------------------------------------------------------- internals

    def _left(self, seat: int, code: str, reason: str) -> Output:
        """``seat`` stopped playing, with ``code`` and its words: a forfeit (``Closed``)."""
        self.closed = Closed(seat, code, reason)
        self._stop()
        return Output(events=[self.closed])

    def sign(self, data: bytes) -> bytes:
        """Sign ``data`` with this player's identity key (for the game record)."""
        return sign(self._key, data)

    def _check_author(self, seat: int) -> None:
        if type(seat) is not int or not 0 <= seat < self.seats or seat == self.seat:
            raise ValueError(f"seat {seat!r} is not another seat at this table")

    def _stop(self) -> None:
        self._pending = None
        self._auditing = False

    def _faulted(self, fault: Fault) -> Output:
        if self._auditing and self._over is not None:
            # A fault in the audit: the culprit forfeits even a game the rules gave it.
            fault = Fault(
                fault.kind,
                fault.culprit,
                f"{fault.message} (in the audit after {self._over.reason}: "
                "the cards never shown stay unproven)",
                fault.evidence,
            )
        self.fault = fault
        self._stop()
        return Output(events=[fault])

    def _move_digest(self, seat: int, text: str, n: int | None = None) -> bytes:
        """SPEC 4.2: the digest a move signs, at point ``n`` of the move chain (default:
        the end).  A concession is not bound to the deck chain: it may cut an op short."""
        n = len(self.records) if n is None else n
        deck_head = NO_DECK_HEAD if text == CONCEDE else self.deck.head
        return hash256("move", self.session_id, n, self._heads[n], deck_head, seat, text)

    def _sign(self, text: str) -> MoveRecord:
        digest = self._move_digest(self.seat, text)
        record = MoveRecord(self.seat, text, sign(self._key, digest), len(self.deck.log))
        self._keep(record, digest)
        return record

    def _verify(self, seat: int, text: str, signature: bytes) -> bool:
        """Check ``seat``'s signature of ``text`` at the end of the chain; keep the move."""
        digest = self._move_digest(seat, text)
        try:
            verify(self._keys[seat], signature, digest)
        except InvalidSignature:
            return False
        self._keep(MoveRecord(seat, text, signature, len(self.deck.log)), digest)
        return True

    def _keep(self, record: MoveRecord, digest: bytes) -> None:
        self.records.append(record)
        self._played_at.append(len(self.played))
        self._heads.append(digest)

    def _void_from(self, n: int) -> None:
        """Drop moves ``n`` on: moves a concession crossed (SPEC 4.2).  Every seat was idle
        when move ``n`` was made, so every deck operation before it is complete, and
        everything in the deck log from there on belongs to the void moves."""
        if n < len(self.records):
            cut = self.records[n].deck_at
            self.deck_cut = cut if self.deck_cut is None else min(cut, self.deck_cut)
            del self.played[self._played_at[n] :], self._shown[self._played_at[n] :]
            del self.records[n:], self._played_at[n:], self._heads[n + 1 :]

    def _receive_concession(self, seat: int, text: str, signature: bytes) -> Output:
        """``seat``'s concession, signed at some point of the chain at or after its own last
        move: later moves are ones it had not seen when it conceded."""
        since = len(self.records)
        while since and self.records[since - 1].seat != seat:
            since -= 1
        over_at = None  # the point after which the game was over by the rules
        if self.conceded is None and self._ended_by_rules():
            over_at = len(self.records)
        for n in range(len(self.records), since - 1, -1):
            if self.conceded is not None and n > self._conceded_at:
                continue  # the conceder had not seen the concession that holds
            digest = self._move_digest(seat, CONCEDE, n)
            try:
                verify(self._keys[seat], signature, digest)
            except InvalidSignature:
                continue
            if n == over_at:
                return Output()  # conceded after the game ended by the rules: void
            if n == self._conceded_at and self.conceded is not None and self.conceded < seat:
                return Output()  # two at the same point: the lower seat's holds
            self._void_from(n)
            at = len(self.deck.log) if self.deck_cut is None else self.deck_cut
            self._keep(MoveRecord(seat, text, signature, at), digest)
            return self._concession(seat, n)
        if self.finished:
            return Output()  # not a concession we can place: the one that holds stands
        evidence = {"text": text, "signature": signature}
        why = "the concession's signature does not check at any point it could have been made"
        return self._faulted(Fault("bad_move_signature", seat, why, evidence))

    @property
    def _pending_move(self) -> bool:
        """A move's (not chance's) operations are under way."""
        p = self._pending
        return p is not None and p.kind == "move" and p.seat is not None

    def _ended_by_rules(self) -> bool:
        return self.view is not None and self.module.to_act(self.view) == NOBODY

    def _concession(self, seat: int, n: int) -> Output:
        """Seat ``seat`` conceded, as move ``n`` of the chain: the game is over."""
        self._stop()
        self.conceded, self._conceded_at = seat, n
        self.played.append((seat, self._concede_move))
        self._shown.append(None)
        out = Output()
        if self.view is not None:
            self.module.concede(self.view, seat)
            out.events.append(MovePlayed(seat, self._concede_move))
        assert self.outcome is not None
        out.events.append(GameOver(self.outcome))
        return out

    def _carry_out(self, seat: int | None, m: Any) -> Output:
        """Start the deck operations of a move (or of chance's decision: ``m`` None)."""
        module = self.module
        ops = module.chance_ops(self.view) if m is None else module.deck_ops(self.view, m)
        self._pending = _Pending("move", seat, m, list(ops))
        return self._next_op()

    def _next_op(self) -> Output:
        p = self._pending
        assert p is not None
        if p.ops:
            op = p.ops.pop(0)
            return self._run_deck(lambda: self.deck.begin(op))
        return self._finish_pending()

    def _run_deck(self, call: Callable[[], Any]) -> Output:
        try:
            deck_out = call()
        except CheatDetected as cheat:
            return self._faulted(Fault(cheat.kind, cheat.culprit, cheat.detail, cheat.evidence))
        except UsageError as e:  # our own side lost step: stop, saying so, rather than crash
            return self._faulted(Fault("internal_error", self.seat, str(e)))
        out = Output(sends=[SendDeck(d) for d in deck_out.messages])
        self._sent += len(deck_out.messages)
        for event in deck_out.events:
            if isinstance(event, CardsLearned) and self._pending is not None:
                self._pending.learned.append(event)
            elif isinstance(event, AuditPassed):
                self.audit = event.digest
                self._auditing = False
                out.events.append(Audited(event.digest))
            elif isinstance(event, OperationComplete) and self._pending is not None:
                out.extend(self._next_op())
        return out

    def _finish_pending(self) -> Output:
        p = self._pending
        assert p is not None
        self._pending = None
        module = self.module
        try:
            if p.kind == "deal":
                face_up = [c for e in p.learned if e.seat is None for c in e.cards]
                self._dealt = (list(self.deck.my_hand()), face_up)
                self.view = self._dealt_view()
                out = Output(events=[Dealt()])
            elif p.kind == "final":
                module.show_final(self.view, p.learned)
                return self._game_over()
            else:
                if p.seat is not None:
                    self._move_done = self._sent
                m = module.apply(self.view, p.move, p.seat, p.learned)
                self.played.append((p.seat, m))
                self._shown.append((p.move, list(p.learned)))
                out = Output(events=[MovePlayed(p.seat, m)])
        except ValueError as e:  # cannot happen when every side is sound
            return self._faulted(Fault("internal_error", self.seat, f"{p.kind}: {e}"))
        out.extend(self._after_move())
        return out

    def _after_move(self) -> Output:
        actor = self.module.to_act(self.view)
        if actor == NOBODY:
            ops = self.module.final_ops(self.view)
            if ops:
                self._pending = _Pending("final", None, None, list(ops))
                return self._next_op()
            return self._game_over()
        if actor == CHANCE:
            return self._carry_out(None, None)
        return Output()

    def _game_over(self) -> Output:
        outcome = self.module.outcome(self.view)
        if outcome is None:
            return self._faulted(Fault("internal_error", self.seat, "over, without an outcome"))
        self._over = outcome
        self._auditing = True
        out = Output(events=[GameOver(outcome)])
        out.extend(self._run_deck(lambda: self.deck.begin(Audit())))
        return out


__all__ = [
    "CONCEDE",
    "MAX_MOVE_TEXT",
    "NO_DECK_HEAD",
    "Audited",
    "Closed",
    "Dealt",
    "Event",
    "Fault",
    "GameOver",
    "GameSession",
    "MovePlayed",
    "MoveRecord",
    "Output",
    "SendDeck",
    "SendMove",
    "message_bodies",
]
