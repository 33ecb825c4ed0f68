"""Check a game record without trusting either player.

What is checked, in order:
1. the record's own signature (by the seat that saved it) over every line;
2. the deck-protocol transcript, message by message, as a third party (``DeckState``):
   signatures, the hash chain, both shuffle arguments, every decryption share and claim,
   and the audit;
3. every move's signature, chained to the moves before it and to the deck transcript;
4. with the audit's secrets, the whole game replayed with full information: each move
   legal, the deck operations run being exactly those each move required, the cards noted
   as seen at each step, and the result.
A game that was not audited (a concession, a fault, a lost connection) can be checked only
as far as 1–3: its hidden cards were never revealed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from .deck import CheatDetected, DeckState, Op, RandomPick, UsageError, WireError, op_from_wire
from .deck.audit import deck_order
from .deck.encoding import hash256
from .engine import CHANCE, Game, IllegalMove
from .motions import Disclosure
from .moves import MoveSyntaxError, parse_move
from .record import GameRecord, RecordError, record_digest
from .rules import Rules
from .session import NO_DECK_HEAD, deck_plan


class Verdict(IntEnum):
    VALID = 0  # every check holds
    INVALID = 1  # a check failed: the record was changed, or a player cheated
    UNREADABLE = 2  # not a record
    UNAUDITED = 3  # everything checkable holds, but hidden cards were never revealed


@dataclass
class Report:
    verdict: Verdict = Verdict.VALID
    lines: list[str] = field(default_factory=list)  # what was checked, for people
    problem: str = ""  # the first failed check
    order: list[int] | None = None  # the deal, top card first, once the audit revealed it
    rules: Rules | None = None

    def fail(self, problem: str) -> Report:
        self.verdict, self.problem = Verdict.INVALID, problem
        return self


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


def verify_record(record: GameRecord, text: str) -> Report:
    report = Report()
    tags = record.tags
    try:
        rules = Rules.parse(tags["Rules"])
        keys = [
            Ed25519PublicKey.from_public_bytes(bytes.fromhex(tags[f"Seat{s}Key"])) for s in (0, 1)
        ]
        session_id = bytes.fromhex(tags["Session"])
        signer = int(tags["Signer"])
        signature = bytes.fromhex(tags["Signature"])
    except (KeyError, ValueError) as e:
        return report.fail(f"the header is incomplete or malformed: {e}")
    # 1. The record as saved.
    try:
        keys[signer].verify(signature, record_digest(text))
    except (InvalidSignature, IndexError):
        return report.fail(
            f"the record's signature by seat {signer} does not match its content: "
            "a line was changed, added, removed or moved"
        )
    report.lines.append(f"record signed by seat {signer} ({tags.get(f'Seat{signer}', '?')}): ok")
    # 2 and 3. The transcript.
    observer = DeckState(session_id, keys, rules.deck_size)
    head = hash256("moves", session_id)
    tokens: list[tuple] = []
    signed = messages = 0
    for n, entry in enumerate(record.transcript, 1):
        try:
            if entry.kind == "op":
                op = op_from_wire(entry.data)
                observer.begin(op)
                tokens.append(("op", op.to_wire()))
            elif entry.kind == "msg":
                observer.receive(entry.data)
                messages += 1
            else:
                deck_head = NO_DECK_HEAD if entry.text == "concede" else observer.head
                digest = hash256(
                    "move", session_id, signed, head, deck_head, entry.seat, entry.text
                )
                keys[entry.seat].verify(entry.signature, digest)
                head = digest
                signed += 1
                tokens.append(("move", entry.seat, entry.text))
        except CheatDetected as cheat:
            return report.fail(
                f"transcript entry {n}: seat {cheat.culprit} cheated ({cheat.kind}): {cheat.detail}"
            )
        except InvalidSignature:
            return report.fail(
                f"transcript entry {n}: the signature of move {entry.text!r} "
                f"by seat {entry.seat} does not check"
            )
        except (WireError, UsageError) as e:
            return report.fail(f"transcript entry {n}: {e}")
    report.lines.append(
        f"deck protocol: {messages} messages, every signature, proof and share checks"
    )
    report.lines.append(f"moves: {signed} signed moves, chained in order")
    audited = None not in observer.secrets and observer.audited
    if not audited:
        report.verdict = Verdict.UNAUDITED
        report.problem = (
            "the game was not audited, so the cards never shown cannot be checked: "
            "the deal and every card shown were checked, the rules only as far as "
            "the signed moves go"
        )
        return report
    report.lines.append("audit: both secrets revealed; the whole deck and every claim check")
    # 4. The whole game with full information.
    report.order, report.rules = deck_order(observer), rules
    try:
        game, steps = replay(rules, report.order, [(s, t) for s, t, _ in record.moves])
    except (IllegalMove, MoveSyntaxError) as e:
        return report.fail(f"an illegal move: {e}")
    except ValueError as e:
        return report.fail(f"the replay failed: {e}")
    expected: list[tuple] = [("op", ["deal"])]
    for step in steps:
        if step.seat is not None:
            expected.append(("move", step.seat, step.text))
        expected += [("op", op.to_wire()) for op in step.ops]
    expected.append(("op", ["audit"]))
    for i, (want, got) in enumerate(zip(expected, tokens, strict=False)):
        if want != got:
            return report.fail(
                f"transcript step {i + 1}: the game required {want}, the record has {got}"
            )
    if len(expected) != len(tokens):
        return report.fail(
            f"the transcript has {len(tokens)} steps; the moves require {len(expected)}"
        )
    for n, (step, (_, _, seen)) in enumerate(zip(steps, record.moves, strict=True), 1):
        if seen != step.seen:
            return report.fail(
                f"move {n} ({step.text}): the record says the seats saw {seen}, "
                f"the game shows {step.seen}"
            )
    outcome = game.outcome
    result = "*" if outcome is None else "draw" if outcome.winner is None else str(outcome.winner)
    if (tags.get("Result"), tags.get("Ending")) != (result, outcome.reason if outcome else None):
        return report.fail(
            f"the header claims {tags.get('Result')}/{tags.get('Ending')}, the game ended {outcome}"
        )
    report.lines.append(f"rules: {len(steps)} moves replayed, each legal; {outcome}")
    return report


def verify_text(text: str) -> Report:
    try:
        from .record import parse_record

        record = parse_record(text)
    except RecordError as e:
        return Report(Verdict.UNREADABLE, problem=str(e))
    return verify_record(record, text)


__all__ = ["Report", "Step", "Verdict", "replay", "verify_record", "verify_text"]
