"""The first-dealer coin flip cannot be re-rolled by hanging up (SPEC 3.5, 3.6)."""

from __future__ import annotations

import json
import stat

import pytest
import trio
from cuttle_protocol.errors import ErrorCode, RemoteProtocolError
from cuttle_protocol.shells import ConnectionEnded, connect, open_listener
from cuttle_protocol.store import FlipStore
from cuttle_protocol.wire import Connection, FlipBook, HandshakeComplete, Role
from cuttle_protocol.wire.coinflip import LIFETIME
from wire_helpers import CLASSIC, deliver, drain, handshake, player

ALICE, BOB = player("alice"), player("bob")


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def pair(host_book: FlipBook, joiner_book: FlipBook) -> tuple[Connection, Connection]:
    return (
        Connection(Role.HOST, ALICE, rules=CLASSIC, flips=host_book),
        Connection(Role.JOINER, BOB, flips=joiner_book),
    )


def joiner_learns_then_hangs_up(host: Connection, joiner: Connection) -> Role:
    """Run until the joiner holds the host's value: it knows who deals; it leaves."""
    for _ in range(2):
        deliver(joiner, host)
        events = deliver(host, joiner)
    assert [type(e).__name__ for e in events] == ["RulesProposed"]
    return joiner._completion(joiner._their_value).first_dealer  # what the joiner now knows


def refused(receiver: Connection, sender: Connection) -> RemoteProtocolError:
    receiver.receive_data(sender.data_to_send())
    with pytest.raises(RemoteProtocolError) as info:
        drain(receiver)
    assert info.value.code is ErrorCode.FLIP_MISMATCH
    return info.value


def test_a_joiner_that_hangs_up_after_learning_gets_the_same_flip_again() -> None:
    clock = Clock()
    host_book, joiner_book = FlipBook(clock), FlipBook(clock)
    learned = joiner_learns_then_hangs_up(*pair(host_book, joiner_book))
    # However often it reconnects (fresh keys, fresh random values), the dealer stays.
    for _ in range(6):
        clock.now += 60
        h, j = handshake(*pair(host_book, joiner_book))
        assert h.first_dealer is j.first_dealer is learned


def test_a_joiner_that_forgot_its_flip_is_refused_until_it_lapses() -> None:
    clock = Clock()
    host_book = FlipBook(clock)
    joiner_learns_then_hangs_up(*pair(host_book, FlipBook(clock)))
    clock.now += LIFETIME - 120
    host, joiner = pair(host_book, FlipBook(clock))  # a re-roll: a fresh commitment
    deliver(joiner, host)
    deliver(host, joiner)
    error = refused(host, joiner)
    assert "left unfinished" in error.message and "lapses in 2 min" in error.message
    clock.now += 121  # an hour after the flip: a new one may be made
    handshake(*pair(host_book, FlipBook(clock)))


def test_a_host_that_hangs_up_after_learning_cannot_re_roll() -> None:
    clock = Clock()
    host_book, joiner_book = FlipBook(clock), FlipBook(clock)
    first, _ = handshake(*pair(host_book, joiner_book))  # the host learns, then leaves
    # An honest host replays its value: the same dealer.
    h, j = handshake(*pair(host_book, joiner_book))
    assert h.first_dealer is j.first_dealer is first.first_dealer
    # A host that wiped its memory to draw again is caught by the joiner's.
    host, joiner = pair(FlipBook(clock), joiner_book)
    deliver(joiner, host)
    deliver(host, joiner)
    deliver(joiner, host)
    error = refused(joiner, host)
    assert "re-roll" in error.message


def test_flips_are_per_peer_and_both_outcomes_occur() -> None:
    host_book = FlipBook()
    dealers = set()
    for _ in range(24):  # a new joiner (new key) each time: a new flip each time
        joiner = Connection(Role.JOINER, player("bob"), flips=FlipBook())
        h, _ = handshake(Connection(Role.HOST, ALICE, rules=CLASSIC, flips=host_book), joiner)
        dealers.add(h.first_dealer)
    assert dealers == {Role.HOST, Role.JOINER}


def test_the_flip_store_is_private_and_survives_the_process(tmp_path) -> None:
    host_dir, joiner_dir = tmp_path / "alice", tmp_path / "bob"
    learned = joiner_learns_then_hangs_up(*pair(FlipStore(host_dir), FlipStore(joiner_dir)))
    for config in (host_dir, joiner_dir):
        path = config / "coin_flips.json"
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert json.loads(path.read_text())["version"] == 1
    h, _ = handshake(*pair(FlipStore(host_dir), FlipStore(joiner_dir)))  # "restarted"
    assert h.first_dealer is learned


def test_a_damaged_flip_store_only_forgets(tmp_path) -> None:
    (tmp_path / "coin_flips.json").write_text('{"version": 1, "host": {"x": {"since": "no"}}}')
    h, j = handshake(*pair(FlipStore(tmp_path), FlipBook()))
    assert h.first_dealer is j.first_dealer


# --- over TCP, with the stores in config directories ---------------------------------------


@pytest.mark.trio
async def test_host_hangs_up_after_learning_and_reconnects(tmp_path) -> None:
    """A host that learns who deals and hangs up gets the same dealer when the joiner comes
    back, or, if it drew a new value, is refused with the reason."""
    joiner_flips = FlipStore(tmp_path / "bob")
    seen: list[HandshakeComplete] = []
    log: list[str] = []

    async def join(address: str) -> None:
        async with connect(address, BOB, flips=joiner_flips) as peer:
            seen.append(peer.info)
            with pytest.raises(ConnectionEnded):
                await peer.receive()

    with trio.fail_after(20):
        async with open_listener(0, "127.0.0.1", log=log.append) as listener:
            address = f"127.0.0.1:{listener.address[1]}"

            async def host(store: str) -> None:
                async with listener.accept(ALICE, CLASSIC, flips=FlipStore(tmp_path / store)):
                    pass  # handshake done: the host knows who deals, and leaves at once

            for _ in range(2):  # the host hangs up, the joiner comes back
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(host, "alice")
                    await join(address)
            assert seen[0].first_dealer is seen[1].first_dealer
            assert seen[0].sas != seen[1].sas  # a new connection, new keys: the same flip

            async with trio.open_nursery() as nursery:  # the host wiped its memory to re-roll
                nursery.start_soon(host, "wiped")
                with pytest.raises(ConnectionEnded) as info:
                    await join(address)
                nursery.cancel_scope.cancel()
    assert info.value.code == "flip-mismatch" and "re-roll" in info.value.message
    assert any("flip-mismatch" in line for line in log)  # the host was told why


def test_a_table_connection_remembers_no_flip() -> None:
    """At a table the flip names no dealer (3.15): a joiner meets the same table host again
    (its next table) without being refused for a value the host did not replay."""
    clock = Clock()
    joiner_book = FlipBook(clock)
    for _ in range(2):
        host = Connection(Role.HOST, ALICE, rules=CLASSIC, flips=FlipBook(clock), caps=("table",))
        joiner = Connection(Role.JOINER, BOB, flips=joiner_book, caps=("table",))
        handshake(host, joiner)
        clock.now += 60
    assert joiner_book._load() == {"host": {}, "joiner": {}}
