"""The cryptographic deck protocol ("mental poker"), sans-I/O.

Barnett–Smart verifiable ElGamal masking over the ed25519 prime-order subgroup: a joint key
from two fresh per-game key shares, cards hashed to the group, two re-masking shuffles each
with a Terelius–Wikström shuffle argument, and a Chaum–Pedersen proof with every decryption share.
Every message is signed, sequenced and hash-chained; :func:`check_transcript` lets a third
party re-check a transcript and name a cheater. SPEC.md part 2 is the specification.

Both sides start the same operations; each call returns ``Output(messages, events)``; the
session carries every message to the other side's ``receive``::

    a = DeckPeer(0, sid, key_a, key_b.public_key())   # seat 0: 5 cards, moves first
    b = DeckPeer(1, sid, key_b, key_a.public_key())   # seat 1: the dealer, 6 cards

    def run(op):                                      # what the session does, in short
        queue = [(a, m) for m in a.begin(op).messages] + [(b, m) for m in b.begin(op).messages]
        while queue:
            sender, m = queue.pop(0)
            other = b if sender is a else a
            queue += [(other, x) for x in other.receive(m).messages]

    run(ShuffleAndDeal())                 # CardsLearned(0, <5 cards>, public=False, "deal")
    run(Draw(0))                          # only seat 0 learns the card
    run(RevealFromHand(0, (card,)))       # seat 0 plays it: both see it, with proof
    run(Audit())                          # AuditPassed(digest) on both sides

A deviation raises :class:`CheatDetected` (``kind``, ``culprit``, ``evidence``); a silent
peer is declared with ``timed_out()``.
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
from .state import DeckState, Output
from .transcript import check_transcript

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
