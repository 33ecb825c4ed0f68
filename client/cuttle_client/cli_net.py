"""``cuttle host`` and ``cuttle join``: play over TCP, in the terminal client or headless
with ``--bot``.

Heavy imports (trio, textual, the session) happen inside ``run`` so other commands stay quick.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cuttle_client.cli_games import add_game_options, foreign_options, game_commands
from cuttle_client.cli_play import add_dir_options, add_display_options
from cuttle_client.peertext import visible

COMMANDS = ("host", "join")


def add_parser(sub: argparse._SubParsersAction) -> None:
    host = sub.add_parser(
        "host",
        help="host a game and wait for the other players",
        description="Listen for the other player of a Cuttle game, or the players of a "
        "L'Unisson table (--game unisson), then play. Prints the addresses to give them.",
    )
    host.add_argument("--port", type=int, default=4454, help="TCP port (0: any free port)")
    host.add_argument(
        "--bind",
        default="::",
        metavar="ADDR",
        help="address to listen on (default ::, every IPv6 and IPv4 address)",
    )
    add_game_options(host, "host", seats=True)
    host.add_argument("--no-announce", action="store_true", help="do not announce on the LAN")
    host.add_argument(
        "--no-watchers", action="store_true", help="a table: let nobody watch (cuttle watch)"
    )
    host.add_argument(
        "--max-watchers",
        type=int,
        metavar="N",
        help="a table: let at most N watch (default 16)",
    )
    host.add_argument(
        "--watcher-chat",
        action="store_true",
        help="a table: let watchers say a line to the table (off: chat is for seats only)",
    )
    host.add_argument(
        "--no-map",
        action="store_true",
        help="do not ask the router to forward the port (UPnP)",
    )
    join = sub.add_parser(
        "join",
        help="join a game at HOST[:PORT] or by an invitation",
        description="Connect to a host and play its game: Cuttle, or a seat at its L'Unisson "
        "table. HOST may be a name, an IPv4 address or an "
        "IPv6 address in brackets ([2001:db8::1]:4454); an invitation (cuttle:…, printed by "
        "cuttle host) also checks the host's key.",
    )
    # nargs: an invitation copied from a wrapped line may come in pieces.
    join.add_argument("address", nargs="+", metavar="HOST[:PORT]|INVITATION")
    for p in (host, join):
        p.add_argument(
            "--bot",
            metavar="NAME",
            help="let a bot play, headless: easy (greedy), medium, hard, random",
        )
        # SUPPRESS: a --name given before the command (cuttle --name N host) is kept.
        p.add_argument(
            "--name", default=argparse.SUPPRESS, help="your name, shown to the other player"
        )
        p.add_argument("--games", type=int, default=1, help="headless: games to play (a match)")
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
        p.add_argument(
            "--bot-delay",
            type=float,
            default=0.0,
            metavar="S",
            help="headless: seconds the bot waits before each move",
        )
        p.add_argument(
            "--reconnect-window",
            type=float,
            default=60.0,
            metavar="S",
            help="seconds to wait for a lost connection to come back mid-game",
        )
        add_dir_options(p, argparse.SUPPRESS)  # also before the command: cuttle --data-dir D
        add_display_options(p, argparse.SUPPRESS)


def joined_address(pieces: list[str]) -> str:
    """What was typed after ``join``: an invitation in pieces (copied from a screen that
    wrapped it) is whole again; an address is one word.  Raise ``ValueError``."""
    from cuttle_protocol.wire import is_invitation

    if len(pieces) > 1 and not is_invitation(pieces[0]):
        raise ValueError(f"one address, HOST[:PORT], not {' '.join(pieces)!r}")
    return "".join(pieces)


def plan_from(args: argparse.Namespace) -> Any:
    """The joiner's ``NetPlan`` the arguments describe; raise ``ValueError`` if they are
    wrong."""
    from cuttle_protocol.play import NetPlan

    from cuttle_client.profile import player_name

    name = player_name(getattr(args, "name", None), args.config_dir)
    args.address = joined_address(args.address)
    return NetPlan(
        "join",
        name,
        address=args.address,
        config_dir=args.config_dir,
        reply_timeout=args.reply_timeout,
        table_game=_bot_plays(args.bot) if getattr(args, "bot", None) else None,
    )


def _bot_plays(bot: str) -> Any:
    """Whether the bot called `bot` plays a table's game: None, or why not (a joiner then
    refuses the table in the handshake, rather than leave its seat at once)."""

    def judge(game: str) -> str | None:
        from cuttle_client.cli_table import bot_for

        try:
            bot_for(game, bot)
        except ValueError as exc:
            return f"cannot play {game} with the bot {bot!r}: {exc}"
        return None

    return judge


def run(args: argparse.Namespace) -> int:
    if args.command == "host":  # every game is played at a table (Cuttle: of 2 seats)
        return _run_table_host(args)
    try:
        plan = plan_from(args)
        if args.bot:
            _known_bot(args.bot)
    except ValueError as e:
        print(f"cuttle {args.command}: {e}", file=sys.stderr)
        return 2
    if not args.bot:
        from cuttle_client.cli_play import run_network

        return run_network(args, plan)
    from cuttle_client.stopping import run_trio

    return run_trio(_headless, args, plan)


def _known_bot(name: str) -> None:
    """A bot of some game is called `name` (the table's game, met in the handshake, then
    says whether it plays it); else ValueError, listing the first game's bots."""
    from cuttle_client.cli_table import bot_for
    from cuttle_net.games import GAMES

    problems = []
    for game in GAMES:
        try:
            bot_for(game, name)
            return
        except ValueError as e:
            problems.append(e)
    raise problems[0]


