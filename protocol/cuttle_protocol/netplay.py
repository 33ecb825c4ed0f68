"""Getting two players connected, and keeping their records: shared by ``cuttle host/join``
and the terminal client.

``open_game_peer`` does everything between "I want to host (or join)" and a handshaken
peer: the identity key, listening (and announcing on the LAN) or connecting, trust on
first use, and the short authentication code, reporting each step through ``say``.
"""

from __future__ import annotations

import contextlib
import ipaddress
import math
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import trio

from cuttle_net.games.cuttle.rules import Rules as EngineRules
from cuttle_net.records.record import build_record, save_record
from cuttle_net.session import GameSession

from . import lan, portmap
from .address import format_address, parse_address
from .addresses import HostAddress, host_addresses
from .codebudget import CodeAlarm
from .connection import LocalPlayer, Rules
from .dirs import data_dir as default_data_dir
from .dirs import games_dir
from .errors import ErrorCode
from .identity import FlipStore, KnownPeers, Trust, default_config_dir, load_or_create_identity
from .invitation import Invitation, is_invitation, unusable
from .journal import (
    JournalDamaged,
    JournalInUse,
    JournalWriter,
    Place,
    Replayed,
    claim,
    find_host_journal,
    host_path,
    in_use,
    join_path,
    release,
    replay,
)
from .lan_record import Announcement
from .messages import MAX_NAME_LEN, display_safe
from .result_words import verdict_line
from .trio_peer import (
    ConnectionEnded,
    EndReason,
    JudgePeer,
    Peer,
    PeerSettings,
    Refusal,
    connect,
    open_listener,
)

Say = Callable[[str], None]
RETRY_EVERY = 1.0  # seconds between a joiner's attempts to reconnect, after the first few
FIRST_RETRY = 0.1  # ...which come sooner (doubling up to RETRY_EVERY): a host that lost the
# connection at the same moment is often just not waiting yet ("busy")
RESUME_WINDOW = 60.0  # seconds a restarted process waits to meet its player again


@dataclass(frozen=True)
class NetPlan:
    """How to meet the other player."""

    mode: str  # "host" or "join"
    name: str
    address: str = ""  # join: HOST[:PORT] or an invitation (cuttle:…)
    port: int = 4454  # host: 0 for any free port
    bind: str = "::"  # host: "::" is both IPv6 and IPv4 (SPEC 3.1)
    rules: EngineRules = field(default_factory=EngineRules)  # host: what it proposes
    announce: bool = True  # host: on the LAN (never for a loopback address)
    map_port: bool = False  # host: ask the router to forward the port (UPnP, portmap.py)
    config_dir: Path | None = None
    reply_timeout: float = 20.0
    # A restarted process taking its game back (SPEC 4.6): a joiner retries its first
    # connection like a reconnection, for up to ``RESUME_WINDOW``; a host does not announce.
    resuming: bool = False
    # With ``resuming``: the identity key of the other player of that game, the only one
    # the first connection accepts (a host turns anyone else away and goes on waiting).
    peer_identity: bytes | None = None
    # join: we can also sit at a table of several players (SPEC 3.15): the first connection
    # announces the capability, and a table's host is taken (see ``Connected.table``).
    tables: bool = False
    # join, with ``tables``: None if we can play a table's game (its token), else why not
    # (a bot that does not play it): refused in the handshake, before the host seats us.
    table_game: Callable[[str], str | None] | None = None
    # host, a table: how many may watch it (0: none, `--no-watchers`; None: the default)
    max_watchers: int | None = None

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


def judge_table_or_rules(plan: NetPlan) -> Callable[[Rules], str | None]:
    """A joiner that can also sit at a table: a Cuttle rule set (a two-party host), or a
    game we know that ``plan.table_game`` lets us play (a table's host names its game, Cuttle
    at a 2-seat table included; the options are checked by the table's seating)."""
    from cuttle_net.games import GAMES

    def judge(wire: Rules) -> str | None:
        if wire.rules in GAMES:
            return plan.table_game(wire.rules) if plan.table_game is not None else None
        return judge_rules(wire)

    return judge


def judge_rules(wire: Rules) -> str | None:
    """A joiner plays any rule set and variants this engine knows."""
    if wire.rules not in ("classic", "standard"):
        return f"unknown rule set {wire.rules!r}"
    try:
        EngineRules(standard=wire.rules == "standard", variants=frozenset(wire.variants))
    except ValueError as e:
        return str(e)
    return None


