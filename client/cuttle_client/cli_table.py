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

from .gametitles import game_title
from .peertext import visible


def bot_for(game: str, name: str) -> Any:
    """The game's bot called `name` (ValueError listing them otherwise)."""
    package = game_package(game)
    return importlib.import_module(f"{package.__name__}.bots").make_bot(name)


def _timeouts(args: argparse.Namespace) -> Any:
    from cuttle_protocol.shells import TableTimeouts

    return TableTimeouts(
        reply=args.reply_timeout, move=args.move_timeout, window=args.reconnect_window
    )


def _report(game: Any, say: Any) -> int:
    from .progress import game_line, record_words

    print(visible(game_line(game)), flush=True)  # it names every seat
    if saved := record_words(game.record or game.unsaved):
        say(saved)
    return 0 if game.clean and game.unsaved is None else 1


@dataclass(frozen=True)
class Rejoin:
    """A seat to take back at a table we joined (its journal is kept under the data dir):
    `sit_at_table` dials the host itself, to resume (SPEC 4.6)."""

    identity: Any
    peer: None = None
    game: str = ""  # the journal's game (`journaled_game`)


def has_table_seat(data_dir: Path | None, address: str) -> bool:
    """Whether a journal of a seat at the table hosted at `address` is kept (`Rejoin`)."""
    from cuttle_protocol.store import data_dir as default_data_dir
    from cuttle_protocol.store import join_table_path

    try:
        return join_table_path(data_dir or default_data_dir(), address).exists()
    except ValueError:
        return False


def journaled_game(data_dir: Path | None, address: str) -> str:
    """The game of the seat journaled at the table hosted at `address` (`has_table_seat`).
    Raises `JournalDamaged` if the journal cannot be read: it is moved aside, and the error
    names where it went (`journal_words`)."""
    from cuttle_protocol.store import JournalDamaged, join_table_path, read_table_journal
    from cuttle_protocol.store import data_dir as default_data_dir

    path = join_table_path(data_dir or default_data_dir(), address)
    try:
        return read_table_journal(path)[0].game
    except JournalDamaged as e:
        raise _set_aside(path, e) from None


async def rejoin_headless(args: argparse.Namespace, name: str, say: Any) -> int:
    """`cuttle join ADDR` with a seat journaled at ADDR: take it back with the bot."""
    from cuttle_protocol.store import JournalDamaged, default_config_dir, load_or_create_identity

    try:
        game = journaled_game(args.data_dir, args.address)
    except JournalDamaged as e:
        say(journal_words(e))
        return 1
    identity = load_or_create_identity(args.config_dir or default_config_dir())
    bot = bot_for(game, args.bot)
    return await _bot_at_table(args, name, Rejoin(identity), bot, say, args.address)


def _set_aside(path: Path, e: Any) -> Any:
    """A damaged journal is moved aside (``.damaged``): the error, naming where it went."""
    from cuttle_protocol.store import JournalDamaged, release

    kept = path.with_suffix(".damaged")
    path.replace(kept)
    release(path)
    return JournalDamaged(kept, e.why)


def journal_words(e: Any) -> str:
    """The one line for a seat's journal that cannot be used (`JournalDamaged`,
    `JournalInUse`: another live process plays that seat, or `JournalKept`: its table ended
    and a record still cannot be saved from it)."""
    from cuttle_protocol.store import JournalInUse, JournalKept

    from .progress import kept_words

    if isinstance(e, JournalKept):
        return kept_words(e.unsaved)
    if isinstance(e, JournalInUse):
        return f"this seat is being played by another cuttle process (its journal {e.path})"
    return (
        f"the unfinished table cannot be resumed: {e.why} (the journal is kept as {e.path}); "
        "run the command again for a new table"
    )


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
    max_watchers: int | None = None  # watchers let in (0: none; None: the table's default)
    watcher_chat: bool = False  # watchers may say a line to the table (SPEC 3.15)


