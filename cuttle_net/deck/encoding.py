"""Canonical, length-prefixed encoding of plain data, and the protocol's hash functions.

Every hash and signature in the deck protocol is taken over ``canon(value)``: an unambiguous
byte string for the plain data the messages are made of (bytes, str, int, bool, list, dict
with str keys). Two different values never encode to the same bytes, so no field can be
shifted into its neighbour. SPEC.md part 2 gives the grammar.
"""

from __future__ import annotations

import hashlib
import struct
from typing import Any

DOMAIN = b"cuttle-net/deck/v2/"


def canon(value: Any) -> bytes:
    """The canonical encoding of ``value`` (see SPEC.md part 2, "Canonical encoding")."""
    out = bytearray()
    _canon(value, out)
    return bytes(out)


def _canon(v: Any, out: bytearray) -> None:
    # bool first: it is a subclass of int.
    if v is True or v is False:
        out += b"T" if v else b"F"
    elif isinstance(v, int):
        if not 0 <= v < 1 << 64:
            raise ValueError(f"integer {v} out of range 0..2^64-1")
        out += b"i" + struct.pack(">Q", v)
    elif isinstance(v, bytes):
        out += b"b" + struct.pack(">I", len(v)) + v
    elif isinstance(v, str):
        data = v.encode()
        out += b"s" + struct.pack(">I", len(data)) + data
    elif isinstance(v, list | tuple):
        out += b"l" + struct.pack(">I", len(v))
        for item in v:
            _canon(item, out)
    elif isinstance(v, dict):
        out += b"d" + struct.pack(">I", len(v))
        for key in sorted(v, key=lambda k: k.encode()):
            _canon(key, out)
            _canon(v[key], out)
    else:
        raise TypeError(f"cannot encode {type(v).__name__}")


def hash256(tag: str, *parts: Any) -> bytes:
    """SHA-256 of the domain tag and the canonical encoding of ``parts``."""
    return hashlib.sha256(DOMAIN + tag.encode() + b"\0" + canon(list(parts))).digest()


def hash512(tag: str, *parts: Any) -> bytes:
    """SHA-512 of the domain tag and the canonical encoding of ``parts`` (for scalars)."""
    return hashlib.sha512(DOMAIN + tag.encode() + b"\0" + canon(list(parts))).digest()
