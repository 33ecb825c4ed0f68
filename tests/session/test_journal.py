"""The journal of a game in progress: a replay rebuilds the live session exactly, and a damaged
file is refused with a message saying what is wrong (a torn last record is dropped)."""

from __future__ import annotations

import copy
import hashlib
import os
import random
import shutil
import stat
from collections import deque
from pathlib import Path

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from cuttle_protocol import journal as jn
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cuttle_net.drbg import new_seed, seeded_rng
from cuttle_net.games.cuttle.bots import make_bot
from cuttle_net.games.cuttle.rules import Rules
from cuttle_net.session import GameSession, SendMove


def raw(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


class Side:
    """One side of a game, journaling every input as the trio shell does."""

    def __init__(self, seat: int, rules: Rules, key, peer_key, match: bytes, path: Path):
        self.key, self.seed = key, new_seed()
        self.writer = jn.JournalWriter(jn.Place(path, f"p{seat}", address="127.0.0.1:4454"))
        self.writer.begin_game(
            role="joiner",
            peer_name="other",
            peer_identity=raw(peer_key),
            match=match,
            first_seat=seat,
            game_name="cuttle",
            rules=rules,
            game=0,
            seed=self.seed,
        )
        header = jn.read_header(path)[0]
        self.session = GameSession(seat, header.game_header(key), key, rng=seeded_rng(self.seed))
        self.sent: list = []
        self.received = 0

    def feed(self, entry: list, outbox: deque) -> None:
        out = jn.apply_input(self.session, entry)
        self.writer.append(entry, out)
        self.received += jn.from_peer(entry)
        self.sent += out.sends
        outbox.extend(out.sends)


def snapshot(side: Side | jn.Replayed) -> tuple:
    s = side.session
    return copy.deepcopy(
        (
            [(r.seat, r.text, r.signature, r.deck_at) for r in s.records],
            s.played,
            s.deck.head,
            len(s.deck.log),
            s.view.turn if s.view else None,
            s.view.hands if s.view else None,
            s.outcome,
            s.audit,
            side.sent,
            side.received,
        )
    )


def play(tmp_path: Path, rules: str, stop_after: int | None = None) -> tuple[list[Side], list]:
    """A whole game (or ``stop_after`` moves of it); the journals are copied after each move
    with what the live sides looked like then."""
    keys = [Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()]
    match = os.urandom(32)
    r = Rules.parse(rules)
    sides = [Side(s, r, keys[s], keys[1 - s], match, tmp_path / f"{s}.journal") for s in (0, 1)]
    boxes: list[deque] = [deque(), deque()]  # what each side has to receive
    for s in (0, 1):
        sides[s].feed(jn.START_INPUT, boxes[1 - s])
    bots, rng = [make_bot("greedy"), make_bot("random")], random.Random(7)
    copies = []
    moves = 0
    while not all(side.session.finished for side in sides):
        progressed = False
        for s in (0, 1):
            while boxes[s]:
                item = boxes[s].popleft()
                if isinstance(item, SendMove):
                    entry = jn.move_input(item.text, item.signature)
                else:
                    entry = jn.deck_input(item.data)
                sides[s].feed(entry, boxes[1 - s])
                progressed = True
        for side in sides:
            if side.session.my_turn:
                m = bots[side.session.seat].choose(side.session.view, rng)
                side.feed(jn.local_input(str(m)), boxes[1 - side.session.seat])
                moves += 1
                progressed = True
                where = tmp_path / f"copy{moves}"
                where.mkdir()
                for s in (0, 1):
                    shutil.copy(sides[s].writer.path, where / f"{s}.journal")
                copies.append((where, [snapshot(x) for x in sides]))
                break
        assert progressed
        if stop_after is not None and moves >= stop_after:
            break
    return sides, copies


@pytest.mark.parametrize("rules", ["classic", "standard+random-fours"])
def test_a_replay_rebuilds_the_live_session_at_any_point(tmp_path: Path, rules: str) -> None:
    sides, copies = play(tmp_path, rules)
    assert all(side.session.audit is not None for side in sides)
    picks = [copies[0], copies[len(copies) // 2], copies[-1]]
    for where, live in picks:
        for s in (0, 1):
            replayed = jn.replay(where / f"{s}.journal", sides[s].key)
            assert not replayed.torn
            assert snapshot(replayed) == live[s]
    # The end: both journals replay to the finished, audited game.
    for s in (0, 1):
        assert snapshot(jn.replay(sides[s].writer.path, sides[s].key)) == snapshot(sides[s])


def test_the_journal_is_private_and_removed_with_the_game(tmp_path: Path) -> None:
    data = tmp_path / "data"
    sides, _ = play(data / "journal", "classic", stop_after=2)
    assert stat.S_IMODE((data / "journal").stat().st_mode) == 0o700
    path = sides[0].writer.path
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    sides[0].writer.remove()
    assert not path.exists()


def test_a_torn_last_record_is_dropped_and_the_peer_resends_it(tmp_path: Path) -> None:
    sides, copies = play(tmp_path, "classic", stop_after=3)
    where = copies[-1][0]
    path = where / "1.journal"
    whole = jn.replay(path, sides[1].key)
    data = path.read_bytes()
    for cut in (1, 20, 40):  # inside the last record: its body, or all of it
        path.write_bytes(data[:-cut])
        torn = jn.replay(path, sides[1].key)
        assert torn.torn
        # One input fewer: the game is where it was before it, and asks for it again.
        assert torn.received <= whole.received
        assert len(torn.session.records) <= len(whole.session.records)


def flip(data: bytes, at: int) -> bytes:
    return data[:at] + bytes([data[at] ^ 1]) + data[at + 1 :]


def second_record(data: bytes) -> int:
    return 40 + int.from_bytes(data[:4], "big")


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        (lambda d: b"", "no header"),
        (lambda d: b"hello, world" * 10, "damaged length"),
        (lambda d: flip(d, 50), "checksum"),
        (lambda d: flip(d, second_record(d) + 40), "checksum"),
        (lambda d: d[: second_record(d)] + d[second_record(d) + 3 :], "damaged length"),
    ],
    ids=["empty", "garbage", "header-flipped", "input-flipped", "input-shifted"],
)
def test_a_damaged_journal_is_refused_with_a_reason(tmp_path: Path, damage, why: str) -> None:
    sides, copies = play(tmp_path, "classic", stop_after=3)
    path = copies[-1][0] / "0.journal"
    path.write_bytes(damage(path.read_bytes()))
    with pytest.raises(jn.JournalDamaged, match=why) as caught:
        jn.replay(path, sides[0].key)
    assert str(path) in str(caught.value)


def test_a_journal_replayed_with_another_key_does_not_pass_for_the_game(tmp_path: Path) -> None:
    _, copies = play(tmp_path, "classic", stop_after=2)
    with pytest.raises(jn.JournalDamaged, match="does not give what was sent"):
        jn.replay(copies[-1][0] / "0.journal", Ed25519PrivateKey.generate())


def test_the_seeded_generator_is_a_stream_of_its_seed() -> None:
    seed = new_seed()
    a, b = seeded_rng(seed), seeded_rng(seed)
    assert a(10) + a(54) == b(64)
    assert seeded_rng(new_seed())(64) != seeded_rng(seed)(64)
    with pytest.raises(ValueError):
        seeded_rng(b"short")


# ---- a journal of the wrong shape: JournalDamaged, never another exception -------------


def _raw_record(value) -> bytes:
    """A record as the writer frames it, around any msgpack value (floats and extension
    types included: what a damaged or hand-made file may hold)."""
    body = msgpack.packb(value, use_bin_type=True)
    return jn._length(len(body)) + hashlib.sha256(body).digest() + body


_ANY = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=False)
    | st.text(max_size=6)
    | st.binary(max_size=40)
    | st.builds(msgpack.ExtType, st.integers(0, 127), st.binary(max_size=4)),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=4) | st.integers(0, 3), inner, max_size=4)
    ),
    max_leaves=8,
)