@contextlib.asynccontextmanager
async def _busy_retried(
    first: contextlib.AbstractAsyncContextManager[Peer],
    plan: NetPlan,
    me: LocalPlayer,
    known: KnownPeers,
    flips: FlipStore,
    settings: PeerSettings,
) -> AsyncIterator[Peer]:
    """`first`, dialled again while the host answers `busy` instead of its hello (a table's
    host refuses the handshakes beyond its limits when several players join at once), up to
    the handshake timeout. Not after a hello: each new connection would give a man in the
    middle another code to match (SPEC 3.11)."""
    deadline = trio.current_time() + plan.reply_timeout
    pause = FIRST_RETRY
    attempt = first
    while True:
        connected = False
        try:
            async with attempt as peer:
                connected = True
                yield peer
                return
        except ConnectionEnded as exc:
            again = exc.code == ErrorCode.BUSY and not (connected or exc.code_attempt)
            if not again or trio.current_time() + pause > deadline:
                raise
        await trio.sleep(pause)
        pause = min(2 * pause, RETRY_EVERY)
        attempt = connect(
            plan.address,
            me,
            judge_rules=judge_table_or_rules(plan),
            judge_peer=_played_here,
            known_peers=known,
            flips=flips,
            settings=settings,
            caps=("table",),
        )


def _expecting(expect: bytes | None) -> JudgePeer:
    """A joiner coming back: only the host of its game (the identity key `expect`)."""

    def judge(peer: Peer) -> Refusal | None:
        if expect in (None, peer.info.peer_identity):
            return None
        return Refusal(ErrorCode.WRONG_PLAYER, "not the host of this game")

    return judge


def _played_here(peer: Peer) -> Refusal | None:
    """A game that is played at a table, from a host that seats none: refused before the
    host takes us in."""
    info = peer.info
    if "table" not in info.caps and info.rules.rules not in ("classic", "standard"):
        reason = f"{info.rules.rules} is played at a table, and this host seats none"
        return Refusal(ErrorCode.RULES_REFUSED, reason)
    return None


@dataclass(frozen=True)
class Connected:
    """A handshaken peer, our identity key, and how to reach the same player again."""

    peer: Peer
    identity: Any
    # A fresh connection to the same player (the identity key given) before a trio-clock
    # deadline (host: on our port; joiner: the host's address, redialled): the new ``Peer``.
    reconnect: Callable[[float, bytes], contextlib.AbstractAsyncContextManager[Peer]]
    listening: tuple[str, int] | None = None  # host: the address and port it listens on
    invitation: str = ""  # host: what to send the other player (SPEC 3.14)

    @property
    def table(self) -> bool:
        """The host seats a table of several players (SPEC 3.15): play it with
        ``trio_table.join_table(..., peer=self.peer)``, not as a two-player game."""
        return "table" in self.peer.info.caps


@contextlib.asynccontextmanager
async def open_game_peer(
    plan: NetPlan, say: Say, alarm: Callable[[CodeAlarm], None] | None = None
) -> AsyncIterator[Connected]:
    """Meet the other player; raises ``ConnectionEnded`` or ``OSError``. A host's ``alarm``
    hears when tries at its code pile up (SPEC 3.11); without one, ``say`` does."""
    identity = load_or_create_identity(plan.config_dir or default_config_dir())
    me = LocalPlayer(plan.name, identity)
    known = KnownPeers(plan.config_dir or default_config_dir())
    flips = FlipStore(plan.config_dir or default_config_dir())
    settings = PeerSettings(handshake_timeout=plan.reply_timeout, reply_timeout=plan.reply_timeout)
    if plan.mode == "join":

        @contextlib.asynccontextmanager
        async def again(deadline: float, expect: bytes | None) -> AsyncIterator[Peer]:
            # The host may take a moment to notice the loss (meanwhile it answers "busy"):
            # dial until the same host (same identity key) takes us back, or the deadline.
            pause = FIRST_RETRY
            while trio.current_time() < deadline:
                left = deadline - trio.current_time()
                attempt = replace(settings, handshake_timeout=min(left, settings.handshake_timeout))
                connected = False
                try:
                    async with connect(
                        plan.address,
                        me,
                        judge_rules=judge_rules,
                        judge_peer=_expecting(expect),
                        flips=flips,
                        settings=attempt,
                    ) as peer:
                        connected = True
                        yield peer
                        return
                except ConnectionEnded:
                    if connected:
                        raise
                await trio.sleep(pause)
                pause = min(2 * pause, RETRY_EVERY)
            raise ConnectionEnded(EndReason.TIMEOUT, ErrorCode.TIMEOUT, "the host is not back")

        say(f"connecting to {plan.address}… (giving up after {plan.reply_timeout:g} s)")
        if plan.resuming:
            first = again(trio.current_time() + RESUME_WINDOW, plan.peer_identity)
        else:
            first = connect(
                plan.address,
                me,
                judge_rules=judge_table_or_rules(plan) if plan.tables else judge_rules,
                judge_peer=_played_here,
                known_peers=known,
                flips=flips,
                settings=settings,
                caps=("table",) if plan.tables else (),
            )
            if plan.tables:  # a table's host may be busy with others joining at once
                first = _busy_retried(first, plan, me, known, flips, settings)
        async with first as peer:
            _introduce(peer, known, say, resuming=plan.resuming)
            yield Connected(peer, identity, again)
        return
    async with (
        open_listener(plan.port, plan.bind, log=say, alarm=alarm) as listener,
        contextlib.AsyncExitStack() as mapped,
    ):
        host, port = listener.address
        say(f"hosting {plan.rules.name} on {format_address(host, port)} (port {port})")
        reachable = host_addresses(host)
        say("the other player runs one of:")
        for where in reachable:
            say(f"  {where.join_command(port)}   ({where.where})")
        invitation = invitation_for(identity, reachable, port)
        say("or, with your key checked for them (an invitation: paste it in a chat):")
        say(f"  cuttle join {invitation}")
        if plan.map_port:
            await map_port(mapped, identity, reachable, host, port, say, plan.config_dir)
        wire_rules = Rules(
            "standard" if plan.rules.standard else "classic", tuple(sorted(plan.rules.variants))
        )

        def accept_again(
            deadline: float, expect: bytes
        ) -> contextlib.AbstractAsyncContextManager[Peer]:
            # The match keeps this door open to the player with this key (a comeback, or a
            # takeover of a connection we still hold, SPEC 4.6); anyone else is refused.
            return listener.accept(
                me, wire_rules, flips=flips, settings=settings, deadline=deadline, expect=expect
            )

        async with contextlib.AsyncExitStack() as announced:
            kept = None
            if plan.announce and not plan.resuming:
                kept = await lan.keep_announced(
                    announced, host, lambda: Announcement(plan.name, port, plan.rules), say
                )
            say("waiting for a player…")
            async with listener.accept(
                me,
                wire_rules,
                known_peers=known,
                flips=flips,
                settings=settings,
                expect=plan.peer_identity,
                # A restarted host waits for its player as long as a dropped game would.
                deadline=trio.current_time() + RESUME_WINDOW if plan.resuming else math.inf,
            ) as peer:
                if kept is not None:
                    kept.withdraw()  # the seat is taken: goodbye on the LAN
                _introduce(peer, known, say, resuming=plan.resuming)
                yield Connected(peer, identity, accept_again, (host, port), invitation)


