"""Test vectors for SPEC.md 3.15: a whole three-seat table from fixed inputs.

protocol/vectors/wire/table.json holds every `table` and `entry` message the host sends and
every `post` the joiners send (and every `entry` it sends a watcher, *Watchers*), in order,
as MessagePack hex, with the heads, the code, the first dealer and the session id. It is
regenerated here and must match (set CUTTLE_WRITE_VECTORS=1 to rewrite it after a
deliberate change); a second test recomputes every head, signature check, the code and the
dealer from the formulas of 3.15 alone.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cuttle_protocol.table import (
    CodeShown,
    Started,
    TableGuest,
    TableHost,
    TableSettings,
    TableWatcher,
)
from cuttle_protocol.wire import LocalPlayer

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "wire" / "table.json"
DOMAIN = b"cuttle-net/6"
NAMES = ("alice", "bob", "carol")


def fixed(label: str) -> bytes:
    return hashlib.sha256(label.encode()).digest()


INPUTS = {
    name: {
        "identity_seed": fixed(f"{name} identity").hex(),
        "code_value": fixed(f"{name} code value").hex(),
    }
    | ({"table_id": fixed("alice table").hex()} if name == "alice" else {})
    for name in NAMES
}
GAME = {"game": "unisson", "options": ["short"], "seats": 3}
WATCHER = {"name": "dave", "identity_seed": fixed("dave identity").hex()}


def build_vectors() -> dict:
    players = [
        LocalPlayer(n, Ed25519PrivateKey.from_private_bytes(bytes.fromhex(i["identity_seed"])))
        for n, i in INPUTS.items()
    ]

    def source(name: str):
        values = [bytes.fromhex(INPUTS[name]["code_value"])]
        if "table_id" in INPUTS[name]:
            values.append(bytes.fromhex(INPUTS[name]["table_id"]))
        return lambda n: values.pop(0)

    settings = TableSettings(GAME["game"], tuple(GAME["options"]), GAME["seats"])
    host = TableHost(players[0], settings, random_bytes=source("alice"))
    guests = {
        p.identity.public_key().public_bytes_raw(): TableGuest(
            p, host.identity, game="unisson", options=("short",), random_bytes=source(p.name)
        )
        for p in players[1:]
    }
    dave = LocalPlayer(
        WATCHER["name"],
        Ed25519PrivateKey.from_private_bytes(bytes.fromhex(WATCHER["identity_seed"])),
    )
    host.watcher_chat = True  # `--watcher-chat`: dave may say a line
    watcher = TableWatcher(dave, host.identity, chat=True)
    sides = {**guests, watcher.identity: watcher}
    messages: list[dict] = []

    def pump() -> None:
        moved = True
        while moved:
            moved = False
            for identity, message in host.take_outgoing():
                moved = True
                to = sides[identity]
                messages.append(
                    {"from": "alice", "to": to._player.name, "hex": _hex(message.to_wire())}
                )
                to.receive(message)
            for guest in guests.values():
                for message in guest.take_outgoing():
                    moved = True
                    messages.append(
                        {"from": guest._player.name, "to": "alice", "hex": _hex(message.to_wire())}
                    )
                    host.receive(guest.identity, message)
            for message in watcher.take_outgoing():  # its chat line only
                moved = True
                messages.append({"from": "dave", "to": "alice", "hex": _hex(message.to_wire())})
                assert host.hear_watcher(watcher.identity, message) is None

    for player in players[1:]:
        host.add_joiner(player.name, player.identity.public_key().public_bytes_raw())
        pump()
        if player is players[1]:  # a watcher comes while the table fills
            assert host.add_watcher(dave.name, watcher.identity) is None
    for side in (host, *guests.values()):
        side.confirm()
        pump()
    # A word to the table (SPEC 3.15): bob's chat line, relayed like every entry.
    assert next(iter(guests.values())).say("good game")
    pump()
    # A watcher's line (*Watchers*): dave signs it, the host relays it in its own entry.
    assert watcher.say("well played")
    pump()
    # Another game (SPEC 3.15 *Another game*): the host proposes it, each joiner agrees.
    host.rematch()
    pump()
    for guest in guests.values():
        guest.rematch()
        pump()
    events = host.take_events()
    (shown,) = [e for e in events if isinstance(e, CodeShown)]
    second = [e for e in events if isinstance(e, Started)][-1]
    assert second.number == 2
    return {
        "description": "cuttle-net/6 table (SPEC 3.15): three seats, from the lobby to the"
        " start of game 1 (the host names its watcher, dave, who is sent every entry), a"
        " chat line from bob, one from dave (the host takes its watchers' chat: dave's post,"
        " then the host's watcher-chat entry), then the rematch that starts game 2",
        "inputs": {"players": INPUTS, "settings": GAME, "watcher": WATCHER},
        "messages": messages,
        "derived": {
            "heads": [h.hex() for h in host.log.heads],
            "code": shown.code,
            "dealer": shown.dealer,
            "dealer_game_2": second.dealer,
            "session_id": host.session_id.hex(),
        },
    }


def _hex(wire: dict) -> str:
    return msgpack.packb(wire, use_bin_type=True).hex()


def test_table_vectors_are_up_to_date() -> None:
    text = json.dumps(build_vectors(), indent=2) + "\n"
    if os.environ.get("CUTTLE_WRITE_VECTORS"):
        VECTORS.write_text(text)
    assert VECTORS.read_text() == text, "rerun with CUTTLE_WRITE_VECTORS=1 if this was meant"


# --- an independent reading of SPEC.md 3.15 ------------------------------------------------


def H(label: bytes, *parts: bytes) -> bytes:
    return hashlib.sha256(DOMAIN + b"\x00" + label + b"\x00" + b"".join(parts)).digest()


def u32(n: int) -> bytes:
    return n.to_bytes(4, "big")


def test_table_vectors_follow_the_spec() -> None:
    vectors = json.loads(VECTORS.read_text())
    wires = [msgpack.unpackb(bytes.fromhex(m["hex"])) for m in vectors["messages"]]
    statuses = [w for w in wires if w["t"] == "table"]
    table_id = statuses[0]["id"]
    keys = [Ed25519PublicKey.from_public_bytes(k) for _, k in statuses[-1]["players"]]
    host = keys[0]
    # Every joiner receives the same entries: rebuild the log from bob's copy.
    to_bob = [
        w
        for w, m in zip(wires, vectors["messages"], strict=True)
        if w["t"] == "entry" and m["to"] == "bob"
    ]
    heads = [H(b"table log", table_id)]
    bodies = []
    for e in to_bob:
        assert e["n"] == len(heads) - 1
        digest = H(
            b"post",
            table_id,
            u32(e["seat"]),
            u32(e["seen"]),
            e["head"],
            hashlib.sha256(e["body"]).digest(),
        )
        keys[e["seat"]].verify(e["sig"], digest)
        assert e["head"] == heads[e["seen"]]
        host.verify(e["vouch"], DOMAIN + b"\x00relay\x00" + u32(e["seen"]) + e["head"])
        heads.append(H(b"log", heads[-1], digest))
        host.verify(e["relay"], DOMAIN + b"\x00relay\x00" + u32(e["n"] + 1) + heads[-1])
        bodies.append((e["seat"], msgpack.unpackb(e["body"])))
    derived = vectors["derived"]
    assert [h.hex() for h in heads] == derived["heads"]
    kinds = [b["t"] for _, b in bodies]
    table = ["seats"] + ["commit"] * 3 + ["reveal"] * 3 + ["ready"] * 3
    assert kinds == [*table, "watch", "chat", "watcher-chat"] + ["rematch"] * 3
    # Once game 1 started, the host names who watches; the watcher got every entry too.
    dave = bytes.fromhex(WATCHER["identity_seed"])
    dave_key = Ed25519PrivateKey.from_private_bytes(dave).public_key().public_bytes_raw()
    assert bodies[10] == (0, {"t": "watch", "watchers": [["dave", dave_key]]})
    to_dave = [w for w, m in zip(wires, vectors["messages"], strict=True) if m["to"] == "dave"]
    assert to_dave == to_bob
    assert bodies[11] == (1, {"t": "chat", "n": 0, "text": "good game"})  # bob, in game 1
    # dave's line: its post (signed with its key), relayed in the host's entry, which
    # carries what dave signed, so anyone checks it against the key the `watch` entry names.
    (post,) = [w for w, m in zip(wires, vectors["messages"], strict=True) if m["from"] == "dave"]
    seat, aside = bodies[12]
    assert seat == 0 and aside == {
        "t": "watcher-chat",
        "key": dave_key,
        "seen": post["seen"],
        "body": post["body"],
        "sig": post["sig"],
    }
    assert msgpack.unpackb(aside["body"]) == {"t": "chat", "n": 0, "text": "well played"}
    assert post["head"] == heads[post["seen"]]
    signed = H(
        b"watcher post",
        table_id,
        dave_key,
        u32(aside["seen"]),
        heads[aside["seen"]],
        hashlib.sha256(aside["body"]).digest(),
    )
    Ed25519PublicKey.from_public_bytes(dave_key).verify(aside["sig"], signed)
    # The host proposes game 2, then each joiner agrees, each after seeing the proposal.
    assert [(s, b["game"]) for s, b in bodies[13:]] == [(0, 2), (1, 2), (2, 2)]
    assert all(e["seen"] > 13 for e in to_bob[14:])
    commits = {s: b["value"] for s, b in bodies if b["t"] == "commit"}
    values = {s: b["value"] for s, b in bodies if b["t"] == "reveal"}
    for seat, value in values.items():
        assert commits[seat] == H(b"code commit", heads[1], u32(seat), value)
    settled = heads[4]  # after the seating and the three commitments
    joined = b"".join(values[s] for s in range(3))
    code = int.from_bytes(H(b"table code", settled, joined)[:8], "big") % 10**6
    assert f"{code // 1000:03d} {code % 1000:03d}" == derived["code"]
    dealer = int.from_bytes(H(b"dealer", settled, joined)[:8], "big") % 3
    assert dealer == derived["dealer"]
    assert derived["dealer_game_2"] == (dealer + 1) % 3  # the deal passes left
    assert H(b"table session", settled, joined).hex() == derived["session_id"]
