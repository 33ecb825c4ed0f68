"""The published vectors are what the code produces, and a third party can check them."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from cuttle_net.deck import check_transcript
from cuttle_net.deck.group import card_point

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors"


def load_generator():
    spec = importlib.util.spec_from_file_location("deck_vectors", VECTORS / "deck_vectors.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def unhex(v):
    """JSON back to wire form: every string is a hex byte string (op and step aside)."""
    if isinstance(v, str):
        return bytes.fromhex(v)
    if isinstance(v, dict):
        return {k: unhex(x) for k, x in v.items()}
    if isinstance(v, list):
        return [unhex(x) for x in v]
    return v


def test_vectors_are_up_to_date():
    assert load_generator().main(["--check"]) == 0


def test_card_encodings_vector():
    data = json.loads((VECTORS / "deck-card-encodings.json").read_text())
    assert [bytes.fromhex(e["point"]) for e in data["cards"]] == [card_point(c) for c in range(104)]


@pytest.mark.parametrize("name", ["deck-deal.json", "deck-deal-3.json"])
def test_a_third_party_checks_the_deal_vectors(name):
    data = json.loads((VECTORS / name).read_text())
    transcript, last_op = [], None
    for m in data["messages"]:
        wire = {k: v if k in ("op", "step") else unhex(v) for k, v in m["wire"].items()}
        if wire["op"] != last_op:
            transcript.append(("op", wire["op"]))
            last_op = wire["op"]
        transcript.append(("msg", wire))
    keys = [
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(k)) for k in data["identity_public_keys"]
    ]
    sid = bytes.fromhex(data["session_id"])
    assert check_transcript(transcript, keys, session_id=sid, deck_size=data["deck_size"]) is None