async def map_port(
    stack: contextlib.AsyncExitStack,
    identity: Any,
    reachable: list[HostAddress],
    host: str,
    port: int,
    say: Say,
    config_dir: Path | None,
) -> None:
    """Ask the router to forward ``port`` (UPnP, portmap.py) while ``stack`` is open, if we
    listen on every address; once mapped, say the outside address and the invitation with
    it (SPEC 3.14), for two players or a table alike."""
    if not ipaddress.ip_address(host).is_unspecified or portmap.disabled_by_environment():
        return

    def on_mapped(m: portmap.Mapping) -> None:
        outside = format_address(m.external_ip, m.external_port)
        how = f"port mapped by the router ({m.method})"
        say(f"{how}: from the internet, cuttle join {outside}")
        external = (m.external_ip, m.external_port)
        better = invitation_for(identity, reachable, port, external)
        say("or the invitation with that address:")
        say(f"  cuttle join {better}")

    await stack.enter_async_context(
        portmap.port_mapping(port, say, on_mapped, config_dir or default_config_dir())
    )


@dataclass(frozen=True)
class Unfinished:
    """A game a killed process left unfinished, rebuilt from its journal, and the plan that
    meets the same player again (the host's address; the port we listened on)."""

    replayed: Replayed
    plan: NetPlan
    path: Path  # the journal


def unfinished_game(plan: NetPlan, data_dir: Path | None) -> Unfinished | None:
    """The game ``plan`` left unfinished, if its journal is there: ``cuttle join ADDR``
    resumes the game joined at ADDR, ``cuttle host`` the one hosted on the same port (with
    port 0: the latest).  A damaged journal is moved aside (``.damaged``) and reported by
    raising ``JournalDamaged`` naming where it went. A journal is this process's once it
    is found (`journal.claim`): one that another live process plays raises
    ``JournalInUse`` (with port 0, the host looks past it for one of its own)."""
    data_dir = data_dir or default_data_dir()
    try:
        if plan.mode == "join":
            path: Path | None = join_path(data_dir, plan.address)
        else:
            path = find_host_journal(data_dir, plan.port)
    except (ValueError, OSError):
        return None  # no journal could be named for this address
    if path is None:
        return None
    if not path.exists():
        if plan.mode == "join" and in_use(path):  # the same host, from another process now
            raise JournalInUse(path)
        return None
    claim(path)  # JournalInUse: another live process plays this game (SPEC 4.6)
    identity = load_or_create_identity(plan.config_dir or default_config_dir())
    try:
        replayed = replay(path, identity)
    except JournalDamaged as e:
        kept = path.with_suffix(".damaged")
        path.replace(kept)
        release(path)
        raise JournalDamaged(kept, e.why) from None
    h = replayed.header
    if plan.mode == "join":
        again = replace(plan, resuming=True, peer_identity=h.peer_identity)
        return Unfinished(replayed, again, path)
    again = replace(
        plan,
        resuming=True,
        peer_identity=h.peer_identity,
        port=h.port,
        bind=h.bind,
        rules=h.rules,
    )
    return Unfinished(replayed, again, path)


