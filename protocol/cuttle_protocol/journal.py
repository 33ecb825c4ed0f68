"""The journal of a game in progress: what a killed process needs to resume it (SPEC 4.6).

The session is deterministic given its randomness and its inputs, so the journal keeps
neither the session nor what was sent, but what rebuilds both:

- a header: who we are playing (the peer's identity key and name), the match (the first
  connection's session id, our seat in game 0, the game by its registry name and its rules
  token: the game's module reads them), where to meet again (the host's
  address, or the port we listen on), the game number, and the **seed** from which all of
  this side's randomness in the game is drawn (``cuttle_net.drbg``);
- the inputs, in order: every move and deck message received from the peer, every local
  decision, a timeout; each with a digest of everything the session had sent after it.

Replaying the inputs into a fresh session gives the same session, the same messages sent
(checked against the digests), and the count of messages received: what the `resume`
exchange needs.  An input is journaled (and flushed to disk) before any message it causes
leaves, so the peer never holds a message that the journal cannot reproduce.

The file lives in ``<data dir>/journal/`` (mode 0700), is written 0600 (the seed is as
secret as the deck key it yields), and is removed once the game's record is saved.

File layout: records, each a 4-byte big-endian body length, the first 4 bytes of that
length's SHA-256, the body's SHA-256, and the body (strict msgpack).  The first record is
the header, written atomically (a temporary file renamed into place); the others are
appended and fsynced one by one.  A torn last
record (the process died while writing it, so nothing it caused was sent) is dropped; any
other damage makes the journal unusable, with a message saying what is wrong.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import struct
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import msgpack

try:
    import fcntl
except ImportError:  # Windows: no claims, one process per data folder is the user's care
    fcntl = None  # type: ignore[assignment]
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cuttle_net.drbg import seeded_rng
from cuttle_net.games.interface import game_module
from cuttle_net.identity_key import check_identity_key
from cuttle_net.records.header import GameHeader
from cuttle_net.session import GameSession, Output, SendDeck, SendMove

from .address import parse_address
from .codec import pack
from .identity import private_dir
from .invitation import Invitation, is_invitation

FORMAT = "cuttle-journal/2"  # 2: the game and its rules token (1: Cuttle's rules by field)
_LENGTH = struct.Struct(">I")
_CHECK = 4
_HASH = 32
_HEAD = _LENGTH.size + _CHECK + _HASH
MAX_RECORD = 16 * 2**20  # far above any deck message; a bigger length is damage


class JournalDamaged(Exception):
    """The journal cannot be used: ``path`` and a message saying what is wrong."""

    def __init__(self, path: Path, why: str) -> None:
        super().__init__(f"the journal {path} is damaged: {why}")
        self.path = path
        self.why = why


class JournalInUse(Exception):
    """Another live process plays the game of the journal at ``path`` (its claim is held)."""

    def __init__(self, path: Path) -> None:
        super().__init__(f"the journal {path} is in use by another cuttle process")
        self.path = path


@dataclass(frozen=True)
class Header:
    """The match and game a journal belongs to."""

    role: str  # "host" or "joiner"
    name: str  # ours
    peer_name: str
    peer_identity: bytes  # the peer's Ed25519 identity key: only it may take the seat back
    match: bytes  # the first connection's session id (game session ids derive from it)
    first_seat: int  # our seat in game 0 (the seat alternates game by game)
    game_name: str  # the game, by its registry name
    token: str  # its rules token (the module's `parse_rules`)
    address: str  # join: the host's HOST:PORT
    bind: str  # host: the address and port we listened on
    port: int
    game: int  # the game in progress, from 0
    seed: bytes  # all of our randomness in this game (secret)

    @property
    def rules(self) -> Any:
        """The game's rules (``ValueError`` for an unknown game or token)."""
        return game_module(self.game_name).parse_rules(self.token, 2)

    @property
    def seat(self) -> int:
        return self.first_seat if self.game % 2 == 0 else 1 - self.first_seat

    def game_header(self, identity: Ed25519PrivateKey) -> GameHeader:
        """The game's header (SPEC 4.1), with our key and the peer's in seat order."""
        mine = identity.public_key().public_bytes_raw()
        keys = (mine, self.peer_identity) if self.seat == 0 else (self.peer_identity, mine)
        return GameHeader(self.match, self.game + 1, self.game_name, self.rules, 1, keys)


# --------------------------------------------------------------------- inputs


def move_input(text: str, signature: bytes) -> list[Any]:
    return ["move", text, signature]


def deck_input(data: dict[str, Any]) -> list[Any]:
    return ["deck", data]


def local_input(move: str) -> list[Any]:
    return ["local", move]


TIMEOUT_INPUT = ["timeout"]
START_INPUT = ["start"]


