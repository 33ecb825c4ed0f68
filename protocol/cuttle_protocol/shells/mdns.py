"""LAN discovery over mDNS/DNS-SD: hosts announce ``_cuttle._tcp``, joiners browse for it.

zeroconf has no trio support, so this uses its thread API: zeroconf runs its own thread, the
blocking calls here (``start``, ``close``, ``update``) belong in a worker thread when called
from async code, and the browser hands changes to trio without ever blocking zeroconf. The
``kept_announcement`` and ``browse`` context managers do both for trio code.

IPv4 and IPv6 alike (mDNS on 224.0.0.251 and ff02::fb), on every interface but loopback
unless told which: a host announces its A and AAAA records, and the browser lists each game
at one address a joiner can dial, IPv4 first, then a global or unique-local IPv6 address,
then a link-local one with its interface (``fe80::1%eth0``: meaningless without it).
"""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import json
import re
import secrets
import signal
import socket
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Self

import ifaddr
import trio
from zeroconf import Error as ZeroconfError
from zeroconf import IPVersion, ServiceBrowser, ServiceInfo, ServiceStateChange, Zeroconf

from cuttle_net.games.interface import game_module

from ..wire.address import format_address
from ..wire.announcement import (
    CUTTLE,
    SERVICE_TYPE,
    Announcement,
    RecordError,
    decode,
    display_text,
    encode,
)
from .portmap import disabled_by_environment

# Record lifetime in seconds for every record, so a host that dies without saying goodbye drops
# out of lists within two minutes (zeroconf's default keeps the PTR record 75 minutes).
TTL = 120
MAX_GAMES = 64  # a flood of announcements cannot grow the list without end
RESOLVE_TIMEOUT_MS = 2000
JOIN_HINT = "`cuttle join HOST:PORT` still works"


class LanUnavailable(Exception):
    """LAN discovery cannot run here; the message says why and that joining by address works."""

    def __init__(self, reason: str) -> None:
        super().__init__(
            f"LAN discovery is unavailable: {reason}. It needs UDP 5353 multicast on the "
            f"local network; {JOIN_HINT}."
        )


@dataclass(frozen=True)
class LanGame:
    """A game found on the LAN. A hint only: the handshake confirms who answers."""

    service: str  # the DNS-SD instance name, unique on the link
    announcement: Announcement
    addresses: tuple[str, ...]
    last_seen: float  # time.monotonic() of the latest announcement

    @property
    def address(self) -> str:
        """The address to dial, best first (``_rank``): 192.168.1.20, fe80::1%eth0."""
        return self.addresses[0]

    @property
    def port(self) -> int:
        return self.announcement.port

    @property
    def join_address(self) -> str:
        """What ``cuttle join`` takes: 192.168.1.20:4454, [fe80::1%eth0]:4454."""
        return format_address(self.address, self.port)


def local_addresses(version: int | None = None) -> list[str]:
    """This machine's addresses (IPv4 and IPv6, or of one ``version``), loopback excluded;
    a link-local IPv6 address with its interface (fe80::1%eth0)."""
    found: set[str] = set()
    for adapter in ifaddr.get_adapters():
        for entry in adapter.ips:
            text = entry.ip if isinstance(entry.ip, str) else entry.ip[0]
            ip = ipaddress.ip_address(text)
            if ip.is_loopback or (version is not None and ip.version != version):
                continue
            if ip.version == 6 and ip.is_link_local:
                text = f"{text}%{adapter.name}"
            found.add(text)
    return sorted(found, key=lambda a: (_rank(ipaddress.ip_address(a)), a))