async def sit_at_table(
    name: str,
    where: Hosting | Any,
    *,
    address: str = "",
    config_dir: Path | None,
    timeouts: Any,
    say: Callable[[str], None],
    seated: Callable[[Any], None] = lambda table: None,
    listening: Callable[[str, int], None] = lambda host, port: None,
    match: bool = False,
    alarm: Callable[[Any], None] | None = None,
    tell: Callable[[Any], None] | None = None,
    **play: Any,
) -> Any:
    """Host a table (`where` a `Hosting`) and sit at seat 0, or sit at the table whose host
    the connection `where` (`play.Connected`) reached at `address` (the game and its rules
    are then the table's). `play` are `play_at_table`'s arguments (a bot's or a person's
    hooks); `seated` gets the table once it is open; a host's `listening` hears the address
    and port it listens on (its bots dial them); a host's `alarm` hears when tries at
    its code pile up (SPEC 3.11; else `say` does); `tell` hears the seat's progress
    (`play.events`; else `say` gets it in words). The `TableGame`; with `match`, a match
    (`play` then has `play_match_at_table`'s too) and its `TableMatch`.

    Every seat keeps a journal (SPEC 4.6): a host whose table was left unfinished (its
    process killed) re-opens it on its port, a joiner takes its seat back at the same
    address; the journal is removed once the table ended (the record saved). Raises
    `JournalDamaged` (the journal moved aside) or `JournalInUse`."""
    from cuttle_protocol.errors import ErrorCode
    from cuttle_protocol.play import invitation_for, map_port, play_at_table
    from cuttle_protocol.shells import (
        ConnectionEnded,
        EndReason,
        PeerSettings,
        host_addresses,
        host_table,
        join_table,
        open_listener,
    )
    from cuttle_protocol.store import (
        JournaledGuest,
        JournaledHost,
        KnownPeers,
        SeatJournal,
        data_dir,
        default_config_dir,
        find_host_table,
        host_table_path,
        join_table_path,
        load_or_create_identity,
    )
    from cuttle_protocol.table import TableSettings
    from cuttle_protocol.wire import LocalPlayer, format_address

    if tell is None:
        from .progress import told

        tell = told(say)

    config = config_dir or default_config_dir()
    known = KnownPeers(config)
    files = play.get("data_dir") or data_dir()
    async with contextlib.AsyncExitStack() as stack:
        if isinstance(where, Hosting):
            identity, token = load_or_create_identity(config), where.token
            journal = _unfinished(find_host_table(files, where.port), identity, say, files)
            if journal is not None:  # re-open the unfinished table where it was
                h = journal.header
                where = replace(where, game=h.game, players=h.seats, token=h.token)
                where = replace(where, port=h.port, bind=h.bind, announce=False)
                token = h.token
            listener = await stack.enter_async_context(
                open_listener(where.port, where.bind, log=tell, alarm=alarm)
            )
            host, port = listener.address
            listening(host, port)
            at = format_address(host, port)
            game = game_title(where.game)
            say(f"hosting {game} ({token}) for {where.players} players on {at} (port {port})")
            reachable = host_addresses(host)
            for there in reachable:
                say(f"the others run: {there.join_command(port)}   ({there.where})")
            say("or, with your key checked for them (an invitation: paste it in a chat):")
            say(f"  cuttle join {invitation_for(identity, reachable, port)}")
            if where.map_port:
                await map_port(stack, identity, reachable, host, port, tell, config)
            settings = TableSettings(where.game, tuple(token.split("+")), where.players)
            me = LocalPlayer(name, identity)
            if journal is None:
                journal = SeatJournal.new(
                    host_table_path(files, port),
                    role="host",
                    name=name,
                    settings=settings,
                    token=token,
                    host_identity=identity.public_key().public_bytes_raw(),
                    bind=where.bind,
                    port=port,
                )
            resumed = journal.resumed
            # The handshake within the reply timeout (3.11).
            shaking = PeerSettings(handshake_timeout=timeouts.reply, reply_timeout=timeouts.reply)
            opened = host_table(
                listener,
                me,
                settings,
                timeouts=timeouts,
                peer_settings=shaking,
                known_peers=known,
                log=tell,
                core=resumed.core if resumed else JournaledHost(journal, me, settings),
                restarted=resumed.lost if resumed else (),
                max_watchers=where.max_watchers,
                watcher_chat=where.watcher_chat,
            )
            if where.announce:
                play["watch"] = await _announced(stack, name, where, host, port, tell, play)
        else:
            identity, peer = where.identity, where.peer
            me = LocalPlayer(name, identity)
            path = join_table_path(files, address)
            journal = _unfinished(path if path.exists() else None, identity, say, files)
            if journal is None:
                if peer is None:  # a rejoin whose table had ended
                    why = "the table of our journal had ended"
                    raise ConnectionEnded(EndReason.LOCAL_CLOSED, ErrorCode.PEER_QUIT, why)
                info = peer.info
                token = "+".join(info.rules.variants)  # the options: the token's parts (3.15)
                journal = SeatJournal.new(
                    path,
                    role="joiner",
                    name=name,
                    settings=TableSettings(info.rules.rules, info.rules.variants, 2),
                    token=token,
                    host_identity=info.peer_identity,
                    address=address,
                )
            token = journal.header.token

            def new_core(info: Any) -> Any:
                return JournaledGuest(journal, me, info.peer_identity)

            resumed = journal.resumed
            opened = join_table(
                address,
                me,
                peer=peer,
                timeouts=timeouts,
                known_peers=known,
                log=tell,
                core=resumed.core if resumed else None,
                new_core=new_core,
            )
        try:
            try:
                table = await stack.enter_async_context(opened)
            except ConnectionEnded as e:
                if e.code != ErrorCode.NO_TABLE:
                    raise
                # Kept: the host may find its table again (its journal in another data
                # folder, say); the player decides, knowing where the journal is.
                why = (
                    f"the host says: {e.message}; our journal of the table is kept as "
                    f"{journal.path} (remove it to sit at a new table there)"
                )
                raise ConnectionEnded(e.reason, e.code, why) from None
            if not isinstance(where, Hosting):  # (a Rejoin dials again: no invitation)
                table.host_verified = bool(where.peer is not None and where.peer.verified)
            seated(table)
            if match:
                from cuttle_protocol.play import play_match_at_table

                return await play_match_at_table(
                    table, identity, token, tell=tell, journal=journal, **play
                )
            return await play_at_table(table, identity, token, tell=tell, journal=journal, **play)
        finally:
            # Ended (every record saved) or never seated: nothing to resume. Else (cut off
            # mid-game, or a record that could not be saved): kept for a restart.
            if journal.keeps_game:
                journal.close()
            else:
                journal.remove()