def apply_input(session: GameSession, entry: list[Any]) -> Output:
    """Feed one journaled input to ``session``, as the live game did."""
    kind = entry[0]
    if kind == "start":
        return session.start()
    if kind == "move":
        return session.receive_move(1 - session.seat, entry[1], entry[2])
    if kind == "deck":
        return session.receive_deck(1 - session.seat, entry[1])
    if kind == "local":
        return session.play(entry[1])
    if kind == "timeout":
        return session.timed_out()
    raise ValueError(f"unknown input {kind!r}")


def from_peer(entry: list[Any]) -> bool:
    return entry[0] in ("move", "deck")


def _sent_digest(before: bytes, out: Output) -> bytes:
    h = hashlib.sha256(before)
    for item in out.sends:
        wire = ["move", item.text, item.signature] if isinstance(item, SendMove) else item.data
        h.update(pack(wire))
    return h.digest()


# ---------------------------------------------------------------------- paths


def journal_dir(data_dir: Path) -> Path:
    return data_dir / "journal"


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.-]+", "_", text)


def join_path(data_dir: Path, address: str) -> Path:
    """Where the journal of a game joined at ``address`` (or by an invitation) lives."""
    if is_invitation(address):
        return (
            journal_dir(data_dir) / f"join-{Invitation.decode(address).fingerprint.hex()}.journal"
        )
    host, port = parse_address(address)
    return journal_dir(data_dir) / f"join-{_safe(host)}-{port}.journal"


def host_path(data_dir: Path, port: int) -> Path:
    return journal_dir(data_dir) / f"host-{port}.journal"


def unfinished_games(data_dir: Path) -> list[tuple[Path, Header]]:
    """The journals of unfinished games under ``data_dir`` with their headers (damaged
    ones are left for the command that resumes them to report)."""
    found = []
    for path in sorted(journal_dir(data_dir).glob("*.journal")):
        try:
            found.append((path, read_header(path)[0]))
        except JournalDamaged:
            continue
    return found


def find_host_journal(data_dir: Path, port: int) -> Path | None:
    """The journal of a game we hosted on ``port`` (0: on any port, the latest that no
    other live process plays: another ``cuttle host --port 0`` on the same data folder
    starts a game of its own)."""
    if port:
        path = host_path(data_dir, port)
        return path if path.exists() else None
    found = sorted(journal_dir(data_dir).glob("host-*.journal"), key=lambda p: p.stat().st_mtime)
    return next((path for path in reversed(found) if not in_use(path)), None)


# ------------------------------------------------------------------- claims
#
# A live process holds an exclusive `flock` on ``<journal>.lock`` (beside the journal) for as
# long as it plays or resumes that journal's game, so that another process on the same data
# folder never takes a live game for an unfinished one. The kernel drops the lock when the
# process dies, which is when its game becomes an unfinished one. The holder removes the
# file as it lets go; so a lock taken on a file that is no longer the one of that name is
# let go and taken again.

_claims: dict[str, int] = {}  # journal path -> the descriptor holding its lock, in this process


def _claim_key(journal: Path) -> str:
    return os.path.abspath(journal)


