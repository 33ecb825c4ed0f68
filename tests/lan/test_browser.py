"""The browser's handling of announcements, hostile ones included, and its trio hand-off.

No network: a fake zeroconf answers resolutions with records built here, and the handler is
called as zeroconf's browser thread would call it.
"""

from __future__ import annotations

import argparse
import socket
import threading
from dataclasses import replace

import ifaddr
import pytest
import trio
from cuttle_protocol.shells import Browser, LanUnavailable
from cuttle_protocol.shells import mdns as lan
from cuttle_protocol.shells.mdns import MAX_GAMES
from cuttle_protocol.wire import SERVICE_TYPE, parse_address
from zeroconf import BadTypeInNameException, IPVersion, ServiceInfo, ServiceStateChange

from cuttle_net.games.interface import game_module

GOOD = {b"v": b"1", b"name": b"Alice", b"rules": b"classic", b"seat": b"free"}


class FakeZeroconf:
    """Answers ``get_service_info`` from a table of records, as the network would."""

    def __init__(self) -> None:
        self.records: dict[str, ServiceInfo | Exception | None] = {}

    def add(
        self,
        instance: str,
        properties: dict[bytes, bytes | None] | bytes = GOOD,
        port: int | None = 4000,
        addresses: list[str] | None = None,
        interface_index: int | None = None,
    ) -> str:
        name = f"{instance}.{SERVICE_TYPE}"
        self.records[name] = ServiceInfo(
            SERVICE_TYPE,
            name,
            port=port,
            properties=properties,
            server="h.local.",
            parsed_addresses=["192.0.2.7"] if addresses is None else addresses,
            interface_index=interface_index,  # where a link-local address was heard
        )
        return name

    def get_service_info(self, type_: str, name: str, timeout: int) -> ServiceInfo | None:
        record = self.records.get(name)
        if isinstance(record, Exception):
            raise record
        return record


def event(browser: Browser, zc: FakeZeroconf, name: str, change: str = "Added") -> None:
    browser._handle(
        zeroconf=zc,  # type: ignore[arg-type]
        service_type=SERVICE_TYPE,
        name=name,
        state_change=ServiceStateChange[change],
    )


@pytest.fixture
def zc() -> FakeZeroconf:
    return FakeZeroconf()


def test_a_good_announcement_is_listed(zc: FakeZeroconf) -> None:
    browser = Browser()
    event(browser, zc, zc.add("alice", addresses=["192.0.2.7", "198.51.100.1"]))
    (game,) = browser.games()
    assert (game.announcement.name, game.address, game.port) == ("Alice", "192.0.2.7", 4000)
    assert game.addresses == ("192.0.2.7", "198.51.100.1")
    assert game.announcement.rules.name == "classic" and game.announcement.seat_free
    assert browser.rejected() == {}


def test_a_table_is_listed_with_its_game_and_seats(zc: FakeZeroconf) -> None:
    browser = Browser()
    table = {**GOOD, b"game": b"unisson", b"rules": b"two-decks", b"seats": b"5", b"taken": b"3"}
    event(browser, zc, zc.add("ann", table))
    (game,) = browser.games()
    a = game.announcement
    assert (a.game, a.rules.name, a.seats, a.taken, a.table) == ("unisson", "two-decks", 5, 3, True)


def test_an_ipv6_only_host_is_listed_at_its_global_address_first(zc: FakeZeroconf) -> None:
    """A host with a link-local and a global IPv6 address: the global one is dialled
    first, the link-local one kept after it with the interface it was heard on."""
    browser = Browser()
    event(browser, zc, zc.add("alice", addresses=["fe80::7", "2001:db8::7"], interface_index=1))
    (game,) = browser.games()
    lo = socket.if_indextoname(1)
    assert game.addresses == ("2001:db8::7", f"fe80::7%{lo}")
    assert game.join_address == "[2001:db8::7]:4000"
    assert parse_address(game.join_address) == ("2001:db8::7", 4000)