def _rank(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> int:
    """The order in which a joiner should try a host's addresses: a routable IPv4, a
    global or unique-local IPv6, a link-local IPv4, a link-local IPv6 (needs its zone)."""
    return (0 if ip.version == 4 else 1) + (2 if ip.is_link_local else 0)


def _addresses(interfaces: Sequence[str] | None) -> list[str]:
    """The addresses to use: every one (``None``), or those named: an address (the
    unspecified ``0.0.0.0`` or ``::`` for every one of that version; ``::`` listens on
    both), or an interface's name for all of its addresses."""
    if not interfaces:
        addresses = local_addresses()
    else:
        addresses = []
        by_name = {a.name: a for a in ifaddr.get_adapters()}
        for item in interfaces:
            if item in by_name:
                addresses += [a for a in local_addresses() if _on(by_name[item], a)]
            elif item == "0.0.0.0":
                addresses += local_addresses(4)
            elif item == "::":
                addresses += local_addresses()
            else:
                addresses.append(item)
        addresses = list(dict.fromkeys(addresses))
    if not addresses:
        raise LanUnavailable("no network interface has an address besides loopback")
    return addresses


def _on(adapter: ifaddr.Adapter, address: str) -> bool:
    bare = address.partition("%")[0]
    return any((e.ip if isinstance(e.ip, str) else e.ip[0]) == bare for e in adapter.ips)


def _open_zeroconf(addresses: list[str]) -> Zeroconf:
    try:
        return _zeroconf(addresses)
    except LanUnavailable:
        ipv4 = [a for a in addresses if ipaddress.ip_address(a).version == 4]
        if not ipv4 or len(ipv4) == len(addresses):
            raise
        return _zeroconf(ipv4)  # IPv6 multicast refused here: IPv4 alone still works


def _zeroconf(addresses: list[str]) -> Zeroconf:
    versions = {ipaddress.ip_address(a).version for a in addresses}
    if versions == {4, 6}:
        version = IPVersion.All
    else:
        version = IPVersion.V4Only if versions == {4} else IPVersion.V6Only
    try:
        # zeroconf joins ff02::fb once per interface (a second address there is refused
        # with EADDRINUSE and skipped), on the interface it finds by the bare address.
        return Zeroconf(interfaces=addresses, ip_version=version)
    except (OSError, RuntimeError) as e:  # no multicast route, interface gone, 5353 refused
        where = ", ".join(addresses)
        raise LanUnavailable(f"multicast could not be set up on {where} ({e})") from None


class Announcer:
    """Announces one hosted game until closed; closing withdraws it with a DNS-SD goodbye.

    ``start``, ``update`` and ``close`` block for up to about two seconds.
    """

    def __init__(
        self, announcement: Announcement, *, interfaces: Sequence[str] | None = None
    ) -> None:
        self.announcement = announcement
        self._interfaces = interfaces
        self._zc: Zeroconf | None = None
        self._service = self._server = ""
        self._addresses: list[str] = []

    def start(self) -> None:
        """Open the multicast sockets and register; raises ``LanUnavailable``."""
        self._addresses = _addresses(self._interfaces)
        zc = _open_zeroconf(self._addresses)
        label = re.sub(r"[^A-Za-z0-9 _-]", "", self.announcement.name)[:24].strip() or "cuttle"
        tag = secrets.token_hex(3)
        self._service = f"{label} {tag}.{SERVICE_TYPE}"
        self._server = f"cuttle-{tag}.local."
        try:
            # allow_name_change: two hosts with the same player name still get distinct names.
            info = self._service_info()
            zc.register_service(info, ttl=TTL, allow_name_change=True)
            self._service = info.name  # as renamed on a conflict
        except ZeroconfError as e:  # e.g. the registration could not be sent in time
            zc.close()
            raise LanUnavailable(f"the announcement failed ({type(e).__name__}: {e})") from None
        except BaseException:
            zc.close()
            raise
        self._zc = zc

    def update(self, announcement: Announcement) -> None:
        """Tell browsers what changed (the seats taken, say); the port stays the same."""
        self.announcement = announcement
        if self._zc is not None:
            self._zc.update_service(self._service_info())

    def close(self) -> None:
        """Withdraw the announcement and close the sockets; safe to call twice."""
        zc, self._zc = self._zc, None
        if zc is not None:
            zc.close()  # sends the goodbye for every service it registered

    def _service_info(self) -> ServiceInfo:
        return ServiceInfo(
            SERVICE_TYPE,
            self._service,
            port=self.announcement.port,
            properties=encode(self.announcement),
            server=self._server,
            parsed_addresses=[a.partition("%")[0] for a in self._addresses],  # no zone in AAAA
            host_ttl=TTL,
            other_ttl=TTL,
        )

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class Browser:
    """Collects the games announced on the LAN, from zeroconf's threads.

    ``games()`` is a snapshot, safe from any thread. ``on_change`` is called from a zeroconf
    thread after every change and must not block. A malformed or hostile announcement never
    stops the browser: it is left out of ``games()`` and its reason kept in ``rejected()``.
    """

    def __init__(
        self,
        *,
        interfaces: Sequence[str] | None = None,
        on_change: Callable[[], None] | None = None,
    ) -> None:
        self._interfaces = interfaces
        self._on_change = on_change
        self._lock = threading.Lock()
        self._games: dict[str, LanGame] = {}
        self._rejected: dict[str, str] = {}
        self._zc: Zeroconf | None = None
        self._browser: ServiceBrowser | None = None

    def start(self) -> None:
        """Open the multicast sockets and start browsing; raises ``LanUnavailable``."""
        self._zc = _open_zeroconf(_addresses(self._interfaces))
        self._browser = ServiceBrowser(self._zc, SERVICE_TYPE, handlers=[self._handle])

    def close(self) -> None:
        zc, self._zc = self._zc, None
        if self._browser is not None:
            self._browser.cancel()
        if zc is not None:
            zc.close()

    def games(self) -> list[LanGame]:
        """The games announced now, by name."""
        with self._lock:
            return sorted(self._games.values(), key=lambda g: (g.announcement.name, g.service))

    def rejected(self) -> dict[str, str]:
        """Announcements left out, by displayable service name, with the reason."""
        with self._lock:
            return dict(self._rejected)

    def _handle(
        self,
        zeroconf: Zeroconf,
        service_type: str,
        name: str,
        state_change: ServiceStateChange,
    ) -> None:
        # Runs in the ServiceBrowser's thread, where blocking to resolve the service is allowed.
        game: LanGame | None = None
        reason: str | None = None
        if state_change is not ServiceStateChange.Removed:
            game, reason = self._resolve(zeroconf, service_type, name)
        with self._lock:
            self._games.pop(name, None)
            self._rejected.pop(display_text(name), None)
            if game is not None and len(self._games) >= MAX_GAMES:
                game, reason = None, f"more than {MAX_GAMES} games are announced"
            if game is not None:
                self._games[name] = game
            elif reason is not None and len(self._rejected) < MAX_GAMES:  # bounded too
                self._rejected[display_text(name)] = reason
        if self._on_change is not None:
            self._on_change()

    def _resolve(
        self, zeroconf: Zeroconf, service_type: str, name: str
    ) -> tuple[LanGame | None, str | None]:
        try:
            info = zeroconf.get_service_info(service_type, name, timeout=RESOLVE_TIMEOUT_MS)
            if info is None:
                return None, None  # gone before it answered: nothing to show or report
            announcement = decode(info.properties, info.port)
            # Scoped: a link-local IPv6 address comes with the interface it was heard on.
            usable = [d for a in info.parsed_scoped_addresses() if (d := _dialable(a))]
            addresses = tuple(sorted(dict.fromkeys(usable), key=_rank_of))
            if not addresses:
                raise RecordError("no usable address")
        except RecordError as e:
            return None, str(e)
        except Exception as e:  # zeroconf choking on a hostile packet must not end browsing
            return None, f"unreadable announcement ({type(e).__name__})"
        return LanGame(name, announcement, addresses, time.monotonic()), None


def _usable_address(address: str) -> bool:
    ip = ipaddress.ip_address(address)
    # Loopback too: a stranger must not send joiners to a service on their own machine.
    return not (ip.is_unspecified or ip.is_multicast or ip.is_reserved or ip.is_loopback)


def _dialable(address: str) -> str | None:
    """``address`` as a joiner dials it, or None if it cannot: unusable (above), or a
    link-local IPv6 address with no interface (heard over IPv4). Its zone is the
    interface's name where there is one (fe80::1%eth0, not fe80::1%2)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return None
    if not _usable_address(address):
        return None
    if ip.version == 4 or not ip.is_link_local:
        return str(ip)
    zone = ip.scope_id
    if not zone:
        return None
    if zone.isdigit():
        with contextlib.suppress(OSError):
            zone = socket.if_indextoname(int(zone))
    return f"{str(ip).partition('%')[0]}%{zone}"


def _rank_of(address: str) -> int:
    return _rank(ipaddress.ip_address(address))


def browse_once(seconds: float, *, interfaces: Sequence[str] | None = None) -> Browser:
    """Browse for ``seconds`` and return the stopped browser, for its snapshot (blocking)."""
    browser = Browser(interfaces=interfaces)
    browser.start()
    try:
        time.sleep(seconds)
    finally:
        browser.close()
    return browser


class LiveGames:
    """The trio side of a running ``Browser``: ``async for games in live`` yields the current
    list first, then again after every change (changes in between are merged)."""

    def __init__(self, browser: Browser, changes: trio.MemoryReceiveChannel[None]) -> None:
        self.browser = browser
        self._changes = changes

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> list[LanGame]:
        try:
            await self._changes.receive()
        except trio.EndOfChannel:
            raise StopAsyncIteration from None
        return self.browser.games()


@contextlib.asynccontextmanager
async def browse(*, interfaces: Sequence[str] | None = None) -> AsyncIterator[LiveGames]:
    """Browse while the block runs: ``async with browse() as live: async for games in live``.

    Raises ``LanUnavailable`` on entry when multicast cannot be set up.
    """
    token = trio.lowlevel.current_trio_token()
    # A one-slot channel of "something changed" flags: a full slot already says so.
    send, receive = trio.open_memory_channel[None](1)

    def poke() -> None:
        with contextlib.suppress(trio.WouldBlock, trio.ClosedResourceError):
            send.send_nowait(None)

    def on_change() -> None:  # in a zeroconf thread: schedule, never wait for trio
        with contextlib.suppress(trio.RunFinishedError):
            token.run_sync_soon(poke)

    browser = Browser(interfaces=interfaces, on_change=on_change)
    await trio.to_thread.run_sync(browser.start)
    poke()  # the first iteration yields the (empty) list at once
    try:
        async with send, receive:
            yield LiveGames(browser, receive)
    finally:
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(browser.close)


def announce_interfaces(host: str) -> list[str] | None:
    """Where a host listening on ``host`` announces: None for every interface (``::``,
    which takes IPv4 too), every IPv4 one (``0.0.0.0``), the one bound, or [] for nowhere.
    Never from loopback, where nobody else could join."""
    ip = ipaddress.ip_address(host)
    if ip.is_loopback:
        return []
    if ip.version == 6 and ip.is_unspecified:
        return None
    return [host]


@dataclass(frozen=True)
class Announced:
    """The table is announced on the LAN while a seat is free (SPEC 3.13)."""


@dataclass(frozen=True)
class NotAnnounced:
    """The table is not announced: `reason` is `LanUnavailable`'s words (`multicast`: no
    multicast here) or why the announcement cannot carry it (a name too long)."""

    reason: str
    multicast: bool = True


LanEvent = Announced | NotAnnounced
"""What a kept announcement tells (`kept_announcement`'s ``tell``)."""


class KeptAnnouncement:
    """An announcement that trio code changes with plain calls, never waiting for zeroconf:
    ``show`` what it should say now, ``withdraw`` it for good. A task of
    ``kept_announcement`` carries out the latest wish in a worker thread (wishes that came
    while it was busy are merged)."""

    def __init__(
        self,
        first: Announcement,
        interfaces: Sequence[str] | None,
        tell: Callable[[LanEvent], None],
    ) -> None:
        self.first = first
        self.wanted: Announcement | None = first
        self._announcer = Announcer(first, interfaces=interfaces)
        self._tell = tell
        self._changed = trio.Event()

    def show(self, announcement: Announcement) -> None:
        if self.wanted is not None:  # once withdrawn, never again
            self.wanted = announcement
            self._changed.set()

    def withdraw(self) -> None:
        self.wanted = None
        self._changed.set()

    async def _run(self) -> None:
        announcer = self._announcer
        try:
            await trio.to_thread.run_sync(announcer.start)
        except LanUnavailable as e:
            self._tell(NotAnnounced(str(e)))
            return
        try:
            if self.wanted is not None:
                self._tell(Announced())
            while self.wanted is not None:
                if self.wanted != announcer.announcement:
                    await trio.to_thread.run_sync(announcer.update, self.wanted)
                    continue
                self._changed = trio.Event()
                await self._changed.wait()
        finally:
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(announcer.close)


@contextlib.asynccontextmanager
async def kept_announcement(
    first: Announcement,
    *,
    interfaces: Sequence[str] | None = None,
    tell: Callable[[LanEvent], None] = lambda event: None,
) -> AsyncIterator[KeptAnnouncement]:
    """Announce ``first`` in the background while the block runs (the block does not wait
    for zeroconf), changed by ``show``; leaving the block withdraws it. ``tell`` hears
    `Announced`, or `NotAnnounced` on a LAN without multicast: joining by address still
    works."""
    kept = KeptAnnouncement(first, interfaces, tell)
    failed: Exception | None = None
    async with trio.open_nursery() as nursery:
        nursery.start_soon(kept._run)
        try:
            yield kept
        except Exception as e:  # raised after the nursery, not inside an exception group
            failed = e
        finally:
            kept.withdraw()
    if failed is not None:
        raise failed


async def keep_announced(
    stack: contextlib.AsyncExitStack,
    host: str,
    make: Callable[[], Announcement],
    tell: Callable[[LanEvent], None],
) -> KeptAnnouncement | None:
    """Announce a host listening on ``host`` until ``stack`` closes (``kept_announcement``),
    with ``make()``'s announcement; or return None: loopback (nothing told), or a name the
    record cannot carry (`NotAnnounced`); or with CUTTLE_NO_LAN=1 (nothing told: nothing
    multicast, as the browser and the port mapping)."""
    interfaces = announce_interfaces(host)
    if interfaces == [] or disabled_by_environment():
        return None
    try:
        first = make()
    except RecordError as e:  # a name too long for the record (in bytes)
        tell(NotAnnounced(str(e), multicast=False))
        return None
    return await stack.enter_async_context(
        kept_announcement(first, interfaces=interfaces, tell=tell)
    )


def fake_announcement(args: argparse.Namespace) -> Announcement:
    """The announcement ``announce`` makes: its game's rules read through the registry."""
    rules = game_module(args.game).parse_rules(args.rules, args.seats)
    taken = args.seats if args.taken else 1
    return Announcement(args.name, args.port, rules, taken, game=args.game, seats=args.seats)


def _announce_command(args: argparse.Namespace) -> int:
    announcement = fake_announcement(args)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with Announcer(announcement, interfaces=args.interface):
        print("announcing", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            stop.wait()
    return 0


async def _watch_command(args: argparse.Namespace) -> None:
    async with browse(interfaces=args.interface) as live:
        print("browsing", flush=True)
        async for games in live:
            print(json.dumps([_game_json(g) for g in games]), flush=True)


def _game_json(game: LanGame) -> dict[str, object]:
    a = game.announcement
    return {
        "name": a.name,
        "address": game.address,
        "addresses": list(game.addresses),
        "port": a.port,
        "rules": a.rules.name,
        "seat_free": a.seat_free,
        "version": a.version,
        "game": a.game,
        "seats": a.seats,
        "taken": a.taken,
        "watchers": a.watchers,
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Developer helpers: announce a fake host until killed, or print the live list as JSON."""
    parser = argparse.ArgumentParser(prog="python -m cuttle_protocol.shells.mdns")
    sub = parser.add_subparsers(dest="command", required=True)
    ann = sub.add_parser("announce", help="announce a fake host until SIGTERM or Ctrl-C")
    ann.add_argument("--name", required=True)
    ann.add_argument("--port", type=int, required=True)
    ann.add_argument("--game", default=CUTTLE)
    ann.add_argument("--seats", type=int, default=2)
    ann.add_argument("--rules", default="classic", help="the game's rules token")
    ann.add_argument("--taken", action="store_true", help="announce every seat as taken")
    watch = sub.add_parser("watch", help="print the games found, as a JSON list per change")
    for p in (ann, watch):
        p.add_argument("--interface", action="append", metavar="ADDRESS_OR_NAME")
    args = parser.parse_args(argv)
    try:
        if args.command == "announce":
            return _announce_command(args)
        with contextlib.suppress(KeyboardInterrupt):
            trio.run(_watch_command, args)
        return 0
    except (LanUnavailable, ValueError) as e:
        print(e, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