def claim(journal: Path) -> None:
    """Make ``journal``'s game this process's (again: a no-op). Raises ``JournalInUse`` if
    another live process holds it."""
    key = _claim_key(journal)
    if fcntl is None or key in _claims:
        return
    private_dir(journal.parent, "the journal directory")
    lock = journal.with_suffix(".lock")
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
    while True:
        fd = os.open(lock, flags, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise JournalInUse(journal) from None
        try:
            if os.stat(lock).st_ino == os.fstat(fd).st_ino:
                _claims[key] = fd
                return
        except FileNotFoundError:
            pass
        os.close(fd)  # its holder removed it as we opened it: take the new one


def release(journal: Path) -> None:
    """This process no longer plays ``journal``'s game (kept or not)."""
    fd = _claims.pop(_claim_key(journal), None)
    if fd is not None:
        with contextlib.suppress(FileNotFoundError):
            journal.with_suffix(".lock").unlink()  # while we hold it: see above
        os.close(fd)


def in_use(journal: Path) -> bool:
    """Another live process plays ``journal``'s game."""
    if _claim_key(journal) in _claims:
        return False
    try:
        claim(journal)
    except JournalInUse:
        return True
    release(journal)
    return False


# ------------------------------------------------------------------- writing


def _length(n: int) -> bytes:
    """A record's length and its own check: a torn write can cut only the file's end, so a
    length that does not check is damage, not a write in progress."""
    length = _LENGTH.pack(n)
    return length + hashlib.sha256(length).digest()[:_CHECK]


def _record(value: Any) -> bytes:
    body = pack(value)
    return _length(len(body)) + hashlib.sha256(body).digest() + body


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@dataclass(frozen=True)
class Place:
    """Where a match's journal goes, who we are, and how to meet the peer again."""

    path: Path
    name: str
    address: str = ""  # join: the host's HOST:PORT
    bind: str = ""  # host: the address and port we listen on
    port: int = 0


class JournalWriter:
    """Keeps one side's journal of the games of one match, at ``place.path``."""

    def __init__(self, place: Place) -> None:
        self.place = place
        self.path = place.path
        self._file: Any = None
        self._sent = b""

    def begin_game(
        self,
        *,
        role: str,
        peer_name: str,
        peer_identity: bytes,
        match: bytes,
        first_seat: int,
        game_name: str,
        rules: Any,
        game: int,
        seed: bytes,
    ) -> None:
        """Start the journal of a game: the header replaces any earlier game's journal.
        `rules`: the game's rules (their ``name`` is the token its module parses)."""
        p = self.place
        self.begin(
            Header(
                role,
                p.name,
                peer_name,
                peer_identity,
                match,
                first_seat,
                game_name,
                rules.name,
                p.address,
                p.bind,
                p.port,
                game,
                seed,
            )
        )

    def begin(self, header: Header) -> None:
        """Start the journal of a game: the header replaces any earlier game's journal."""
        self._close_file()
        claim(self.path)
        private_dir(self.path.parent, "the journal directory")
        temporary = self.path.with_suffix(".tmp")
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()  # a crash's leftover: never write through what is there
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(_record(_header_wire(header)))
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, self.path)
        _fsync_dir(self.path.parent)
        self._open(b"")

    def resume(self, sent: bytes) -> None:
        """Go on appending to the journal a replay was read from (``sent``: its digest)."""
        self._open(sent)

    def _open(self, sent: bytes) -> None:
        claim(self.path)
        self._file = open(self.path, "ab")  # noqa: SIM115 (kept open for the game)
        self._sent = sent

    def append(self, entry: list[Any], out: Output) -> None:
        """Keep one input and what it made us send; on disk before any of it leaves."""
        if self._file is None:
            return
        self._sent = _sent_digest(self._sent, out)
        self._file.write(_record([*entry, self._sent]))
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        """The match is over here: the journal (if the game left one) is free for another
        process to resume."""
        self._close_file()
        release(self.path)

    def _close_file(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def remove(self) -> None:
        """The game's record is saved: its journal is no longer needed (the claim is kept
        for the next game of the match)."""
        self._close_file()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()


def _header_wire(h: Header) -> dict[str, Any]:
    return {"format": FORMAT, **asdict(h)}


# ------------------------------------------------------------------- reading


@dataclass
class Replayed:
    """A game rebuilt from its journal."""

    header: Header
    session: GameSession
    sent: list[SendMove | SendDeck]  # every game message we had sent, in order
    received: int  # how many game messages we had received
    digest: bytes  # of ``sent``, to go on journaling
    torn: bool  # a torn last record was dropped


def _records(data: bytes, path: Path) -> tuple[list[Any], bool]:
    """Each record's value, and whether a torn last record was left out."""
    values: list[Any] = []
    at = 0
    while at < len(data):
        if len(data) - at < _LENGTH.size + _CHECK:
            return values, True  # the last record was being written when the process died
        (length,) = _LENGTH.unpack_from(data, at)
        if data[at : at + _LENGTH.size + _CHECK] != _length(length) or length > MAX_RECORD:
            raise JournalDamaged(path, f"the record at byte {at} has a damaged length")
        end = at + _HEAD + length
        if end > len(data):
            return values, True
        body = data[at + _HEAD : end]
        if hashlib.sha256(body).digest() != data[end - length - _HASH : end - length]:
            if end == len(data):
                return values, True
            raise JournalDamaged(path, f"the record at byte {at} does not match its checksum")
        try:
            values.append(msgpack.unpackb(body, raw=False, strict_map_key=True))
        except (ValueError, msgpack.UnpackException) as e:
            raise JournalDamaged(path, f"the record at byte {at} is not msgpack: {e}") from None
        at = end
    return values, False


def read_records(path: Path) -> tuple[list[Any], bool]:
    """The records of the journal at ``path`` (at least its header), and whether a torn last
    record was dropped.  Raises ``JournalDamaged``."""
    try:
        data = path.read_bytes()
    except OSError as e:
        raise JournalDamaged(path, e.strerror or str(e)) from None
    records, torn = _records(data, path)
    if not records:
        raise JournalDamaged(path, "no header (empty or torn)")
    return records, torn


def read_header(path: Path) -> tuple[Header, list[list[Any]], bool]:
    """The header and the inputs of the journal at ``path``, and whether a torn last record
    was dropped.  Raises ``JournalDamaged``."""
    records, torn = read_records(path)
    header = _parse_header(records[0], path)
    for n, value in enumerate(records[1:]):
        _check_input(value, n, path)
    return header, records[1:], torn


# Each input's kind and the types of its fields (the digest of what was sent follows them).
_INPUTS: dict[str, tuple[type, ...]] = {
    "start": (),
    "timeout": (),
    "move": (str, bytes),
    "deck": (dict,),
    "local": (str,),
}


def _check_input(value: Any, n: int, path: Path) -> None:
    """An input as `JournalWriter.append` writes it, or ``JournalDamaged`` saying how not:
    the replay then never meets a field of the wrong type."""
    if (
        type(value) is not list
        or len(value) < 2
        or type(value[-1]) is not bytes
        or len(value[-1]) != _HASH
    ):
        raise JournalDamaged(path, f"input {n} is not a list ending in a digest: {value!r:.60}")
    kind, *fields = value[:-1]
    shape = _INPUTS.get(kind) if type(kind) is str else None
    if shape is None:
        raise JournalDamaged(path, f"input {n} is of no known kind: {kind!r:.40}")
    if len(fields) != len(shape) or any(
        type(f) is not t for f, t in zip(fields, shape, strict=True)
    ):
        want = ", ".join(t.__name__ for t in shape) or "nothing"
        raise JournalDamaged(path, f"input {n} ({kind!r}) does not hold {want}: {value!r:.60}")


# The header's fields and their types, exactly (bool is not an int here).
_HEADER: dict[str, type] = {
    "role": str,
    "name": str,
    "peer_name": str,
    "peer_identity": bytes,
    "match": bytes,
    "first_seat": int,
    "game_name": str,
    "token": str,
    "address": str,
    "bind": str,
    "port": int,
    "game": int,
    "seed": bytes,
}


def _parse_header(value: Any, path: Path) -> Header:
    if not isinstance(value, dict) or value.get("format") != FORMAT:
        raise JournalDamaged(path, f"not a {FORMAT} journal")
    fields = {k: v for k, v in value.items() if k != "format"}
    if set(fields) != set(_HEADER):
        missing = ", ".join(sorted(set(_HEADER) - set(fields))) or "none"
        extra = ", ".join(sorted(map(repr, set(fields) - set(_HEADER)))) or "none"
        raise JournalDamaged(path, f"the header does not fit: missing {missing}; unknown {extra}")
    for name, kind in _HEADER.items():
        if type(fields[name]) is not kind:
            raise JournalDamaged(path, f"the header's {name} is not a {kind.__name__}")
    header = Header(**fields)
    checks = [
        (0 <= header.port < 65_536, "port"),
        (header.role in ("host", "joiner"), "role"),
        (isinstance(header.seed, bytes) and len(header.seed) == 32, "seed"),
        (isinstance(header.match, bytes) and len(header.match) == 32, "match"),
        (header.first_seat in (0, 1), "first_seat"),
        (isinstance(header.game, int) and 0 <= header.game < 2**32, "game"),
        (isinstance(header.peer_identity, bytes), "peer_identity"),
    ]
    for ok, name in checks:
        if not ok:
            raise JournalDamaged(path, f"the header's {name} is not valid")
    try:
        check_identity_key(header.peer_identity)
        header.rules  # noqa: B018 (validates the game and its token)
    except ValueError as e:
        raise JournalDamaged(path, str(e)) from None
    return header


def replay(path: Path, identity: Ed25519PrivateKey) -> Replayed:
    """Rebuild the game journaled at ``path``; raise ``JournalDamaged`` if it cannot be."""
    header, entries, torn = read_header(path)
    try:
        session = GameSession(
            header.seat, header.game_header(identity), identity, rng=seeded_rng(header.seed)
        )
    except ValueError as e:
        raise JournalDamaged(path, f"the header gives no game: {e}") from None
    sent: list[SendMove | SendDeck] = []
    received = 0
    digest = b""
    for n, entry in enumerate(entries):
        *entry, kept = entry
        try:
            out = apply_input(session, entry)
        except Exception as e:  # whatever an input breaks, the journal is damaged
            why = f"input {n} ({entry[0]!r}) cannot be replayed: {type(e).__name__}: {e}"
            raise JournalDamaged(path, why) from None
        digest = _sent_digest(digest, out)
        if digest != kept:
            why = f"input {n} ({entry[0]!r}) does not give what was sent (another key or build?)"
            raise JournalDamaged(path, why)
        sent.extend(out.sends)
        received += from_peer(entry)
    return Replayed(header, session, sent, received, digest, torn)
