"""Game records: a versioned text file that keeps everything needed to check a game.

    [Format "cuttle-record/1"]
    [Rules "classic"]
    ...tags...

    1. 0 draw
    2. 1 points 7H
    ...

    [Transcript]
    op <base64 msgpack>          a deck operation begun (SPEC.md part 2)
    msg <base64 msgpack>         a signed deck-protocol message
    move <seat> <base64 sig> <text>   a signed move (SPEC.md 4.2)

A move line may end with ``| 0:7H,9C 1:5H``: the cards each seat saw for the first time
by that move (known for audited games).  The ``Signature`` tag signs every other line.

SPEC.md part 5 defines the format.  Reading a record never trusts it: ``parse_record``
raises ``RecordError`` saying which line is wrong.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack

from .cards import card_text, parse_card
from .deck.audit import deck_order
from .deck.encoding import hash256
from .ending import Ending, fault_ending, unfinished_ending
from .motions import Disclosure
from .session import GameSession, MoveRecord

FORMAT = "cuttle-record/1"
MAX_RECORD_BYTES = 16 * 2**20
_TAG = re.compile(r'\[([A-Za-z][A-Za-z0-9]*) "((?:[^"\\]|\\.)*)"\]')
_MOVE = re.compile(r"(\d+)\. (0|1|chance) ([^|]*[^| ])(?: \| (.+))?")
_SEEN = re.compile(r"([01]):((?:[0-9AJKQT][CDHSK],)*[0-9AJKQT][CDHSK])")


class RecordError(ValueError):
    """The text is not a valid game record; the message names the line."""


@dataclass(frozen=True)
class TranscriptEntry:
    kind: str  # "op", "msg" or "move"
    data: Any = None  # op / msg: the plain-data wire form
    seat: int = -1  # move
    signature: bytes = b""  # move
    text: str = ""  # move


@dataclass
class GameRecord:
    tags: dict[str, str] = field(default_factory=dict)
    # (seat or None for chance, move text, the cards each seat saw by it)
    moves: list[tuple[int | None, str, Disclosure]] = field(default_factory=list)
    transcript: list[TranscriptEntry] = field(default_factory=list)

    def to_text(self) -> str:
        lines = [f'[Format "{FORMAT}"]']
        lines += [f'[{k} "{_escape(v)}"]' for k, v in self.tags.items() if k != "Format"]
        lines.append("")
        for n, (seat, text, seen) in enumerate(self.moves, 1):
            noted = " ".join(
                f"{s}:{','.join(card_text(c) for c in cards)}"
                for s, cards in enumerate(seen)
                if cards
            )
            who = "chance" if seat is None else seat
            lines.append(f"{n}. {who} {text}" + (f" | {noted}" if noted else ""))
        lines += ["", "[Transcript]"]
        for e in self.transcript:
            if e.kind == "move":
                lines.append(f"move {e.seat} {_b64(e.signature)} {e.text}")
            else:
                lines.append(f"{e.kind} {_b64(msgpack.packb(e.data, use_bin_type=True))}")
        return "\n".join(lines) + "\n"


def parse_record(text: str) -> GameRecord:
    """Read a record; raise ``RecordError`` naming the first bad line."""
    if len(text) > MAX_RECORD_BYTES:
        raise RecordError(f"a record is at most {MAX_RECORD_BYTES} bytes")
    record = GameRecord()
    section = "tags"
    for number, line in enumerate(text.splitlines(), 1):
        where = f"line {number}"
        if not line.strip():
            if section == "tags" and record.tags:
                section = "moves"
            continue
        if line == "[Transcript]":
            section = "transcript"
            continue
        if section == "tags":
            m = _TAG.fullmatch(line)
            if not m:
                raise RecordError(f'{where}: expected a tag like [Name "value"]')
            if m[1] in record.tags:
                raise RecordError(f"{where}: tag {m[1]} given twice")
            record.tags[m[1]] = _unescape(m[2])
        elif section == "moves":
            m = _MOVE.fullmatch(line)
            if not m or int(m[1]) != len(record.moves) + 1:
                raise RecordError(
                    f"{where}: expected move {len(record.moves) + 1} as 'N. SEAT MOVE'"
                )
            record.moves.append((None if m[2] == "chance" else int(m[2]), m[3], _seen(m[4], where)))
        else:
            record.transcript.append(_entry(line, where))
    if record.tags.get("Format") != FORMAT:
        raise RecordError(f'not a {FORMAT} record (the first tag must be [Format "{FORMAT}"])')
    return record


def record_digest(text: str) -> bytes:
    """What the ``Signature`` tag signs: every line of the record but that tag's."""
    kept = [line for line in text.splitlines() if not line.startswith("[Signature ")]
    return hash256("record", "\n".join(kept))


