"""The cryptographic deck protocol ("mental poker") for 2..6 parties, sans-I/O.

Barnett–Smart verifiable ElGamal masking over ristretto255: a joint key from every party's
committed key share, cards hashed to the group, one re-masking shuffle per party in seat order,
each with a Terelius–Wikström shuffle argument checked by every other party, and a
Chaum–Pedersen proof with every decryption share. Every message is signed, sequenced and
hash-chained into one transcript; :func:`check_transcript` lets a third party re-check it and
name a cheater. SPEC.md part 2 is the specification.

Every party begins the same operations; each call returns ``Output(messages, events)``; the
shell carries every message to every other party's ``receive``::

    keys = [k.public_key() for k in identity_keys]              # seat order
    parties = [DeckPeer(s, sid, identity_keys[s], keys, 52) for s in range(len(keys))]

    def run(op):                                                # what the shell does, in short
        queue = [(p, m) for p in parties for m in p.begin(op).messages]
        while queue:
            sender, m = queue.pop(0)
            for other in parties:
                if other is not sender:
                    queue += [(other, x) for x in other.receive(m).messages]

    run(Deal((5, 6)))                     # CardsLearned(seat, <cards>, public=False, "deal")
    run(Draw(0))                          # only seat 0 learns the card
    run(RevealFromHand(0, (card,)))       # seat 0 plays it: everyone sees it, with proof
    run(Audit())                          # AuditPassed(digest) at every party

A deviation raises :class:`CheatDetected` (``kind``, ``culprit``, ``evidence``); a silent
party is declared with ``timed_out()``.
"""

from .errors import CHEAT_KINDS, CheatDetected, UsageError, WireError
from .messages import Message
from .ops import (
    Audit,
    AuditPassed,
    CardsLearned,
    Deal,
    Draw,
    Event,
    ExposeHand,
    ExposeHands,
    Op,
    OperationComplete,
    PlaceOnTop,
    RandomPick,
    RevealFromDeck,
    RevealFromHand,
    SwapHands,
    TakeToHand,
    op_from_wire,
)
from .peer import DeckPeer
from .state import DeckState, Output
from .transcript import check_transcript, equivocation

__all__ = [
    "CHEAT_KINDS",
    "Audit",
    "AuditPassed",
    "CardsLearned",
    "CheatDetected",
    "Deal",
    "DeckPeer",
    "DeckState",
    "Draw",
    "Event",
    "ExposeHand",
    "ExposeHands",
    "Message",
    "Op",
    "OperationComplete",
    "Output",
    "PlaceOnTop",
    "RandomPick",
    "RevealFromDeck",
    "RevealFromHand",
    "SwapHands",
    "TakeToHand",
    "UsageError",
    "WireError",
    "check_transcript",
    "equivocation",
    "op_from_wire",
]
