"""Third-party checking: replay a transcript with the public identity keys only."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from .errors import CheatDetected, WireError
from .messages import VERSION, Message
from .ops import op_from_wire
from .state import DeckState


def check_transcript(
    transcript: Sequence[tuple[str, Any]],
    public_keys: Sequence[Ed25519PublicKey],
    *,
    session_id: bytes,
    deck_size: int,
    faces: int | None = None,
    version: int = VERSION,
) -> CheatDetected | None:
    """Re-check a transcript (from :meth:`DeckState.transcript`, or a cheat's evidence) with
    every seat's identity public key (in seat order) only. Returns the first deviation,
    naming its culprit, or None if every message checks out."""
    state = DeckState(session_id, public_keys, deck_size, faces, version)
    try:
        for kind, value in transcript:
            if kind == "op":
                state.begin(op_from_wire(value))
            else:
                state.receive(value)
    except CheatDetected as cheat:
        return cheat
    return None


def equivocation(
    first: Any,
    second: Any,
    public_keys: Sequence[Ed25519PublicKey],
    *,
    session_id: bytes,
) -> CheatDetected | None:
    """Two different messages of one session with the same sequence number, each signed by
    the seat it names: that seat showed different parties different logs (kind
    ``equivocation``; the evidence is the two messages). None if they do not prove it."""
    try:
        a, b = Message.from_wire(first), Message.from_wire(second)
    except WireError:
        return None
    if (
        a.to_wire() == b.to_wire()
        or (a.sid, a.seq, a.sender) != (session_id, b.seq, b.sender)
        or b.sid != session_id
        or not a.sender < len(public_keys)
        or not (a.verify(public_keys[a.sender]) and b.verify(public_keys[b.sender]))
    ):
        return None
    detail = f"two different messages signed for sequence number {a.seq}"
    return CheatDetected("equivocation", a.sender, detail, [first, second])
