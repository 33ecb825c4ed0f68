"""Network play in the terminal client: a controller fed by the session, and the screen that
shows the connection being made (the address to give, the code to compare).

The session runs under trio as a guest of Textual's asyncio loop (``TrioGuest``): trio's
tasks run on the UI thread, so session events update the controller and the screen
directly, and the UI hands moves to trio with ``run_sync_soon``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar

import trio
from cuttle_protocol.address import format_address
from cuttle_protocol.identity import (
    ConfigError,
    KnownPeers,
    Trust,
    default_config_dir,
    load_or_create_identity,
)
from cuttle_protocol.invitation import is_invitation
from cuttle_protocol.journal import JournalDamaged, JournalInUse
from cuttle_protocol.netgame import (
    LEAVE,
    GameFinished,
    GameSettings,
    GameStarted,
    Leave,
    Reconnected,
    Reconnecting,
    Rejected,
    Resumed,
    play_match,
)
from cuttle_protocol.netplay import (
    Connected,
    NetPlan,
    give_up,
    journal_for,
    keep_record,
    open_game_peer,
    seat_names,
    unfinished_game,
)
from cuttle_protocol.trio_peer import ConnectionEnded
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Static

from cuttle_net.games.cuttle.engine import CHANCE, IllegalMove
from cuttle_net.games.cuttle.module import engine_outcome
from cuttle_net.games.cuttle.moves import CONCEDE, Move
from cuttle_net.session import Dealt, GameOver, GameSession, MovePlayed

from .cli_table import Rejoin, has_table_seat, table_seat_game
from .controller import Ending, LogEntry, TableController, ending_text
from .cuttle_seat import final_hand
from .games import game_ui
from .modals import ConfirmScreen, KeyChangedScreen
from .peertext import plain
from .seat import KeyChange, Meeting, in_use_words, stopped_words
from .widgets import TooSmall


class NetworkController(Meeting, TableController):
    """This player's seat in games against a person on another machine; its ``table``
    once the host turned out to seat a table of several players."""

    def __init__(
        self,
        plan: NetPlan,
        settings: GameSettings | None = None,
        data_dir: Path | None = None,
    ) -> None:
        TableController.__init__(self)
        Meeting.__init__(self)
        self.plan, self.settings, self.data_dir = plan, settings or GameSettings(), data_dir
        self.rules = plan.rules
        self.seat, self.names = 0, ("You", "the other player")
        self._peer_name = "the other player"
        self.session: GameSession | None = None
        self.connected = False
        self.reconnecting = ""  # what to show while a lost connection is being won back
        self._asked_rematch = False
        self._peer_asks_rematch = False  # joiner: the host asked for another game
        self._final_hand: list[int] | None = None  # their hand, once an audit revealed it
        self.key_changed: KeyChange | None = None  # a known player's key changed: ask first
        self._key_answer, self._key_answers = trio.open_memory_channel[bool](1)
        self._outbox, self._intents = trio.open_memory_channel[Move | Leave](16)
        self._decide, self._decisions = trio.open_memory_channel[bool](4)  # rematch answers
        self._on_saved: Callable[[], None] | None = None  # quitting: once the record is kept
        self.table: Any = None  # a TableSeat, once the host turned out to seat a table
        self.bell: Callable[[], None] = lambda: None  # for the table's seat: the turn came

    # -- the connection

    async def _main(self) -> None:
        if self.plan.mode == "join" and has_table_seat(self.data_dir, self.plan.address):
            try:  # a seat at a table, kept by its journal: take it back (SPEC 4.6)
                identity = load_or_create_identity(self.plan.config_dir or default_config_dir())
            except ConfigError as e:
                self._left(f"Cannot use the config directory: {e}")
                return
            game = table_seat_game(self.data_dir, self.plan.address)
            await self._sit_at_table(Rejoin(identity, game=game))
            return
        try:
            unfinished = unfinished_game(self.plan, self.data_dir)
        except JournalDamaged as e:
            self._left(
                f"The unfinished game cannot be resumed: {e.why} (its journal is kept as "
                f"{e.path}). Start again for a new game."
            )
            return
        except JournalInUse as e:
            words = in_use_words(e)
            self._left(words[0].upper() + words[1:])
            return
        except ConfigError as e:
            self._left(f"Cannot use the config directory: {e}")
            return
        resumed = None
        if unfinished is not None:
            resumed, self.plan = unfinished.replayed, unfinished.plan
            h = resumed.header
            self._say(
                f"resuming game {h.game + 1} against {h.peer_name} "
                f"({len(resumed.session.played)} moves played)"
            )
        try:
            async with open_game_peer(self.plan, self._say, self._alarm) as conn:
                if conn.table:
                    await self._sit_at_table(conn)
                    return
                peer = conn.peer
                self._peer_name = peer.info.peer_name
                # A resumed game's connection is a reconnection: the key proves the player,
                # and a new code would differ from the other screen's (SPEC 4.6). An
                # invitation's key proven: nothing to compare either (SPEC 3.14), and said so.
                verified = getattr(peer, "verified", False)
                if resumed:
                    self.banner = "same player, key checked"
                elif verified:
                    self.banner = "verified by the invitation"
                else:
                    self.banner = f"code {peer.info.sas}"
                    if peer.trust == Trust.NEW:  # a first meeting: ask to compare
                        self.banner += f": compare it with {self._peer_name}'s"
                if peer.trust == Trust.CHANGED and not await self._accept_changed_key(peer):
                    self._left(f"You refused {self._peer_name}'s new key: disconnected.")
                    return
                if peer.trust == Trust.RENAMED:  # the same key (proven), a new name
                    known = KnownPeers(self.plan.config_dir or default_config_dir())
                    self.banner += f" · known to you as {known.name_of(peer.info.peer_identity)}"
                    known.remember(peer.info.peer_name, peer.info.peer_identity)
                self.connected = True
                result = await play_match(
                    peer,
                    conn.identity,
                    rematch=self._wants_rematch,
                    reconnect=conn.reconnect,
                    intents=self._intents,
                    on_event=self._on_event,
                    settings=self.settings,
                    journal=journal_for(self.plan, self.data_dir, conn),
                    resumed=resumed,
                )
            self.connected = False
            if result.ended is not None or self._asked_rematch:
                self._left(f"{self._peer_name} has left")
        except ConnectionEnded as e:
            self.connected = False
            if unfinished is not None and self.session is None and unfinished.path.exists():
                _, path = give_up(unfinished, e, self.data_dir)  # the player never came back
                h = unfinished.replayed.header
                self._left(
                    f"Game {h.game + 1} against {h.peer_name} could not be taken back "
                    f"({e.message}): it ends here unfinished · record saved: {path}"
                )
                return
            self._left(f"The connection ended: {e.message}")
        except ConfigError as e:
            self._left(f"Cannot use the config directory: {e}")
        except OSError as e:
            where = format_address(self.plan.bind, self.plan.port)
            self._left(f"Cannot listen on {where}: {e.strerror or e}")

    async def _sit_at_table(self, conn: Connected | Rejoin) -> None:
        """The host seats a table (SPEC 3.15), or we take back a journaled seat at one
        (``Rejoin``): its game is played by that game's table seat (``games.py``), which
        takes this connect screen and task over."""
        plan = self.plan
        game = conn.game if isinstance(conn, Rejoin) else conn.peer.info.rules.rules
        try:  # an unreadable journal (no game): any game's seat says why it cannot resume
            seat = game_ui(game or "unisson").seat_class()
        except ValueError as e:
            self._left(f"Cannot sit at this table: {e}")
            return
        self.table = seat(plan.name, self.settings, self.data_dir, plan.config_dir)
        self.table.verified = getattr(conn.peer, "verified", False)
        self.table.bell = self.bell
        self.table.follow(self)
        await self.table.join(conn, plan.address)

    async def _accept_changed_key(self, peer: Any) -> bool:
        """Ask the player (a dialog) before the table opens; remember the key if accepted."""
        info = peer.info
        known = KnownPeers(self.plan.config_dir or default_config_dir())
        before = known.fingerprint_of(info.peer_name) or "?"
        self.key_changed = KeyChange(info.peer_name, info.peer_fingerprint, info.sas, before)
        self._on_key_changed()
        accepted = await self._key_answers.receive()
        self.key_changed = None
        if accepted:
            known.remember(info.peer_name, info.peer_identity)
            self._say(f"you accepted {info.peer_name}'s new key: it is remembered")
            self.banner += " · new key accepted"
        return accepted

    def answer_key_change(self, accept: bool) -> None:
        assert self._guest is not None
        self._guest.run_sync_soon(self._key_answer.send_nowait, accept)

    async def _wants_rematch(self, played: int) -> bool:
        if self.plan.mode == "join":  # the host asked: say so on the game-over screen
            self._peer_asks_rematch = True
            self._changed()
        return await self._decisions.receive()  # the player's choice on the game-over screen

    @property
    def rematch_offer(self) -> str:  # type: ignore[override]
        if self._peer_asks_rematch and self.ending is not None:
            return f"{self._peer_name} asks for a rematch: r to play again, l to leave"
        return ""

    def their_hand(self) -> tuple[list[int], int]:
        if self._final_hand is not None:
            return list(self._final_hand), 0
        return super().their_hand()

    def _left(self, why: str) -> None:
        """No more games on this connection: say why where the player is looking."""
        self.dealing = False
        if self._view is None:  # still on the connect screen
            self._give_up(why)
        elif self.ending is None:
            self._end(None, why)
        else:
            self.ending = Ending(self.ending.outcome, f"{self.ending.text} · {why}")
            self._changed()

    def _on_event(self, event: object) -> None:
        if isinstance(event, GameStarted):
            self.session = event.session
            self.seat, self.rules = event.session.seat, event.session.rules
            other = self._peer_name
            self.names = ("You", other) if self.seat == 0 else (other, "You")
            self.log, self.ending, self.busy, self._asked_rematch = [], None, False, False
            self._peer_asks_rematch, self._final_hand = False, None
            self.dealing = self._view is not None  # a rematch: the table shows the last game
            self._changed()
        elif isinstance(event, Dealt):
            assert self.session is not None and self.session.view is not None
            self._view = self.session.view.copy()
            self.dealing = False
            ready, self._on_ready = self._on_ready, self._changed  # the table opens once
            ready()
        elif isinstance(event, Resumed) and event.session.view is not None:
            # Rebuilt from the journal: the moves so far, in notation (their views are gone).
            self._view = event.session.view.copy()
            self.dealing = False
            self.log = [
                LogEntry(CHANCE if seat is None else seat, m, str(m))
                for seat, m in event.session.played
            ]
            ready, self._on_ready = self._on_ready, self._changed
            ready()
        elif isinstance(event, MovePlayed):
            assert self.session is not None and self.session.view is not None
            before = self.view
            self._view = self.session.view.copy()
            self._record(CHANCE if event.seat is None else event.seat, event.move, before)
            if event.seat == self.seat:
                self.busy = False
            self._changed()
        elif isinstance(event, GameOver | Rejected):
            self.busy = False
            if isinstance(event, Rejected):  # never silently: the table shows why
                self.refused = f"{event.move}: {event.reason}"
            self._changed()
        elif isinstance(event, GameFinished):
            self._finished(event)
        elif isinstance(event, Reconnecting):
            self.reconnecting = f"reconnecting… (connection lost: {event.why})"
            self._changed()
        elif isinstance(event, Reconnected):
            self.reconnecting = ""
            self._changed()

    def _finished(self, event: GameFinished) -> None:
        """Keep the record, and tell the player how the game ended and where it is kept."""
        s = event.session
        names = seat_names(s, self.plan.name, self._peer_name)
        _, path, _ = keep_record(event.number, s, names, event.ended, self.data_dir)
        lost = self.settings.reconnect_window if self.reconnecting else None
        self.reconnecting = ""  # the wait is over, whichever way
        stopped = stopped_words(s, self.names, lost)
        if stopped is not None:
            text = stopped
        elif s.outcome is None:
            text = f"The connection ended: {event.ended.message if event.ended else 'unfinished'}"
        else:
            text = ending_text(engine_outcome(s.outcome), self.view, self.seat, self.names)
            if s.audit is not None:
                text += " · audit passed: the deal was fair"
                self._final_hand = final_hand(s, self.opponent)
        outcome = engine_outcome(s.outcome) if s.outcome and s.fault is None else None
        culprit = s.fault.culprit if s.fault else s.closed.seat if s.closed else None
        if outcome is None and culprit is not None:  # a forfeit: the other player won it
            self.score = self.score.won_by(1 - culprit, self.seat)
        self._end(outcome, f"{text} · record saved: {path}")
        if self._on_saved is not None:
            self._on_saved()

    # -- quitting mid-game

    @property
    def game_in_progress(self) -> bool:
        """A game is being played: quitting must concede or leave it."""
        s = self.session
        return self.connected and s is not None and self.ending is None and not s.finished

    def quit_game(self, concede: bool, then: Callable[[], None]) -> None:
        """Concede (the game ends, lost) or leave (the other side waits for us to come back:
        the journal is kept); ``then`` once the record is saved."""
        self._on_saved = then
        assert self._guest is not None
        self._guest.run_sync_soon(self._outbox.send_nowait, CONCEDE if concede else LEAVE)

    # -- the table's side

    @property
    def can_rematch(self) -> bool:  # type: ignore[override]
        ending = self.ending
        return self.connected and ending is not None and ending.outcome is not None

    def rematch(self) -> None:
        """Ask for (host) or agree to (joiner) another game; the dealer alternates."""
        self._asked_rematch = self.dealing = True
        self.ending = None  # until the next deal, or until the other player declines
        assert self._guest is not None
        self._guest.run_sync_soon(self._decide.send_nowait, True)
        self._changed()

    def trouble(self) -> str:
        return self.reconnecting

    def waiting_for(self) -> str | None:
        if self.ending is not None:
            return None
        if self.reconnecting:
            return self.reconnecting
        if self._asked_rematch:
            return f"waiting for {self._peer_name} to agree to a rematch…"
        if self.dealing:
            return "the cards are being dealt…"
        if self.busy:
            return "sending your move…"
        session = self.session
        if session is not None and session.outcome is not None:
            return "checking the whole deal (the audit)…"
        if session is not None and session.waiting_for == (self.opponent, "move"):
            return f"{self.names[self.opponent]} is thinking…"
        if session is not None and session.busy:
            return "the cards are being shown (deck protocol)…"
        return None

    def check(self, move: Move) -> None:
        if self._asked_rematch and self.ending is None:
            raise IllegalMove(f"wait: {self._peer_name} has not agreed to the rematch yet")
        if self.dealing:
            raise IllegalMove("wait: the cards are being dealt")
        super().check(move)

    def submit(self, move: Move) -> None:
        self.check(move)
        self.busy = True
        self._changed()
        assert self._guest is not None
        self._guest.run_sync_soon(self._outbox.send_nowait, move)


class ConnectScreen(Screen[None]):
    """Meeting the other players: where to find us, who answered (who is seated at a table),
    the code to compare.  ``controller`` is a ``NetworkController`` or, hosting a table, a
    ``NetworkTable``: both ``connect`` with these hooks and keep ``status``."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("c", "copy_invitation", "Copy invitation"),
    ]

    def __init__(self, controller: Any, open_table: Callable[[], None], title: str) -> None:
        super().__init__()
        self.controller = controller
        self._open_table = open_table
        self._title = title
        self._handed_over = False  # the table took the controller over
        self._invitation = ""  # the command that joins us by invitation, once printed

    def compose(self) -> ComposeResult:
        yield Static(self._title, id="title", classes="fits")
        yield TooSmall()
        yield Static("", id="connect-status", classes="fits")
        # Its own widget: a selection (double-click) copies the command whole, where the
        # terminal's own copy of its wrapped rows would break it in two.
        yield Static("", id="invitation", classes="fits")
        yield Footer()

    def on_mount(self) -> None:
        self.controller.connect(
            self.app.trio,  # type: ignore[attr-defined]
            self._show_status,
            self._dealt,
            self._ask_about_key,
            self._ask_about_code,
            self._warn,
        )

    def _warn(self, text: str) -> None:
        self.notify(text, severity="warning", timeout=30, markup=False)

    def _ask_about_code(self, table: Any) -> None:
        self.app.push_screen(ConfirmScreen(table.code_question()), table.answer_code)

    def _ask_about_key(self) -> None:
        change = self.controller.key_changed
        assert change is not None
        self.app.push_screen(KeyChangedScreen(change), self.controller.answer_key_change)

    async def on_unmount(self) -> None:
        if not self._handed_over:  # cancelled, or the app is quitting
            await self.controller.aclose()

    def _dealt(self) -> None:
        self._handed_over = True
        self._open_table()

    def _show_status(self) -> None:
        if self._handed_over or not self.query("#connect-status"):
            # The table took over (or the screen was closed): the shells still log to
            # ``status`` (a connection lost mid-game), but this screen shows it no more.
            return
        lines, self._invitation = invitation_apart(self.controller.status)
        status = plain("\n".join(lines))  # it names the peers
        self.query_one("#connect-status", Static).update(status)
        if self._invitation:
            self.query_one("#invitation", Static).update(plain(self._invitation))
        self.refresh_bindings()
        table = getattr(self.controller, "table", None)
        if table is not None and table.game:  # the host we joined seats a table
            game = game_ui(table.game).title
            title = f"cuttle · Joining a table of {table.players}: {game}"
            self.query_one("#title", Static).update(title)

    def action_cancel(self) -> None:
        self.app.pop_screen()  # unmounting closes the connection

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return bool(self._invitation) if action == "copy_invitation" else True

    def action_copy_invitation(self) -> None:
        """The invitation to the clipboard (OSC 52: most terminals, not macOS Terminal)."""
        self.app.copy_to_clipboard(self._invitation)
        self.notify(
            "Copied to the clipboard, if your terminal lets programs do that: paste it in a chat.",
            title="Invitation",
        )


INVITATION_BELOW = "  (below: c copies it, or double-click it then ctrl+c)"


def invitation_apart(status: Sequence[str]) -> tuple[list[str], str]:
    """The meeting's story without its invitation commands, and the last invitation command
    (``cuttle join cuttle:…``, the best one: with the router's address once mapped)."""
    lines, invitation = [], ""
    for line in status:
        words = line.split()
        if len(words) == 3 and words[:2] == ["cuttle", "join"] and is_invitation(words[2]):
            invitation = " ".join(words)
            line = INVITATION_BELOW
        lines.append(line)
    return lines, invitation
