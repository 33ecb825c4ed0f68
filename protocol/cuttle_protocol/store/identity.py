"""Long-term identity keys and the known-peers store (trust on first use), on disk.

Both live in the config directory (`cuttle_protocol.store.dirs.config_dir`: on Linux
`$XDG_CONFIG_HOME/cuttle-net/`, else `~/.config/cuttle-net/`). Every function takes the
directory as a parameter so tests and multiple profiles can use their own.

The directory is private (0700) and every file in it is written owner-only (0600) through
a fresh temporary file (`O_EXCL|O_NOFOLLOW`) renamed into place: nobody else can read the
key, plant a file for us to follow, or see a half-written store. A directory that already
exists with group or world permissions is tightened if it is ours, refused if it is not.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import stat
from enum import StrEnum
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cuttle_net.identity_key import BadIdentityKey, check_identity_key

from ..wire.crypto import fingerprint
from . import dirs

IDENTITY_FILE = "identity.pem"
KNOWN_PEERS_FILE = "known_peers.json"


class ConfigError(ValueError):
    """The config directory or a file in it cannot be used safely; the message says why."""


default_config_dir = dirs.config_dir  # the folder each system expects (platformdirs)


# --- private files ------------------------------------------------------------------------


def _tighten(path: Path, st: os.stat_result, private_mode: int, what: str) -> None:
    """Make `path` owner-only if it is ours; refuse it if someone else owns it."""
    if st.st_uid != os.getuid():
        raise ConfigError(f"{what} {path} belongs to another user (uid {st.st_uid}): not used")
    if stat.S_IMODE(st.st_mode) & 0o077:
        os.chmod(path, private_mode)


def usable_dir(path: Path, what: str, mode: int = 0o777) -> os.stat_result:
    """Create the directory `path` or check an existing one; a file, a dangling symlink or
    a path we may not create is a ConfigError naming `what` (never a traceback)."""
    try:
        path.mkdir(mode=mode, parents=True, exist_ok=True)
        st = path.stat()  # a symlink to a directory of ours is fine (dotfile managers use them)
    except FileExistsError:  # a file (or a dangling symlink) where the directory should be
        raise ConfigError(f"{what} {path} is not a directory") from None
    except OSError as exc:
        raise ConfigError(f"{what} {path} cannot be made: {exc.strerror or exc}") from None
    if not stat.S_ISDIR(st.st_mode):
        raise ConfigError(f"{what} {path} is not a directory")
    return st


def private_dir(path: Path, what: str = "the config directory") -> Path:
    """Create `path` (mode 0700) or check an existing one: ours, a directory, owner-only."""
    st = usable_dir(path, what, 0o700)
    _tighten(path, st, 0o700, what)
    return path


def read_private(path: Path) -> bytes | None:
    """The bytes of a file of the config directory, or None if there is none.

    The file must be ours and not a symlink; group or world permissions are removed.
    """
    private_dir(path.parent)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror} (a symlink is refused)") from None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise ConfigError(f"{path} is not a regular file")
        _tighten(path, st, 0o600, "the file")
        return f.read()


def write_private(path: Path, data: bytes, *, replace: bool = True) -> bool:
    """Write `data` to `path`, owner-only, whole or not at all.

    With `replace=False` an existing file is kept: return False (and write nothing) if
    `path` already exists, as when two processes create the same identity at once.
    """
    private_dir(path.parent)
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    fd = os.open(temporary, flags, 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), 0o600)  # whatever the umask
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if replace:
            os.replace(temporary, path)
            return True
        try:
            os.link(temporary, path)  # fails if `path` exists: never clobbers
        except FileExistsError:
            return False
        return True
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)


def read_json(path: Path) -> Any:
    """A JSON document of the config directory, or None; a broken one is a ConfigError."""
    data = read_private(path)
    if data is None:
        return None
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{path} is not valid JSON ({exc}); fix or remove it") from None


def write_json(path: Path, document: Any) -> None:
    write_private(path, (json.dumps(document, indent=2, sort_keys=True) + "\n").encode())


# --- the identity key ---------------------------------------------------------------------


def _load_identity(path: Path, pem: bytes) -> Ed25519PrivateKey:
    try:
        key = serialization.load_pem_private_key(pem, password=None)
    except (ValueError, TypeError) as exc:
        raise ConfigError(f"{path} does not hold a usable private key ({exc})") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise ConfigError(f"{path} does not hold an Ed25519 private key")
    return key


def load_or_create_identity(config_dir: Path) -> Ed25519PrivateKey:
    """Our Ed25519 identity key, generated and saved (mode 0600) on first use."""
    path = config_dir / IDENTITY_FILE
    pem = read_private(path)
    if pem is not None:
        return _load_identity(path, pem)
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    if write_private(path, pem, replace=False):
        return key
    # Another process created it first: use theirs, so both agree on who we are.
    return _load_identity(path, read_private(path) or b"")


# --- known peers --------------------------------------------------------------------------


class Trust(StrEnum):
    """What the known-peers store says of a peer: its name and its identity key.

    Peers are remembered by key fingerprint, each with the name it last had.

    - ``NEW``: neither this key nor this name was ever seen; both are now remembered.
    - ``KNOWN``: this key, under this name, as before.
    - ``CHANGED``: a known *name* now presents a *different key* (this key is unknown, or
      known under another name): possibly an impostor. Warn loudly; show
      ``KnownPeers.fingerprint_of(name)`` (the key remembered for that name) next to the
      new one; nothing is overwritten until ``KnownPeers.remember``.
    - ``RENAMED``: a known *key* now presents a *new name* (the name is not anyone else's).
      The same player (the handshake proved the key), under another name: show
      ``KnownPeers.name_of(key)``; the old name is kept until ``KnownPeers.remember``.
    """

    NEW = "new"
    KNOWN = "known"
    CHANGED = "changed"
    RENAMED = "renamed"


class KnownPeers:
    """Identity keys met before, by fingerprint, with their names (like SSH's known_hosts).

    `known_peers.json` (version 2): ``{"version": 2, "peers": {fingerprint: {"key": hex,
    "name": name}}}``. A version 1 file (by name) is read and rewritten as version 2 at the
    next change. A name belongs to one key at a time.
    """

    VERSION = 2

    def __init__(self, config_dir: Path) -> None:
        """Raises ConfigError for a file that is no known-peers file: said now, before a
        table opens, not when the first player arrives (a table host's serving task
        raised it, which stopped the host with a traceback)."""
        self.path = config_dir / KNOWN_PEERS_FILE
        if os.path.lexists(self.path):  # (no file: nothing to check, no folder made yet)
            self._load()

    def _load(self) -> dict[str, tuple[bytes, str]]:
        """fingerprint -> (key, name); entries with an unusable key are dropped."""
        document = read_json(self.path)
        if document is None:
            return {}
        try:
            version, peers = document["version"], document["peers"]
            if version == 1:  # {name: {"key": hex, ...}}
                entries = [(entry["key"], name) for name, entry in peers.items()]
            elif version == self.VERSION:
                entries = [(entry["key"], entry["name"]) for entry in peers.values()]
            else:
                raise ConfigError(f"{self.path} has an unknown version {version!r}")
            known: dict[str, tuple[bytes, str]] = {}
            for key_hex, name in entries:
                if not isinstance(name, str):
                    raise TypeError("a name is a string")
                try:
                    key = check_identity_key(bytes.fromhex(key_hex))
                except (BadIdentityKey, ValueError):
                    continue  # a key nobody can prove to hold means nothing: forget it
                known[fingerprint(key)] = (key, name)
            return known
        except (KeyError, TypeError, AttributeError) as exc:
            raise ConfigError(f"{self.path} is not a known-peers file ({exc!r})") from None

    def _save(self, known: dict[str, tuple[bytes, str]]) -> None:
        peers = {fp: {"key": key.hex(), "name": name} for fp, (key, name) in known.items()}
        write_json(self.path, {"version": self.VERSION, "peers": peers})

    def check(self, name: str, identity: bytes) -> Trust:
        """What `name` presenting `identity` means (see `Trust`); remember it if NEW.

        Raises ``BadIdentityKey`` for a key that is no identity (the handshake refuses those
        before they get here).
        """
        check_identity_key(identity)
        known = self._load()
        entry = known.get(fingerprint(identity))
        if entry is not None and entry[1] == name:
            return Trust.KNOWN
        if self.fingerprint_of(name, known) is not None:
            return Trust.CHANGED
        if entry is not None:
            return Trust.RENAMED
        known[fingerprint(identity)] = (identity, name)
        self._save(known)
        return Trust.NEW

    def remember(self, name: str, identity: bytes) -> None:
        """Pin `identity` under `name`: the name leaves any other key it had."""
        check_identity_key(identity)
        known = {fp: e for fp, e in self._load().items() if e[1] != name}
        known[fingerprint(identity)] = (identity, name)
        self._save(known)

    def name_of(self, identity: bytes) -> str | None:
        """The name `identity` was last remembered under, if any."""
        entry = self._load().get(fingerprint(identity))
        return entry[1] if entry else None

    def fingerprint_of(
        self, name: str, known: dict[str, tuple[bytes, str]] | None = None
    ) -> str | None:
        """The fingerprint of the key remembered for `name`, if any."""
        known = self._load() if known is None else known
        return next((fp for fp, (_, n) in known.items() if n == name), None)
