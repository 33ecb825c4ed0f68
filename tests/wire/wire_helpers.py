"""Shared helpers for the wire tests: players, linked sans-I/O connections, frame surgery."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cuttle_protocol.wire import (
    NEED_DATA,
    Connection,
    Event,
    FrameDecoder,
    HandshakeComplete,
    LocalPlayer,
    Role,
    Rules,
    RulesProposed,
)

CLASSIC = Rules("classic", ("joker",))


def player(name: str) -> LocalPlayer:
    return LocalPlayer(name, Ed25519PrivateKey.generate())


def make_pair(
    host: LocalPlayer | None = None, joiner: LocalPlayer | None = None, **host_options
) -> tuple[Connection, Connection]:
    host_options.setdefault("rules", CLASSIC)
    return (
        Connection(Role.HOST, host or player("alice"), **host_options),
        Connection(Role.JOINER, joiner or player("bob")),
    )


def drain(conn: Connection) -> list[Event]:
    events = []
    while (event := conn.next_event()) is not NEED_DATA:
        events.append(event)
    return events


def deliver(sender: Connection, receiver: Connection) -> list[Event]:
    """Move everything `sender` has queued into `receiver`; return its events."""
    receiver.receive_data(sender.data_to_send())
    return drain(receiver)


def handshake(host: Connection, joiner: Connection) -> tuple[HandshakeComplete, HandshakeComplete]:
    """Run the handshake to completion, the joiner accepting the rules."""
    done: dict[Role, HandshakeComplete] = {}
    for _ in range(4):
        for event in deliver(host, joiner):
            if isinstance(event, RulesProposed):
                joiner.accept_rules()
            elif isinstance(event, HandshakeComplete):
                done[Role.JOINER] = event
        for event in deliver(joiner, host):
            if isinstance(event, HandshakeComplete):
                done[Role.HOST] = event
    return done[Role.HOST], done[Role.JOINER]


def split_frames(data: bytes) -> list[bytes]:
    """Cut a byte string into whole frames (prefix included)."""
    decoder = FrameDecoder()
    decoder.feed(data)
    frames = []
    while (frame := decoder.next_frame()) is not None:
        frames.append(frame[0] + frame[1])
    assert decoder.buffered == 0
    return frames


def counter_random(seed: bytes) -> Callable[[int], bytes]:
    """A deterministic `random_bytes`: SHA-256 of seed and a counter, for reproducible tests."""
    counter = 0

    def random_bytes(n: int) -> bytes:
        nonlocal counter
        out = b""
        while len(out) < n:
            out += hashlib.sha256(seed + counter.to_bytes(4, "big")).digest()
            counter += 1
        return out[:n]

    return random_bytes


def fixed_player(name: str) -> LocalPlayer:
    seed = hashlib.sha256(b"identity " + name.encode()).digest()
    return LocalPlayer(name, Ed25519PrivateKey.from_private_bytes(seed))


def fixed_pair() -> tuple[Connection, Connection]:
    """The same host and joiner, byte for byte, on every call."""
    return (
        Connection(
            Role.HOST, fixed_player("alice"), rules=CLASSIC, random_bytes=counter_random(b"host")
        ),
        Connection(Role.JOINER, fixed_player("bob"), random_bytes=counter_random(b"joiner")),
    )
