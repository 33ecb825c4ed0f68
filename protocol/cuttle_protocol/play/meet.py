"""Meeting a table's host, for ``cuttle join`` and the terminal client: the plan of a
meeting (`NetPlan`, also a host's settings), the handshake with retries (`open_game_peer`),
what the player is told of the key met, a port mapping, and the invitation (SPEC 3.14).

``open_game_peer`` does everything between "I want to join" and a handshaken host: the
identity key, connecting (again while a busy host asks us to), trust on first use, and what
the key proves, telling each step as data (`play.events`: `Dialling`, `HostMet`).  The
table is then played with ``shells.join_table(..., peer=...)``.
"""

from __future__ import annotations

import contextlib
import ipaddress
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from ..errors import ErrorCode
from ..shells import portmap
from ..shells.addresses import HostAddress
from ..shells.peer import ConnectionEnded, Peer, PeerSettings, Refusal, connect
from ..store.identity import (
    KnownPeers,
    Trust,
    default_config_dir,
    load_or_create_identity,
)
from ..wire.address import format_address, parse_address
from ..wire.connection import LocalPlayer, Rules
from ..wire.invitation import Invitation, is_invitation, unusable
from ..wire.messages import MAX_NAME_LEN, display_safe
from .events import Dialling, HostMet, PortMapped, Tell

RETRY_EVERY = 1.0  # seconds between a joiner's attempts to reconnect, after the first few
FIRST_RETRY = 0.1  # ...which come sooner (doubling up to RETRY_EVERY): a host that lost the
# connection at the same moment is often just not waiting yet ("busy")


@dataclass(frozen=True)
class NetPlan:
    """How to meet the other players: a joiner's address, a host's port and options."""

    mode: str  # "host" or "join"
    name: str
    address: str = ""  # join: HOST[:PORT] or an invitation (cuttle:…)
    port: int = 4454  # host: 0 for any free port
    bind: str = "::"  # host: "::" is both IPv6 and IPv4 (SPEC 3.1)
    announce: bool = True  # host: on the LAN (never for a loopback address)
    map_port: bool = False  # host: ask the router to forward the port (UPnP, portmap.py)
    config_dir: Path | None = None
    reply_timeout: float = 20.0
    # join: None if we can play a table's game (its token), else why not (a bot that does
    # not play it): refused in the handshake, before the host seats us.
    table_game: Callable[[str], str | None] | None = None
    # host, a table: how many may watch it (0: none, `--no-watchers`; None: the default)
    max_watchers: int | None = None
    watcher_chat: bool = False  # a table's watchers may say a line (`--watcher-chat`)

    def __post_init__(self) -> None:
        if self.mode not in ("host", "join"):
            raise ValueError(f"mode is host or join, not {self.mode!r}")
        if self.mode == "join":
            if is_invitation(self.address):
                Invitation.decode(self.address)  # InvitationError (a ValueError) if mistyped
            else:
                parse_address(self.address)
        if not 1 <= len(self.name) <= MAX_NAME_LEN or display_safe(self.name) != self.name:
            raise ValueError(
                f"a player name is 1 to {MAX_NAME_LEN} printable characters, without leading, "
                "trailing or repeated spaces"
            )
        if self.max_watchers is not None and not 0 <= self.max_watchers <= 16:
            raise ValueError(f"at most 16 watchers, not {self.max_watchers}")
        # Checked here, before any connection: a bad port is the user's typo.
        if self.mode == "host" and not 0 <= self.port <= 65_535:
            raise ValueError(f"bad port {self.port}: a port is 1..65535 (0: any free port)")


def judge_table(plan: NetPlan) -> Callable[[Rules], str | None]:
    """A joiner sits at a table of a game we know that ``plan.table_game`` lets us play (a
    table's host names its game; the options are checked by the table's seating)."""
    from cuttle_net.games import GAMES

    def judge(wire: Rules) -> str | None:
        if wire.rules not in GAMES:
            return f"the host plays {wire.rules!r}, which this version of cuttle does not know"
        return plan.table_game(wire.rules) if plan.table_game is not None else None

    return judge


@contextlib.asynccontextmanager
async def _busy_retried(
    dial: Callable[[], contextlib.AbstractAsyncContextManager[Peer]], reply_timeout: float
) -> AsyncIterator[Peer]:
    """A connection `dial` makes, made again while the host answers `busy` instead of its
    hello (a table's host refuses the handshakes beyond its limits when several players join
    at once), up to the handshake timeout. Not after a hello: each new connection would give
    a man in the middle another code to match (SPEC 3.11)."""
    deadline = trio.current_time() + reply_timeout
    pause = FIRST_RETRY
    while True:
        connected = False
        try:
            async with dial() as peer:
                connected = True
                yield peer
                return
        except ConnectionEnded as exc:
            again = exc.code == ErrorCode.BUSY and not (connected or exc.code_attempt)
            if not again or trio.current_time() + pause > deadline:
                raise
        await trio.sleep(pause)
        pause = min(2 * pause, RETRY_EVERY)


