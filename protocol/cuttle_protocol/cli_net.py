"""``cuttle host`` and ``cuttle join``: play over TCP, headless with ``--bot``.

Heavy imports (trio, the session) happen inside ``run`` so that other commands stay quick.
"""

from __future__ import annotations

import argparse
import contextlib
import getpass
import ipaddress
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cuttle_net.rules import VARIANTS

COMMANDS = ("host", "join")


def add_parser(sub: argparse._SubParsersAction) -> None:
    host = sub.add_parser(
        "host",
        help="host a game and wait for the other player",
        description="Listen for the other player, then play. Prints the address to give them.",
    )
    host.add_argument("--port", type=int, default=4454, help="TCP port (0: any free port)")
    host.add_argument("--bind", default="0.0.0.0", metavar="ADDR", help="address to listen on")
    host.add_argument("--rules", choices=("classic", "standard"), default="classic")
    host.add_argument(
        "--variant",
        action="append",
        default=[],
        choices=VARIANTS,
        metavar="NAME",
        help=f"a variant switch, repeatable: {', '.join(VARIANTS)}",
    )
    host.add_argument("--no-announce", action="store_true", help="do not announce on the LAN")
    join = sub.add_parser(
        "join", help="join a game at HOST[:PORT]", description="Connect to a host and play."
    )
    join.add_argument("address", metavar="HOST[:PORT]")
    for p in (host, join):
        p.add_argument("--bot", metavar="NAME", help="let a bot play (random, greedy): headless")
        p.add_argument("--name", help="your name, shown to the other player")
        p.add_argument("--games", type=int, default=1, help="games to play on this connection")
        p.add_argument(
            "--move-timeout",
            type=float,
            default=600.0,
            metavar="S",
            help="seconds the other player may take over a decision",
        )
        p.add_argument(
            "--reply-timeout",
            type=float,
            default=20.0,
            metavar="S",
            help="seconds for a protocol step or the handshake",
        )
        p.add_argument("--config-dir", type=Path, help="identity key and known peers")
        p.add_argument("--data-dir", type=Path, help="where game records are saved")


def run(args: argparse.Namespace) -> int:
    if not args.bot:
        print(
            f"cuttle {args.command}: the terminal client cannot play over the network yet; "
            "use --bot NAME for a headless game",
            file=sys.stderr,
        )
        return 2
    import trio

    from cuttle_net.bots import make_bot

    try:
        bot = make_bot(args.bot)
    except ValueError as e:
        print(f"cuttle {args.command}: {e}", file=sys.stderr)
        return 2
    return trio.run(_main, args, bot)


def _say(text: str) -> None:
    print(f"cuttle: {text}", flush=True)


async def _main(args: argparse.Namespace, bot: Any) -> int:
    from .connection import LocalPlayer, Rules
    from .identity import KnownPeers, default_config_dir, load_or_create_identity
    from .trio_peer import ConnectionEnded, PeerSettings, connect, open_listener

    config = args.config_dir or default_config_dir()
    identity = load_or_create_identity(config)
    try:
        me = LocalPlayer(args.name or getpass.getuser() or args.command, identity)
    except ValueError as e:
        print(f"cuttle {args.command}: --name: {e}", file=sys.stderr)
        return 2
    settings = PeerSettings(handshake_timeout=args.reply_timeout, reply_timeout=args.reply_timeout)
    known = KnownPeers(config)
    try:
        if args.command == "host":
            try:
                listener = await open_listener(args.port, args.bind)
            except OSError as e:
                print(
                    f"cuttle host: cannot listen on {args.bind}:{args.port}: {e.strerror}",
                    file=sys.stderr,
                )
                return 1
            host, port = listener.address
            _say(f"hosting {_rules_name(args)} on {host}:{port} (port {port})")
            _say(f"the other player runs: cuttle join ADDRESS:{port} (ADDRESS: this machine's)")
            _say("waiting for a player...")
            rules = Rules(args.rules, tuple(args.variant))
            async with contextlib.AsyncExitStack() as announced:
                if not args.no_announce and not ipaddress.ip_address(host).is_loopback:
                    await _announce(announced, args, me.name, host, port)
                async with listener.accept(me, rules, known_peers=known, settings=settings) as peer:
                    await announced.aclose()  # the seat is taken: withdraw from the LAN
                    await listener.aclose()
                    return await _play(args, peer, me, identity, bot)
        async with connect(
            args.address, me, judge_rules=_judge, known_peers=known, settings=settings
        ) as peer:
            return await _play(args, peer, me, identity, bot)
    except ConnectionEnded as ended:
        _say(f"connection ended: {ended.message} ({ended.reason}, {ended.code})")
        return 1


