"""The N-player table without I/O (SPEC 3.15): seating, one code for every key, a fair
first dealer, the relayed log in one order for all, and every fault named — a host that
shows different logs to different players included."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cuttle_protocol.errors import ErrorCode, RemoteProtocolError
from cuttle_protocol.table import (
    CodeShown,
    Delivered,
    Lobby,
    LogEntry,
    RelayLog,
    Stage,
    Started,
    TableEnded,
    TableGuest,
    TableHost,
    TableSettings,
)
from cuttle_protocol.table.log import relay_statement
from cuttle_protocol.wire import Entry, LocalPlayer, Message, Post, codec

Filter = Callable[[bytes, Message], Message | list[Message] | None]


class Table:
    """A host and its guests linked in memory; `to_guest` may alter what the host sends."""

    def __init__(
        self,
        seats: int,
        *,
        game: str = "count",
        to_guest: Filter | None = None,
        clock: Callable[[], float] = lambda: 0.0,
    ):
        self.players = [LocalPlayer(f"p{i}", Ed25519PrivateKey.generate()) for i in range(seats)]
        self.host = TableHost(self.players[0], TableSettings(game, (), seats), clock=clock)
        self.guests = [
            TableGuest(p, self.host.identity, game=game, options=(), clock=clock)
            for p in self.players[1:]
        ]
        self.by_key = {g.identity: g for g in self.guests}
        self.to_guest = to_guest
        self.events: dict[int, list] = {i: [] for i in range(seats)}  # by player index
        self.offline: set[bytes] = set()  # guests whose link is down: messages are lost

    @property
    def sides(self) -> list:
        return [self.host, *self.guests]

    def join_all(self) -> None:
        for player, guest in zip(self.players[1:], self.guests, strict=True):
            assert self.host.add_joiner(player.name, guest.identity) is not None
            self.pump()

    def pump(self) -> None:
        moved = True
        while moved:
            moved = False
            for identity, message in self.host.take_outgoing():
                moved = True
                if identity in self.offline:
                    continue
                out = self.to_guest(identity, message) if self.to_guest else message
                for m in out if isinstance(out, list) else [out] if out else []:
                    self.by_key[identity].receive(m)
            for guest in self.guests:
                for message in guest.take_outgoing():
                    moved = True
                    if guest.identity not in self.offline:
                        self.host.receive(guest.identity, message)
            for i, side in enumerate(self.sides):
                self.events[i] += side.take_events()

    def of(self, i: int, kind: type) -> list:
        return [e for e in self.events[i] if isinstance(e, kind)]

    def start(self) -> None:
        self.join_all()
        for side in self.sides:
            side.confirm()
            self.pump()
        for i in range(len(self.sides)):
            assert len(self.of(i, Started)) == 1, self.events[i]


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_honest_table_seats_everyone_with_one_code_and_one_order(seats: int) -> None:
    table = Table(seats)
    table.join_all()
    # The lobby grew one joiner at a time, the host first and each joiner at its place.
    last = table.of(0, Lobby)[-1]
    assert [p.identity for p in last.players] == [s.identity for s in table.sides]
    assert [table.of(i, Lobby)[-1].you for i in range(1, seats)] == list(range(1, seats))
    codes = {table.of(i, CodeShown)[0] for i in range(seats)}
    assert len(codes) == 1  # the same code and dealer on every screen
    assert all(side.stage is Stage.CONFIRM for side in table.sides)
    for side in table.sides:
        side.confirm()
        table.pump()
    started = {table.of(i, Started)[0] for i in range(seats)}
    assert len(started) == 1
    (start,) = started
    assert 0 <= start.dealer < seats and len(start.session_id) == 32
    assert [s.identity for s in start.seats] == [s.identity for s in table.sides]
    assert [side.me for side in table.sides] == list(range(seats))
    # Game messages from every seat, some crossing, reach everyone in one order.
    for round_ in range(3):
        for seat in reversed(range(seats)):
            table.sides[seat].post({"t": "say", "n": round_ * 10 + seat})
        table.pump()
    logs = [[(d.seat, d.body["n"], d.index) for d in table.of(i, Delivered)] for i in range(seats)]
    assert all(log == logs[0] for log in logs) and len(logs[0]) == 3 * seats
    assert {(s, n % 10) for s, n, _ in logs[0]} == {(s, s) for s in range(seats)}
    heads = {side.log.head for side in table.sides}
    assert len(heads) == 1


def test_the_code_and_dealer_change_with_every_table() -> None:
    dealers, codes = set(), set()
    for _ in range(40):
        table = Table(3)
        table.join_all()
        shown = table.of(0, CodeShown)[0]
        dealers.add(shown.dealer)
        codes.add(shown.code)
    # Six digits: two of forty tables share a code in about one run in 1,300 (the birthday
    # bound; it happened under the full suite), two such pairs in about one in 3 million.
    assert len(codes) >= 39 and dealers == {0, 1, 2}


def test_lobby_frees_the_place_of_a_joiner_who_leaves_before_the_table_is_full() -> None:
    table = Table(4)
    a, b, c = table.guests
    table.host.add_joiner("p1", a.identity)
    table.host.add_joiner("p2", b.identity)
    assert table.host.add_joiner("p2 again", b.identity) is None  # one seat per key
    table.pump()
    table.host.remove_joiner(a.identity, "left the lobby")
    table.pump()
    assert table.of(2, Lobby)[-1].you == 1  # b moved up
    assert table.host.add_joiner("p3", c.identity) == 2
    table.pump()
    assert table.host.stage is Stage.LOBBY  # three of four seats
    assert table.host.add_joiner("p1", a.identity) == 3
    table.pump()
    assert [s.identity for s in table.host.seats] == [
        table.host.identity,
        b.identity,
        c.identity,
        a.identity,
    ]
    assert {table.of(i, CodeShown)[0] for i in range(4)} == {table.of(0, CodeShown)[0]}


def _forked_entries(table: Table, upto: int, order: list[int]) -> list[Entry]:
    """The host's log up to `upto` entries, then its entries `order` in that order, each
    signed by the host as if that were the log: what an equivocating host shows."""
    host = table.host
    key = table.players[0].identity
    log = RelayLog(host.log.table_id, host.log.relays[0])
    for e in host.log.entries[:upto]:
        log.append(e, host.log.relays[len(log) + 1])
    out = []
    for index in order:
        e = host.log.entries[index]
        n = len(log)
        relay = key.sign(relay_statement(n + 1, log.following(e)))
        log.append(e, relay)
        out.append(Entry(n, e.seat, e.seen, e.head, e.vouch, e.body, e.sig, relay))
    return out


def test_a_host_showing_two_players_different_orders_is_named_with_proof() -> None:
    held: list[Entry] = []
    table = Table(3)
    victim = table.guests[1].identity

    def reorder(identity: bytes, message: Message):
        if identity == victim and type(message) is Entry and message.n >= table.cut:
            held.append(message)
            if len(held) < 2:
                return None
            return _forked_entries(table, table.cut, [table.cut + 1, table.cut])
        return message

    table.start()
    table.cut = len(table.host.log)
    table.to_guest = reorder
    # Seats 1 and 2 speak at once: the host orders 1 then 2, but shows seat 2 "2 then 1".
    table.guests[0].post({"t": "say", "n": 1})
    table.guests[1].post({"t": "say", "n": 2})
    table.pump()
    order = [d.seat for d in table.of(2, Delivered)]
    assert order == [2, 1] and [d.seat for d in table.of(1, Delivered)] == [1, 2]
    table.to_guest = None
    # Seat 1's next message says which log it saw: seat 2 catches the host.
    table.guests[0].post({"t": "say", "n": 3})
    table.pump()
    (ended,) = table.of(2, TableEnded)
    assert (ended.culprit, ended.kind, ended.reporter) == (0, "equivocation", None)
    assert ended.evidence is not None and ended.evidence.proves(
        table.players[0].identity.public_key()
    )
    # Its report, relayed, convinces the others: the proof checks against the host's key.
    # Its report, relayed, convicts the host everywhere: the proof is signed by the host.
    for i in (0, 1):
        (other,) = table.of(i, TableEnded)
        assert (other.culprit, other.kind) == (0, "equivocation")
        assert other.evidence.proves(table.players[0].identity.public_key())


def test_a_host_dropping_an_entry_for_one_player_is_named() -> None:
    table = Table(4)
    victim = table.guests[2].identity
    dropped = []

    def drop(identity: bytes, message: Message):
        if identity == victim and type(message) is Entry and not dropped and table.armed:
            dropped.append(message)
            return _forked_entries(table, message.n, [])  # nothing: the entry is skipped
        return message

    table.armed = False
    table.to_guest = drop
    table.start()
    table.armed = True
    table.guests[0].post({"t": "say", "n": 1})
    table.pump()
    table.armed = False
    # The next entry the victim gets is numbered past the gap: the host skipped one.
    table.guests[1].post({"t": "say", "n": 2})
    table.pump()
    (ended,) = table.of(3, TableEnded)
    assert (ended.culprit, ended.kind) == (0, "bad-relay")


def test_a_host_hiding_an_entry_and_renumbering_is_named() -> None:
    """The host shows seat 3 a log without seat 1's message, renumbered and re-signed, so
    the numbers fit; seat 2's message then claims a longer log than its place."""
    table = Table(4)
    victim = table.guests[2].identity

    def hide(identity: bytes, message: Message):
        if identity == victim and type(message) is Entry and table.armed:
            return None
        return message

    table.armed = False
    table.to_guest = hide
    table.start()
    cut = len(table.host.log)
    table.armed = True
    table.guests[0].post({"t": "say", "n": 1})  # entry cut, hidden from seat 3
    table.pump()
    table.guests[1].post({"t": "say", "n": 2})  # entry cut + 1, seen = cut + 1
    table.pump()
    table.armed = False
    for m in _forked_entries(table, cut, [cut + 1]):  # seat 2's entry as entry `cut`
        table.guests[2].receive(m)
    table.pump()
    (ended,) = table.of(3, TableEnded)
    assert (ended.culprit, ended.kind) == (0, "bad-relay")


