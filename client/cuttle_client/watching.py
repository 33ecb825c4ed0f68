"""A watch of a table (SPEC 3.15 *Watchers*), for both of ``cuttle watch``'s faces: the
terminal client's (``watch.WatchScreen``) and the headless lines (``cli_watch``).

``watch`` dials the host, checks every entry and follows each game as a third party,
saving the watcher's copy of each record; ``note_line`` puts what it saw in one line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class WatchLaunch:
    """A table to watch, and where the watcher's files are (None: the user's own)."""

    address: str
    name: str | None = None  # the name shown to the players (None: the saved one)
    config_dir: Path | None = None
    data_dir: Path | None = None
    save: bool = True  # save the watcher's copy of each game's record


def note_line(note: Any) -> str:
    """One line for what the watcher saw (peer words shown as plain text by `visible`)."""
    from cuttle_protocol.shells import Saved
    from cuttle_protocol.store import RecordNotSaved
    from cuttle_protocol.table import Began, Ended, GameVerdict, Played, Said, Watching

    from .progress import unsaved_words, watching_words

    if isinstance(note, Began):
        seats = ", ".join(f"{n} (seat {i})" for i, n in enumerate(note.names))
        return f"game {note.number}: {seats}; seat {note.dealer} deals"
    if isinstance(note, Played):
        who = "chance" if note.seat is None else f"{note.name} (seat {note.seat})"
        return f"{who}: {note.text}"
    if isinstance(note, Watching):
        return watching_words(note)
    if isinstance(note, Said):
        return (
            f"the host muted {note.name}'s chat" if note.muted else f"{note.name} says: {note.text}"
        )
    if isinstance(note, Saved):
        return f"record saved: {note.path}"
    if isinstance(note, RecordNotSaved):
        return unsaved_words(note)
    if isinstance(note, GameVerdict):
        from cuttle_net.records.verify import outcome_text

        report = note.report
        words = {0: "valid", 1: "INVALID", 3: "unaudited"}.get(int(report.verdict), "?")
        won = report.outcome
        what = f"; {outcome_text(won, report.names)}" if won is not None else ""
        why = f": {report.problem}" if report.problem else ""
        return f"game {note.number} verdict: {words}{what}{why}"
    assert isinstance(note, Ended)
    return note.text


async def watch(
    args: WatchLaunch,
    show: Callable[[Any], None],
    say: Callable[[str], None],
    following: Callable[[Any], None] = lambda follower: None,
    seated: Callable[[Any], None] = lambda table: None,
) -> int:
    """Watch the table at ``args.address`` to its end: ``show`` each note (``note_line``),
    ``say`` how the connection goes; ``following`` is given the `Follower` (its game's
    positions, for a screen), ``seated`` the watcher's table once it watches (a screen's
    chat: its ``can_chat`` and ``say``). The exit status: 0 if every game watched
    verified."""
    from cuttle_protocol.shells import ConnectionEnded, follow_table, watch_table
    from cuttle_protocol.store import (
        ConfigError,
        KnownPeers,
        default_config_dir,
        load_or_create_identity,
    )
    from cuttle_protocol.table import Follower
    from cuttle_protocol.wire import LocalPlayer

    from cuttle_client.profile import player_name
    from cuttle_client.progress import told
    from cuttle_net.records.verify import Verdict

    config = args.config_dir or default_config_dir()
    try:
        identity = load_or_create_identity(config)
        name = player_name(args.name, args.config_dir)
        known = KnownPeers(config)
    except ConfigError as e:
        say(f"cannot use the config directory: {e}")
        return 2
    follower = Follower(identity)
    following(follower)
    say(f"connecting to {args.address} (the table shows once it is seated)")
    me = LocalPlayer(name, identity)
    try:
        async with watch_table(args.address, me, known_peers=known, log=told(say)) as table:
            say(f"watching the table at {args.address}")
            seated(table)
            done = await follow_table(
                table,
                identity,
                show=show,
                save=args.save,
                data_dir=args.data_dir,
                follower=follower,
            )
    except ConnectionEnded as e:
        say(f"connection ended: {e.message}")
        return 1
    clean = done and all(v.report.verdict is Verdict.VALID for v, _ in done)
    return 0 if clean else 1
