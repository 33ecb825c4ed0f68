"""The handshake's cryptography: commitments, transcript hash, key schedule, SAS, frame
AEAD.

Every byte string here is specified in SPEC.md 3.5 so other implementations can match it.
"""

from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from ..errors import ErrorCode, LocalProtocolError, RemoteProtocolError
from .framing import MAX_FRAME_SIZE, PREFIX, PREFIX_SIZE
from .messages import Hello
from .state import Role

DOMAIN = b"cuttle-net/6"
TAG_SIZE = 16
SAS_DIGITS = 6
SAS_BYTES = 8  # 2^64 values reduced modulo 10^6: the bias is below 2^-40


def _u32(n: int) -> bytes:
    return struct.pack(">I", n)


def _label(*parts: bytes) -> bytes:
    # Parts are joined with NUL bytes so no two different part lists give the same input.
    return b"\x00".join((DOMAIN, *parts))


def _field(data: bytes) -> bytes:
    return _u32(len(data)) + data


def hello_fields(hello: Hello) -> bytes:
    """The checked fields of a hello, length-prefixed: what the transcript covers.

    Unknown fields (ignored by this version) and the encoding the sender chose are left
    out, so nothing unvalidated or unbounded can change the code.
    """
    return b"".join(
        (
            _field(b"".join(struct.pack(">H", v) for v in hello.versions)),
            _field(b"\x00".join(cap.encode() for cap in hello.caps)),
            _field(hello.role.encode()),
            _field(hello.name.encode()),
            _field(hello.identity),
            _field(hello.ephemeral),
        )
    )


def transcript_hash(host_hello: Hello, joiner_hello: Hello) -> bytes:
    """SHA-256 over both hellos' checked fields, host's first."""
    return hashlib.sha256(
        _label(b"transcript") + hello_fields(host_hello) + hello_fields(joiner_hello)
    ).digest()


def hello_commitment(joiner_hello_body: bytes) -> bytes:
    """The joiner's first frame: a hash of the hello body it will send once it has the host's."""
    return hashlib.sha256(_label(b"hello") + b"\x00" + joiner_hello_body).digest()


def _hkdf(shared_secret: bytes, transcript: bytes, label: bytes, length: int) -> bytes:
    return HKDF(
        algorithm=hashes.SHA256(), length=length, salt=DOMAIN, info=label + transcript
    ).derive(shared_secret)


@dataclass(frozen=True)
class SessionSecrets:
    """Everything the key exchange yields."""

    host_to_joiner: bytes
    joiner_to_host: bytes
    session_id: bytes
    sas: str

    def sending_key(self, role: Role) -> bytes:
        return self.host_to_joiner if role is Role.HOST else self.joiner_to_host

    def receiving_key(self, role: Role) -> bytes:
        return self.joiner_to_host if role is Role.HOST else self.host_to_joiner


def derive_secrets(shared_secret: bytes, transcript: bytes) -> SessionSecrets:
    """The key schedule: one HKDF-SHA256 output per label, each bound to the transcript."""
    return SessionSecrets(
        host_to_joiner=_hkdf(shared_secret, transcript, b"key host to joiner", 32),
        joiner_to_host=_hkdf(shared_secret, transcript, b"key joiner to host", 32),
        session_id=_hkdf(shared_secret, transcript, b"session id", 32),
        sas=format_sas(_hkdf(shared_secret, transcript, b"sas", SAS_BYTES)),
    )


def format_sas(raw: bytes) -> str:
    """Six digits in two groups of three: the big-endian integer modulo 10^6."""
    digits = f"{int.from_bytes(raw, 'big') % 10**SAS_DIGITS:06d}"
    return f"{digits[:3]} {digits[3:]}"


def auth_message(role: Role, transcript: bytes) -> bytes:
    """What each side signs with its identity key."""
    return _label(b"auth", role.value.encode()) + b"\x00" + transcript


def fingerprint(identity: bytes) -> str:
    """A printable identity-key fingerprint: SHA-256 of the raw key, hex, in 4-digit groups."""
    digest = hashlib.sha256(identity).hexdigest()[:32]
    return ":".join(digest[i : i + 4] for i in range(0, len(digest), 4))


def _nonce(counter: int) -> bytes:
    return b"\x00" * 4 + struct.pack(">Q", counter)


class FrameSealer:
    """Encrypts frames in one direction; the nonce is a counter of frames sealed."""

    def __init__(self, key: bytes) -> None:
        self._aead = ChaCha20Poly1305(key)
        self._counter = 0

    def seal(self, plaintext: bytes) -> bytes:
        """Return a whole frame: prefix, then ciphertext and tag (prefix as associated data)."""
        if len(plaintext) + TAG_SIZE > MAX_FRAME_SIZE:
            raise LocalProtocolError(
                ErrorCode.FRAME_TOO_LARGE, f"a sealed frame is at most {MAX_FRAME_SIZE} bytes"
            )
        if self._counter >= 2**64:
            raise LocalProtocolError(ErrorCode.INTERNAL_ERROR, "frame counter exhausted")
        prefix = PREFIX.pack(len(plaintext) + TAG_SIZE)
        sealed = self._aead.encrypt(_nonce(self._counter), plaintext, prefix)
        self._counter += 1
        return prefix + sealed


class FrameOpener:
    """Decrypts frames in one direction, in order; a replayed or reordered frame fails."""

    def __init__(self, key: bytes) -> None:
        self._aead = ChaCha20Poly1305(key)
        self._counter = 0

    def open(self, prefix: bytes, body: bytes) -> bytes:
        if len(prefix) != PREFIX_SIZE or len(body) <= TAG_SIZE:
            raise RemoteProtocolError(ErrorCode.DECRYPT_FAILED, "encrypted frame too short")
        try:
            plaintext = self._aead.decrypt(_nonce(self._counter), body, prefix)
        except InvalidTag:
            raise RemoteProtocolError(
                ErrorCode.DECRYPT_FAILED,
                "a frame failed authentication (tampered, replayed or reordered)",
            ) from None
        self._counter += 1
        return plaintext
