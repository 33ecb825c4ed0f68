"""``cuttle host --players N --game G --bot NAME`` and ``cuttle join … --bot NAME`` at a table
of several players (SPEC 3.15), headless: the bot plays, every side prints the same result
line (SPEC 4.5).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from cuttle_net.games import game_package

from .peertext import visible

TABLE_GAMES = ("unisson",)
"""Games `cuttle host --players N` seats at a table (two or more seats around one host)."""


def table_rules(game: str, players: int, decks: int | None, rules: str = "classic") -> str:
    """The rules token a table of `players` plays `game` with (checked by the game); `rules`
    is Cuttle's rule set and variants (``standard+joker``)."""
    if game == "cuttle":
        if players != 2 or decks is not None:
            raise ValueError("Cuttle is for two players and one deck")
        from cuttle_net.games.cuttle.rules import Rules

        return Rules.parse(rules).name
    if game == "unisson":
        if decks not in (None, 1, 2):
            raise ValueError("L'Unisson is played with 1 or 2 decks")
        if not 3 <= players <= 6:
            raise ValueError("L'Unisson is for 3 to 6 players")
        if decks == 1 and players > 4:
            raise ValueError("5 or 6 players need two decks")
        return "two-decks" if (decks or (2 if players > 4 else 1)) == 2 else "one-deck"
    raise ValueError(f"{game} is not played at a table")


def bot_for(game: str, name: str) -> Any:
    """The game's bot called `name` (ValueError listing them otherwise)."""
    package = game_package(game)
    return importlib.import_module(f"{package.__name__}.bots").make_bot(name)


def _timeouts(args: argparse.Namespace) -> Any:
    from cuttle_protocol.trio_table import TableTimeouts

    return TableTimeouts(
        reply=args.reply_timeout, move=args.move_timeout, window=args.reconnect_window
    )


def _report(game: Any, say: Any) -> int:
    print(visible(game.line), flush=True)  # it names every seat
    if game.record is not None:
        say(f"record saved: {game.record}")
    return 0 if game.clean else 1


@dataclass(frozen=True)
class Hosting:
    """A table to host: the game, its seats (ours included), its rules token, where to
    listen, and whether to announce it on the LAN while a seat is free (SPEC 3.13)."""

    game: str
    players: int
    token: str
    port: int = 4454
    bind: str = "::"
    announce: bool = True
    map_port: bool = False  # ask the router to forward the port (UPnP)


async def sit_at_table(
    name: str,
    where: Hosting | Any,
    *,
    address: str = "",
    config_dir: Path | None,
    timeouts: Any,
    say: Callable[[str], None],
    seated: Callable[[Any], None] = lambda table: None,
    **play: Any,
) -> Any:
    """Host a table (`where` a `Hosting`) and sit at seat 0, or sit at the table whose host
    the connection `where` (`netplay.Connected`) reached at `address` (the game and its rules
    are then the table's). `play` are `play_at_table`'s arguments (a bot's or a person's
    hooks); `seated` gets the table once it is open. The `TableGame`."""
    from cuttle_protocol.address import format_address
    from cuttle_protocol.addresses import host_addresses
    from cuttle_protocol.connection import LocalPlayer
    from cuttle_protocol.identity import KnownPeers, default_config_dir, load_or_create_identity
    from cuttle_protocol.netplay import invitation_for, map_port
    from cuttle_protocol.table import TableSettings
    from cuttle_protocol.tablegame import play_at_table
    from cuttle_protocol.trio_peer import open_listener
    from cuttle_protocol.trio_table import host_table, join_table

    config = config_dir or default_config_dir()
    known = KnownPeers(config)
    async with contextlib.AsyncExitStack() as stack:
        if isinstance(where, Hosting):
            identity, token = load_or_create_identity(config), where.token
            listener = await stack.enter_async_context(
                open_listener(where.port, where.bind, log=say)
            )
            host, port = listener.address
            at = format_address(host, port)
            say(f"hosting {where.game} ({token}) for {where.players} players on {at} (port {port})")
            reachable = host_addresses(host)
            for there in reachable:
                say(f"the others run: {there.join_command(port)}   ({there.where})")
            say("or, with your key checked for them (an invitation: paste it in a chat):")
            say(f"  cuttle join {invitation_for(identity, reachable, port)}")
            if where.map_port:
                await map_port(stack, identity, reachable, host, port, say, config)
            settings = TableSettings(where.game, tuple(token.split("+")), where.players)
            me = LocalPlayer(name, identity)
            opened = host_table(
                listener, me, settings, timeouts=timeouts, known_peers=known, log=say
            )
            if where.announce:
                play["watch"] = await _announced(stack, name, where, host, port, say, play)
        else:
            identity, rules = where.identity, where.peer.info.rules
            token = "+".join(rules.variants)  # the options: the token's parts (SPEC 3.15)
            me = LocalPlayer(name, identity)
            opened = join_table(
                address, me, peer=where.peer, timeouts=timeouts, known_peers=known, log=say
            )
        table = await stack.enter_async_context(opened)
        seated(table)
        return await play_at_table(table, identity, token, say=say, **play)


