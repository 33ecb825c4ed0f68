"""A game session played at an N-player table (SPEC 3.15 and part 4), driven by a chooser
(a bot headless, or a person through a UI): the one glue between `shells.table_shell` and
`cuttle_net.session`.

    async with join_table(address, me) as table:
        game = await play_at_table(table, identity, rules_token, choose=bot_move)
        print(game.result)  # a `GameResult`: the client words it (SPEC 4.5's line)

Every send of the session is posted to the table; every other seat's message comes back in
the table's one order with its author's seat; a table that stops (a seat left, stalled or
cheated) gives the session its verdict. Once the game is over the host leaves the table (the
single log orders every seat's last messages before its `leave`), and each joiner leaves
once it saw that, or after the reply timeout: a joiner's `leave` posted as the host closes
its connections would be lost, and that joiner would dial the gone host again.

A UI drives a seat with three hooks: `choose` may be async (it awaits the person's move),
`watch` sees every table event (a connection lost and won back too: a joiner's to the host,
the host's to each joiner) and every session `Output` (`Step`) as it happens, and `confirm`
asks the person to compare the table code. The chooser and the confirmation run as tasks
beside the event loop, so a seat that leaves or cheats meanwhile still ends the game at once.

With a `journal` (`store.seatjournal`) the session draws its randomness from the journal's seed
and each move is noted before anything it makes us post; a journal rebuilt after a crash
(`journal.resumed`) gives the game as it stood, and play goes on from there.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cuttle_net.session import TABLE_HOST, Fault, GameSession, Output, message_bodies

from ..errors import ErrorCode
from ..shells.table_shell import ShellEvent, TableShell
from ..store import RecordNotSaved, SeatJournal, keep_record
from ..table.core import (
    CodeShown,
    Delivered,
    Lobby,
    Rematch,
    SeatInfo,
    Started,
    TableEnded,
    TableSettings,
    Watching,
)
from ..table.seats import SeatOrder, end_note, end_verdict, game_header
from .events import CodeToCompare, GameBegins, GameStopped, SeatKey, Tell
from .result import GameResult, game_result

Choose = Callable[[Any], Any]
"""A seat's decision: given the session's view (the game state as this seat sees it), the
move to play, or an awaitable of it (a person's move)."""


@dataclass(frozen=True)
class Step:
    """The session moved: `output` is what one input gave (its events: `Dealt`,
    `MovePlayed`, `GameOver`, `Fault`...), `session.view` the seat's view after it."""

    session: GameSession
    output: Output


Watch = Callable[[ShellEvent | Step], None]
"""Sees each table event as it comes (`Delivered` included, a joiner's `Reconnecting` and
`Reconnected`, the host's `SeatAway` and `SeatBack`) and each session `Step`."""

Confirm = Callable[[CodeShown], Awaitable[bool]]
"""Asks the player to compare the table code: True once it matches every other player's;
False leaves the table with `code-mismatch` (SPEC 3.15)."""

HOST = TABLE_HOST
"""The host's seat (SPEC 3.15)."""


def game_session(
    settings: TableSettings,
    started: Started,
    rules_token: str,
    identity: Ed25519PrivateKey,
    me: int,
    rng: Callable[[int], bytes] = os.urandom,
) -> tuple[SeatOrder, tuple[str, ...], GameSession]:
    """The game a table starts (SPEC 4.1): its seat order, the players' names in game seats,
    and our session (`me`: our table seat; `rng`: all of our randomness in the game)."""
    order, names, header = game_header(settings, started, rules_token)
    session = GameSession(order.game(me), header, identity, rng=rng)
    return order, names, session


@dataclass
class TableGame:
    """How the game at the table went: its result (the same at every seat but for the words
    of a fault), the session and the record (or why it could not be saved: `unsaved`). No
    game dealt: `result` is None, and `ended` is how the table ended (None: it never
    started)."""

    result: GameResult | None
    session: GameSession | None = None
    record: Path | None = None
    note: str = ""  # why a game that did not finish stopped ("you left the table")
    ended: TableEnded | None = None
    unsaved: RecordNotSaved | None = None  # the record could not be saved (the journal keeps it)

    @property
    def clean(self) -> bool:
        """The game ended by the rules with its audit passed."""
        return self.result is not None and self.result.clean

    @property
    def settled(self) -> bool:
        """The game ended as its players end one: by the rules with its audit passed, or by
        a concession (nothing to audit). The next game of a match may follow (SPEC 3.15,
        *Another game*); a fault or a seat leaving ends the match."""
        s = self.session
        return self.clean or (s is not None and s.ending().form == "concede")


async def play_at_table(
    table: TableShell,
    identity: Ed25519PrivateKey,
    rules_token: str,
    *,
    choose: Choose,
    tell: Tell = lambda event: None,
    bot_delay: float = 0.0,
    data_dir: Path | None = None,
    save: bool = True,
    watch: Watch = lambda item: None,
    confirm: Confirm | None = None,
    stay: bool = False,
    journal: SeatJournal | None = None,
) -> TableGame:
    """Sit at `table` until its game is over; return the result (and save the record).
    `tell` hears the seat's progress as data (`play.events`: who sits, the keys and the
    code, each game dealt); without `confirm` the code is only told, and confirmed at once
    (headless).
    `stay`: a game of a match (`play.match`): once it is over, stay at the table."""
    tasks: trio.Nursery  # the chooser and the confirmation run beside the events
    session: GameSession | None = None
    order = SeatOrder(0, 1)  # the game's seats, once the table starts
    names: tuple[str, ...] = ()
    note = "the table stopped"  # why a game that did not finish stopped, for its record
    deciding = False
    failure = ""  # why a hook of our own program failed: then we leave the table

    def fail(hook: str, exc: Exception) -> None:
        # A bug in the UI's hooks must not freeze the seat while the others wait out its
        # timeout: leave the table, saying so, and keep the record.
        nonlocal failure
        if not failure:
            failure = f"our program failed ({hook}: {type(exc).__name__}: {exc})"
            table.leave(ErrorCode.INTERNAL_ERROR, "the player's program failed")

    def show(item: object) -> None:
        if not failure:
            try:
                watch(item)
            except Exception as exc:
                fail("watch", exc)

    def carry(out: Output, *, verdict: bool = False) -> None:
        assert session is not None
        for body in message_bodies(out.sends):
            table.post(body)
        show(Step(session, out))
        for event in out.events:
            if isinstance(event, Fault) and not verdict:
                # Our own finding (or our own breakdown): the whole table hears it, so
                # every seat ends the game with the same culprit.
                table.fault(order.table(event.culprit), event.kind, event.message)

    def owes() -> tuple[int, bool] | None:
        waiting = session.waiting_for if session is not None else None
        return None if waiting is None else (order.table(waiting[0]), waiting[1] == "move")

    def ours() -> bool:
        return session is not None and session.my_turn and not table.ended.is_set()

    def decide() -> None:
        nonlocal deciding
        if ours() and not deciding:
            deciding = True
            tasks.start_soon(decision)

    async def decision() -> None:
        # A task of its own, so that the table's events go on while a person thinks.
        nonlocal deciding
        try:
            while ours():
                assert session is not None
                if bot_delay:
                    await trio.sleep(bot_delay)
                try:
                    move = choose(session.view)
                    if inspect.isawaitable(move):
                        move = await move
                except Exception as exc:
                    fail("choose", exc)
                    return
                if not ours():
                    return  # the game stopped meanwhile
                try:
                    out = session.play(move)
                    if journal is not None:  # before anything the move makes us post
                        text = move if isinstance(move, str) else session.module.move_text(move)
                        journal.played(text)
                    carry(out)
                except ValueError as exc:  # our own chooser broke the rules: a bug here
                    carry(session.broke_down(f"our player chose an illegal move: {exc}"))
                if session.finished:
                    tasks.cancel_scope.cancel()  # the game is over: leave the events
        finally:
            deciding = False

    async def ask(event: CodeShown) -> None:
        assert confirm is not None
        try:
            same = await confirm(event)
        except Exception as exc:
            fail("confirm", exc)
            return
        if same:
            table.confirm()
            table.keys_accepted()  # the person saw every key's warning beside the code
        else:
            table.leave("code-mismatch", "the table code differs from mine")

    async def follow() -> None:
        nonlocal session, order, names, note
        if journal is not None and journal.resumed is not None:  # rebuilt from the journal
            resumed, journal.resumed = journal.resumed, None  # (a match's next game starts anew)
            order, names, session = resumed.order or order, resumed.names, resumed.session
            if session is not None:
                show(Step(session, Output()))  # a UI shows the game as it stands
            decide()
        async for event in table.each_event():
            show(event)
            if isinstance(event, Lobby | Watching):
                tell(event)
            elif isinstance(event, CodeShown):
                for seat in table.core.seats:
                    if seat.seat != table.core.me:
                        tell(seat_key(table, seat))
                # the one other key is the host's, proven by the invitation
                verified = table.host_verified and len(table.core.seats) == 2
                tell(CodeToCompare(event.code, verified))
                if confirm is None:
                    table.confirm()  # headless: the code is shown, nobody is asked
                else:
                    tasks.start_soon(ask, event)
            elif isinstance(event, Started):
                settings = table.core.settings
                assert settings is not None
                rng = journal.header.rng(b"session %d" % event.number) if journal else os.urandom
                if journal is not None:  # where the session took it: the rebuild's order
                    journal.began(event.number)
                order, names, session = game_session(
                    settings, event, rules_token, identity, table.core.me, rng
                )
                me, header = session.seat, session.header
                tell(GameBegins(event.number, me, header.dealer))
                carry(session.start())
                decide()
            elif isinstance(event, Delivered):
                if session is None or event.seat == table.core.me:
                    continue
                if journal is not None:  # (before anything the session's answer posts)
                    journal.fed(event.index)
                carry(session.receive(order.game(event.seat), event.body))
                decide()
            elif isinstance(event, Rematch) and session is not None and not session.finished:
                # The host's signed entry, which every seat checks against its own game.
                game = session.header.number
                detail = f"game {game + 1} proposed before {game} was over"
                if table.ended.is_set():
                    # The table took a later entry (another seat's report) before we got
                    # here: the finding is still ours, from the log, and our game's verdict.
                    host = order.game(HOST)
                    carry(session.table_verdict(host, "bad-entry", detail, host=host), verdict=True)
                else:
                    table.fault(HOST, "bad-entry", detail)
            elif isinstance(event, TableEnded):
                me = table.core.me
                unfinished = end_note(event, me)
                if unfinished is not None:  # we left, or nobody is to blame
                    note = (failure or unfinished) if event.culprit == me else unfinished
                elif session is not None and not session.finished:
                    # The verdict rule (SPEC 3.15): another seat's word is checked here,
                    # on our clock; the journal keeps what the clock said (a record saved
                    # from the journal later states the same verdict).
                    overdue = table.overdue(session.deck.next_sender() is None)
                    if journal is not None:
                        journal.note(["verdict", overdue])
                    carry(end_verdict(session, order, event, me, overdue), verdict=True)
                break
            if session is not None and session.finished:
                break

    table.owes = owes
    try:
        async with trio.open_nursery() as tasks:
            await follow()
            tasks.cancel_scope.cancel()  # a chooser or a confirmation still waiting
    except BaseException:
        # Interrupted (Ctrl+C, SIGTERM, SIGHUP) or cancelled: leave as a player's `l` does
        # (every seat is told, within the reply timeout), keep our record, and let the
        # exception go on.
        if not table.ended.is_set():
            note = failure or "you left the table"
            if table.core.leaving is None:
                table.leave(ErrorCode.PEER_QUIT, "")
            with trio.CancelScope(shield=True):
                await table.wait_ended(table.timeouts.reply)
        if session is not None:
            game = _outcome(session, names, note, save, data_dir, journal)
            assert game.result is not None
            tell(GameStopped(game.result, game.record, game.unsaved))
        raise
    if session is not None and session.finished and not stay:
        await leave_when_over(table)
    if session is None:
        return TableGame(None, note=failure, ended=table.core.ended)
    return _outcome(session, names, note, save, data_dir, journal)


async def leave_when_over(table: TableShell) -> None:
    """No more games: the host leaves the table (the single log orders every seat's last
    messages before its `leave`); a joiner waits for that, and leaves itself only if it has
    not come within the reply timeout."""
    if table.core.leaving is not None:
        return  # we left already (the table ends once the host relays it)
    if table.core.me != HOST and not table.ended.is_set():
        await table.wait_ended(table.timeouts.reply)  # the host closes the table
    if not table.ended.is_set() and table.core.leaving is None:
        # the others read "the match is over: HOST left: no more games" (who, and why once)
        table.leave(ErrorCode.PEER_QUIT, "no more games")


def _outcome(
    session: GameSession,
    names: tuple[str, ...],
    note: str,
    save: bool,
    data_dir: Path | None,
    journal: SeatJournal | None,
) -> TableGame:
    """The game's result, its record saved (if `save`: one that cannot be written is said
    in `unsaved`, and `journal` keeps the game); `note`: why an unfinished game stopped."""
    note = "" if session.finished else note
    record = unsaved = None
    if save:
        kept = keep_record(session, names, note, data_dir, journal)
        record, unsaved = (kept, None) if isinstance(kept, Path) else (None, kept)
    elif journal is not None:
        journal.saved(session.header.number)  # no record wanted: none to save from it later
    return TableGame(game_result(session, names, note), session, record, note, unsaved=unsaved)


def seat_key(table: TableShell, seat: SeatInfo) -> SeatKey:
    """A seated player as the others see it: name, key, and what trust on first use says."""
    trust = table.trust.get(seat.identity)
    known = table.known_peers.name_of(seat.identity) if table.known_peers else None
    renamed = trust is not None and trust.value == "renamed"
    return SeatKey(seat.seat, seat.name, seat.fingerprint, trust, known if renamed else None)
