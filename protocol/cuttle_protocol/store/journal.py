"""A seat's journal file on disk: the records, the claim a live process holds on it, and
where journals live (SPEC 4.6).  What a table seat writes in it, and how it rebuilds the
seat, is ``store.seatjournal``'s.

The file lives in ``<data dir>/journal/`` (mode 0700), is written 0600 (the seed it keeps
is as secret as the deck keys it yields), and is removed once the table is over.

File layout: records, each a 4-byte big-endian body length, the first 4 bytes of that
length's SHA-256, the body's SHA-256, and the body (strict msgpack).  The first record is
the header, written atomically (a temporary file renamed into place); the others are
appended, and fsynced before what they cause is sent (``store.seatjournal``'s ``sync``).
A torn last record (the process died while writing it, so nothing it caused was sent) is
dropped; any other damage makes the journal unusable,
with a message saying what is wrong.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import struct
from pathlib import Path
from typing import Any

import msgpack

try:
    import fcntl
except ImportError:  # Windows: no claims, one process per data folder is the user's care
    fcntl = None  # type: ignore[assignment]


from ..wire.codec import pack
from .dirs import data_dir as default_data_dir
from .dirs import games_dir
from .identity import default_config_dir, private_dir, usable_dir

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


# ---------------------------------------------------------------------- paths


def journal_dir(data_dir: Path) -> Path:
    return data_dir / "journal"


def check_folders(config_dir: Path | None, data_dir: Path | None) -> None:
    """Make or check the folders a seat or a watcher writes to, before it meets anyone: a
    file where one should be otherwise surfaces only mid-game (the journal) or at the
    game's end (the record, then lost). Raises ConfigError naming the folder."""
    private_dir(config_dir or default_config_dir())
    data = data_dir or default_data_dir()
    private_dir(journal_dir(data), "the journal directory")
    usable_dir(games_dir(data), "the records directory")


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.-]+", "_", text)


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
