"""Frames and strict msgpack: whole, byte by byte, with trailing data, and fuzzed."""

from __future__ import annotations

import contextlib
import datetime

import msgpack
import pytest
from cuttle_protocol.errors import ErrorCode, RemoteProtocolError
from cuttle_protocol.wire import MAX_FRAME_SIZE, FrameDecoder, encode_frame, pack, unpack
from cuttle_protocol.wire.codec import MAX_DEPTH
from hypothesis import given, settings
from hypothesis import strategies as st

BODIES = [b"\x80", pack({"t": "move", "text": "draw"}), b"x" * 1000]
STREAM = b"".join(encode_frame(b) for b in BODIES)


def frames_of(decoder: FrameDecoder) -> list[bytes]:
    found = []
    while (frame := decoder.next_frame()) is not None:
        found.append(frame[1])
    return found


def test_prefix_is_four_byte_big_endian_length() -> None:
    assert encode_frame(b"abc") == b"\x00\x00\x00\x03abc"


def test_whole_stream() -> None:
    decoder = FrameDecoder()
    decoder.feed(STREAM)
    assert frames_of(decoder) == BODIES
    assert decoder.buffered == 0


def test_byte_by_byte() -> None:
    decoder = FrameDecoder()
    found = []
    for i in range(len(STREAM)):
        decoder.feed(STREAM[i : i + 1])
        found += frames_of(decoder)
    assert found == BODIES


def test_trailing_partial_frame_stays_buffered() -> None:
    decoder = FrameDecoder()
    decoder.feed(STREAM + STREAM[:3])
    assert frames_of(decoder) == BODIES
    assert decoder.buffered == 3
    decoder.feed(STREAM[3:])
    assert frames_of(decoder) == BODIES


def test_oversized_frame_refused_from_its_prefix() -> None:
    decoder = FrameDecoder()
    decoder.feed((MAX_FRAME_SIZE + 1).to_bytes(4, "big"))
    with pytest.raises(RemoteProtocolError) as info:
        decoder.next_frame()
    assert info.value.code is ErrorCode.FRAME_TOO_LARGE


def test_largest_frame_accepted() -> None:
    decoder = FrameDecoder()
    decoder.feed(encode_frame(b"\x00" * MAX_FRAME_SIZE))
    assert len(frames_of(decoder)[0]) == MAX_FRAME_SIZE


def test_empty_frame_is_malformed() -> None:
    decoder = FrameDecoder()
    decoder.feed(b"\x00\x00\x00\x00")
    with pytest.raises(RemoteProtocolError) as info:
        decoder.next_frame()
    assert info.value.code is ErrorCode.MALFORMED_FRAME


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(msgpack.packb(msgpack.ExtType(1, b"x")), id="extension"),
        pytest.param(
            msgpack.packb(datetime.datetime.now(datetime.UTC), datetime=True), id="timestamp"
        ),
        pytest.param(msgpack.packb(1.5), id="float"),
        pytest.param(msgpack.packb({1: 2}), id="int-key"),
        pytest.param(msgpack.packb({b"k": 2}), id="bin-key"),
        pytest.param(msgpack.packb(1) + b"\x01", id="trailing-byte"),
        pytest.param(msgpack.packb("abc")[:-1], id="truncated"),
        pytest.param(b"\xa2\xff\xfe", id="bad-utf8"),
        pytest.param(b"\xc1", id="reserved-byte"),
        pytest.param(b"\xdd\xff\xff\xff\xff", id="huge-array"),
        pytest.param(b"\x91" * 5000 + b"\x00", id="very-deep"),
        pytest.param(b"\x91" * (MAX_DEPTH + 1) + b"\x00", id="too-deep"),
    ],
)
def test_strict_decoding_refuses(body: bytes) -> None:
    with pytest.raises(RemoteProtocolError) as info:
        unpack(body)
    assert info.value.code is ErrorCode.MALFORMED_FRAME
    # The close reason says what was wrong (a body nested past msgpack's own stack said
    # "not valid msgpack: " and nothing more).
    assert not info.value.message.rstrip().endswith(":"), info.value.message


def test_strict_decoding_accepts_the_allowed_types() -> None:
    value = {"a": [None, True, -(2**63), 2**64 - 1, "é", b"\x00"], "b": {}}
    assert unpack(pack(value)) == value
    deepest: object = 0
    for _ in range(MAX_DEPTH):
        deepest = [deepest]
    assert unpack(pack(deepest)) == deepest


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=2000))
def test_fuzzed_bodies_raise_only_protocol_errors(body: bytes) -> None:
    with contextlib.suppress(RemoteProtocolError):
        unpack(body)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=300), max_size=20))
def test_fuzzed_streams_keep_the_buffer_bounded(chunks: list[bytes]) -> None:
    decoder = FrameDecoder()
    try:
        for chunk in chunks:
            decoder.feed(chunk)
            frames_of(decoder)
            assert decoder.buffered <= 4 + MAX_FRAME_SIZE
    except RemoteProtocolError as exc:
        assert exc.code in (ErrorCode.FRAME_TOO_LARGE, ErrorCode.MALFORMED_FRAME)