def test_a_link_local_host_is_listed_with_its_zone(zc: FakeZeroconf) -> None:
    """Only link-local: listed with the zone a joiner needs (the interface's name), in the
    form `cuttle join` takes."""
    browser = Browser()
    event(browser, zc, zc.add("alice", addresses=["fe80::7"], interface_index=1))
    (game,) = browser.games()
    lo = socket.if_indextoname(1)
    assert game.address == f"fe80::7%{lo}"
    assert game.join_address == f"[fe80::7%{lo}]:4000"
    assert parse_address(game.join_address) == (f"fe80::7%{lo}", 4000)


def test_a_dual_stack_host_is_listed_at_its_ipv4_address_first(zc: FakeZeroconf) -> None:
    browser = Browser()
    event(browser, zc, zc.add("alice", addresses=["2001:db8::7", "192.0.2.7"]))
    (game,) = browser.games()
    assert game.addresses == ("192.0.2.7", "2001:db8::7")


@pytest.mark.parametrize(
    ("host", "where"),
    [
        ("::", None),  # every interface, both versions: "::" listens on IPv4 too
        ("0.0.0.0", ["0.0.0.0"]),  # every IPv4 one
        ("2001:db8::1", ["2001:db8::1"]),
        ("fe80::1%eth0", ["fe80::1%eth0"]),
        ("192.0.2.1", ["192.0.2.1"]),
        ("::1", []),
        ("127.0.0.1", []),
    ],
)
def test_where_a_host_announces(host: str, where: list[str] | None) -> None:
    assert lan.announce_interfaces(host) == where


def test_the_interfaces_to_use(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unspecified addresses stand for every address of theirs (both versions for `::`),
    a name for its interface's; anything else is used as given."""
    v4, v6, local = "192.0.2.9", "2001:db8::9", "fe80::9%eth9"

    def local_addresses(version: int | None = None) -> list[str]:
        return [a for a in (v4, v6, local) if version in (None, 4 if a == v4 else 6)]

    monkeypatch.setattr(lan, "local_addresses", local_addresses)
    eth9 = ifaddr.Adapter(
        "eth9", "eth9", [ifaddr.IP(v4, 24, "eth9"), ifaddr.IP(("fe80::9", 0, 9), 64, "eth9")]
    )
    monkeypatch.setattr(lan.ifaddr, "get_adapters", lambda: [eth9])
    assert lan._addresses(None) == [v4, v6, local]
    assert lan._addresses(["0.0.0.0"]) == [v4]
    assert lan._addresses(["::"]) == [v4, v6, local]
    assert lan._addresses(["eth9"]) == [v4, local]
    assert lan._addresses(["2001:db8::1", "2001:db8::1"]) == ["2001:db8::1"]


def test_updates_replace_and_removals_drop(zc: FakeZeroconf) -> None:
    browser = Browser()
    name = zc.add("alice")
    event(browser, zc, name)
    zc.add("alice", {**GOOD, b"seat": b"taken"})
    event(browser, zc, name, "Updated")
    assert [g.announcement.seat_free for g in browser.games()] == [False]
    event(browser, zc, name, "Removed")
    assert browser.games() == []


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        ({"port": 0}, "port 0"),
        ({"properties": {**GOOD, b"v": b"2"}}, "protocol version 2"),
        ({"properties": {**GOOD, b"name": b"x" * 250}}, "longer than"),
        ({"properties": {**GOOD, b"rules": b"poker"}}, "unknown rule set"),
        ({"properties": {**GOOD, b"game": b"unisson", b"rules": b"one-deck"}}, "'seats'"),
        ({"properties": b"\xff\x00garbage"}, "missing"),  # a TXT string longer than the rest
        ({"properties": b""}, "missing"),
        ({"properties": b"\x04v=1\x00\x00"}, "not a number"),
        ({"addresses": ["0.0.0.0"]}, "no usable address"),
        ({"addresses": ["127.0.0.1"]}, "no usable address"),
        ({"addresses": ["224.0.0.251"]}, "no usable address"),
        ({"addresses": []}, "no usable address"),
        ({"addresses": ["::1"]}, "no usable address"),
        ({"addresses": ["ff02::fb"]}, "no usable address"),
        ({"addresses": ["::ffff:192.0.2.7"]}, "no usable address"),
        # Link-local IPv6 heard with no interface (over IPv4): nothing a joiner can dial.
        ({"addresses": ["fe80::7"]}, "no usable address"),
    ],
)
def test_hostile_announcements_are_rejected_with_a_reason(
    zc: FakeZeroconf, kwargs: dict[str, object], reason: str
) -> None:
    browser = Browser()
    event(browser, zc, zc.add("alice"))
    bad = zc.add("mallory", **kwargs)  # type: ignore[arg-type]
    event(browser, zc, bad)
    assert [g.announcement.name for g in browser.games()] == ["Alice"]
    assert reason in browser.rejected()[bad]