@st.composite
def _misshapen(draw, records: list) -> list:
    """``records`` (the header, then inputs) with one thing put out of shape: a whole
    record, or one field of one, replaced, dropped or added."""
    records = copy.deepcopy(records)
    i = draw(st.integers(0, len(records) - 1))
    record = records[i]
    how = draw(st.sampled_from(["replace", "field", "drop", "add"]))
    if how == "replace":
        records[i] = draw(_ANY)
    elif isinstance(record, dict):
        key = draw(st.sampled_from(sorted(record)))
        if how == "drop":
            del record[key]
        elif how == "add":
            record[draw(st.text(max_size=6))] = draw(_ANY)
        else:
            record[key] = draw(_ANY)
    else:
        j = draw(st.integers(0, len(record) - 1))
        if how == "drop":
            del record[j]
        elif how == "add":
            record.insert(j, draw(_ANY))
        else:
            record[j] = draw(_ANY)
    return records


@pytest.fixture(scope="module")
def journal_records(tmp_path_factory) -> tuple[list, Ed25519PrivateKey]:
    sides, copies = play(tmp_path_factory.mktemp("j"), "classic", stop_after=4)
    path = copies[-1][0] / "0.journal"
    records, torn = jn._records(path.read_bytes(), path)
    assert not torn and {r[0] for r in records[1:]} >= {"start", "move", "deck", "local"}
    return records, sides[0].key


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_journal_of_the_wrong_shape_is_damaged_never_a_crash(
    journal_records, tmp_path_factory, data
) -> None:
    records, key = journal_records
    damaged = data.draw(_misshapen(records))
    path = tmp_path_factory.getbasetemp() / "misshapen.journal"
    path.write_bytes(b"".join(_raw_record(r) for r in damaged))
    try:
        jn.replay(path, key)
    except jn.JournalDamaged as e:
        assert str(path) in str(e) and "\n" not in str(e)


@pytest.mark.parametrize(
    ("where", "value", "says"),
    [
        ((1, 1), 5, r"input 0 \('start'\) does not hold nothing"),
        ("move", ["move", 5, b"s" * 64], r"\('move'\) does not hold str, bytes"),
        ("move", ["move", "c3", "not bytes"], r"\('move'\) does not hold str, bytes"),
        ("deck", ["deck", "not a map"], r"\('deck'\) does not hold dict"),
        ("move", [["move"], "c3", b""], "of no known kind"),
        ("move", [], "not a list ending in a digest"),
        (("header", "token"), 1, "token is not a str"),
        (("header", "token"), "standard+nonsense", "nonsense"),
        (("header", "game_name"), "chess", "chess"),
        (("header", "port"), "4454", "port is not a int"),
        (("header", "seed"), None, "seed is not a bytes"),
    ],
)
def test_a_field_of_the_wrong_type_is_named(journal_records, tmp_path, where, value, says):
    records, key = journal_records
    records = copy.deepcopy(records)
    if where == (1, 1):
        records[1].insert(1, value)
    elif isinstance(where, tuple):
        records[0][where[1]] = value
    else:
        n = next(i for i, r in enumerate(records) if i and r[0] == where)
        records[n] = [*value, records[n][-1]] if value else [records[n][-1]]
    path = tmp_path / "wrong.journal"
    path.write_bytes(b"".join(_raw_record(r) for r in records))
    with pytest.raises(jn.JournalDamaged, match=says):
        jn.replay(path, key)
