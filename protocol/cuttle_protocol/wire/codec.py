"""Strict msgpack: the only value types a cuttle-net frame may contain, and their limits.

Allowed: nil, bool, int (-2^63 .. 2^64-1), str (UTF-8), bin, array, map with str keys. Floats and
extension types (timestamps included) are refused: nothing in the protocol needs them and
they are where implementations disagree.
"""

from __future__ import annotations

from collections.abc import Iterable
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
    except msgpack.StackError:  # (its message is empty: the peer read "not valid msgpack: ")
        raise RemoteProtocolError(
            ErrorCode.MALFORMED_FRAME, f"nested deeper than {MAX_DEPTH} levels"
        ) from None
    except ValueError as exc:  # msgpack's own errors (FormatError...) and bad UTF-8
        detail = str(exc) or type(exc).__name__
        raise RemoteProtocolError(
            ErrorCode.MALFORMED_FRAME, f"not valid msgpack: {detail}"
        ) from None
    check_value(value)
    return value


def check_value(value: Any) -> None:
    """Raise `malformed-frame` unless `value` uses only the allowed types and depth."""
    _check(value, 1)


_LOW, _HIGH = -(2**63), 2**64


def _check(item: Any, depth: int) -> None:
    # Every frame and entry body is checked, a move's several times over: the exact types
    # msgpack gives are tested first, and a container's scalars without a call each (a
    # quarter of the time of a walk with a stack). Recursion is bounded by MAX_DEPTH.
    t = type(item)
    if t is not dict and t is not list:
        _check_other(item, depth)
        return
    for element in _elements(item, depth):
        te = type(element)
        if te is bytes or te is str or te is bool or element is None:
            continue
        if te is int and _LOW <= element < _HIGH:
            continue
        _check(element, depth + 1)


def _elements(container: list | dict, depth: int) -> Iterable[Any]:
    """A list's elements or a map's values, once its depth and keys are checked."""
    if depth > MAX_DEPTH:
        raise RemoteProtocolError(
            ErrorCode.MALFORMED_FRAME, f"nested deeper than {MAX_DEPTH} levels"
        )
    if not isinstance(container, dict):
        return container
    if not all(isinstance(key, str) for key in container):
        raise RemoteProtocolError(ErrorCode.MALFORMED_FRAME, "map keys must be str")
    return container.values()


def _check_other(item: Any, depth: int) -> None:
    """Anything but an exact dict or list: a scalar, or a subclass of an allowed type."""
    if item is None or isinstance(item, bool | str | bytes):
        return
    if isinstance(item, int):
        if not _LOW <= item < _HIGH:
            raise RemoteProtocolError(ErrorCode.MALFORMED_FRAME, "integer out of range")
        return
    if isinstance(item, float):
        raise RemoteProtocolError(ErrorCode.MALFORMED_FRAME, "floats are not allowed")
    if not isinstance(item, list | dict):
        raise RemoteProtocolError(
            ErrorCode.MALFORMED_FRAME, f"type {type(item).__name__} is not allowed"
        )
    for element in _elements(item, depth):
        _check(element, depth + 1)