def test_a_host_seating_stand_ins_cannot_make_the_codes_match() -> None:
    """The host splits the table: seat 1 sees a stand-in (a key the host holds) at seat 2,
    and seat 2 a stand-in at seat 1. Each half is consistent; only the code shows it."""
    host_player = LocalPlayer("host", Ed25519PrivateKey.generate())
    real = [LocalPlayer(f"p{i}", Ed25519PrivateKey.generate()) for i in (1, 2)]
    fakes = [LocalPlayer(f"p{i}", Ed25519PrivateKey.generate()) for i in (1, 2)]
    codes = []
    for pair in ((real[0], fakes[1]), (fakes[0], real[1])):
        host = TableHost(host_player, TableSettings("count", (), 3))
        guests = [TableGuest(p, host.identity) for p in pair]
        for g, p in zip(guests, pair, strict=True):
            host.add_joiner(p.name, g.identity)
        for _ in range(6):
            for identity, m in host.take_outgoing():
                next(g for g in guests if g.identity == identity).receive(m)
            for g in guests:
                for m in g.take_outgoing():
                    host.receive(g.identity, m)
        codes.append(host.code)
        assert all(g.code == host.code for g in guests)
    assert codes[0] != codes[1]  # equal by chance one time in a million


def _signed_post(guest: TableGuest, body: dict, *, seen: int | None = None) -> Post:
    log = guest.log
    seen = len(log) if seen is None else seen
    data = codec.pack(body)
    entry = LogEntry(guest.me, seen, log.heads[seen], b"", data, b"")
    return Post(
        seen,
        log.heads[seen],
        log.relays[seen],
        data,
        guest._player.identity.sign(log.digest(entry)),
    )