def give_up(
    unfinished: Unfinished, ended: ConnectionEnded, data_dir: Path | None
) -> tuple[str, Path]:
    """The player of an unfinished game never came back (or could not be reached) within the
    window: the game ends unfinished like any lost game, its record saved, its journal
    removed.  Returns the result line and the record's path."""
    h = unfinished.replayed.header
    session = unfinished.replayed.session
    names = seat_names(session, unfinished.plan.name, h.peer_name)
    line, record, _ = keep_record(h.game, session, names, ended, data_dir)
    unfinished.path.unlink(missing_ok=True)
    release(unfinished.path)
    return line, record


def journal_for(plan: NetPlan, data_dir: Path | None, conn: Connected) -> JournalWriter:
    """Where the games of this connection are journaled (under the data dir)."""
    data_dir = data_dir or default_data_dir()
    if plan.mode == "join":
        path = join_path(data_dir, plan.address)
        return JournalWriter(Place(path, plan.name, address=plan.address))
    assert conn.listening is not None
    bind, port = conn.listening
    return JournalWriter(Place(host_path(data_dir, port), plan.name, bind=bind, port=port))


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


RESUMED_NO_CODE = (
    "the same player as in the game you resume (its identity key proves it): "
    "no code to compare this time"
)


def _introduce(peer: Peer, known: KnownPeers, say: Say, *, resuming: bool = False) -> None:
    info = peer.info
    trust = f", {peer.trust}" if peer.trust is not None else ""  # not asked on a resumption
    where = f" at {peer.remote}" if peer.remote else ""
    say(f"connected to {info.peer_name}{where} (key {info.peer_fingerprint}{trust})")
    if resuming:
        # A reconnection (SPEC 4.6): the identity key proves the player. This connection's
        # code is new, and the other screen, which shows no new code, could never match it.
        say(RESUMED_NO_CODE)
        return
    if peer.verified:
        say(
            "verified: the host proved the key named by the invitation "
            f"(no need to compare codes; the code is {info.sas})"
        )
        return
    if peer.trust == Trust.CHANGED:
        say(
            f"WARNING: {info.peer_name}'s identity key CHANGED since your last game (it was "
            f"{known.fingerprint_of(info.peer_name)}): someone may be impersonating them. "
            "Compare the code below with theirs before you trust it."
        )
    elif peer.trust == Trust.RENAMED:
        say(
            f"note: this is the key of the player you know as "
            f"{known.name_of(info.peer_identity)}, now calling themselves {info.peer_name}"
        )
    if "table" in info.caps:
        return  # a table has one code for every key at it, shown once everyone is seated
    say(f"compare this code with the other player's: {info.sas}")


def seat_names(session: GameSession, me: str, peer_name: str) -> tuple[str, str]:
    return (me, peer_name) if session.seat == 0 else (peer_name, me)


def keep_record(
    number: int,
    session: GameSession,
    names: tuple[str, str],
    ended: ConnectionEnded | None,
    data_dir: Path | None,
) -> tuple[str, Path, bool]:
    """Save game ``number``'s record; return its result line, where it went, and whether the
    game ended by the rules with its audit passed (SPEC 4.4)."""
    date = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    note = f"the connection ended: {ended.message}" if ended is not None else ""
    text = build_record(session, names, date, note)
    stem = f"{date}-{names[0]}-vs-{names[1]}-game{number + 1}"
    path = save_record(text, games_dir(data_dir), stem)
    line, ok = result_line(number, session, names, note)
    return line, path, ok


_RULES_WORDS = {"goal": "reached the goal", "passes": "three passes", "agreed": "agreed"}


def result_line(
    number: int, session: GameSession, names: tuple[str, str], note: str = ""
) -> tuple[str, bool]:
    """One line saying how the game ended (SPEC 4.5), and whether it ended by the rules with
    its audit passed.  Both sides print the same line, except for the words of a fault or
    of a close, which are each side's own (or the peer's claim, quoted)."""
    head = f"result: game {number + 1}: {names[0]} (seat 0) vs {names[1]} (seat 1):"
    result = session.result
    winners = [int(result)] if result in ("0", "1") else []
    return verdict_line(head, session, names, winners, _RULES_WORDS, note)
