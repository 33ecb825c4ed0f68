"""Game records: a versioned text file that keeps everything needed to check a game.

    [Format "cuttle-record/4"]
    [Date "2026-11-21T12:00:00Z"]
    [Game "cuttle"]
    ...the other tags, in the order of ``tag_order``...

    1. 0 draw
    2. 1 points 7H | 1:9C
    ...

    [Transcript]
    op <base64 msgpack>          a deck operation begun (SPEC.md part 2)
    msg <base64 msgpack>         a signed deck-protocol message
    move <seat> <base64 sig> <text>   a signed move (SPEC.md 4.2)

A move line may end with ``| 0:7H,9C 1:5H``: the cards each seat saw for the first time
by that move (audited games), in ascending card order (by deck id), as the game writes
them.  The ``Signature`` tag signs every other line.  A record is exactly the text
``GameRecord.to_text`` writes for its content: the only changes that read the same are CRLF
line ends and a missing final newline.

SPEC.md part 5 defines the format.  Reading a record never trusts it: ``parse_record``
raises ``RecordError`` saying which line is wrong; ``cuttle_net.records.verify`` checks the rest.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
import stat
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack

from cuttle_net.deck.encoding import hash256
from cuttle_net.games.interface import GameModule, game_module
from cuttle_net.session import CONCEDE, GameSession, MoveRecord

from .ending import Ending, unfinished_ending
from .header import GameHeader
from .replay import Seen, replay

FORMAT = "cuttle-record/5"
# Still read: /4, whose deck transcripts are of deck protocol version 2 (one step a round,
# SPEC 2.7); /3, the same as /4 but for practice records, which were Cuttle only, with these
# tags (SPEC 5.5).
FORMAT_4 = "cuttle-record/4"
FORMAT_3 = "cuttle-record/3"
DECK_VERSIONS = {FORMAT: 3, FORMAT_4: 2, FORMAT_3: 2}  # the deck protocol of each format
_PRACTICE_TAGS_3 = ("Format", "Practice", "Date", "Rules", "Seat0", "Seat1", "Deal")
_PRACTICE_TAGS_3 += ("Result", "Ending")
MAX_RECORD_BYTES = 16 * 2**20
MAX_SEATS = 6
_BEFORE_SEATS = ("Format", "Date", "Game", "Rules", "Players")
_AFTER_SEATS = (
    "Dealer",
    "Connection",
    "Number",
    "Session",
    "Result",
    "Ending",
    "Audit",
    "Signer",
    "Signature",
)
# A practice game against bots, dealt and played on one machine (SPEC 5.5): a name per
# seat (no keys) between these.
_PRACTICE_BEFORE_SEATS = ("Format", "Practice", "Date", "Game", "Rules", "Players")
_PRACTICE_AFTER_SEATS = ("Dealer", "Deal", "Result", "Ending")
WATCHER = "watcher"
"""The ``Signer`` of a copy saved by a watcher (SPEC 5.2): it sits at no seat, so its own
key follows as ``SignerKey``."""
_TAG = re.compile(r'\[([A-Za-z][A-Za-z0-9]*) "((?:[^"\\]|\\["\\])*)"\]')
_MOVE = re.compile(r"([1-9][0-9]*)\. ([0-9]|chance) ([^|]*[^| ])(?: \| (.+))?")
_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f]")
_SEEN = re.compile(r"([0-9]):([^ ,|]+(?:,[^ ,|]+)*)")


class RecordError(ValueError):
    """The text is not a valid game record; the message names the line.

    ``unreadable``: not a record of this format at all (``cuttle verify`` exit 2), rather
    than a record with a wrong line in it (exit 1)."""

    def __init__(self, message: str, unreadable: bool = False) -> None:
        super().__init__(message)
        self.unreadable = unreadable


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
    # (seat or None for chance, move text, the cards each seat saw by it: () if none)
    moves: list[tuple[int | None, str, Seen]] = field(default_factory=list)
    transcript: list[TranscriptEntry] = field(default_factory=list)

    def to_text(self) -> str:
        lines = [f'[{k} "{_escape(self.tags[k])}"]' for k in tag_order(self.tags) if k in self.tags]
        lines.append("")
        for n, (seat, text, seen) in enumerate(self.moves, 1):
            noted = " ".join(f"{s}:{','.join(cards)}" for s, cards in enumerate(seen) if cards)
            who = "chance" if seat is None else seat
            lines.append(f"{n}. {who} {text}" + (f" | {noted}" if noted else ""))
        lines += ["", "[Transcript]"]
        for e in self.transcript:
            if e.kind == "move":
                lines.append(f"move {e.seat} {_b64(e.signature)} {e.text}")
            else:
                lines.append(f"{e.kind} {_b64(msgpack.packb(e.data, use_bin_type=True))}")
        return "\n".join(lines) + "\n"


def read_record_file(path: Path) -> str:
    """The text of the record file at ``path``. Raises ``OSError`` (it cannot be read) or
    ``RecordError`` (``unreadable``: no regular file, over ``MAX_RECORD_BYTES``, or not
    UTF-8). At most that many bytes are read, and a FIFO or device is refused before it is
    read: a record is any file a player names, which must not hang or exhaust the reader."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # (no wait on a FIFO)
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise RecordError("not a regular file", unreadable=True)
        data = f.read(MAX_RECORD_BYTES + 1)
    if len(data) > MAX_RECORD_BYTES:
        raise RecordError(f"over {MAX_RECORD_BYTES} bytes", unreadable=True)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise RecordError(f"not UTF-8 text (byte {e.start})", unreadable=True) from None