def build_record(session: GameSession, names: tuple[str, str], date: str, note: str = "") -> str:
    """The text of ``session``'s record, signed by this seat.

    ``names`` are the players at seat 0 and 1; ``note`` says how an unfinished game ended
    (a disconnection, say) when the session itself cannot know.  After an audit the deck
    order is known, so each move notes the cards each seat saw by it.
    """
    outcome = session.outcome
    fault = session.fault
    if fault is not None:
        end = fault_ending(fault.kind, fault.culprit, fault.message)
    elif outcome is not None:
        end = Ending(outcome.reason)
    else:
        end = unfinished_ending(note or "the game stopped")
    result = end.result(outcome.winner if outcome is not None else None)
    ending = str(end)
    keys = [session.deck.public_keys[s].public_bytes_raw().hex() for s in (0, 1)]
    tags = {
        "Date": date,
        "Rules": session.rules.name,
        "Seat0": names[0],
        "Seat0Key": keys[0],
        "Seat1": names[1],
        "Seat1Key": keys[1],
        "Dealer": "1",
        "Session": session.session_id.hex(),
        "Result": result,
        "Ending": ending,
        "Audit": session.audit.hex() if session.audit else "none",
    }
    moves = [(seat, str(m), Disclosure((), ())) for seat, m in session.played]
    if session.audit is not None:
        from .verify import replay

        _, steps = replay(session.rules, deck_order(session.deck), [m[:2] for m in moves])
        moves = [(step.seat, step.text, step.seen) for step in steps]
    transcript: list[TranscriptEntry] = []
    signed = list(session.records)
    for i, (kind, data) in enumerate(session.deck.transcript()):
        while signed and signed[0].deck_at <= i:
            transcript.append(_move_entry(signed.pop(0)))
        transcript.append(TranscriptEntry(kind, data))
    transcript += [_move_entry(r) for r in signed]
    tags["Signer"] = str(session.seat)
    unsigned = GameRecord(tags, moves, transcript).to_text()
    signature = session.sign(record_digest(unsigned)).hex()
    return GameRecord({**tags, "Signature": signature}, moves, transcript).to_text()


def _move_entry(r: MoveRecord) -> TranscriptEntry:
    return TranscriptEntry("move", seat=r.seat, signature=r.signature, text=r.text)


def _seen(text: str | None, where: str) -> Disclosure:
    seen: list[tuple[int, ...]] = [(), ()]
    for item in (text or "").split():
        m = _SEEN.fullmatch(item)
        if not m or seen[int(m[1])]:
            raise RecordError(f"{where}: {item!r} is not SEAT:CARD,CARD…")
        try:
            seen[int(m[1])] = tuple(parse_card(c) for c in m[2].split(","))
        except ValueError as e:
            raise RecordError(f"{where}: {e}") from None
    return Disclosure(seen[0], seen[1])


def _entry(line: str, where: str) -> TranscriptEntry:
    kind, _, rest = line.partition(" ")
    try:
        if kind in ("op", "msg"):
            data = msgpack.unpackb(
                base64.b64decode(rest, validate=True), raw=False, strict_map_key=True
            )
            return TranscriptEntry(kind, data)
        if kind == "move":
            seat, sig, text = rest.split(" ", 2)
            if seat not in ("0", "1"):
                raise ValueError("the seat is 0 or 1")
            signature = base64.b64decode(sig, validate=True)
            if len(signature) != 64:
                raise ValueError("a signature is 64 bytes")
            return TranscriptEntry("move", seat=int(seat), signature=signature, text=text)
    except (ValueError, binascii.Error, msgpack.UnpackException) as e:
        raise RecordError(f"{where}: bad {kind} entry: {e}") from None
    raise RecordError(f"{where}: a transcript line starts with op, msg or move")


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def default_data_dir(environ: Mapping[str, str] = os.environ) -> Path:
    """``$XDG_DATA_HOME/cuttle-net``, else ``~/.local/share/cuttle-net``."""
    base = environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "cuttle-net"


def save_record(text: str, directory: Path, stem: str) -> Path:
    """Write a record as ``directory/stem.cuttle`` (never overwriting) and return the path."""
    directory.mkdir(parents=True, exist_ok=True)
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", stem).strip("-") or "game"
    path = directory / f"{safe}.cuttle"
    n = 1
    while path.exists():
        n += 1
        path = directory / f"{safe}-{n}.cuttle"
    path.write_text(text, encoding="utf-8")
    return path