async def _announce(
    stack: contextlib.AsyncExitStack, args: argparse.Namespace, name: str, host: str, port: int
) -> None:
    """Announce the game on the LAN for as long as ``stack`` stays open; a hint only."""
    from cuttle_net.rules import Rules as EngineRules

    from . import lan
    from .lan_record import Announcement

    rules = EngineRules(standard=args.rules == "standard", variants=frozenset(args.variant))
    interfaces = None if host in ("0.0.0.0", "::") else [host]
    try:
        await stack.enter_async_context(
            lan.announcing(Announcement(name, port, rules), interfaces=interfaces)
        )
        _say("announced on the LAN: 'cuttle lan' on another machine lists this game")
    except lan.LanUnavailable as e:
        _say(str(e))


def _rules_name(args: argparse.Namespace) -> str:
    return "+".join([args.rules, *sorted(args.variant)])


def _judge(wire_rules: Any) -> str | None:
    """The joiner plays any rule set and variants this engine knows."""
    from cuttle_net.rules import Rules

    try:
        Rules(standard=wire_rules.rules == "standard", variants=frozenset(wire_rules.variants))
    except ValueError as e:
        return str(e)
    return None if wire_rules.rules in ("classic", "standard") else "unknown rule set"


async def _play(args: argparse.Namespace, peer: Any, me: Any, identity: Any, bot: Any) -> int:
    from cuttle_net.record import build_record, default_data_dir, save_record

    from .identity import Trust
    from .netgame import GameSettings, GameStarted, play_match

    info = peer.info
    _say(f"connected to {info.peer_name} (key {info.peer_fingerprint}, {peer.trust})")
    if peer.trust == Trust.CHANGED:
        _say(
            f"WARNING: {info.peer_name}'s identity key CHANGED since your last game: someone "
            "may be impersonating them. Compare the code below with theirs before you trust it."
        )
    _say(f"compare this code with the other player's: {info.sas}")
    names = {}

    def on_event(event: object) -> None:
        if isinstance(event, GameStarted):
            seat = event.session.seat
            names[event.number] = (me.name, info.peer_name)[:: 1 if seat == 0 else -1]
            role = "dealer" if seat == 1 else "first to play"
            _say(f"game {event.number + 1}: you are seat {seat} ({role})")

    settings = GameSettings(move_timeout=args.move_timeout, reply_timeout=args.reply_timeout)
    result = await play_match(
        peer, identity, games=max(1, args.games), bot=bot, on_event=on_event, settings=settings
    )
    date = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    clean = True
    for number, session in enumerate(result.games):
        seat_names = names[number]
        ended = result.ended if number == len(result.games) - 1 else None
        note = f"disconnected: {ended.message}" if ended is not None else ""
        text = build_record(session, seat_names, date, note)
        directory = (args.data_dir or default_data_dir()) / "games"
        stem = f"{date}-{seat_names[0]}-vs-{seat_names[1]}-game{number + 1}"
        path = save_record(text, directory, stem)
        line, ok = _result_line(number, session, seat_names, note)
        clean &= ok
        print(line, flush=True)
        _say(f"record saved: {path}")
    if result.ended is not None and result.ended.code not in ("peer-quit",):
        _say(f"connection ended: {result.ended.message}")
    return 0 if clean and result.games else 1


def _result_line(number: int, session: Any, names: tuple[str, str], note: str) -> tuple[str, bool]:
    """One line, the same on both sides for a game that ended normally."""
    head = f"result: game {number + 1}: {names[0]} (seat 0) vs {names[1]} (seat 1):"
    fault = session.fault
    if fault is not None:
        return (
            f"{head} stopped: seat {fault.culprit} ({names[fault.culprit]}) "
            f"{fault.kind}: {fault.message}",
            False,
        )
    outcome = session.outcome
    if outcome is None:
        return f"{head} unfinished: {note or 'the connection ended'}", False
    if outcome.winner is None:
        verdict = "drawn (" + {"passes": "three passes", "agreed": "agreed"}[outcome.reason] + ")"
    else:
        how = {"goal": "reached the goal", "concede": "the opponent conceded"}[outcome.reason]
        verdict = f"{names[outcome.winner]} wins ({how})"
    audit = "audit passed" if session.audit else "no audit"
    return f"{head} {verdict}; {audit}", True
