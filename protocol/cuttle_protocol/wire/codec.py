"""Strict msgpack: the only value types a cuttle-net frame may contain, and their limits.

Allowed: nil, bool, int (-2^63 .. 2^64-1), str (UTF-8), bin, array, map with str keys. Floats and
extension types (timestamps included) are refused: nothing in the protocol needs them and
they are where implementations disagree.
"""

from __future__ import annotations

from typing import Any

import msgpack

from ..errors import ErrorCode, RemoteProtocolError

MAX_CONTAINER_LEN = 65_536
"""The most elements an array or map may have."""
MAX_DEPTH = 16
"""The deepest nesting of arrays and maps; the top-level map is depth 1."""


def pack(value: Any) -> bytes:
    """Encode `value` as msgpack (str as str, bytes as bin)."""
    return msgpack.packb(value, use_bin_type=True)


def _refuse_extension(code: int, data: bytes) -> Any:
    raise ValueError(f"extension type {code} is not allowed")


def unpack(body: bytes) -> Any:
    """Decode exactly one strict msgpack value filling `body`, or raise `malformed-frame`."""
    limit = len(body)
    try:
        value = msgpack.unpackb(
            body,
            raw=False,
            strict_map_key=True,
            use_list=True,
            ext_hook=_refuse_extension,
            max_ext_len=0,
            max_str_len=limit,
            max_bin_len=limit,
            max_array_len=MAX_CONTAINER_LEN,
            max_map_len=MAX_CONTAINER_LEN,
        )
    except ValueError as exc:  # msgpack's own errors (FormatError, StackError...) and bad UTF-8
        raise RemoteProtocolError(ErrorCode.MALFORMED_FRAME, f"not valid msgpack: {exc}") from None
    check_value(value)
    return value


def check_value(value: Any) -> None:
    """Raise `malformed-frame` unless `value` uses only the allowed types and depth."""
    # Iterative, so a deep value cannot exhaust Python's recursion limit.
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if item is None or isinstance(item, bool | str | bytes):
            continue
        if isinstance(item, int):
            if not -(2**63) <= item < 2**64:
                raise RemoteProtocolError(ErrorCode.MALFORMED_FRAME, "integer out of range")
            continue
        if isinstance(item, float):
            raise RemoteProtocolError(ErrorCode.MALFORMED_FRAME, "floats are not allowed")
        if depth > MAX_DEPTH:
            raise RemoteProtocolError(
                ErrorCode.MALFORMED_FRAME, f"nested deeper than {MAX_DEPTH} levels"
            )
        if isinstance(item, list):
            stack.extend((element, depth + 1) for element in item)
        elif isinstance(item, dict):
            for key, element in item.items():
                if not isinstance(key, str):
                    raise RemoteProtocolError(ErrorCode.MALFORMED_FRAME, "map keys must be str")
                stack.append((element, depth + 1))
        else:
            raise RemoteProtocolError(
                ErrorCode.MALFORMED_FRAME, f"type {type(item).__name__} is not allowed"
            )
