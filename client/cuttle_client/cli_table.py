"""``cuttle host --players N --game G --bot NAME`` and ``cuttle join … --bot NAME`` at a table
of several players (SPEC 3.15), headless: the bot plays, every side prints the same result
line (SPEC 4.5).
"""

from __future__ import annotations

import argparse
import importlib
import random
from typing import Any

from cuttle_net.games import game_package

TABLE_GAMES = ("unisson",)
"""Games played at a table (two or more seats around one host)."""


def table_rules(game: str, players: int, decks: int | None) -> str:
    """The rules token a table of `players` plays `game` with (checked by the game)."""
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
    print(game.line, flush=True)
    if game.record is not None:
        say(f"record saved: {game.record}")
    return 0 if game.clean else 1


async def host_headless(args: argparse.Namespace, name: str, say: Any) -> int:
    """Host a table and let the bot play at seat 0."""
    from cuttle_protocol.address import format_address
    from cuttle_protocol.connection import LocalPlayer
    from cuttle_protocol.identity import KnownPeers, default_config_dir, load_or_create_identity
    from cuttle_protocol.table import TableSettings
    from cuttle_protocol.tablegame import play_at_table
    from cuttle_protocol.trio_peer import open_listener
    from cuttle_protocol.trio_table import host_table

    players = args.players
    token = table_rules(args.game, players, args.decks)
    bot = bot_for(args.game, args.bot)
    config = args.config_dir or default_config_dir()
    identity = load_or_create_identity(config)
    me = LocalPlayer(name, identity)
    settings = TableSettings(args.game, (token,), players)
    rng = random.Random()
    async with open_listener(args.port, args.bind, log=say) as listener:
        host, port = listener.address
        where = format_address(host, port)
        say(f"hosting {args.game} ({token}) for {players} players on {where} (port {port})")
        say(f"the others run: cuttle join {format_address(host, port)}")
        async with host_table(
            listener,
            me,
            settings,
            timeouts=_timeouts(args),
            known_peers=KnownPeers(config),
            log=say,
        ) as table:
            game = await play_at_table(
                table,
                identity,
                token,
                choose=lambda view: bot.choose(view, rng),
                say=say,
                bot_delay=args.bot_delay,
                data_dir=args.data_dir,
            )
    return _report(game, say)


async def join_headless(args: argparse.Namespace, conn: Any, name: str, say: Any) -> int:
    """`cuttle join` found a table's host: sit at it with the bot."""
    from cuttle_protocol.connection import LocalPlayer
    from cuttle_protocol.identity import KnownPeers, default_config_dir
    from cuttle_protocol.tablegame import play_at_table
    from cuttle_protocol.trio_table import join_table

    info = conn.peer.info
    game_name = info.rules.rules
    try:
        bot = bot_for(game_name, args.bot)
    except ValueError as exc:
        say(f"cannot play {game_name} with that bot: {exc}")
        await conn.peer.aclose("peer-quit", "no bot for this game")
        return 2
    rng = random.Random()
    config = args.config_dir or default_config_dir()
    async with join_table(
        args.address,
        LocalPlayer(name, conn.identity),
        peer=conn.peer,
        timeouts=_timeouts(args),
        known_peers=KnownPeers(config),
        log=say,
    ) as table:
        token = info.rules.variants[0] if info.rules.variants else ""
        game = await play_at_table(
            table,
            conn.identity,
            token,
            choose=lambda view: bot.choose(view, rng),
            say=say,
            bot_delay=args.bot_delay,
            data_dir=args.data_dir,
        )
    return _report(game, say)