def record_lines(text: str) -> list[str]:
    """The lines of a record: CRLF or LF line ends, the final one optional."""
    lines = text.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def parse_record(text: str) -> GameRecord:
    """Read a record; raise ``RecordError`` naming the first bad line."""
    if len(text) > MAX_RECORD_BYTES:
        raise RecordError(f"a record is at most {MAX_RECORD_BYTES} bytes", unreadable=True)
    lines = record_lines(text)
    control = _CONTROL.search("\n".join(lines))
    if control:
        line = text[: control.start()].replace("\r\n", "\n").count("\n") + 1
        raise RecordError(
            f"line {line}: control character {control[0]!r}", unreadable="\0" in control[0]
        )
    first = _TAG.fullmatch(lines[0]) if lines else None
    if not first or first[1] != "Format":
        raise RecordError(
            # Said after "not a game record:" by whoever reports it.
            f'the first line must be [Format "{FORMAT}"]',
            unreadable=True,
        )
    if first[2] not in DECK_VERSIONS:
        raise RecordError(
            f"a {first[2]!r} record: this program reads {', '.join(DECK_VERSIONS)}",
            unreadable=True,
        )
    record = GameRecord()
    n = 0
    for n, line in enumerate(lines, 1):
        if line == "":
            break
        _tag(record.tags, line, f"line {n}")
    else:
        raise RecordError("the record ends inside its tags")
    missing = [k for k in tag_order(record.tags) if k not in record.tags]
    if missing:
        raise RecordError(f"line {n}: the tags end before {missing[0]}")
    i = n
    while i < len(lines) and lines[i] != "":
        where = f"line {i + 1}"
        m = _MOVE.fullmatch(lines[i])
        if not m or int(m[1]) != len(record.moves) + 1:
            raise RecordError(f"{where}: expected move {len(record.moves) + 1} as 'N. SEAT MOVE'")
        record.moves.append((None if m[2] == "chance" else int(m[2]), m[3], _seen(m[4], where)))
        i += 1
    if i + 1 >= len(lines) or lines[i + 1] != "[Transcript]":
        raise RecordError(f"line {i + 2}: expected a blank line, then [Transcript]")
    for j in range(i + 2, len(lines)):
        record.transcript.append(_entry(lines[j], f"line {j + 1}"))
    _canonical(record, lines)
    return record


def _tag(tags: dict[str, str], line: str, where: str) -> None:
    m = _TAG.fullmatch(line)
    if not m:
        raise RecordError(f'{where}: expected a tag like [Name "value"]')
    name = m[1]
    if name == "Players" and not re.fullmatch(f"[2-{MAX_SEATS}]", m[2]):
        raise RecordError(f"{where}: Players is the number of seats, 2 to {MAX_SEATS}")
    practice = name == "Practice" and len(tags) == 1  # the tag that makes it a practice record
    order = tag_order({**tags, name: ""} if practice else tags)
    if name not in order and _SEAT_TAG.fullmatch(name) and "Practice" not in tags:
        raise RecordError(f"{where}: tag {name} does not fit Players {tags.get('Players')!r}")
    if name not in order:
        raise RecordError(f"{where}: unknown tag {name}")
    if name in tags:
        raise RecordError(f"{where}: tag {name} given twice")
    if len(tags) >= len(order):
        raise RecordError(f"{where}: tag {name} after the last tag")
    expected = order[len(tags)]
    if name != expected:
        raise RecordError(f"{where}: tag {name} out of order: {expected} comes here")
    tags[name] = _unescape(m[2])