def _unfinished(
    path: Path | None, identity: Any, say: Callable[[str], None], data: Path | None
) -> Any:
    """The seat journaled at `path`, rebuilt (`journal.resumed`), or None. A damaged
    journal is moved aside (``.damaged``) and `JournalDamaged` names where it went. A
    table that ended: the records its journal holds and that were not saved are saved
    (under `data`), and the journal removed; `JournalKept` if one still cannot be."""
    from cuttle_protocol.play import game_session
    from cuttle_protocol.store import (
        JournalDamaged,
        JournalKept,
        open_journal,
        rebuild,
        save_unsaved,
    )

    if path is None:
        return None
    try:
        journal = open_journal(path)
        seat = rebuild(journal, identity, game_session)
    except JournalDamaged as e:
        raise _set_aside(path, e) from None
    if seat.ended is not None:  # it ended (as the process died, or a record was not saved)
        saved = save_unsaved(journal, data)
        for number, record in saved:
            if isinstance(record, Path):
                say(f"the record of game {number}, which ended, was saved as {record}")
        unsaved = [r for _, r in saved if not isinstance(r, Path)]
        if unsaved:
            journal.close()
            raise JournalKept(unsaved)
        journal.remove()
        return None
    moves = len(seat.session.played) if seat.session is not None else 0
    game = game_title(journal.header.game)
    say(f"resuming the unfinished table of {game} ({moves} moves played)")
    return journal


