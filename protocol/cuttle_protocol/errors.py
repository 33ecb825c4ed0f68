"""Error codes and the protocol exceptions: local (we broke the rules), remote (the peer did)."""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    """The stable error codes carried by `Close` messages and protocol exceptions (SPEC.md 3.9)."""

    MALFORMED_FRAME = "malformed-frame"
    FRAME_TOO_LARGE = "frame-too-large"
    MALFORMED_MESSAGE = "malformed-message"
    UNKNOWN_MESSAGE = "unknown-message"
    UNEXPECTED_MESSAGE = "unexpected-message"
    VERSION_MISMATCH = "version-mismatch"
    ROLE_CONFLICT = "role-conflict"
    BAD_KEY = "bad-key"
    BAD_SIGNATURE = "bad-signature"
    DECRYPT_FAILED = "decrypt-failed"
    BAD_REVEAL = "bad-reveal"
    FLIP_MISMATCH = "flip-mismatch"  # reserved: versions up to 4 (a coin flip not replayed)
    RULES_REFUSED = "rules-refused"
    TIMEOUT = "timeout"
    ILLEGAL_MOVE = "illegal-move"
    CHEAT_DETECTED = "cheat-detected"
    PEER_QUIT = "peer-quit"
    AWAY = "away"  # the player left mid-game and may come back: a lost connection (4.6)
    BUSY = "busy"  # the host cannot take this connection now; try again later (3.11)
    WRONG_PLAYER = "wrong-player"  # a reconnection by another identity key (4.6)
    REPLACED = "replaced"  # a newer connection with the same identity key took over (4.6)
    NO_TABLE = "no-table"  # a joiner came to resume a table this host does not have (4.6)
    INTERNAL_ERROR = "internal-error"


class ProtocolError(Exception):
    """A violation of the wire protocol, with a stable `code` and a human `message`."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class LocalProtocolError(ProtocolError):
    """This side tried to do something the protocol forbids (a bug in the caller)."""


class RemoteProtocolError(ProtocolError):
    """The peer sent something the protocol forbids."""


class Declined(ProtocolError):
    """This side will not go on, though nobody broke the protocol (a host past its limits,
    SPEC 3.11): the peer is told with `code` (e.g. `busy`)."""