def tag_order(tags: Mapping[str, str]) -> tuple[str, ...]:
    """The tags a record has, in order: a practice record's or a game's (two seats until
    its ``Players`` tag says otherwise)."""
    players = tags.get("Players", "2")
    seats = int(players) if re.fullmatch(r"[2-6]", players) else 2
    if "Practice" in tags and tags.get("Format") == FORMAT_3:
        return _PRACTICE_TAGS_3
    if "Practice" in tags:
        names = (f"Seat{s}" for s in range(seats))
        return (*_PRACTICE_BEFORE_SEATS, *names, *_PRACTICE_AFTER_SEATS)
    each = [(f"Seat{s}", f"Seat{s}Key") for s in range(seats)]
    after = _AFTER_SEATS
    if tags.get("Signer") == WATCHER:
        after = (*_AFTER_SEATS[:-1], "SignerKey", _AFTER_SEATS[-1])
    return (*_BEFORE_SEATS, *(t for pair in each for t in pair), *after)


_SEAT_TAG = re.compile(r"Seat[0-9]+(Key)?")

# What a cuttle-record/3 practice record leaves unsaid: it was always Cuttle for two
# players, seat 1 dealing (SPEC 5.5).
_PRACTICE_3_TABLE = {"Game": "cuttle", "Players": "2", "Dealer": "1"}


def table_tags(tags: Mapping[str, str]) -> dict[str, str]:
    """``tags`` with the game, the players and the dealer always named: a /3 practice
    record's are filled in, so no reader needs to know which game that format held."""
    if "Practice" in tags and tags.get("Format") == FORMAT_3:
        return {**_PRACTICE_3_TABLE, **tags}
    return dict(tags)


def is_practice(record: GameRecord) -> bool:
    return "Practice" in record.tags


def build_practice_record(
    module: GameModule,
    rules: Any,
    dealer: int,
    order: Sequence[int],
    moves: Sequence[tuple[int | None, str]],
    names: Sequence[str],
    bot: str,
    date: str,
) -> str:
    """The record of a practice game (one name a seat): the deal in the open, the moves,
    how it ended."""
    seats = len(names)
    game, _ = replay(module, rules, seats, dealer, order, moves)
    outcome = module.outcome(game)
    end = Ending(outcome.reason) if outcome is not None else unfinished_ending("left unfinished")
    tags = {
        "Format": FORMAT,
        "Practice": bot,
        "Date": date,
        "Game": module.name,
        "Rules": rules.name,
        "Players": str(seats),
    }
    tags |= {f"Seat{s}": name for s, name in enumerate(names)}
    tags |= {
        "Dealer": str(dealer),
        "Deal": deal_text(module, order),
        "Result": end.result(outcome.winners if outcome is not None else None, seats),
        "Ending": str(end),
    }
    return GameRecord(tags, [(s, t, ()) for s, t in moves]).to_text()


def deal_text(module: GameModule, order: Sequence[int]) -> str:
    """A practice record's ``Deal``: each card's face, top card first, one space between."""
    return " ".join(module.card_text(c) for c in order)


def parse_deal(module: GameModule, rules: Any, text: str) -> list[int]:
    """The card ids of a ``Deal`` (``ValueError``).  A face met again is its next copy
    (two identical decks: id = face + faces), so the text gives one order of ids."""
    faces, met = module.faces(rules), Counter[int]()
    order = []
    for word in text.split(" "):
        face = module.parse_card(word)
        order.append(face + faces * met[face])
        met[face] += 1
    if sorted(order) != list(range(rules.deck_size)):
        raise ValueError(f"the deck, each of its {rules.deck_size} cards once")
    if deal_text(module, order) != text:
        raise ValueError("the faces of the deck, as the game writes them, one space between")
    return order


def _canonical(record: GameRecord, lines: list[str]) -> None:
    """One text per record: anything the writer would write differently is an error."""
    written = record.to_text().split("\n")[:-1]
    for n, (got, want) in enumerate(zip(lines, written, strict=False), 1):
        if got != want:
            raise RecordError(f"line {n} is not written as this format writes it: {want[:60]!r}")
    if len(lines) != len(written):
        raise RecordError(f"the record has {len(lines)} lines, its content {len(written)}")


