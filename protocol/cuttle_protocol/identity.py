"""Long-term identity keys and the known-peers store (trust on first use), on disk.

Both live in the config directory: `$XDG_CONFIG_HOME/cuttle-net/`, else
`~/.config/cuttle-net/`. Every function takes the directory as a parameter so tests and
multiple profiles can use their own.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from .crypto import fingerprint

IDENTITY_FILE = "identity.pem"
KNOWN_PEERS_FILE = "known_peers.json"


def default_config_dir(environ: Mapping[str, str] = os.environ) -> Path:
    """`$XDG_CONFIG_HOME/cuttle-net`, falling back to `~/.config/cuttle-net`."""
    base = environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "cuttle-net"


def _write_private(path: Path, data: bytes) -> None:
    """Write `data` readable by the owner only, replacing `path` atomically."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.chmod(temporary, 0o600)  # in case the file already existed with looser modes
    os.replace(temporary, path)


def load_or_create_identity(config_dir: Path) -> Ed25519PrivateKey:
    """Our Ed25519 identity key, generated and saved (mode 0600) on first use."""
    path = config_dir / IDENTITY_FILE
    if path.exists():
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
        if not isinstance(key, Ed25519PrivateKey):
            raise ValueError(f"{path} does not hold an Ed25519 private key")
        return key
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    _write_private(path, pem)
    return key


class Trust(StrEnum):
    """What the known-peers store says of a peer's identity key."""

    NEW = "new"  # never seen this name: the key is now remembered
    KNOWN = "known"  # same key as last time
    CHANGED = "changed"  # a different key than remembered: warn loudly


class KnownPeers:
    """Peer name -> identity key, remembered on first use (like SSH's known_hosts)."""

    def __init__(self, config_dir: Path) -> None:
        self.path = config_dir / KNOWN_PEERS_FILE

    def _load(self) -> dict[str, str]:
        if not self.path.exists():
            return {}
        peers = json.loads(self.path.read_text(encoding="utf-8")).get("peers", {})
        return {name: entry["key"] for name, entry in peers.items()}

    def _save(self, peers: dict[str, str]) -> None:
        document = {
            "version": 1,
            "peers": {
                name: {"key": key, "fingerprint": fingerprint(bytes.fromhex(key))}
                for name, key in sorted(peers.items())
            },
        }
        _write_private(self.path, (json.dumps(document, indent=2) + "\n").encode())

    def check(self, name: str, identity: bytes) -> Trust:
        """Compare `identity` with what is remembered for `name`; remember it if new.

        A changed key is not overwritten: call `remember` once the user accepts it.
        """
        peers = self._load()
        known = peers.get(name)
        if known is None:
            peers[name] = identity.hex()
            self._save(peers)
            return Trust.NEW
        return Trust.KNOWN if known == identity.hex() else Trust.CHANGED

    def remember(self, name: str, identity: bytes) -> None:
        """Pin `identity` for `name`, replacing any previous key."""
        peers = self._load()
        peers[name] = identity.hex()
        self._save(peers)
