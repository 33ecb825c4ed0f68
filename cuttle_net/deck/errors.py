"""Errors: a peer's deviation (``CheatDetected``, with its stable kind) and local misuse."""

from __future__ import annotations

from typing import Any


class WireError(ValueError):
    """A message or operation does not have the required shape; says which field."""


class UsageError(RuntimeError):
    """The local caller used the protocol object wrongly (not the peer's fault)."""


# Stable names for every deviation the protocol detects (SPEC.md part 2, "Cheat kinds").
CHEAT_KINDS = frozenset(
    {
        "bad_signature",  # not signed by the peer's identity key (authenticated channel only)
        "malformed_message",  # a field of the wrong type, size or count
        "wrong_session",  # signed for another session id
        "replayed_message",  # a sequence number already used
        "reordered_message",  # a sequence number from the future
        "broken_chain",  # the previous-message hash does not match the transcript
        "unexpected_message",  # wrong sender, step or operation at this point
        "invalid_point",  # not a canonical point of the prime-order subgroup
        "key_commitment_mismatch",  # the key share differs from its commitment
        "bad_key_proof",  # the Schnorr proof of the key share fails
        "bad_shuffle_proof",  # the shuffle argument does not verify
        "wrong_share",  # a decryption share's Chaum–Pedersen proof fails
        "share_for_other_position",  # the share and proof are for another card's position
        "reused_nonce",  # a proof repeats a commitment (would reveal the secret key)
        "position_not_held",  # reveals a position that is not in the sender's hand
        "false_claim",  # the claimed card is not what the position decrypts to
        "biased_randomness",  # a random-pick salt does not open its commitment
        "bad_audit_secret",  # the revealed secret does not match the key share
        "audit_opening_mismatch",  # the shuffle seed does not match or reproduce the shuffle
        "duplicate_card",  # a deck that is not the full set of distinct cards
        "false_verdict",  # a signed verdict that differs from the checked outcome
        "equivocation",  # two different signed messages for one place in the log
        "timeout",  # the peer went silent when a message was due (declared by the shell)
    }
)


class Deviation(Exception):
    """Internal: raised by a check; the protocol turns it into CheatDetected, naming the
    sender of the message being checked unless ``culprit`` says otherwise."""

    def __init__(self, kind: str, detail: str, culprit: int | None = None):
        assert kind in CHEAT_KINDS, kind
        super().__init__(detail)
        self.kind, self.detail, self.culprit = kind, detail, culprit


class CheatDetected(Exception):
    """The party in seat ``culprit`` deviated from the protocol.

    ``evidence`` is the transcript up to and including the offending message: a third party
    re-checks it with :func:`cuttle_net.deck.check_transcript` and finds the same kind and
    culprit (except ``bad_signature``/unsigned garbage, which only the authenticated
    channel attributes, and ``timeout``, which is a declaration). For ``equivocation`` the
    evidence is the two messages, for :func:`cuttle_net.deck.equivocation`.
    """

    def __init__(self, kind: str, culprit: int, message: str, evidence: Any = None):
        assert kind in CHEAT_KINDS, kind
        super().__init__(f"seat {culprit} cheated ({kind}): {message}")
        self.kind = kind
        self.culprit = culprit
        self.detail = message
        self.evidence = evidence
