"""Third-party checking: replay a transcript with the two public identity keys only."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from .errors import CheatDetected
from .ops import op_from_wire
from .state import DeckState


def check_transcript(
    transcript: Sequence[tuple[str, Any]],
    public_keys: Sequence[Ed25519PublicKey],
    *,
    session_id: bytes,
    deck_size: int = 52,
) -> CheatDetected | None:
    """Re-check a transcript (from :meth:`DeckState.transcript`, or a cheat's evidence) with
    the two identity public keys only. Returns the first deviation, naming its culprit, or
    None if every message checks out."""
    state = DeckState(session_id, public_keys, deck_size)
    try:
        for kind, value in transcript:
            if kind == "op":
                state.begin(op_from_wire(value))
            else:
                state.receive(value)
    except CheatDetected as cheat:
        return cheat
    return None