async def _announced(
    stack: contextlib.AsyncExitStack,
    name: str,
    where: Hosting,
    host: str,
    port: int,
    tell: Callable[[Any], None],
    play: dict[str, Any],
) -> Callable[[Any], None]:
    """Announce the table on the LAN while a seat is free (SPEC 3.13): the seats taken follow
    the lobby, and the announcement is withdrawn once every seat is taken (a table that takes
    watchers stays announced, full, while it plays), the table ends or we leave. The `watch`
    hook that keeps it in step (the caller's own `watch` included)."""
    from cuttle_protocol.shells import mdns as lan
    from cuttle_protocol.table import Lobby, TableEnded
    from cuttle_protocol.wire import Announcement

    from cuttle_net.games.interface import game_module

    watch = play.get("watch", lambda item: None)
    rules = game_module(where.game).parse_rules(where.token, where.players)

    def first() -> Announcement:
        watchers = where.max_watchers != 0  # (None: the table's default, some)
        return Announcement(
            name, port, rules, game=where.game, seats=where.players, watchers=watchers
        )

    kept = await lan.keep_announced(stack, host, first, tell)  # (`play.events`)
    if kept is None:
        return watch

    def follow(item: Any) -> None:
        full = isinstance(item, Lobby) and len(item.players) == item.settings.seats
        if isinstance(item, Lobby) and (not full or kept.first.watchers):
            # (full: still findable by those who come to watch, until the table ends)
            kept.show(replace(kept.first, taken=len(item.players)))
        elif isinstance(item, (Lobby, TableEnded)):  # every seat taken, or no table any more
            kept.withdraw()
        watch(item)

    return follow


async def host_headless(args: argparse.Namespace, name: str, say: Any, token: str) -> int:
    """Host a table (its rules token) and let the bot play at seat 0."""
    bot = bot_for(args.game, args.bot)
    announce, map_port = not args.no_announce, not args.no_map
    where = Hosting(args.game, args.players, token, args.port, args.bind, announce, map_port)
    chat = getattr(args, "watcher_chat", False)
    where = replace(where, max_watchers=watchers_from(args), watcher_chat=chat)
    return await _bot_at_table(args, name, where, bot, say)


def watchers_from(args: argparse.Namespace) -> int | None:
    """`--no-watchers` (0) or `--max-watchers N`; None: the table's default."""
    return 0 if getattr(args, "no_watchers", False) else getattr(args, "max_watchers", None)


async def join_headless(args: argparse.Namespace, conn: Any, name: str, say: Any) -> int:
    """`cuttle join` found a table's host: sit at it with the bot (the handshake refused a
    game the bot does not play: `cli_net._bot_plays`)."""
    bot = bot_for(conn.peer.info.rules.rules, args.bot)
    return await _bot_at_table(args, name, conn, bot, say, args.address)


def bot_hooks(bot: Any, bot_delay: float) -> dict[str, Any]:
    """`play_at_table`'s hooks for a seat that `bot` plays (`cuttle join --bot`, and the bots
    a host adds from its waiting screen): its moves, `bot_delay` seconds apart."""
    from cuttle_protocol.play import bot_decision, observer

    rng = random.Random()
    reads = observer(bot)  # a bot that reads the others' play sees each of their moves
    return dict(
        choose=lambda view: bot_decision(bot, view, rng),  # off the loop: a search is slow
        bot_delay=bot_delay,
        **({"watch": reads} if reads else {}),
    )


async def _bot_at_table(
    args: argparse.Namespace, name: str, where: Any, bot: Any, say: Any, address: str = ""
) -> int:
    """The bot plays a match of up to `--games` games (SPEC 3.15 *Another game*): each game's
    result line, then (from the second game on) the match totals."""
    from .progress import match_end_words, totals_line

    def report(game: Any, totals: Any) -> None:
        _report(game, say)
        if args.games > 1:
            print(visible(totals_line(totals)), flush=True)

    from cuttle_protocol.store import JournalDamaged, JournalInUse, JournalKept

    try:
        match = await sit_at_table(
            name,
            where,
            address=address,
            config_dir=args.config_dir,
            timeouts=_timeouts(args),
            say=say,
            match=True,
            games=max(1, args.games),
            report=report,
            data_dir=args.data_dir,
            **bot_hooks(bot, args.bot_delay),
        )
    except (JournalDamaged, JournalInUse, JournalKept) as e:
        say(journal_words(e))
        return 1
    if match.totals is None:  # no game was played: its one line says why
        _report(match.games[0], say)
    elif args.games > len(match.games):
        why = match_end_words(match.end)
        say(f"the match ended after {len(match.games)} of {args.games} games: {why}")
    return 0 if match.clean and not any(g.unsaved for g in match.games) else 1
