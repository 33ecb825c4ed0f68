"""Check a game record without trusting either player (SPEC.md §5.3).

What is checked, in order:
1. the header: every tag well formed, both identity keys usable, and the game's session id
   the hash of the game header (connection, game number, rules, both keys), so that every
   signature of either player in the transcript covers the header;
2. the record's own signature, by the seat that saved it;
3. the transcript, entry by entry, as a third party: the deck protocol (``DeckState``:
   signatures, hash chain, shuffle arguments, shares, claims, audit), every move's signature
   and chain, and the game replayed on public information (a spectator's view: both hands
   hidden but what was shown), so that each move is legal as far as public information
   goes and the deck operations are exactly those the moves required;
4. the moves section against that replay, and the ending against where the transcript
   stops: a result by the rules is recomputed, a concession is the signed move, a fault
   either has its evidence in the transcript or is the signer's claim, checked against
   who owed the next step;
5. after an audit, the whole game with full information: each move legal, the cards each
   seat saw, and the result.
A game that was not audited is checked as far as 1–4 go, and the report says what stays
unproven.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from enum import IntEnum

from cryptography.exceptions import InvalidSignature

from cuttle_net.deck import (
    Audit,
    AuditPassed,
    CardsLearned,
    CheatDetected,
    Deal,
    DeckState,
    Op,
    OperationComplete,
    RandomPick,
    UsageError,
    WireError,
    op_from_wire,
)
from cuttle_net.deck.audit import deck_order
from cuttle_net.deck.encoding import hash256
from cuttle_net.deck.errors import CHEAT_KINDS
from cuttle_net.games.cuttle.cards import card_text, parse_card
from cuttle_net.games.cuttle.engine import CHANCE, OVER, Game, IllegalMove, RevealError
from cuttle_net.games.cuttle.motions import Disclosure
from cuttle_net.games.cuttle.moves import CONCEDE, Kind, Move, MoveSyntaxError, move, parse_move
from cuttle_net.games.cuttle.rules import Rules
from cuttle_net.identity_key import BadIdentityKey, identity_public_key
from cuttle_net.session import CUTTLE_DEAL, NO_DECK_HEAD, deck_plan

from .ending import Ending, EndingError, parse_ending
from .header import GameHeader
from .record import GameRecord, RecordError, is_practice, parse_record, record_digest

_DATE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
_HEX = re.compile(r"[0-9a-f]*")
# Fault kinds the transcript itself proves, when the culprit's signature is on the message.
_UNSIGNED_CHEATS = {"bad_signature"}  # a message that fails its signature is anyone's


class Verdict(IntEnum):
    VALID = 0  # every check holds
    INVALID = 1  # a check failed: the record was changed, or a player cheated
    UNREADABLE = 2  # not a record
    UNAUDITED = 3  # everything checkable holds, but hidden cards were never revealed


@dataclass
class Report:
    verdict: Verdict = Verdict.VALID
    lines: list[str] = field(default_factory=list)  # what was checked, for people
    problem: str = ""  # the first failed check, or what an unaudited game leaves unproven
    order: list[int] | None = None  # the deal, top card first, once the audit revealed it
    rules: Rules | None = None
    moves: list[tuple[int | None, str]] = field(default_factory=list)  # the replayed moves
    # What a third party sees: the table after the deal and after each move (both hands
    # hidden but what was shown), for replaying a game that was never audited.
    public: list[Game] = field(default_factory=list)
    practice: bool = False  # a practice game (SPEC 5.5): dealt and played on one machine

    def fail(self, problem: str) -> Report:
        self.verdict, self.problem = Verdict.INVALID, problem
        return self


class Invalid(Exception):
    """A check failed; the message says which."""


@dataclass(frozen=True)
class Step:
    """One move of a fully known game: what it required of the deck, and who saw what."""

    seat: int | None
    text: str
    ops: list[Op]
    seen: Disclosure


def replay(
    rules: Rules, order: list[int], moves: list[tuple[int | None, str]]
) -> tuple[Game, list[Step]]:
    """Replay ``moves`` on the deal ``order``; raise ``IllegalMove`` at the first bad one."""
    g = Game.deal(rules, order=order)
    steps = []
    for seat, text in moves:
        m = parse_move(text)
        if seat is None:
            if g.to_act != CHANCE:
                raise IllegalMove(f"{text}: chance decides nothing here")
            victim = 1 - g.player
            ops: list[Op] = [RandomPick(victim, min(2, g.hand_size(victim)))]
        else:
            g.check(m, by=seat)
            ops = deck_plan(g.motions(m))
        steps.append(Step(seat, text, ops, g.play(m, by=seat)))
    return g, steps


# ----------------------------------------------------------------- the header


def read_header(tags: dict[str, str]) -> GameHeader:
    """The game header the tags state; raise ``Invalid`` saying which tag is wrong."""
    for s in (0, 1):
        name = tags[f"Seat{s}"]
        if not 1 <= len(name) <= 32 or name != " ".join(name.split()) or _hidden(name):
            raise Invalid(f"Seat{s}: a name is 1 to 32 printable characters")
    if not _DATE.fullmatch(tags["Date"]):
        raise Invalid("Date: expected YYYY-MM-DDThh:mm:ssZ")
    try:
        rules = Rules.parse(tags["Rules"])
    except ValueError as e:
        raise Invalid(f"Rules: {e}") from None
    if rules.name != tags["Rules"]:
        raise Invalid(f"Rules: written {rules.name!r} (variants sorted)")
    keys = []
    for s in (0, 1):
        try:
            raw = _hex(tags, f"Seat{s}Key", 32)
            identity_public_key(raw)
        except BadIdentityKey as e:
            raise Invalid(f"Seat{s}Key: {e}") from None
        keys.append(raw)
    if tags["Dealer"] != "1":
        raise Invalid("Dealer: seat 1 deals every game (SPEC part 4)")
    game = tags["Game"]
    if not re.fullmatch(r"[1-9][0-9]{0,8}", game):
        raise Invalid("Game: the game's number on its connection, from 1")
    connection = _hex(tags, "Connection", None)
    try:
        header = GameHeader(connection, int(game), rules, (keys[0], keys[1]))
    except ValueError as e:
        raise Invalid(f"the game header: {e}") from None
    if _hex(tags, "Session", 32) != header.session_id:
        raise Invalid(
            "Session: not the hash of the game header (connection, game, rules, keys): "
            "a header tag was changed"
        )
    if tags["Result"] not in ("0", "1", "draw", "*"):
        raise Invalid("Result: 0, 1, draw or *")
    if tags["Signer"] not in ("0", "1"):
        raise Invalid(f"Signer: the seat that saved the record, 0 or 1, not {tags['Signer']!r}")
    if tags["Audit"] != "none":
        _hex(tags, "Audit", 32)
    _hex(tags, "Signature", 64)
    return header


def _hex(tags: dict[str, str], name: str, size: int | None) -> bytes:
    value = tags[name]
    if not _HEX.fullmatch(value) or len(value) % 2:
        raise Invalid(f"{name}: expected lowercase hex")
    raw = bytes.fromhex(value)
    if size is not None and len(raw) != size:
        raise Invalid(f"{name}: expected {size} bytes")
    return raw


def _hidden(text: str) -> bool:
    return any(unicodedata.category(c)[0] in "CZ" and c != " " for c in text)


# ---------------------------------------------------- the game on public information


@dataclass
class _Pending:
    """A move (or chance's pick) whose deck operations are running."""

    seat: int | None
    move: Move | None
    ops: list[Op]
    unseen: set[int]
    learned: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class Stop:
    """Where the transcript stops.

    ``kind``: ``audited``; ``conceded`` (``seat`` conceded); ``cheat`` (the deck protocol
    caught ``seat``: ``fault`` its kind, ``signed`` whether the culprit's signature is on
    the evidence); ``illegal`` (``seat``'s signed move breaks the rules on public
    information); ``owed`` (``seat`` owed the next step: ``what`` says which).
    """

    kind: str
    seat: int | None = None
    fault: str = ""
    what: str = ""
    signed: bool = True


class PublicGame:
    """The transcript walked as a third party sees it: the deck observer, the move chain
    and a spectator's view of the game."""

    def __init__(self, header: GameHeader) -> None:
        self.sid = header.session_id
        self.rules = header.rules
        self.keys = [identity_public_key(k) for k in header.keys]
        self.deck = DeckState(self.sid, self.keys, self.rules.deck_size)
        self.view: Game | None = None
        self.head = hash256("moves", self.sid)
        self.signed = 0  # moves signed
        self.signers: set[int] = set()  # seats whose signature the transcript carries
        self.pending: _Pending | None = None
        self.played: list[tuple[int | None, str]] = []
        self.states: list[Game] = []  # the view after the deal, then after each move
        self.stop: Stop | None = None  # set once nothing may follow

    # --------------------------------------------------------------- entries

    def take(self, kind: str, data, seat: int = -1, signature: bytes = b"", text: str = ""):
        if self.stop is not None:
            if self.stop.kind in ("cheat", "illegal"):  # the game stopped there: say why
                raise Invalid(f"{_describe(self.stop)}; yet the transcript goes on")
            raise Invalid(f"nothing may follow: the game stopped ({_describe(self.stop)})")
        if kind == "op":
            self._op(data)
        elif kind == "msg":
            self._msg(data)
        else:
            self._move(seat, signature, text)

    def _op(self, data) -> None:
        try:
            op = op_from_wire(data)
        except WireError as e:
            raise Invalid(f"not an operation: {e}") from None
        want = self.next_op()
        if want is None or op.to_wire() != want.to_wire():
            raise Invalid(
                f"the operation {op.to_wire()} is not what the game requires here "
                f"({'nothing' if want is None else want.to_wire()})"
            )
        if self.pending is not None and self.pending.ops:
            self.pending.ops.pop(0)
        self._deck(lambda: self.deck.begin(op))

    def _msg(self, data) -> None:
        if self.deck.op is None:
            raise Invalid("a deck message while no operation runs")
        sender = self.deck.plan[self.deck.step_i].sender if self.deck.awaiting_peer() else None
        self._deck(lambda: self.deck.receive(data))
        if sender is not None:
            self.signers.add(sender)

    def _deck(self, call) -> None:
        try:
            out = call()
        except CheatDetected as cheat:
            last = self.deck.log[-1] if self.deck.log else None
            signed = cheat.kind not in _UNSIGNED_CHEATS and last is not None and last[0] == "msg"
            self.stop = Stop("cheat", cheat.culprit, cheat.kind, cheat.detail, signed)
            return
        except (UsageError, WireError) as e:
            raise Invalid(str(e)) from None
        for event in out.events:
            if isinstance(event, CardsLearned) and self.pending is not None:
                self.pending.learned.extend(event.cards)
            elif isinstance(event, AuditPassed):
                self.stop = Stop("audited")
            elif isinstance(event, OperationComplete):
                if isinstance(event.op, Deal):
                    self.view = Game.spectator_view(self.rules)
                    self.states.append(self.view.copy())
                    self._after_move()
                elif self.pending is not None and not self.pending.ops:
                    self._finish_move()

    def _move(self, seat: int, signature: bytes, text: str) -> None:
        try:
            m = parse_move(text)
        except MoveSyntaxError as e:
            raise Invalid(f"move {text!r} by seat {seat}: {e}") from None
        conceding = m.kind == Kind.CONCEDE
        deck_head = NO_DECK_HEAD if conceding else self.deck.head
        digest = hash256("move", self.sid, self.signed, self.head, deck_head, seat, text)
        try:
            self.keys[seat].verify(signature, digest)
        except InvalidSignature:
            raise Invalid(
                f"the signature of move {text!r} by seat {seat} does not check "
                "(the move, its seat or its place was changed)"
            ) from None
        self.head, self.signed = digest, self.signed + 1
        self.signers.add(seat)
        if conceding:
            if self.view is not None and self.view.phase != OVER:
                self.view.apply(CONCEDE, by=seat)
                self.states.append(self.view.copy())
            self.played.append((seat, text))
            self.stop = Stop("conceded", seat)
            return
        try:
            if self.view is None or self.deck.op is not None or self.pending is not None:
                raise IllegalMove("it came while the deck protocol was running")
            self.view.check(m, by=seat)
        except IllegalMove as e:
            self.stop = Stop("illegal", seat, "illegal_move", f"{text}: {e}")
            return
        self.pending = _Pending(seat, m, deck_plan(self.view.motions(m)), self.view.unseen())
        if not self.pending.ops:
            self._finish_move()

    # ----------------------------------------------------------- the game itself

    def next_op(self) -> Op | None:
        """The deck operation the game requires next, if none is running."""
        if self.deck.op is not None:
            return None
        if self.view is None:
            return None if self.deck.dealt else CUTTLE_DEAL
        if self.pending is not None:
            return self.pending.ops[0] if self.pending.ops else None
        if self.view.phase == OVER and not self.deck.audited:
            return Audit()
        return None

    def _after_move(self) -> None:
        view = self.view
        assert view is not None
        if view.phase != OVER and view.to_act == CHANCE:
            victim = 1 - view.player
            pick = RandomPick(victim, min(2, view.hand_size(victim)))
            self.pending = _Pending(None, None, [pick], view.unseen())

    def _finish_move(self) -> None:
        p, view = self.pending, self.view
        assert p is not None and view is not None
        self.pending = None
        m = p.move
        if m is None:  # chance's pick is known now
            m = move(Kind.DISCARD, *sorted(p.learned))
            reveal: list[int] = []
        else:
            named = {m.card, m.target}
            reveal = [c for c in dict.fromkeys(p.learned) if c in p.unseen and c not in named]
        try:
            view.apply(m, by=p.seat, reveal=reveal)
        except (IllegalMove, RevealError) as e:
            raise Invalid(f"move {m} does not fit what the deck showed: {e}") from None
        self.played.append((p.seat, str(m)))
        self.states.append(view.copy())
        self._after_move()

    # --------------------------------------------------------------- the end

    def finish(self) -> Stop:
        """Where the transcript stopped; ``Invalid`` if it was cut short of a step the
        writer would have taken itself."""
        if self.stop is not None:
            return self.stop
        want = self.next_op()
        if want is not None:
            raise Invalid(
                f"the transcript stops before the operation {want.to_wire()}, which both "
                "players begin at once: it was cut"
            )
        if self.deck.awaiting_peer():
            step = self.deck.plan[self.deck.step_i]
            self.stop = Stop("owed", step.sender, what=f"the deck message {step.name}")
        else:
            assert self.view is not None and self.view.phase != OVER
            self.stop = Stop("owed", self.view.to_act, what="a move")
        return self.stop

    def unseen_summary(self) -> str:
        """Which cards a third party never saw, and where they are."""
        view = self.view
        if view is None:
            return "the deal was never completed: no card was ever shown"
        places = [(f"seat {s}'s hand", view.hidden[s]) for s in (0, 1)]
        pile = sum(1 for c in view.deck if c < 0)
        places.append(("the draw pile", pile))
        where = ", ".join(f"{n} in {p}" for p, n in places if n)
        total = sum(n for _, n in places)
        return f"{total} cards were never shown ({where or 'none'})"


# ---------------------------------------------------------------- the verdict


def verify_record(record: GameRecord, text: str) -> Report:
    report = Report()
    try:
        _verify(record, text, report)
    except Invalid as e:
        return report.fail(str(e))
    return report


def _verify(record: GameRecord, text: str, report: Report) -> None:
    if is_practice(record):
        _verify_practice(record, report)
        return
    tags = record.tags
    header = read_header(tags)
    try:
        ending = parse_ending(tags["Ending"])
    except EndingError as e:
        raise Invalid(f"Ending: {e}") from None
    signer = int(tags["Signer"])
    keys = [identity_public_key(k) for k in header.keys]
    try:
        keys[signer].verify(bytes.fromhex(tags["Signature"]), record_digest(text))
    except InvalidSignature:
        raise Invalid(
            f"the record's signature by seat {signer} does not match its content: "
            "a line was changed, added, removed or moved"
        ) from None
    report.rules = header.rules
    report.lines.append(f"record signed by seat {signer} ({tags[f'Seat{signer}']}): ok")
    # The transcript.
    game = PublicGame(header)
    for n, e in enumerate(record.transcript, 1):
        try:
            game.take(e.kind, e.data, e.seat, e.signature, e.text)
        except Invalid as problem:
            raise Invalid(f"transcript entry {n}: {problem}") from None
    stop = game.finish()
    messages = sum(1 for e in record.transcript if e.kind == "msg")
    both = game.signers == {0, 1}
    report.lines.append(
        f"game header (game {header.game} of connection {tags['Connection'][:12]}…, "
        f"{header.rules.name}, seat 0 and seat 1's keys; seat 1 deals): "
        + (
            "signed by both players"
            if both
            else "signed by "
            + (f"seat {min(game.signers)} only" if game.signers else "nobody but the record")
        )
    )
    caught = f"; the last is {_describe(stop)}" if stop.kind in ("cheat", "illegal") else ""
    report.lines.append(
        f"deck protocol: {messages} messages; every signature, chain link, proof and share "
        f"checks{caught if stop.kind == 'cheat' else ''}"
    )
    report.lines.append(
        f"moves: {game.signed} signed moves, chained in order; each legal on public "
        "information, the deck operations exactly those the moves required"
        + (caught if stop.kind == "illegal" else "")
    )
    played = [(seat, t) for seat, t, _ in record.moves]
    if played != game.played:
        at = next(
            (i for i, (a, b) in enumerate(zip(played, game.played, strict=False)) if a != b),
            min(len(played), len(game.played)),
        )
        raise Invalid(
            f"the moves section differs from the signed transcript at move {at + 1} "
            f"({len(played)} moves listed, {len(game.played)} played)"
        )
    report.moves, report.public = played, game.states
    claims = _check_ending(tags, ending, stop, game, signer)
    report.lines.append(f"ending: {tags['Ending']}; result {tags['Result']}")
    report.lines += claims
    audited = stop.kind == "audited"
    if not audited:
        if tags["Audit"] != "none":
            raise Invalid("Audit: the transcript holds no complete audit, so it must be none")
        if any(seen.seat0 or seen.seat1 for _, _, seen in record.moves):
            raise Invalid("the moves note seen cards, which only an audit can show")
        report.verdict = Verdict.UNAUDITED
        report.problem = (
            f"never audited: {game.unseen_summary()}; the audit's re-check of the whole "
            "deck with both secrets was not made"
        )
        return
    digest = game.deck.verdict_digest
    assert digest is not None
    if tags["Audit"] != digest.hex():
        raise Invalid("Audit: not the verdict digest both players signed in the audit")
    report.lines.append("audit: both secrets revealed; the whole deck and every claim check")
    _full_replay(record, game, report)


def _check_ending(
    tags: dict[str, str], ending: Ending, stop: Stop, game: PublicGame, signer: int
) -> list[str]:
    """Check the Ending and Result against where the transcript stopped; return what is
    the signer's claim rather than proven."""
    view = game.view
    outcome = view.outcome if view is not None else None
    result = tags["Result"]
    form = ending.form
    claims: list[str] = []
    if ending.by_rules:
        if stop.kind != "audited":
            raise Invalid(
                f"Ending {form}: a game that ends by the rules is audited, and this "
                "transcript holds no complete audit"
            )
        assert outcome is not None
        if outcome.reason != form:
            raise Invalid(f"Ending {form}: the game ended by {outcome.reason}")
        expected = ending.result(outcome.winner)
    elif form == "concede":
        if stop.kind != "conceded":
            raise Invalid(
                "Ending concede: the transcript does not end with a signed concede "
                f"(it stops: {_describe(stop)})"
            )
        assert stop.seat is not None
        expected = ending.result(1 - stop.seat)
    elif form == "fault":
        seat, kind = ending.seat, ending.code
        assert seat is not None
        if seat == signer and kind not in ("internal_error", "timeout"):
            raise Invalid(
                f"Ending: seat {signer}'s record blames seat {signer} itself for {kind}: only "
                "internal_error and timeout can be the signer's own"
            )
        if kind == "internal_error" and seat != signer:
            raise Invalid("Ending: internal_error is only ever the signer's own")
        if stop.kind == "cheat" or (kind in CHEAT_KINDS and kind != "timeout"):
            # A deck-protocol fault: its evidence is the transcript's last message.
            if (stop.kind, stop.seat, stop.fault) != ("cheat", seat, kind):
                raise Invalid(
                    f"Ending: {kind} by seat {seat}, but the transcript stops: {_describe(stop)}"
                )
            if not stop.signed:
                claims.append(
                    f"the last message is not signed by seat {seat}: that it came from "
                    f"seat {seat} is seat {signer}'s claim"
                )
        elif stop.kind == "illegal":
            if (kind, seat) != ("illegal_move", stop.seat):
                raise Invalid(
                    f"Ending: {kind} by seat {seat}, but the transcript stops: {_describe(stop)}"
                )
        elif stop.kind != "owed":
            raise Invalid(f"Ending: {kind}, but the transcript stops: {_describe(stop)}")
        elif kind == "timeout":
            if stop.seat != seat:
                raise Invalid(
                    f"Ending: a timeout of seat {seat}, but the transcript stops: {_describe(stop)}"
                )
            if seat != signer:
                claims.append(f"seat {seat}'s silence is seat {signer}'s claim")
        elif seat != signer:  # a fault the record holds no evidence of
            claims.append(
                f"the fault ({kind} by seat {seat}) is seat {signer}'s claim: the record holds "
                "no evidence of it (the cards behind an illegal move, a bad signature or frame "
                "are not kept)"
            )
        expected = ending.result()
    else:
        if form == "closed" and ending.seat == signer:
            raise Invalid("Ending: the record's own signer cannot be the peer that closed")
        if stop.kind in ("audited", "conceded", "cheat", "illegal"):
            raise Invalid(f"Ending {form}: but the transcript stops: {_describe(stop)}")
        if form == "closed":
            claims.append(f"seat {ending.seat}'s words, as seat {signer} heard them: {ending.text}")
        expected = ending.result()
    if result != expected:
        raise Invalid(f"Result {result}: the ending {tags['Ending']!r} gives {expected}")
    return claims


def _verify_practice(record: GameRecord, report: Report) -> None:
    """A practice game: one machine dealt it and held every card (SPEC 5.5)."""
    tags, report.practice = record.tags, True
    for s in (0, 1):
        name = tags[f"Seat{s}"]
        if not 1 <= len(name) <= 32 or name != " ".join(name.split()) or _hidden(name):
            raise Invalid(f"Seat{s}: a name is 1 to 32 printable characters")
    if not _DATE.fullmatch(tags["Date"]):
        raise Invalid("Date: expected YYYY-MM-DDThh:mm:ssZ")
    if not re.fullmatch(r"[a-z][a-z0-9-]{0,31}", tags["Practice"]):
        raise Invalid("Practice: the bot's name")
    try:
        rules = Rules.parse(tags["Rules"])
        order = [parse_card(c) for c in tags["Deal"].split(" ")]
    except ValueError as e:
        raise Invalid(f"the header: {e}") from None
    if rules.name != tags["Rules"]:
        raise Invalid(f"Rules: written {rules.name!r} (variants sorted)")
    if record.transcript or any(seen.seat0 or seen.seat1 for _, _, seen in record.moves):
        raise Invalid("a practice record has no transcript and no seen notes")
    report.rules, report.order = rules, order
    report.moves = [(seat, t) for seat, t, _ in record.moves]
    try:
        game, _ = replay(rules, order, report.moves)
    except (IllegalMove, MoveSyntaxError, ValueError) as e:
        raise Invalid(f"an illegal move: {e}") from None
    outcome = game.outcome
    try:
        ending = parse_ending(tags["Ending"])
    except EndingError as e:
        raise Invalid(f"Ending: {e}") from None
    if outcome is not None:
        if ending.form != outcome.reason:
            raise Invalid(f"Ending: the game ended by {outcome.reason}")
        expected = ending.result(outcome.winner)
    elif ending.form != "unfinished":
        raise Invalid(f"Ending {ending.form}: the game is not over")
    else:
        expected = "*"
    if tags["Result"] != expected:
        raise Invalid(f"Result {tags['Result']}: the game gives {expected}")
    report.lines.append(
        f"practice game against the {tags['Practice']} bot, {rules.name}: "
        f"{len(report.moves)} moves replayed on the deal the record states, each legal; "
        f"{outcome or 'unfinished'}"
    )
    report.lines.append(
        "a practice deal proves nothing more: one machine shuffled it and held every card, "
        "so nothing shows that the deal was random or that the player could not see the "
        "bot's hand; there are no signatures (anyone can write such a record)"
    )


def _describe(stop: Stop) -> str:
    if stop.kind == "owed":
        return f"seat {stop.seat} owed {stop.what}"
    if stop.kind == "cheat":
        return f"seat {stop.seat} broke the deck protocol ({stop.fault}): {stop.what}"
    if stop.kind == "illegal":
        return f"seat {stop.seat}'s move is illegal: {stop.what}"
    if stop.kind == "conceded":
        return f"seat {stop.seat} conceded"
    return "the audit is complete"


def _full_replay(record: GameRecord, game: PublicGame, report: Report) -> None:
    report.order = order = deck_order(game.deck)
    try:
        final, steps = replay(game.rules, order, report.moves)
    except (IllegalMove, MoveSyntaxError, ValueError) as e:
        raise Invalid(f"with every card known, an illegal move: {e}") from None
    for n, (step, (_, _, seen)) in enumerate(zip(steps, record.moves, strict=True), 1):
        want = Disclosure(*(tuple(sorted(cards)) for cards in step.seen))
        got = Disclosure(*(tuple(sorted(cards)) for cards in seen))
        if got != want:
            shown = " ".join(
                f"{s}:{','.join(card_text(c) for c in cards)}" for s, cards in enumerate(want)
            )
            raise Invalid(f"move {n} ({step.text}): the seats saw {shown or 'nothing new'}")
    report.lines.append(
        f"with every card known: {len(steps)} moves replayed, each legal; {final.outcome}"
    )


def verify_text(text: str) -> Report:
    try:
        record = parse_record(text)
    except RecordError as e:
        verdict = Verdict.UNREADABLE if e.unreadable else Verdict.INVALID
        return Report(verdict, problem=str(e))
    return verify_record(record, text)


__all__ = [
    "PublicGame",
    "Report",
    "Step",
    "Verdict",
    "read_header",
    "replay",
    "verify_record",
    "verify_text",
]
