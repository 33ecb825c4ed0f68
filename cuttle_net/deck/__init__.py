"""The cryptographic deck protocol ("mental poker"), sans-I/O.

Barnett–Smart verifiable ElGamal masking over the ed25519 prime-order subgroup: a joint key
from two fresh per-game key shares, cards hashed to the group, two re-masking shuffles each
with a Terelius–Wikström shuffle argument, and a Chaum–Pedersen proof with every decryption share.
Every message is signed, sequenced and hash-chained; :func:`check_transcript` lets a third
party re-check a transcript and name a cheater. SPEC.md part 2 is the specification.
"""

from .errors import CHEAT_KINDS, CheatDetected, UsageError, WireError
from .messages import Message
from .ops import (
    Audit,
    AuditPassed,
    CardsLearned,
    Draw,
    Event,
    ExposeHand,
    Op,
    OperationComplete,
    PlaceOnTop,
    RandomPick,
    RevealFromDeck,
    RevealFromHand,
    ShuffleAndDeal,
    SwapHands,
    TakeToHand,
    op_from_wire,
)
from .peer import DeckPeer
from .state import DeckState, Output, check_transcript

__all__ = [
    "CHEAT_KINDS",
    "Audit",
    "AuditPassed",
    "CardsLearned",
    "CheatDetected",
    "DeckPeer",
    "DeckState",
    "Draw",
    "Event",
    "ExposeHand",
    "Message",
    "Op",
    "OperationComplete",
    "Output",
    "PlaceOnTop",
    "RandomPick",
    "RevealFromDeck",
    "RevealFromHand",
    "ShuffleAndDeal",
    "SwapHands",
    "TakeToHand",
    "UsageError",
    "WireError",
    "check_transcript",
    "op_from_wire",
]
