"""Length-prefixed frames: a 4-byte big-endian body length, then the body."""

from __future__ import annotations

import struct

from ..errors import ErrorCode, LocalProtocolError, RemoteProtocolError

PREFIX = struct.Struct(">I")
PREFIX_SIZE = PREFIX.size
MAX_FRAME_SIZE = 1_048_576
"""The largest frame body (1 MiB): room for a deck-protocol shuffle proof."""


def encode_frame(body: bytes) -> bytes:
    """Prefix `body` with its length."""
    if not 0 < len(body) <= MAX_FRAME_SIZE:
        raise LocalProtocolError(
            ErrorCode.FRAME_TOO_LARGE, f"a frame body must be 1..{MAX_FRAME_SIZE} bytes"
        )
    return PREFIX.pack(len(body)) + body


class FrameDecoder:
    """Splits a byte stream into frame bodies.

    The buffer never holds more than one incomplete frame plus whatever the caller fed in
    one go: a length above `MAX_FRAME_SIZE` is refused as soon as its prefix arrives.
    """

    def __init__(self) -> None:
        self._buffer = bytearray()

    @property
    def buffered(self) -> int:
        """Bytes received but not yet returned as frames."""
        return len(self._buffer)

    def feed(self, data: bytes) -> None:
        self._buffer += data

    def next_frame(self) -> tuple[bytes, bytes] | None:
        """Return `(prefix, body)` of the next complete frame, or None if more data is needed."""
        if len(self._buffer) < PREFIX_SIZE:
            return None
        (length,) = PREFIX.unpack_from(self._buffer)
        if length == 0:
            raise RemoteProtocolError(ErrorCode.MALFORMED_FRAME, "empty frame")
        if length > MAX_FRAME_SIZE:
            raise RemoteProtocolError(
                ErrorCode.FRAME_TOO_LARGE,
                f"frame of {length} bytes announced; the limit is {MAX_FRAME_SIZE}",
            )
        end = PREFIX_SIZE + length
        if len(self._buffer) < end:
            return None
        prefix = bytes(self._buffer[:PREFIX_SIZE])
        body = bytes(self._buffer[PREFIX_SIZE:end])
        del self._buffer[:end]
        return prefix, body