def test_a_game_that_turns_bad_is_dropped_and_one_that_recovers_returns(
    zc: FakeZeroconf,
) -> None:
    browser = Browser()
    name = zc.add("alice")
    event(browser, zc, name)
    zc.add("alice", port=0)
    event(browser, zc, name, "Updated")
    assert browser.games() == [] and name in browser.rejected()
    zc.add("alice")
    event(browser, zc, name, "Updated")
    assert len(browser.games()) == 1 and browser.rejected() == {}


def test_an_exception_from_zeroconf_does_not_escape_the_handler(zc: FakeZeroconf) -> None:
    browser = Browser()
    name = f"boom.{SERVICE_TYPE}"
    zc.records[name] = IndexError("truncated packet")
    event(browser, zc, name)
    assert browser.rejected() == {name: "unreadable announcement (IndexError)"}


def test_an_unresolved_service_is_silently_skipped(zc: FakeZeroconf) -> None:
    browser = Browser()
    event(browser, zc, f"gone.{SERVICE_TYPE}")
    assert browser.games() == [] and browser.rejected() == {}


def test_service_names_are_cleaned_before_they_are_shown(zc: FakeZeroconf) -> None:
    browser = Browser()
    bad = f"\x1b[2Jevil.{SERVICE_TYPE}"
    zc.records[bad] = BadTypeInNameException("control character")  # what zeroconf raises
    event(browser, zc, bad)
    assert browser.rejected() == {
        f"?[2Jevil.{SERVICE_TYPE}": "unreadable announcement (BadTypeInNameException)"
    }


def test_a_flood_of_announcements_is_capped(zc: FakeZeroconf) -> None:
    browser = Browser()
    for i in range(MAX_GAMES + 5):
        event(browser, zc, zc.add(f"g{i}"))
    assert len(browser.games()) == MAX_GAMES
    assert len(browser.rejected()) == 5


def test_no_interface_means_lan_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lan, "local_addresses", lambda version=None: [])
    with pytest.raises(LanUnavailable, match=r"no network interface.*cuttle join HOST:PORT"):
        Browser().start()


def test_multicast_refused_means_lan_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(**kwargs: object) -> None:
        raise OSError(19, "No such device")

    monkeypatch.setattr(lan, "Zeroconf", refuse)
    with pytest.raises(LanUnavailable, match=r"multicast could not be set up on 192\.0\.2\.9"):
        lan.Announcer(
            lan.Announcement("Alice", 4000, game_module("cuttle").parse_rules("classic", 2)),
            interfaces=["192.0.2.9"],
        ).start()