def _everyone_names(table: Table, culprit: int, kind: str) -> None:
    for i in range(len(table.sides)):
        ended = table.of(i, TableEnded)
        assert len(ended) == 1, (i, table.events[i])
        assert (ended[0].culprit, ended[0].kind) == (culprit, kind), (i, ended)
        assert table.sides[i].stage is Stage.ENDED


def _seated_to_commit(table: Table) -> None:
    """Every joiner seated and shown the seating: each now commits (not yet sent)."""
    for player, guest in zip(table.players[1:], table.guests, strict=True):
        table.host.add_joiner(player.name, guest.identity)
    for identity, message in table.host.take_outgoing():
        table.by_key[identity].receive(message)


def test_a_reveal_that_does_not_open_its_commitment_is_named() -> None:
    table = Table(3)
    _seated_to_commit(table)  # each guest now commits
    table.guests[1]._value = b"\x07" * 32  # then reveals another value
    table.pump()
    _everyone_names(table, 2, "bad-reveal")


def test_a_reveal_before_every_commitment_is_named() -> None:
    table = Table(3)
    _seated_to_commit(table)  # each guest now commits
    guest = table.guests[0]
    guest.take_outgoing()  # its commitment, not sent yet
    early = _signed_post(guest, {"t": "reveal", "value": guest._value})
    table.host.receive(guest.identity, early)
    table.pump()
    # The author signed it: the host relays it, and every seat finds the fault itself.
    for i in (0, 1, 2):
        (ended,) = table.of(i, TableEnded)
        assert (ended.culprit, ended.kind, ended.reporter) == (1, "bad-entry", None)