def _seats_a_table(peer: Peer) -> Refusal | None:
    """Every game is played at a table (SPEC 3.15): a host that seats none runs an older
    cuttle, refused before it takes us in."""
    if "table" not in peer.info.caps:
        reason = "the host runs an older cuttle that plays without a table: ask them to update"
        return Refusal(ErrorCode.RULES_REFUSED, reason)
    return None


@dataclass(frozen=True)
class Connected:
    """A handshaken table host, and our identity key."""

    peer: Peer
    identity: Any


@contextlib.asynccontextmanager
async def open_game_peer(plan: NetPlan, tell: Tell) -> AsyncIterator[Connected]:
    """Meet the table's host of a joiner's `plan`, telling `Dialling` and `HostMet`;
    raises ``ConnectionEnded`` (or ``ConfigError`` for an unusable config directory)."""
    identity = load_or_create_identity(plan.config_dir or default_config_dir())
    me = LocalPlayer(plan.name, identity)
    known = KnownPeers(plan.config_dir or default_config_dir())
    settings = PeerSettings(handshake_timeout=plan.reply_timeout, reply_timeout=plan.reply_timeout)
    tell(Dialling(plan.address, plan.reply_timeout))

    def dial() -> contextlib.AbstractAsyncContextManager[Peer]:
        return connect(
            plan.address,
            me,
            judge_rules=judge_table(plan),
            judge_peer=_seats_a_table,
            known_peers=known,
            settings=settings,
            caps=("table",),
        )

    # A table's host may be busy with others joining at once.
    async with _busy_retried(dial, plan.reply_timeout) as peer:
        tell(host_met(peer, known))
        yield Connected(peer, identity)


async def map_port(
    stack: contextlib.AsyncExitStack,
    identity: Any,
    reachable: list[HostAddress],
    host: str,
    port: int,
    tell: Tell,
    config_dir: Path | None,
) -> None:
    """Ask the router to forward ``port`` (UPnP, portmap.py) while ``stack`` is open, if we
    listen on every address; ``tell`` hears `PortMapped` (the outside address and the
    invitation with it: SPEC 3.14), or `NotMapped`, and `MappingRemoved` at the end."""
    if not ipaddress.ip_address(host).is_unspecified or portmap.disabled_by_environment():
        return

    def mapped(event: portmap.MappingEvent) -> None:
        if not isinstance(event, portmap.Mapping):
            tell(event)
            return
        external = (event.external_ip, event.external_port)
        outside = format_address(*external)
        tell(PortMapped(outside, event.method, invitation_for(identity, reachable, port, external)))

    await stack.enter_async_context(
        portmap.port_mapping(port, mapped, config_dir or default_config_dir())
    )


def invitation_for(
    identity: Any,
    reachable: list[HostAddress],
    port: int,
    external: tuple[str, int] | None = None,
) -> str:
    """The invitation to the game on ``port``: our key's fingerprint and our addresses, the
    router's external one (a port mapping) first, then public ones; loopback only when
    nothing else can reach us (SPEC 3.14)."""
    ips = [ipaddress.ip_address(a.address.strip("[]")) for a in reachable]
    ips = [ip for ip in ips if not ip.is_loopback] or ips
    ips.sort(key=lambda ip: (ip.is_private, ip.version))  # public first, IPv4 before IPv6
    key = identity.public_key().public_bytes_raw()
    # A router may report an unusable external address (0.0.0.0 while it is offline).
    usable = external is not None and unusable(ipaddress.ip_address(external[0])) is None
    addresses = [external] if external and usable else []
    return Invitation.for_key(key, addresses + [(str(ip), port) for ip in ips]).encode()


def host_met(peer: Peer, known: KnownPeers) -> HostMet:
    """Who answered, and what its key proves; the table's one code comes once every seat
    is taken (SPEC 3.15), so this connection's own code is never told."""
    info = peer.info
    changed = peer.trust == Trust.CHANGED and not peer.verified
    renamed = peer.trust == Trust.RENAMED and not peer.verified
    return HostMet(
        info.peer_name,
        peer.remote or "",
        info.peer_fingerprint,
        peer.trust,
        peer.verified,
        known.fingerprint_of(info.peer_name) if changed else None,
        known.name_of(info.peer_identity) if renamed else None,
    )
