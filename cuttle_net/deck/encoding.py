"""Canonical, length-prefixed encoding of plain data, and the protocol's hash functions.

Every hash and signature in the deck protocol is taken over ``canon(value)``: an unambiguous
byte string for the plain data the messages are made of (bytes, str, int, bool, list, dict
with str keys). Two different values never encode to the same bytes, so no field can be
shifted into its neighbour. SPEC.md part 2 gives the grammar.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Callable
from typing import Any

DOMAIN = b"cuttle-net/deck/v2/"


_TAG_LEN = struct.Struct(">cI").pack  # a tag and a u32 length
_TAG_U64 = struct.Struct(">cQ").pack  # a tag and a u64
_U32 = struct.Struct(">I").pack


def canon(value: Any) -> bytes:
    """The canonical encoding of ``value`` (see SPEC.md part 2, "Canonical encoding")."""
    out: list[bytes] = []
    _canon(value, out.append)
    return b"".join(out)  # pieces joined once: a third faster than growing one buffer


def _canon(v: Any, put: Callable[[bytes], object], _tag_len: Any = _TAG_LEN) -> None:
    # The exact types first, one test each (the messages are made of nothing else);
    # a subclass or a value out of range takes the general path. A container's bytes and
    # ints are encoded in place, and a map key's encoding is looked up: a call each was
    # most of the cost of a message (every message is encoded to be signed and hashed).
    t = type(v)
    if t is bytes:
        put(_tag_len(b"b", len(v)))
        put(v)
    elif t is int and 0 <= v < 1 << 64:
        put(_TAG_U64(b"i", v))
    elif t is list or t is tuple:
        put(_tag_len(b"l", len(v)))
        for item in v:
            ti = type(item)
            if ti is bytes:
                put(_tag_len(b"b", len(item)))
                put(item)
            elif ti is int and 0 <= item < 1 << 64:
                put(_TAG_U64(b"i", item))
            else:
                _canon(item, put)
    elif t is dict:
        put(_tag_len(b"d", len(v)))
        # str keys in code point order, which is the order of their UTF-8 bytes
        for key in sorted(v):
            data = _KEYS.get(key) if type(key) is str else None
            put(_key(key) if data is None else data)
            item = v[key]
            ti = type(item)
            if ti is bytes:
                put(_tag_len(b"b", len(item)))
                put(item)
            elif ti is int and 0 <= item < 1 << 64:
                put(_TAG_U64(b"i", item))
            else:
                _canon(item, put)
    elif t is str:
        data = v.encode()
        put(_tag_len(b"s", len(data)))
        put(data)
    elif t is bool:
        put(b"T" if v else b"F")
    else:
        _canon_general(v, put)


_KEYS: dict[str, bytes] = {}
"""Map keys' encodings: the protocol's field names, a few dozen. Bounded, since a peer's
message may carry any keys (it is encoded to check its signature)."""


def _key(key: Any) -> bytes:
    if type(key) is not str:
        raise TypeError(f"cannot encode a map key of type {type(key).__name__}")
    data = key.encode()
    data = _TAG_LEN(b"s", len(data)) + data
    if len(_KEYS) < 256 and len(key) <= 64:
        _KEYS[key] = data
    return data


def _canon_general(v: Any, put: Callable[[bytes], object]) -> None:
    # bool first: it is a subclass of int.
    if v is True or v is False:
        put(b"T" if v else b"F")
    elif isinstance(v, int):
        if not 0 <= v < 1 << 64:
            raise ValueError(f"integer {v} out of range 0..2^64-1")
        put(b"i" + struct.pack(">Q", v))
    elif isinstance(v, bytes):
        put(b"b" + struct.pack(">I", len(v)) + v)
    elif isinstance(v, str):
        data = v.encode()
        put(b"s" + struct.pack(">I", len(data)) + data)
    elif isinstance(v, list | tuple):
        put(b"l" + struct.pack(">I", len(v)))
        for item in v:
            _canon(item, put)
    elif isinstance(v, dict):
        put(b"d" + struct.pack(">I", len(v)))
        for key in sorted(v, key=lambda k: k.encode()):
            _canon(key, put)
            _canon(v[key], put)
    else:
        raise TypeError(f"cannot encode {type(v).__name__}")


def hash256(tag: str, *parts: Any) -> bytes:
    """SHA-256 of the domain tag and the canonical encoding of ``parts``."""
    return hashlib.sha256(DOMAIN + tag.encode() + b"\0" + canon(list(parts))).digest()


def hash512(tag: str, *parts: Any) -> bytes:
    """SHA-512 of the domain tag and the canonical encoding of ``parts`` (for scalars)."""
    return hashlib.sha512(DOMAIN + tag.encode() + b"\0" + canon(list(parts))).digest()