@pytest.mark.parametrize(
    "body",
    [
        {"t": "commit", "value": b"\x01" * 31},
        {"t": "commit", "value": "x" * 32},
        {"t": "commit", "value": b"\x01" * 32, "extra": 1},
        {"t": "commit"},
    ],
)
def test_a_commitment_not_of_one_32_byte_value_is_its_authors_bad_entry(body: dict) -> None:
    table = Table(3)
    _seated_to_commit(table)  # each guest now commits
    guest = table.guests[0]
    guest.take_outgoing()  # its commitment, in place of which it sends `body`
    table.host.receive(guest.identity, _signed_post(guest, body))
    table.pump()
    for i in (0, 1, 2):
        (ended,) = table.of(i, TableEnded)
        assert (ended.culprit, ended.kind, ended.reporter) == (1, "bad-entry", None)


@pytest.mark.parametrize(
    ("forge", "kind", "reporter"),
    [
        # Not its signed entry: only the host saw it, and drops the connection (`left`).
        ("signature", "left", 0),
        ("old-head", "left", 0),
        ("twice", "left", 0),
        # Its signed entry: relayed, so that every seat finds the fault itself.
        ("game-early", "bad-entry", None),
        ("garbage", "bad-entry", None),
    ],
)
def test_a_joiner_breaking_the_log_is_named_by_the_host_for_everyone(
    forge: str, kind: str, reporter: int | None
) -> None:
    table = Table(4)
    if forge == "game-early":
        table.join_all()
    else:
        table.start()
    guest = table.guests[1]
    if forge == "signature":
        post = _signed_post(guest, {"t": "say"})
        post = Post(post.seen, post.head, post.vouch, post.body, bytes(64))
    elif forge == "old-head":
        good = _signed_post(guest, {"t": "say"}, seen=2)
        post = Post(good.seen, table.host.log.heads[3], good.vouch, good.body, good.sig)
    elif forge == "game-early":
        post = _signed_post(guest, {"t": "say"})
    elif forge == "twice":
        post = _signed_post(guest, {"t": "say"})
        table.host.receive(guest.identity, post)
        table.pump()
    else:
        post = _signed_post(guest, {"t": "say"})
        data = b"\xc1"  # never valid msgpack
        entry = LogEntry(2, post.seen, post.head, b"", data, b"")
        sig = guest._player.identity.sign(guest.log.digest(entry))
        post = Post(post.seen, post.head, post.vouch, data, sig)
    table.host.receive(guest.identity, post)
    table.pump()
    _everyone_names(table, 2, kind)
    for i in (1, 3):  # the joiners but the culprit
        assert table.of(i, TableEnded)[0].reporter == reporter


