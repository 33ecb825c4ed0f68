"""Deck-protocol messages: the signed envelope and a strict schema for every step's body.

A message is plain data (dict/list/bytes/int/str/bool) that msgpack carries unchanged:

    {"v": 3, "sid": bytes, "seq": int, "prev": bytes32, "from": 0..N-1, "op": [...],
     "step": str, "body": {...}, "sig": bytes64}

``sig`` is the sender's Ed25519 signature over ``canon`` of every other field; the message's
hash is over all fields including ``sig``; the next round's ``prev`` is made from the hashes
of a round's messages (:func:`round_head`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from ..identity_key import sign as ed25519_sign
from ..identity_key import verify as ed25519_verify
from .encoding import DOMAIN, canon, hash256
from .errors import WireError
from .ops import MAX_DECK, MAX_SEATS, Op, op_from_wire
from .proofs import PROOF_BYTES

VERSION = 3  # 3: the steps of an operation that need no message of each other form rounds
# Version 2 (each step its own round, the audit's last secret with its verdict) is still read,
# in the records that hold it (SPEC 5: cuttle-record/3 and /4).
VERSIONS = (2, 3)


def _bytes(n: int):
    def check(v: Any, name: str) -> bytes:
        if type(v) is not bytes or len(v) != n:
            raise WireError(f"{name}: expected {n} bytes")
        return v

    return check


def _int(lo: int, hi: int):
    def check(v: Any, name: str) -> int:
        if type(v) is not int or not lo <= v <= hi:
            raise WireError(f"{name}: expected an int in {lo}..{hi}")
        return v

    return check


def _list(item, lo: int, hi: int):
    def check(v: Any, name: str) -> list:
        if type(v) is not list or not lo <= len(v) <= hi:
            raise WireError(f"{name}: expected a list of {lo}..{hi} items")
        try:
            return [item(x, "") for x in v]
        except WireError:
            _place_error(item, v, name)
            raise

    return check


def _tuple(*items):
    def check(v: Any, name: str) -> tuple:
        if type(v) is not list or len(v) != len(items):
            raise WireError(f"{name}: expected a list of {len(items)} fields")
        try:
            return tuple([f(x, "") for f, x in zip(items, v, strict=True)])
        except WireError:
            _place_error(items, v, name)
            raise

    return check


def _place_error(check: Any, v: list, name: str) -> None:
    """Check the items of `v` again, each named by its place (`name[i]`), to raise the error
    one of them failed with, worded: the names are made only then (a shuffle's message has
    hundreds of items, and every message is checked)."""
    for i, x in enumerate(v):
        (check[i] if isinstance(check, tuple) else check)(x, f"{name}[{i}]")


def _bool(v: Any, name: str) -> bool:
    if type(v) is not bool:
        raise WireError(f"{name}: expected a bool")
    return v


H32 = _bytes(32)
POINT = _bytes(32)
SCALAR = _bytes(32)
POSITION = _int(0, MAX_DECK - 1)
CARD = _int(0, MAX_DECK - 1)
N = (1, MAX_DECK)  # the bounds of a per-card list; its exact length is the deck size
# [position, share, proof]
SHARE = _tuple(POSITION, POINT, _bytes(PROOF_BYTES))
# [position, card, share, proof]
REVEAL = _tuple(POSITION, CARD, POINT, _bytes(PROOF_BYTES))

FIELDS = {
    "commit": H32,
    "key": POINT,
    "proof": _bytes(PROOF_BYTES),
    "salt": H32,
    "deck": _list(_tuple(POINT, POINT), *N),
    "seed_commit": H32,
    # [c, chain, t, t_hat, s, s_hat, s_prime]: SPEC.md part 2, "Shuffle argument".
    "argument": _tuple(
        _list(POINT, *N),
        _list(POINT, *N),
        _list(POINT, 5, 5),
        _list(POINT, *N),
        _list(SCALAR, 4, 4),
        _list(SCALAR, *N),
        _list(SCALAR, *N),
    ),
    "shares": _list(SHARE, 0, MAX_DECK),
    "reveal": _list(REVEAL, 0, MAX_DECK),
    "secret": SCALAR,
    "seed": H32,
    "verdict": _tuple(_bool, H32),
}


# The body fields of each step (SPEC.md part 2 lists what each means).
STEPS: dict[str, tuple[str, ...]] = {
    "key_commit": ("commit",),
    "key": ("key", "proof"),
    "key_open": ("key", "proof", "salt"),
    "shuffle": ("deck", "seed_commit", "argument"),
    "shares": ("shares",),
    "reveal": ("reveal",),
    "pick_commit": ("commit",),
    "pick_salt": ("salt",),
    "pick_open": ("salt", "reveal"),
    "audit": ("secret", "seed"),
    "audit_verdict": ("secret", "seed", "verdict"),  # version 2 only
    "verdict": ("verdict",),
}

_LATER = {3: ("audit_verdict",)}  # steps a version no longer has

ENVELOPE = ("v", "sid", "seq", "prev", "from", "op", "step", "body", "sig")

_MAP_HEAD = 5  # a map's encoding begins with its tag and a u32 count (SPEC 2.2)
_LIST_OF_A_MAP_OF_NINE = b"l" + (1).to_bytes(4, "big") + b"d" + (9).to_bytes(4, "big")


@dataclass(frozen=True)
class Message:
    sid: bytes
    seq: int
    prev: bytes
    sender: int
    op: Op
    step: str
    body: dict[str, Any]
    sig: bytes = b""
    version: int = VERSION

    def unsigned_wire(self) -> dict[str, Any]:
        return {
            "v": self.version,
            "sid": self.sid,
            "seq": self.seq,
            "prev": self.prev,
            "from": self.sender,
            "op": self.op.to_wire(),
            "step": self.step,
            "body": self.body,
        }

    def to_wire(self) -> dict[str, Any]:
        """The plain-data form (what msgpack carries)."""
        return {**self.unsigned_wire(), "sig": self.sig}

    def signed(self, key: Ed25519PrivateKey) -> Message:
        return self.signed_with_digest(key)[0]

    def signed_with_digest(self, key: Ed25519PrivateKey) -> tuple[Message, bytes]:
        """The message signed, and its ``digest``, hashed from the bytes just signed."""
        unsigned = canon(self.unsigned_wire())
        sig = ed25519_sign(key, DOMAIN + b"message\0" + unsigned)
        msg = Message(
            self.sid, self.seq, self.prev, self.sender, self.op, self.step, self.body, sig,
            self.version,
        )  # fmt: skip
        # canon([wire]) (SPEC 2.2): a list of one map, whose nine entries are the eight just
        # signed (after their map's tag and count) with "sig"'s in its place in key order,
        # before the last two ("step", "v").
        tail = canon({"step": self.step, "v": self.version})[_MAP_HEAD:]
        before = unsigned[_MAP_HEAD : len(unsigned) - len(tail)]
        full = _LIST_OF_A_MAP_OF_NINE + before + canon({"sig": sig})[_MAP_HEAD:] + tail
        return msg, hashlib.sha256(DOMAIN + b"message\0" + full).digest()

    def digest(self) -> bytes:
        """The hash the next message names as ``prev``."""
        return hash256("message", self.to_wire())

    @staticmethod
    def from_wire(data: Any, version: int = VERSION) -> Message:
        """Parse strictly: every field's type, size and count. Raises WireError naming the
        field. (Counts that depend on the session — the deck size — and the
        validity of points are checked when the message is processed.)"""
        if type(data) is not dict:
            raise WireError("message: expected a dict")
        if set(data) != set(ENVELOPE):
            raise WireError(f"message: fields must be exactly {', '.join(ENVELOPE)}")
        if data["v"] != version or type(data["v"]) is not int:
            raise WireError(f"v: unsupported version {data['v']!r}")
        sid = data["sid"]
        if type(sid) is not bytes or not 16 <= len(sid) <= 64:
            raise WireError("sid: expected 16..64 bytes")
        seq = _int(0, 1 << 32)(data["seq"], "seq")
        prev = H32(data["prev"], "prev")
        sender = _int(0, MAX_SEATS - 1)(data["from"], "from")
        op = op_from_wire(data["op"])
        step = data["step"]
        if type(step) is not str or step not in STEPS or step in _LATER.get(version, ()):
            raise WireError(f"step: unknown step {step!r}")
        body = data["body"]
        if type(body) is not dict or set(body) != set(STEPS[step]):
            raise WireError(f"body: step {step} needs exactly {', '.join(STEPS[step])}")
        for name in STEPS[step]:
            FIELDS[name](body[name], f"body.{name}")
        sig = _bytes(64)(data["sig"], "sig")
        return Message(sid, seq, prev, sender, op, step, body, sig, version)

    def verify(self, key: Ed25519PublicKey) -> bool:
        try:
            ed25519_verify(key, self.sig, DOMAIN + b"message\0" + canon(self.unsigned_wire()))
        except InvalidSignature:
            return False
        return True


def round_head(digests: list[bytes]) -> bytes:
    """The ``prev`` of the round after a complete round whose messages, by ascending sender,
    have these digests: the digest itself for a round of one message (SPEC 2.7)."""
    return digests[0] if len(digests) == 1 else hash256("round", digests)


def genesis(sid: bytes) -> bytes:
    """The ``prev`` of a session's first message."""
    return hash256("genesis", sid)