def _say(text: str) -> None:
    """A line for the terminal: it may quote a peer, a journal or a record (``visible``)."""
    print(f"cuttle: {visible(text)}", flush=True)


def _run_table_host(args: argparse.Namespace) -> int:
    """``cuttle host``: a table of the game's seats (SPEC 3.15), ``--players N`` or the
    game's default, with the rules token its options ask for (``cli_games``)."""
    from cuttle_protocol.play import NetPlan

    from cuttle_client.cli_table import bot_for, host_headless, watchers_from
    from cuttle_client.profile import player_name

    commands = game_commands(args.game)
    if args.players is None:
        args.players = commands.DEFAULT_PLAYERS
    try:
        problem = foreign_options(args, args.game, "host")
        if problem:
            raise ValueError(problem)
        token = commands.table(args, args.players)
        if args.bot:
            bot_for(args.game, args.bot)
        name = player_name(getattr(args, "name", None), args.config_dir)
        plan = NetPlan(
            "host",
            name,
            port=args.port,
            bind=args.bind,
            announce=not args.no_announce,
            map_port=not args.no_map,
            config_dir=args.config_dir,
            reply_timeout=args.reply_timeout,
            max_watchers=watchers_from(args),
            watcher_chat=args.watcher_chat,
        )
    except ValueError as e:
        print(f"cuttle host: {e}", file=sys.stderr)
        return 2
    if not args.bot:  # a person at seat 0, in the terminal client
        from cuttle_client.cli_play import run_network

        return run_network(args, plan, game=args.game, players=args.players, rules_token=token)
    from cuttle_protocol.shells import ConnectionEnded
    from cuttle_protocol.store import ConfigError

    from cuttle_client.stopping import run_trio

    try:
        return run_trio(host_headless, args, name, _say, token)
    except ConfigError as e:
        _say(f"cannot use the config directory: {e}")
        return 2
    except ConnectionEnded as e:
        _say(f"connection ended: {e.message}")
        return 1
    except OSError as e:
        from cuttle_client.progress import listen_words

        _say(listen_words(args.port, e))
        return 1


async def _headless(args: argparse.Namespace, plan: Any) -> int:
    """``cuttle join --bot``: meet the host, then play its table's games (or take back a
    seat kept by its journal)."""
    from cuttle_protocol.play import open_game_peer
    from cuttle_protocol.shells import ConnectionEnded
    from cuttle_protocol.store import ConfigError

    from cuttle_client.cli_table import has_table_seat, join_headless, rejoin_headless
    from cuttle_client.progress import told

    try:
        if has_table_seat(args.data_dir, plan.address):  # our seat, kept by its journal
            return await rejoin_headless(args, plan.name, _say)
        async with open_game_peer(plan, told(_say)) as conn:
            return await join_headless(args, conn, plan.name, _say)
    except ConnectionEnded as ended:
        tags = ", ".join(dict.fromkeys(str(t) for t in (ended.reason, ended.code)))  # once each
        _say(f"connection ended: {ended.message} ({tags})")
        return 1
    except ConfigError as e:
        _say(f"cannot use the config directory: {e}")
        return 2