def test_a_relayed_entry_its_author_did_not_sign_convicts_the_host() -> None:
    table = Table(3)

    def forge(identity, message):
        if type(message) is Entry and message.seat == 1 and table.armed:
            body = codec.pack({"t": "say", "n": 666})
            log = table.by_key[identity].log
            e = LogEntry(1, message.seen, message.head, message.vouch, body, message.sig)
            relay = table.players[0].identity.sign(relay_statement(message.n + 1, log.following(e)))
            return Entry(
                message.n, 1, message.seen, message.head, message.vouch, body, message.sig, relay
            )
        return message

    table.armed = False
    table.to_guest = forge
    table.start()
    table.armed = True
    table.guests[0].post({"t": "say", "n": 1})
    table.pump()
    (ended,) = table.of(2, TableEnded)
    assert (ended.culprit, ended.kind) == (0, "bad-relay")


def test_a_player_who_leaves_is_named_the_same_way_by_everyone() -> None:
    table = Table(5)
    table.start()
    table.guests[2].leave("peer-quit", "bye")
    table.pump()
    _everyone_names(table, 3, "left")
    assert table.of(1, TableEnded)[0].detail == "bye"


def test_answering_an_event_from_before_the_end_is_no_error() -> None:
    """A seat's game still acting on an event queued before the table ended (another seat
    left meanwhile): its post and its confirmation are dropped, nothing is sent."""
    table = Table(3)
    table.start()
    table.guests[1].leave("peer-quit", "bye")
    table.pump()
    for seat in (table.host, table.guests[0]):
        seat.take_outgoing()
        seat.post({"t": "count", "n": 1})
        seat.confirm()
        assert seat.take_outgoing() == [] and seat.take_events() == []


def test_a_lost_joiner_is_named_by_the_host_for_everyone() -> None:
    table = Table(3)
    table.start()
    lost = table.guests[0]
    table.offline.add(lost.identity)
    table.host.remove_joiner(lost.identity, "no reconnection within 60 s")
    table.pump()
    for i in (0, 2):
        (ended,) = table.of(i, TableEnded)
        assert (ended.culprit, ended.kind, ended.detail) == (
            1,
            "left",
            "no reconnection within 60 s",
        )


def test_a_withheld_post_shows_as_unrelayed() -> None:
    table = Table(3)
    table.start()
    guest = table.guests[0]
    table.offline.add(guest.identity)  # the host never gets it
    guest.post({"t": "say"})
    table.pump()
    assert guest.unrelayed == 1


def test_a_reconnected_joiner_catches_up_and_resends_what_was_lost() -> None:
    table = Table(3)
    table.start()
    guest = table.guests[1]
    table.offline.add(guest.identity)
    table.guests[0].post({"t": "say", "n": 1})
    table.host.post({"t": "say", "n": 0})
    guest.post({"t": "say", "n": 2})  # lost with the link
    table.pump()
    table.offline.clear()
    # The reconnection's resume: each side says what it received; the other sends the rest.
    table.host.resend(guest.identity, guest.received)
    guest.resend(table.host.posts_received(guest.identity))
    table.pump()
    logs = [[(d.seat, d.body["n"]) for d in table.of(i, Delivered)] for i in range(3)]
    assert logs[0] == logs[1] == logs[2] == [(0, 0), (1, 1), (2, 2)]
    assert guest.unrelayed == 0


def test_a_resume_counting_more_than_was_sent_is_refused_on_either_side() -> None:
    # SPEC 3.15: `received` counts the log's entries (a joiner's) or its posts (the host's)
    # from the table's start, over every game; above what was sent, the connection closes
    # with unexpected-message.
    table = Table(3)
    table.start()
    guest = table.guests[0]
    guest.post({"t": "say"})
    table.pump()
    table.host.resend(guest.identity, guest.received)  # exactly what it holds: nothing more
    guest.resend(table.host.posts_received(guest.identity))
    with pytest.raises(RemoteProtocolError) as by_joiner:
        table.host.resend(guest.identity, guest.received + 1)
    with pytest.raises(RemoteProtocolError) as by_host:
        guest.resend(table.host.posts_received(guest.identity) + 1)
    assert by_joiner.value.code == by_host.value.code == ErrorCode.UNEXPECTED_MESSAGE