@pytest.mark.trio
async def test_browse_hands_changes_to_trio(
    zc: FakeZeroconf, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Browser.start/close would open sockets; here the events come from a plain thread instead.
    started: list[Browser] = []
    monkeypatch.setattr(Browser, "start", lambda self: started.append(self))
    monkeypatch.setattr(Browser, "close", lambda self: None)
    name = zc.add("alice")
    seen: list[list[str]] = []
    with trio.fail_after(5):
        async with lan.browse() as live:
            async for games in live:
                seen.append([g.announcement.name for g in games])
                if len(seen) == 1:
                    threading.Thread(target=event, args=(started[0], zc, name)).start()
                elif len(seen) == 2:
                    threading.Thread(target=event, args=(started[0], zc, name, "Removed")).start()
                else:
                    break
    assert seen == [[], ["Alice"], []]


class RecordingZeroconf:
    """Stands in for zeroconf's sockets: records what the announcer asks it to send."""

    def __init__(self, **kwargs: object) -> None:
        self.kwargs = kwargs
        self.calls: list[tuple[str, ServiceInfo | None]] = []

    def register_service(self, info: ServiceInfo, **kwargs: object) -> None:
        self.calls.append(("register", info))

    def update_service(self, info: ServiceInfo) -> None:
        self.calls.append(("update", info))

    def close(self) -> None:
        self.calls.append(("close", None))


def test_the_announcer_registers_updates_and_withdraws(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[RecordingZeroconf] = []

    def open_zeroconf(**kwargs: object) -> RecordingZeroconf:
        made.append(RecordingZeroconf(**kwargs))
        return made[-1]

    monkeypatch.setattr(lan, "Zeroconf", open_zeroconf)
    announcement = lan.Announcement(
        "Zoë's.game ♠", 4000, game_module("cuttle").parse_rules("classic+joker", 2)
    )
    with lan.Announcer(announcement, interfaces=["192.0.2.9"]) as announcer:
        announcer.update(replace(announcement, taken=2))
    (zc,) = made
    assert zc.kwargs["interfaces"] == ["192.0.2.9"]
    assert [c for c, _ in zc.calls] == ["register", "update", "close"]
    registered, updated = zc.calls[0][1], zc.calls[1][1]
    assert registered is not None and updated is not None
    assert registered.name == updated.name and registered.name.startswith("Zosgame ")
    assert registered.name.endswith("._cuttle._tcp.local.")
    assert registered.port == 4000 and registered.parsed_addresses() == ["192.0.2.9"]
    assert registered.properties[b"seat"] == b"free"
    assert updated.properties[b"seat"] == b"taken"
    assert registered.properties[b"rules"] == b"classic+joker"


@pytest.mark.parametrize(
    ("interfaces", "version", "records"),
    [
        (["192.0.2.9"], IPVersion.V4Only, ["192.0.2.9"]),
        (["2001:db8::9", "fe80::9%eth9"], IPVersion.V6Only, ["2001:db8::9", "fe80::9"]),
        (["192.0.2.9", "fe80::9%eth9"], IPVersion.All, ["192.0.2.9", "fe80::9"]),
    ],
)
def test_the_announcer_announces_ipv6_too(
    monkeypatch: pytest.MonkeyPatch, interfaces: list[str], version: IPVersion, records: list[str]
) -> None:
    """mDNS over the IP versions of the addresses used, and an AAAA record for each IPv6
    address (a record carries no zone: the browser adds the interface it heard it on)."""
    made: list[RecordingZeroconf] = []
    monkeypatch.setattr(
        lan, "Zeroconf", lambda **kw: made.append(RecordingZeroconf(**kw)) or made[-1]
    )
    with lan.Announcer(
        lan.Announcement("Alice", 4000, game_module("cuttle").parse_rules("classic", 2)),
        interfaces=interfaces,
    ):
        pass
    (zc,) = made
    assert zc.kwargs["ip_version"] is version and zc.kwargs["interfaces"] == interfaces
    registered = zc.calls[0][1]
    assert registered is not None and sorted(registered.parsed_addresses()) == sorted(records)


@pytest.mark.trio
async def test_a_kept_announcement_follows_the_latest_wish_then_withdraws(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made: list[RecordingZeroconf] = []

    def open_zeroconf(**kwargs: object) -> RecordingZeroconf:
        made.append(RecordingZeroconf(**kwargs))
        return made[-1]

    monkeypatch.setattr(lan, "Zeroconf", open_zeroconf)
    rules = game_module("unisson").parse_rules("one-deck", 4)
    first = lan.Announcement("Ann", 4454, rules, game="unisson", seats=4)
    said: list[lan.LanEvent] = []
    with trio.fail_after(5):
        async with lan.kept_announcement(first, interfaces=["192.0.2.9"], tell=said.append) as kept:
            # Plain calls that never wait: the task applies what is wanted last.
            kept.show(replace(first, taken=2))
            kept.show(replace(first, taken=3))
            while not made or len(made[0].calls) < 2:
                await trio.sleep(0.01)
            kept.withdraw()
            kept.show(first)  # too late: a withdrawn announcement stays withdrawn
            while made[0].calls[-1][0] != "close":
                await trio.sleep(0.01)
    (zc,) = made
    assert [c for c, _ in zc.calls] == ["register", "update", "close"]
    assert [info.properties[b"taken"] for _, info in zc.calls[:2]] == [b"1", b"3"]  # type: ignore[union-attr]
    assert said == [lan.Announced()]


@pytest.mark.trio
async def test_a_kept_announcement_without_multicast_only_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(**kwargs: object) -> None:
        raise OSError(19, "No such device")

    monkeypatch.setattr(lan, "Zeroconf", refuse)
    said: list[lan.LanEvent] = []
    first = lan.Announcement("Alice", 4000, game_module("cuttle").parse_rules("classic", 2))
    with pytest.raises(KeyError):  # the block's own error comes out as it is, not in a group
        async with lan.kept_announcement(first, interfaces=["192.0.2.9"], tell=said.append):
            while not said:
                await trio.sleep(0.01)
            raise KeyError("the block's own")
    (told,) = said
    assert isinstance(told, lan.NotAnnounced) and told.multicast
    assert told.reason.startswith("LAN discovery is unavailable: multicast could not be set up")


def test_ipv6_multicast_refused_falls_back_to_ipv4(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine whose IPv6 refuses multicast still announces (and browses) over IPv4."""
    made: list[RecordingZeroconf] = []

    def open_zeroconf(**kwargs: object) -> RecordingZeroconf:
        if kwargs["ip_version"] is not IPVersion.V4Only:
            raise OSError(19, "No such device")
        made.append(RecordingZeroconf(**kwargs))
        return made[-1]

    monkeypatch.setattr(lan, "Zeroconf", open_zeroconf)
    interfaces = ["192.0.2.9", "2001:db8::9"]
    with lan.Announcer(
        lan.Announcement("Alice", 4000, game_module("cuttle").parse_rules("classic", 2)),
        interfaces=interfaces,
    ):
        pass
    (zc,) = made
    assert zc.kwargs["interfaces"] == ["192.0.2.9"]
    with pytest.raises(LanUnavailable, match=r"multicast could not be set up on 2001:db8::9"):
        lan.Announcer(
            lan.Announcement("Alice", 4000, game_module("cuttle").parse_rules("classic", 2)),
            interfaces=["2001:db8::9"],
        ).start()


def test_the_fake_announcer_reads_any_game_through_the_registry() -> None:
    # `python -m cuttle_protocol.shells.mdns announce` knew Cuttle's rules alone.
    args = argparse.Namespace(
        name="Ann", port=4000, game="unisson", seats=4, rules="two-decks", taken=False
    )
    a = lan.fake_announcement(args)
    assert (a.game, a.seats, a.taken, a.rules.name) == ("unisson", 4, 1, "two-decks")
    cuttle = argparse.Namespace(
        name="Bo", port=4001, game="cuttle", seats=2, rules="standard", taken=True
    )
    assert lan.fake_announcement(cuttle).rules.name == "standard"
    assert lan.fake_announcement(cuttle).taken == 2
