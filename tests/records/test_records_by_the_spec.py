"""The example records of protocol/vectors/record/ checked as a third party would, from
SPEC.md alone (tests/thirdparty.py): the `Session` tag (4.1), the record's signature (5.2),
every deck message's signature and chain (2.7), every move's signature and chain (4.2) and
the `Audit` digest (2.10), with no code of the product."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import msgpack
import pytest

from tests import thirdparty as tp

RECORDS = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "record"
SIGNED = [
    "example.cuttle",
    "example-conceded.cuttle",
    "example-unisson.cuttle",
    "example-watcher.cuttle",
]
TAG = re.compile(r'^\[([A-Za-z0-9]+) "((?:[^"\\]|\\.)*)"\]$')


def read(text: str) -> tuple[list[str], dict[str, str], list[str]]:
    """The lines, the tags (5.1: `\\"` and `\\\\` the only escapes) and the transcript."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    tags = {}
    for line in lines[: lines.index("")]:
        name, value = TAG.match(line).groups()
        tags[name] = re.sub(r"\\(.)", r"\1", value)
    return lines, tags, lines[lines.index("[Transcript]") + 1 :]


def check(text: str, signed: bool = True) -> dict[str, int]:
    lines, tags, transcript = read(text)
    seats = int(tags["Players"])
    keys = [bytes.fromhex(tags[f"Seat{s}Key"]) for s in range(seats)]
    # 4.1: the game header, hashed into the Session tag.
    sid = tp.game_session_id(
        bytes.fromhex(tags["Connection"]),
        int(tags["Number"]),
        tags["Game"],
        tags["Rules"],
        int(tags["Dealer"]),
        keys,
    )
    assert sid.hex() == tags["Session"]
    # 5.2: the Signer's key over H("record", every other line joined by LF) as one text.
    signer = (
        keys[int(tags["Signer"])]
        if tags["Signer"] != "watcher"
        else (bytes.fromhex(tags["SignerKey"]))
    )
    kept = "\n".join(line for line in lines if not line.startswith("[Signature "))
    assert tp.verify_ed25519(signer, bytes.fromhex(tags["Signature"]), tp.h256("record", kept)) or (
        not signed
    )
    chain, moves = tp.Chain(sid), [tp.h256("moves", sid)]
    secrets, verdicts, last_deck = {}, [], None
    counted = {"op": 0, "msg": 0, "move": 0}
    for line in transcript:
        kind, rest = line.split(" ", 1)
        counted[kind] += 1
        if kind == "op":
            continue
        if kind == "msg":
            m = msgpack.unpackb(base64.b64decode(rest, validate=True), raw=False)
            assert (m["v"], m["sid"]) == (3, sid)
            assert tp.verify_ed25519(keys[m["from"]], m["sig"], tp.message_signed_bytes(m))
            chain.add(m)
            if m["step"] == "shuffle":
                last_deck = m["body"]["deck"]
            elif m["step"] == "audit":
                secrets[m["from"]] = m["body"]["secret"]
            elif m["step"] == "verdict":
                verdicts.append(m["body"]["verdict"])
            continue
        seat, sig, text_ = rest.split(" ", 2)
        seat = int(seat)
        # 4.2: a concession's deck head is 32 zero bytes (it may interrupt an operation).
        head = bytes(32) if text_ == "concede" else chain.complete_head()
        digest = tp.move_digest(sid, len(moves) - 1, moves[-1], head, seat, text_)
        assert tp.verify_ed25519(keys[seat], base64.b64decode(sig, validate=True), digest)
        moves.append(digest)
    if tags["Audit"] == "none":
        assert not verdicts
    else:
        order = tp.deck_order(last_deck, [secrets[s] for s in range(seats)])
        digest = tp.verdict_digest(sid, [secrets[s] for s in range(seats)], order)
        assert digest.hex() == tags["Audit"]
        assert verdicts == [[True, digest]] * seats
    return counted


@pytest.mark.parametrize("name", SIGNED)
def test_an_example_record_checks_by_the_spec_alone(name: str) -> None:
    counted = check((RECORDS / name).read_text())
    assert counted["msg"] and counted["move"]


def test_the_third_party_reading_catches_a_changed_move() -> None:
    """The reading checks something: a move text changed breaks its mover's signature (the
    record's own signature left aside, as if the signer had re-signed it)."""
    text = (RECORDS / "example.cuttle").read_text()
    line = next(x for x in text.split("\n") if x.startswith("move "))
    changed = line.rsplit(" ", 1)[0] + " draw"
    with pytest.raises(AssertionError):
        check(text.replace(line, changed, 1), signed=False)
    assert check(text, signed=False)
