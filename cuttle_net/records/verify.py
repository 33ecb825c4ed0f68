"""Check a game record without trusting either player (SPEC.md §5.3).

What is checked, in order:
1. the header: every tag well formed, every identity key usable, and the game's session id
   the hash of the game header (table, game number, game, rules, dealer, every key), so
   that every signature of any player in the transcript covers the header;
2. the record's own signature, by the seat that saved it;
3. the transcript, entry by entry, as a third party: the deck protocol (``DeckState``:
   signatures, hash chain, shuffle arguments, shares, claims, audit), every move's signature
   and chain, and the game replayed on public information (a spectator's view: every hand
   hidden but what was shown), through the game's module (``cuttle_net.games.interface``),
   so that each move is legal as far as public information goes and the deck operations
   are exactly those the moves required;
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
from typing import Any

from cryptography.exceptions import InvalidSignature

from cuttle_net.deck import (
    Audit,
    AuditPassed,
    CardsLearned,
    CheatDetected,
    DeckState,
    ExposeHand,
    ExposeHands,
    Op,
    OperationComplete,
    UsageError,
    WireError,
    op_from_wire,
)
from cuttle_net.deck.encoding import hash256
from cuttle_net.deck.errors import CHEAT_KINDS
from cuttle_net.games.interface import CHANCE, NOBODY, GameModule, Outcome, game_module
from cuttle_net.identity_key import BadIdentityKey, identity_public_key
from cuttle_net.session import CONCEDE, NO_DECK_HEAD

from .ending import Ending, EndingError, parse_ending, result_text
from .header import GameHeader
from .record import (
    DECK_VERSIONS,
    FORMAT,
    WATCHER,
    GameRecord,
    RecordError,
    is_practice,
    parse_deal,
    parse_record,
    record_digest,
    table_tags,
)
from .replay import replay

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
    header: GameHeader | None = None  # the game header (None for a practice record)
    seats: int = 0  # the table's number of seats, and its dealer
    dealer: int = 0
    module: GameModule | None = None  # the game's module
    rules: Any = None
    moves: list[tuple[int | None, str]] = field(default_factory=list)  # the replayed moves
    # What a third party sees: the table after the deal and after each move (every hand
    # hidden but what was shown), for replaying a game that was never audited.
    public: list[Any] = field(default_factory=list)
    outcome: Outcome | None = None  # how the game ended by the rules, if it did
    practice: bool = False  # a practice game (SPEC 5.5): dealt and played on one machine
    names: tuple[str, ...] = ()  # the players' names, seat by seat, as the record states them

    def fail(self, problem: str) -> Report:
        self.verdict, self.problem = Verdict.INVALID, problem
        return self


class Invalid(Exception):
    """A check failed; the message says which."""


# ----------------------------------------------------------------- the header


def _name(tags: dict[str, str], tag: str) -> str:
    name = tags[tag]
    if not 1 <= len(name) <= 32 or name != " ".join(name.split()) or _hidden(name):
        raise Invalid(f"{tag}: a name is 1 to 32 printable characters")
    return name


def _seat_number(tags: dict[str, str], tag: str, seats: int) -> int:
    value = tags[tag]
    if not re.fullmatch(r"[0-9]", value) or int(value) >= seats:
        raise Invalid(f"{tag}: a seat, 0 to {seats - 1}, not {value!r}")
    return int(value)


def _read_table(tags: dict[str, str]) -> tuple[GameModule, int, Any, int]:
    """The game, its number of seats, rules and dealer, and the names and the date: the
    tags every record has; raise ``Invalid`` saying which tag is wrong."""
    try:
        module = game_module(tags["Game"])
    except ValueError as e:
        raise Invalid(f"Game: {e}") from None
    seats = int(tags["Players"])  # the record's layout checked it is 2..6
    if seats not in module.seats:
        raise Invalid(f"Players: {module.name} is not for {seats} players")
    for s in range(seats):
        _name(tags, f"Seat{s}")
    if not _DATE.fullmatch(tags["Date"]):
        raise Invalid("Date: expected YYYY-MM-DDThh:mm:ssZ")
    try:
        rules = module.parse_rules(tags["Rules"], seats)
    except ValueError as e:
        raise Invalid(f"Rules: {e}") from None
    if rules.name != tags["Rules"]:
        raise Invalid(f"Rules: written {rules.name!r}")
    dealer = _seat_number(tags, "Dealer", seats)
    try:
        module.check_table(rules, seats, dealer)
    except ValueError as e:
        raise Invalid(f"Dealer: {e}") from None
    return module, seats, rules, dealer


def read_header(tags: dict[str, str]) -> GameHeader:
    """The game header the tags state; raise ``Invalid`` saying which tag is wrong."""
    module, seats, rules, dealer = _read_table(tags)
    keys = []
    for s in range(seats):
        try:
            raw = _hex(tags, f"Seat{s}Key", 32)
            identity_public_key(raw)
        except BadIdentityKey as e:
            raise Invalid(f"Seat{s}Key: {e}") from None
        keys.append(raw)
    number = tags["Number"]
    if not re.fullmatch(r"[1-9][0-9]{0,8}", number):
        raise Invalid("Number: the game's number at its table, from 1")
    connection = _hex(tags, "Connection", None)
    try:
        header = GameHeader(connection, int(number), module.name, rules, dealer, tuple(keys))
    except ValueError as e:
        raise Invalid(f"the game header: {e}") from None
    if _hex(tags, "Session", 32) != header.session_id:
        raise Invalid(
            "Session: not the hash of the game header (table, number, game, rules, dealer, "
            "keys): a header tag was changed"
        )
    result = tags["Result"]
    if result not in ("draw", "*"):
        winners = result.split(",")
        if not all(re.fullmatch(r"[0-9]", w) and int(w) < seats for w in winners) or (
            result != result_text(tuple(int(w) for w in set(winners)))
        ):
            raise Invalid("Result: the winning seats (ascending, comma-separated), draw or *")
    if tags["Signer"] != WATCHER:
        _seat_number(tags, "Signer", seats)
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
    """Deck operations the game requires: the deal, a move's (or chance's), the final ones."""

    kind: str  # "deal", "move" or "final"
    seat: int | None
    move: Any
    ops: list[Op]
    learned: list[CardsLearned] = field(default_factory=list)


@dataclass(frozen=True)
class Stop:
    """Where the transcript stops.

    ``kind``: ``audited``; ``conceded`` (``seat`` conceded); ``cheat`` (the deck protocol
    caught ``seat``: ``fault`` its kind, ``signed`` whether the culprit's signature is on
    the evidence); ``illegal`` (``seat``'s signed move breaks the rules on public
    information); ``owed`` (``seat`` owed the next step: ``what`` says which; ``owing``:
    every seat that owed a message of the deck round under way, ``seat`` the lowest).
    """

    kind: str
    seat: int | None = None
    fault: str = ""
    what: str = ""
    signed: bool = True
    owing: tuple[int, ...] = ()


class PublicGame:
    """The transcript walked as a third party sees it: the deck observer, the move chain
    and a spectator's view of the game."""

    def __init__(self, header: GameHeader, deck_version: int = DECK_VERSIONS[FORMAT]) -> None:
        self.header = header
        self.module = module = game_module(header.name)
        self.sid = header.session_id
        self.rules = header.rules
        self.seats = header.seats
        self.keys = [identity_public_key(k) for k in header.keys]
        faces = module.faces(self.rules)
        self.deck = DeckState(self.sid, self.keys, self.rules.deck_size, faces, deck_version)
        self.view: Any = None
        self.head = hash256("moves", self.sid)
        self.signed = 0  # moves signed
        self.signers: set[int] = set()  # seats whose signature the transcript carries
        deal = module.deal(self.rules, self.seats, header.dealer)
        self.pending: _Pending | None = _Pending("deal", None, None, [deal])
        self.over: Outcome | None = None  # the outcome by the rules, once known
        self.played: list[tuple[int | None, str]] = []
        self.states: list[Any] = []  # the view after the deal, then after each move
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
        if self.deck.op is None and self.next_op() is not None:
            raise Invalid("a deck message where an operation every player begins at once is due")
        # While nothing is due, the deck refuses the message, charging the seat that signed
        # it (SPEC 2.7, *Early messages*): a seat's signed message sent while no operation ran.
        self._deck(lambda: self.deck.receive(data))
        if self.deck.failed is None:  # received: signed by the seat its ``from`` names
            self.signers.add(data["from"])

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
                self.pending.learned.append(event)
            elif isinstance(event, AuditPassed):
                self.stop = Stop("audited")
            elif (
                isinstance(event, OperationComplete)
                and self.pending is not None
                and not self.pending.ops
            ):
                self._finish_pending()

    def _move(self, seat: int, signature: bytes, text: str) -> None:
        module = self.module
        if not 0 <= seat < self.seats:
            raise Invalid(f"move {text!r} by seat {seat}: no such seat at this table")
        conceding = text == CONCEDE
        m = None
        if not conceding:
            try:
                m = module.parse_move(text)
            except ValueError as e:
                raise Invalid(f"move {text!r} by seat {seat}: {e}") from None
            if module.move_text(m) != text:
                raise Invalid(f"move {text!r} by seat {seat}: written {module.move_text(m)!r}")
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
            if self.view is not None:
                module.concede(self.view, seat)
                self.states.append(module.copy(self.view))
            self.played.append((seat, text))
            self.stop = Stop("conceded", seat)
            return
        try:
            if self.view is None or self.deck.op is not None or self.pending is not None:
                raise ValueError("it came while the deck protocol was running")
            actor = module.to_act(self.view)
            if actor != seat:
                who = "nobody" if actor == NOBODY else "chance" if actor == CHANCE else actor
                raise ValueError(f"it is not seat {seat}'s decision: {who} decides now")
            module.check(self.view, m, seat)
        except ValueError as e:
            self.stop = Stop("illegal", seat, "illegal_move", f"{text}: {e}")
            return
        self.pending = _Pending("move", seat, m, module.deck_ops(self.view, m))
        if not self.pending.ops:
            self._finish_pending()

    # ----------------------------------------------------------- the game itself

    def next_op(self) -> Op | None:
        """The deck operation the game requires next, if none is running."""
        if self.deck.op is not None:
            return None
        if self.pending is not None:
            return self.pending.ops[0] if self.pending.ops else None
        if self.over is not None and not self.deck.audited:
            return Audit()
        return None

    def _after_move(self) -> None:
        module, view = self.module, self.view
        actor = module.to_act(view)
        if actor == NOBODY:
            ops = module.final_ops(view)
            if self.deck.version == 2:  # hands were shown one seat at a time (SPEC 2.8)
                ops = [
                    ExposeHand(s) if isinstance(op, ExposeHands) else op
                    for op in ops
                    for s in (op.seats if isinstance(op, ExposeHands) else (None,))
                ]
            if ops:
                self.pending = _Pending("final", None, None, list(ops))
            else:
                self._game_over()
        elif actor == CHANCE:
            self.pending = _Pending("move", None, None, module.chance_ops(view))

    def _game_over(self) -> None:
        self.over = self.module.outcome(self.view)
        if self.over is None:
            raise Invalid("the game is over, yet the rules give no outcome")

    def _finish_pending(self) -> None:
        p, module = self.pending, self.module
        assert p is not None
        self.pending = None
        try:
            if p.kind == "deal":
                face_up = [c for e in p.learned if e.seat is None for c in e.cards]
                self.view = module.new_view(
                    self.rules, self.seats, self.header.dealer, None, (), face_up
                )
                self.states.append(module.copy(self.view))
            elif p.kind == "final":
                module.show_final(self.view, p.learned)
                self._game_over()
                return
            else:
                m = module.apply(self.view, p.move, p.seat, p.learned)
                self.played.append((p.seat, module.move_text(m)))
                self.states.append(module.copy(self.view))
        except ValueError as e:
            raise Invalid(f"the {p.kind} does not fit what the deck showed: {e}") from None
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
                f"the transcript stops before the operation {want.to_wire()}, which every "
                "player begins at once: it was cut"
            )
        owing = tuple(self.deck.owing())
        if owing:
            cheat = self.deck.timed_out()
            step = cheat.detail.removeprefix("no ").removesuffix(" message")
            self.stop = Stop("owed", cheat.culprit, what=f"the deck message {step}", owing=owing)
        else:
            actor = self.module.to_act(self.view) if self.view is not None else NOBODY
            assert actor >= 0, "a transcript idle with nobody to act"
            self.stop = Stop("owed", actor, what="a move")
        return self.stop

    def unseen_summary(self) -> str:
        """Which cards a third party never saw, and where they are."""
        if self.view is None:
            return "the deal was never completed: no card was ever shown"
        places = [(f"seat {s}'s hand", self.deck.hand_view(s)[1]) for s in range(self.seats)]
        places.append(("the draw pile", self.deck.pile_size()))
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
    watcher = tags["Signer"] == WATCHER
    # A watcher's copy (SPEC 5.2): signed by its own key, which vouches for nothing but
    # who saved it; a seat's, by that seat's key in the header.
    signer = -1 if watcher else int(tags["Signer"])
    try:
        key = identity_public_key(_hex(tags, "SignerKey", 32)) if watcher else None
    except BadIdentityKey as e:
        raise Invalid(f"SignerKey: {e}") from None
    keys = [identity_public_key(k) for k in header.keys]
    who = "the watcher" if watcher else f"seat {signer}"
    try:
        (key or keys[signer]).verify(bytes.fromhex(tags["Signature"]), record_digest(text))
    except InvalidSignature:
        raise Invalid(
            f"the record's signature by {who} does not match its content: "
            "a line was changed, added, removed or moved"
        ) from None
    report.header, report.module, report.rules = header, game_module(header.name), header.rules
    report.seats, report.dealer = header.seats, header.dealer
    report.names = seat_names(tags, header.seats)
    if watcher:
        report.lines.append(
            f"record signed by a watcher (key {tags['SignerKey'][:16]}…, at no seat): ok; "
            "the names and the date are its word"
        )
    else:
        report.lines.append(f"record signed by seat {signer} ({tags[f'Seat{signer}']}): ok")
    # The transcript.
    game = PublicGame(header, DECK_VERSIONS[tags["Format"]])
    for n, e in enumerate(record.transcript, 1):
        try:
            game.take(e.kind, e.data, e.seat, e.signature, e.text)
        except Invalid as problem:
            raise Invalid(f"transcript entry {n}: {problem}") from None
    stop = game.finish()
    messages = sum(1 for e in record.transcript if e.kind == "msg")
    seats = header.seats
    signers = ", ".join(f"seat {s}" for s in sorted(game.signers))
    report.lines.append(
        f"game header ({header.name} game {header.number} of table {tags['Connection'][:12]}…, "
        f"{header.rules.name}, {seats} seats' keys; seat {header.dealer} deals): "
        + (
            f"signed by all {seats} players"
            if len(game.signers) == seats
            else f"signed by {signers} only"
            if game.signers
            else "signed by nobody but the record"
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
    report.moves, report.public, report.outcome = played, game.states, game.over
    claims = _check_ending(tags, ending, stop, game, signer)
    if watcher and (claims or ending.form == "closed"):
        # A watcher heard no seat's words and owed nothing: it states what the transcript
        # proves, or `unfinished`.
        claim = claims[0] if claims else tags["Ending"]
        raise Invalid(f"Ending: a watcher's copy states only what its transcript proves: {claim}")
    report.lines.append(f"ending: {tags['Ending']}; result {tags['Result']}")
    report.lines += claims
    audited = stop.kind == "audited"
    if not audited:
        if tags["Audit"] != "none":
            raise Invalid("Audit: the transcript holds no complete audit, so it must be none")
        if any(seen for _, _, seen in record.moves):
            raise Invalid("the moves note seen cards, which only an audit can show")
        report.verdict = Verdict.UNAUDITED
        report.problem = (
            f"never audited: {game.unseen_summary()}; the audit's re-check of the whole "
            "deck with every secret was not made"
        )
        return
    digest = game.deck.verdict_digest
    assert digest is not None
    if tags["Audit"] != digest.hex():
        raise Invalid("Audit: not the verdict digest every player signed in the audit")
    report.lines.append("audit: every secret revealed; the whole deck and every claim check")
    _full_replay(record, game, report)


def _check_ending(
    tags: dict[str, str], ending: Ending, stop: Stop, game: PublicGame, signer: int
) -> list[str]:
    """Check the Ending and Result against where the transcript stopped; return what is
    the signer's claim rather than proven."""
    outcome = game.over
    result = tags["Result"]
    form = ending.form
    seats = game.seats
    claims: list[str] = []
    if ending.seat is not None and ending.seat >= seats:
        raise Invalid(f"Ending: there is no seat {ending.seat} at this table of {seats}")
    if ending.by_rules and form not in game.module.endings:
        raise Invalid(
            f"Ending {form}: {game.module.name} ends by the rules with "
            + ", ".join(game.module.endings)
        )
    if ending.by_rules:
        if stop.kind != "audited":
            raise Invalid(
                f"Ending {form}: a game that ends by the rules is audited, and this "
                "transcript holds no complete audit"
            )
        assert outcome is not None
        if outcome.reason != form:
            raise Invalid(f"Ending {form}: the game ended by {outcome.reason}")
        expected = ending.result(outcome.winners, seats)
    elif form == "concede":
        if stop.kind != "conceded":
            raise Invalid(
                "Ending concede: the transcript does not end with a signed concede "
                f"(it stops: {_describe(stop)})"
            )
        assert stop.seat is not None
        expected = ending.result(tuple(s for s in range(seats) if s != stop.seat), seats)
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
        if kind in _UNSIGNED_CHEATS:
            # A deck message its sender's signature does not fit: whose it was only the
            # channel (at a table, the author of its entry) knows (SPEC 2.11). The evidence
            # is the transcript's last message: it breaks the protocol and is not seat S's
            # signed message (its signature fails, or it is another seat's, replayed).
            last = game.deck.log[-1][0] if game.deck.log else ""
            if stop.kind != "cheat" or last != "msg" or (stop.signed and stop.seat == seat):
                raise Invalid(
                    f"Ending: {kind} by seat {seat}, but the transcript stops: {_describe(stop)}"
                )
            claims.append(
                f"the last message is not signed by seat {seat}: that it came from "
                f"seat {seat} is seat {signer}'s claim"
            )
        elif stop.kind == "cheat" or (kind in CHEAT_KINDS and kind != "timeout"):
            # A deck-protocol fault: its evidence is the transcript's last message.
            if (stop.kind, stop.seat, stop.fault) != ("cheat", seat, kind):
                raise Invalid(
                    f"Ending: {kind} by seat {seat}, but the transcript stops: {_describe(stop)}"
                )
            if not stop.signed:
                claims.append(f"that seat {seat} broke the deck protocol is seat {signer}'s claim")
        elif stop.kind == "illegal":
            if (kind, seat) != ("illegal_move", stop.seat):
                raise Invalid(
                    f"Ending: {kind} by seat {seat}, but the transcript stops: {_describe(stop)}"
                )
        elif stop.kind != "owed":
            raise Invalid(f"Ending: {kind}, but the transcript stops: {_describe(stop)}")
        elif kind == "timeout":
            # At a table of three or more, seat 0 is the host, which relays every message:
            # a host that stops relaying is silent whoever owes the next step (SPEC 3.15).
            # Any seat that owed a message of the deck round under way may be the silent one.
            owed = seat in (stop.owing or (stop.seat,))
            relay = seat == 0 and seats >= 3 and not owed
            if not owed and not relay:
                raise Invalid(
                    f"Ending: a timeout of seat {seat}, but the transcript stops: {_describe(stop)}"
                )
            if relay:
                claims.append(f"the host's (seat 0) silence as the relay is seat {signer}'s claim")
            elif seat != signer:
                claims.append(f"seat {seat}'s silence is seat {signer}'s claim")
        elif seat != signer:  # a fault the record holds no evidence of
            claims.append(
                f"the fault ({kind} by seat {seat}) is seat {signer}'s claim: the record holds "
                "no evidence of it (the cards behind an illegal move, a bad signature or frame "
                "are not kept)"
            )
        expected = ending.result(None, seats)
    else:
        if form == "closed" and ending.seat == signer:
            raise Invalid("Ending: the record's own signer cannot be the peer that closed")
        if stop.kind in ("audited", "conceded", "cheat", "illegal"):
            raise Invalid(f"Ending {form}: but the transcript stops: {_describe(stop)}")
        if form == "closed":
            claims.append(f"seat {ending.seat}'s words, as seat {signer} heard them: {ending.text}")
        expected = ending.result(None, seats)
    if result != expected:
        raise Invalid(f"Result {result}: the ending {tags['Ending']!r} gives {expected}")
    return claims


def _verify_practice(record: GameRecord, report: Report) -> None:
    """A practice game: one machine dealt it and held every card (SPEC 5.5)."""
    tags, report.practice = table_tags(record.tags), True
    module, seats, rules, dealer = _read_table(tags)
    if not re.fullmatch(r"[a-z][a-z0-9-]{0,31}", tags["Practice"]):
        raise Invalid("Practice: the bot's name")
    try:
        order = parse_deal(module, rules, tags["Deal"])
    except ValueError as e:
        raise Invalid(f"Deal: {e}") from None
    if record.transcript or any(seen for _, _, seen in record.moves):
        raise Invalid("a practice record has no transcript and no seen notes")
    report.module, report.rules, report.order = module, rules, order
    report.seats, report.dealer = seats, dealer
    report.names = seat_names(tags, seats)
    report.moves = [(seat, t) for seat, t, _ in record.moves]
    try:
        game, _ = replay(module, rules, seats, dealer, order, report.moves)
    except ValueError as e:
        raise Invalid(f"an illegal move: {e}") from None
    report.outcome = outcome = module.outcome(game)
    try:
        ending = parse_ending(tags["Ending"])
    except EndingError as e:
        raise Invalid(f"Ending: {e}") from None
    if outcome is not None:
        if ending.form != outcome.reason:
            raise Invalid(f"Ending: the game ended by {outcome.reason}")
        expected = ending.result(outcome.winners, seats)
    elif ending.form != "unfinished":
        raise Invalid(f"Ending {ending.form}: the game is not over")
    else:
        expected = "*"
    if tags["Result"] != expected:
        raise Invalid(f"Result {tags['Result']}: the game gives {expected}")
    report.lines.append(
        f"practice game of {module.name} ({rules.name}, {seats} players) against the "
        f"{tags['Practice']} bot: {len(report.moves)} moves replayed on the deal the record "
        f"states, each legal; {outcome_text(outcome, report.names) if outcome else 'unfinished'}"
    )
    report.lines.append(
        "a practice deal proves nothing more: one machine shuffled it and held every card, "
        "so nothing shows that the deal was random or that the player could not see the "
        "bots' hands; there are no signatures (anyone can write such a record)"
    )


def _describe(stop: Stop) -> str:
    if stop.kind == "owed":
        if len(stop.owing) > 1:
            return f"seats {', '.join(map(str, stop.owing))} owed {stop.what}"
        return f"seat {stop.seat} owed {stop.what}"
    if stop.kind == "cheat":
        return f"seat {stop.seat} broke the deck protocol ({stop.fault}): {stop.what}"
    if stop.kind == "illegal":
        return f"seat {stop.seat}'s move is illegal: {stop.what}"
    if stop.kind == "conceded":
        return f"seat {stop.seat} conceded"
    return "the audit is complete"


def seat_names(tags: dict[str, str], seats: int) -> tuple[str, ...]:
    """The players' names, seat by seat (``_read_table`` checked them)."""
    return tuple(tags[f"Seat{s}"] for s in range(seats))


def outcome_text(outcome: Outcome | None, names: tuple[str, ...] = ()) -> str:
    """An outcome in words: ``Ann (seat 0) wins (goal)``, ``Bo (seat 1) and Cy (seat 3) win
    (last-round)``; without names, ``seat 0 wins (goal)``. A name is the record's word, as
    plain text (verify checked it is printable)."""
    if outcome is None:
        return "no outcome"

    def who(s: int) -> str:
        return f"{names[s]} (seat {s})" if s < len(names) else f"seat {s}"

    winners = outcome.winners
    if not winners:
        what = "drawn"
    elif len(winners) == 1:
        what = f"{who(winners[0])} wins"
    elif names:
        what = ", ".join(who(s) for s in winners[:-1]) + f" and {who(winners[-1])} win"
    else:
        what = "seats " + ", ".join(str(s) for s in winners) + " win"
    scores = f"; scores {' '.join(str(x) for x in outcome.scores)}" if outcome.scores else ""
    return f"{what} ({outcome.reason}){scores}"


def _full_replay(record: GameRecord, game: PublicGame, report: Report) -> None:
    report.order = order = game.deck.deck_order()
    h = game.header
    try:
        final, steps = replay(game.module, h.rules, h.seats, h.dealer, order, report.moves)
    except ValueError as e:
        raise Invalid(f"with every card known, an illegal move: {e}") from None
    for n, (step, (_, _, seen)) in enumerate(zip(steps, record.moves, strict=True), 1):
        if seen != step.seen:
            shown = " ".join(f"{s}:{','.join(cards)}" for s, cards in enumerate(step.seen) if cards)
            raise Invalid(f"move {n} ({step.text}): the seats saw {shown or 'nothing new'}")
    outcome = game.module.outcome(final)
    if outcome != game.over:
        raise Invalid(
            f"with every card known the game ends {outcome_text(outcome, report.names)}, "
            f"not {outcome_text(game.over, report.names)}"
        )
    report.lines.append(
        f"with every card known: {len(steps)} moves replayed, each legal; "
        + outcome_text(outcome, report.names)
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
    "Verdict",
    "outcome_text",
    "read_header",
    "replay",
    "seat_names",
    "verify_record",
    "verify_text",
]
