"""Test vectors for SPEC.md part 3: a deterministic handshake and a few game frames.

The file protocol/vectors/wire/handshake.json is regenerated here and must match; set
CUTTLE_WRITE_VECTORS=1 to rewrite it after a deliberate protocol change. A second test
recomputes the derived values from the spec's formulas with `cryptography` and `hashlib`
alone, so the vectors check the text as well as the code.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import msgpack
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cuttle_protocol.wire import (
    Close,
    Connection,
    HandshakeComplete,
    LocalPlayer,
    Move,
    Ping,
    Role,
    Rules,
    crypto,
)
from wire_helpers import drain, split_frames

SIG = bytes(range(64))  # a move signature: the session checks it, not the wire

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "wire" / "handshake.json"


def fixed(label: str) -> bytes:
    return hashlib.sha256(label.encode()).digest()


INPUTS = {
    "host": {
        "name": "alice",
        "identity_seed": fixed("alice identity").hex(),
        "ephemeral_private": fixed("alice ephemeral").hex(),
        "rules": "classic",
        "variants": ["joker"],
    },
    "joiner": {
        "name": "bob",
        "identity_seed": fixed("bob identity").hex(),
        "ephemeral_private": fixed("bob ephemeral").hex(),
    },
}


def connection(role: Role) -> Connection:
    side = INPUTS[role.value]
    randomness = iter([bytes.fromhex(side["ephemeral_private"])])
    identity = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(side["identity_seed"]))
    rules = Rules(side["rules"], tuple(side["variants"])) if role is Role.HOST else None
    return Connection(
        role,
        LocalPlayer(side["name"], identity),
        rules=rules,
        random_bytes=lambda n: next(randomness),
    )


PLAINTEXT_FRAMES = {Role.HOST: 1, Role.JOINER: 2}  # hello; commit and hello


def build_vectors() -> dict:
    host, joiner = connection(Role.HOST), connection(Role.JOINER)
    conns = {Role.HOST: host, Role.JOINER: joiner}
    frames: list[dict] = []
    openers: dict[Role, crypto.FrameOpener] = {}
    sent = {Role.HOST: 0, Role.JOINER: 0}
    done: dict[Role, HandshakeComplete] = {}

    def transfer(sender: Role, *then_send: object) -> None:
        for message in then_send:
            conns[sender].send(message)
        data = conns[sender].data_to_send()
        for frame in split_frames(data):
            sent[sender] += 1
            if sent[sender] <= PLAINTEXT_FRAMES[sender]:
                plaintext = frame[4:]
            else:
                if sender not in openers:  # keys exist once a side has both hellos
                    key = conns[sender]._secrets.sending_key(sender)
                    openers[sender] = crypto.FrameOpener(key)
                plaintext = openers[sender].open(frame[:4], frame[4:])
            message = msgpack.unpackb(plaintext)["t"]
            frames.append({"from": sender.value, "message": message, "hex": frame.hex()})
            frames[-1]["plaintext"] = plaintext.hex()
        receiver = conns[sender.other]
        receiver.receive_data(data)
        for event in drain(receiver):
            if type(event).__name__ == "RulesProposed":
                receiver.accept_rules()
                event = receiver.next_event()
            if isinstance(event, HandshakeComplete):
                done[sender.other] = event

    # The order every implementation can reproduce: each side answers all it has received.
    transfer(Role.JOINER)  # commit
    transfer(Role.HOST)  # hello
    transfer(Role.JOINER)  # hello, auth
    transfer(Role.HOST)  # auth, propose
    transfer(Role.JOINER)  # accept
    transfer(Role.HOST, Move("draw", SIG), Ping(1))
    transfer(Role.JOINER, Move("points 9H", SIG))  # and the pong, queued before it
    transfer(Role.JOINER, Close("peer-quit", "good game"))
    result = done[Role.HOST]
    assert result.sas == done[Role.JOINER].sas
    return {
        "description": "cuttle-net wire protocol v5: a whole handshake, game frames and a close",
        "inputs": INPUTS,
        "frames": frames,
        "derived": {
            "host_identity_public": host._hello.identity.hex(),
            "joiner_identity_public": joiner._hello.identity.hex(),
            "host_ephemeral_public": host._hello.ephemeral.hex(),
            "joiner_ephemeral_public": joiner._hello.ephemeral.hex(),
            "hello_commitment": crypto.hello_commitment(joiner._hello_body).hex(),
            "transcript_hash": host._transcript.hex(),
            "key_host_to_joiner": host._secrets.host_to_joiner.hex(),
            "key_joiner_to_host": host._secrets.joiner_to_host.hex(),
            "session_id": result.session_id.hex(),
            "sas": result.sas,
            "version": result.version,
        },
    }


def test_vectors_are_up_to_date() -> None:
    vectors = build_vectors()
    text = json.dumps(vectors, indent=2) + "\n"
    if os.environ.get("CUTTLE_WRITE_VECTORS"):
        VECTORS.write_text(text)
    assert VECTORS.read_text() == text, "rerun with CUTTLE_WRITE_VECTORS=1 if this was meant"


# --- an independent reading of SPEC.md part 3 ---------------------------------------------

DOMAIN = b"cuttle-net/6"


def spec_hkdf(secret: bytes, transcript: bytes, label: str, length: int) -> bytes:
    kdf = HKDF(hashes.SHA256(), length, salt=DOMAIN, info=label.encode() + transcript)
    return kdf.derive(secret)


def spec_fields(hello: dict) -> bytes:
    """The checked hello fields of SPEC 3.5, each as u32(length) ‖ bytes."""
    parts = [
        b"".join(v.to_bytes(2, "big") for v in hello["versions"]),
        b"\x00".join(c.encode() for c in hello["caps"]),
        hello["role"].encode(),
        hello["name"].encode(),
        hello["identity"],
        hello["ephemeral"],
    ]
    return b"".join(len(p).to_bytes(4, "big") + p for p in parts)


def test_vectors_follow_the_spec() -> None:
    vectors = json.loads(VECTORS.read_text())
    frames = [bytes.fromhex(f["hex"]) for f in vectors["frames"]]
    commit, host_hello, joiner_hello = (msgpack.unpackb(f[4:]) for f in frames[:3])
    assert [commit["t"], host_hello["t"], joiner_hello["t"]] == ["commit", "hello", "hello"]
    derived = vectors["derived"]
    assert commit["hello"] == hashlib.sha256(DOMAIN + b"\x00hello\x00" + frames[2][4:]).digest()
    assert commit["hello"].hex() == derived["hello_commitment"]
    transcript = hashlib.sha256(
        DOMAIN + b"\x00transcript" + spec_fields(host_hello) + spec_fields(joiner_hello)
    ).digest()
    host_eph = X25519PrivateKey.from_private_bytes(
        bytes.fromhex(vectors["inputs"]["host"]["ephemeral_private"])
    )
    secret = host_eph.exchange(X25519PublicKey.from_public_bytes(joiner_hello["ephemeral"]))
    assert transcript.hex() == derived["transcript_hash"]
    raw_keys = {
        "host": spec_hkdf(secret, transcript, "key host to joiner", 32),
        "joiner": spec_hkdf(secret, transcript, "key joiner to host", 32),
    }
    assert raw_keys["host"].hex() == derived["key_host_to_joiner"]
    assert raw_keys["joiner"].hex() == derived["key_joiner_to_host"]
    keys = {side: ChaCha20Poly1305(key) for side, key in raw_keys.items()}
    assert spec_hkdf(secret, transcript, "session id", 32).hex() == derived["session_id"]
    code = int.from_bytes(spec_hkdf(secret, transcript, "sas", 8), "big") % 10**6
    assert f"{code // 1000:03d} {code % 1000:03d}" == derived["sas"]

    counters = {"host": 0, "joiner": 0}
    messages = {"host": [], "joiner": []}
    for entry, frame in list(zip(vectors["frames"], frames, strict=True))[3:]:
        sender = entry["from"]
        nonce = bytes(4) + counters[sender].to_bytes(8, "big")
        plaintext = keys[sender].decrypt(nonce, frame[4:], frame[:4])
        counters[sender] += 1
        messages[sender].append(msgpack.unpackb(plaintext))
    kinds = {side: [m["t"] for m in found] for side, found in messages.items()}
    assert kinds == {
        "host": ["auth", "propose", "move", "ping"],
        "joiner": ["auth", "accept", "pong", "move", "close"],
    }

    hellos = {"host": host_hello, "joiner": joiner_hello}
    for side in ("host", "joiner"):
        signed = DOMAIN + f"\x00auth\x00{side}\x00".encode() + transcript
        identity = Ed25519PublicKey.from_public_bytes(hellos[side]["identity"])
        identity.verify(messages[side][0]["signature"], signed)
    # No coin flip (version 5): the host proposes its game, the joiner accepts, bare.
    assert messages["host"][1] == {"t": "propose", "rules": "classic", "variants": ["joker"]}
    assert messages["joiner"][1] == {"t": "accept"}


def test_the_worked_example_of_the_spec_quotes_the_vectors() -> None:
    """SPEC 3.12 quotes pieces of the vectors (the commitment, the host's keys, the code,
    the frame sizes): they stay what the vectors hold."""
    vectors = json.loads(VECTORS.read_text())
    spec = (Path(__file__).resolve().parents[2] / "SPEC.md").read_text()
    example = " ".join(spec[spec.index("## 3.12") : spec.index("## 3.13")].split())
    derived = vectors["derived"]
    for value in ("hello_commitment", "host_identity_public", "host_ephemeral_public"):
        assert f"{derived[value][:8]}…" in example
    assert f"the SAS is `{derived['sas']}`" in example
    sizes = [len(bytes.fromhex(f["hex"])) for f in vectors["frames"][:4]]
    assert sizes == [54, 138, 138, 104]
    assert "54-byte `commit` frame" in example and "138-byte hello frame" in example
    assert "a 104-byte frame" in example