def test_the_seating_must_seat_us_and_the_host_for_the_proposed_game() -> None:
    table = Table(3, game="count")
    other = TableGuest(table.players[1], table.host.identity, game="unisson", options=())
    table.by_key[other.identity] = other
    table.guests[0] = other
    table.join_all()
    (ended,) = table.of(1, TableEnded)
    assert (ended.culprit, ended.kind) == (0, "bad-relay")


def test_a_joiner_accusing_another_joiner_is_shown_as_its_word() -> None:
    table = Table(4)
    table.start()
    table.guests[0].fault(3, "illegal_move", "it played a card it never had")
    table.pump()
    for i in (0, 2, 3):
        (ended,) = table.of(i, TableEnded)
        assert (ended.culprit, ended.kind, ended.reporter) == (3, "illegal_move", 1)
        assert ended.detail == "seat 1 says: it played a card it never had"
    # The host's verdicts (it sees who stalls) are its own findings, shown as they are.
    table = Table(3)
    table.start()
    table.host.fault(2, "timeout", "no move in 600 s")
    table.pump()
    assert {table.of(i, TableEnded)[0].detail for i in range(3)} == {"no move in 600 s"}


def test_each_entry_checks_only_the_signatures_new_to_its_reader(monkeypatch) -> None:
    """An Ed25519 verify is the costliest step of taking an entry (about 0.1 ms): a seat
    checks the signatures it does not hold yet, and trusts only byte-equal copies of the
    ones it checked or made (the host's vouch over a head it relayed, our own entry)."""
    from cuttle_protocol.table import core as table_module

    table = Table(3)
    table.start()
    checked: list[bytes] = []
    real = table_module.verify

    def counted(key, signature: bytes, data: bytes) -> bool:
        checked.append(key.public_bytes_raw())
        return real(key, signature, data)

    monkeypatch.setattr(table_module, "verify", counted)
    host, author, reader = table.sides
    author.post({"t": "say", "n": 1})
    (post,) = author.take_outgoing()
    host.receive(author.identity, post)
    assert checked == [author.identity]  # the author's signature; the vouch is the host's own
    checked.clear()
    entries = dict(host.take_outgoing())
    author.receive(entries[author.identity])
    assert checked == [host.identity]  # its own entry back: only the host's new relay
    checked.clear()
    reader.receive(entries[reader.identity])
    assert checked == [author.identity, host.identity]  # the author's, and the relay
    table.pump()  # and the entry is taken by all, in one log
    assert [[d.body for d in table.of(i, Delivered)] for i in range(3)] == [
        [{"t": "say", "n": 1}]
    ] * 3
    assert len({side.log.head for side in table.sides}) == 1


def test_a_vouch_that_is_not_the_relayed_signature_is_still_checked() -> None:
    """A vouch over the right head, but not the host's signature: refused as before."""
    table = Table(3)
    table.start()
    guest = table.guests[0]
    good = _signed_post(guest, {"t": "say"})
    table.host.receive(guest.identity, Post(good.seen, good.head, bytes(64), good.body, good.sig))
    table.pump()
    _everyone_names(table, 1, "left")


def test_a_log_digests_each_entry_by_its_own_fields() -> None:
    # The log remembers the last entry it digested (taking an entry asks three times): a
    # new entry, even one like the last but for its body, gets its own digest.
    from cuttle_protocol.table.log import post_digest

    log = RelayLog(b"t" * 16, b"r" * 64)
    first = LogEntry(1, 0, log.head, b"v" * 64, b"body one", b"s" * 64)
    second = LogEntry(1, 0, log.head, b"v" * 64, b"body two", b"s" * 64)
    for entry in (first, second, first, second):
        expected = post_digest(log.table_id, entry.seat, entry.seen, entry.head, entry.body)
        assert log.digest(entry) == expected
    log.append(first, b"x" * 64)
    log.append(second, b"y" * 64)
    assert log.heads[2] != log.heads[1] != log.heads[0]