def record_digest(text: str) -> bytes:
    """What the ``Signature`` tag signs: every line of the record but that tag's."""
    kept = [line for line in record_lines(text) if not line.startswith("[Signature ")]
    return hash256("record", "\n".join(kept))


def build_record(session: GameSession, names: tuple[str, ...], date: str, note: str = "") -> str:
    """The text of ``session``'s record, signed by this seat.

    ``names`` are the players in seat order; ``note`` says how an unfinished game ended
    (a disconnection, say) when the session itself cannot know.  After an audit the deck
    order is known, so each move notes the cards each seat saw by it.
    """
    module = session.module
    texts = [(seat, CONCEDE if m == CONCEDE else module.move_text(m)) for seat, m in session.played]
    return signed_record(
        session.header,
        names,
        date,
        result=session.result,
        ending=str(session.ending(note)),
        audit=session.audit,
        signer=str(session.seat),
        played=texts,
        deck=session.deck,
        deck_cut=session.deck_cut,
        moves=session.records,
        sign=session.sign,
    )


def signed_record(
    header: GameHeader,
    names: Sequence[str],
    date: str,
    *,
    result: str,
    ending: str,
    audit: bytes | None,
    signer: str,
    played: Sequence[tuple[int | None, str]],
    deck: Any,
    deck_cut: int | None,
    moves: Sequence[MoveRecord],
    sign: Callable[[bytes], bytes],
    signer_key: bytes | None = None,
) -> str:
    """A record's text: the tags, the moves (``played``: seat and notation, with the cards
    each seat saw once ``audit`` revealed the deck's order), the transcript (``deck``'s
    log up to ``deck_cut`` with each signed move placed where it was made), signed by
    ``sign``. ``signer``: a seat, or ``WATCHER`` with ``signer_key``, its own key."""
    module = game_module(header.name)
    tags = {
        "Format": FORMAT,
        "Date": date,
        "Game": header.name,
        "Rules": header.rules.name,
        "Players": str(header.seats),
    }
    for s in range(header.seats):
        tags[f"Seat{s}"] = names[s]
        tags[f"Seat{s}Key"] = header.keys[s].hex()
    tags |= {
        "Dealer": str(header.dealer),
        "Connection": header.connection.hex(),
        "Number": str(header.number),
        "Session": header.session_id.hex(),
        "Result": result,
        "Ending": ending,
        "Audit": audit.hex() if audit else "none",
        "Signer": signer,
    }
    if signer_key is not None:
        tags["SignerKey"] = signer_key.hex()
    texts = list(played)
    seen_moves: list[tuple[int | None, str, Seen]] = [(seat, t, ()) for seat, t in texts]
    if audit is not None:
        order = deck.deck_order()
        _, steps = replay(module, header.rules, header.seats, header.dealer, order, texts)
        seen_moves = [(step.seat, step.text, step.seen) for step in steps]
    transcript: list[TranscriptEntry] = []
    signed = list(moves)
    for i, (kind, data) in enumerate(deck.transcript()[:deck_cut]):
        while signed and signed[0].deck_at <= i:
            transcript.append(_move_entry(signed.pop(0)))
        transcript.append(TranscriptEntry(kind, data))
    transcript += [_move_entry(r) for r in signed]
    unsigned = GameRecord(tags, seen_moves, transcript).to_text()
    signature = sign(record_digest(unsigned)).hex()
    return GameRecord({**tags, "Signature": signature}, seen_moves, transcript).to_text()


def _move_entry(r: MoveRecord) -> TranscriptEntry:
    return TranscriptEntry("move", seat=r.seat, signature=r.signature, text=r.text)


def _seen(text: str | None, where: str) -> Seen:
    if not text:
        return ()
    seen: list[tuple[str, ...]] = [() for _ in range(MAX_SEATS)]
    for item in text.split(" "):
        m = _SEEN.fullmatch(item)
        if not m or int(m[1]) >= MAX_SEATS or seen[int(m[1])]:
            raise RecordError(f"{where}: {item!r} is not SEAT:CARD,CARD…")
        seen[int(m[1])] = tuple(m[2].split(","))
    while not seen[-1]:
        seen.pop()
    return tuple(seen)


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
            if len(seat) != 1 or not "0" <= seat < str(MAX_SEATS):
                raise ValueError(f"the seat is 0 to {MAX_SEATS - 1}")
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
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


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