async def _announced(
    stack: contextlib.AsyncExitStack,
    name: str,
    where: Hosting,
    host: str,
    port: int,
    say: Callable[[str], None],
    play: dict[str, Any],
) -> Callable[[Any], None]:
    """Announce the table on the LAN while a seat is free (SPEC 3.13): the seats taken follow
    the lobby, and the announcement is withdrawn once every seat is taken, the table ends or
    we leave. The `watch` hook that keeps it in step (the caller's own `watch` included)."""
    from cuttle_protocol import lan
    from cuttle_protocol.lan_record import Announcement
    from cuttle_protocol.table import Lobby, TableEnded

    from cuttle_net.games.interface import game_module

    watch = play.get("watch", lambda item: None)
    rules = game_module(where.game).parse_rules(where.token, where.players)

    def first() -> Announcement:
        return Announcement(name, port, rules, game=where.game, seats=where.players)

    kept = await lan.keep_announced(stack, host, first, say)
    if kept is None:
        return watch

    def follow(item: Any) -> None:
        if isinstance(item, Lobby) and len(item.players) < item.settings.seats:
            kept.show(replace(kept.first, taken=len(item.players)))
        elif isinstance(item, (Lobby, TableEnded)):  # every seat taken, or no table any more
            kept.withdraw()
        watch(item)

    return follow


async def host_headless(args: argparse.Namespace, name: str, say: Any) -> int:
    """Host a table and let the bot play at seat 0."""
    bot = bot_for(args.game, args.bot)
    token = table_rules(args.game, args.players, args.decks)
    announce, map_port = not args.no_announce, not args.no_map
    where = Hosting(args.game, args.players, token, args.port, args.bind, announce, map_port)
    return await _bot_at_table(args, name, where, bot, say)


async def join_headless(args: argparse.Namespace, conn: Any, name: str, say: Any) -> int:
    """`cuttle join` found a table's host: sit at it with the bot (the handshake refused a
    game the bot does not play: `cli_net._bot_plays`)."""
    bot = bot_for(conn.peer.info.rules.rules, args.bot)
    return await _bot_at_table(args, name, conn, bot, say, args.address)


async def _bot_at_table(
    args: argparse.Namespace, name: str, where: Any, bot: Any, say: Any, address: str = ""
) -> int:
    rng = random.Random()
    game = await sit_at_table(
        name,
        where,
        address=address,
        config_dir=args.config_dir,
        timeouts=_timeouts(args),
        say=say,
        choose=lambda view: bot.choose(view, rng),
        bot_delay=args.bot_delay,
        data_dir=args.data_dir,
    )
    return _report(game, say)
