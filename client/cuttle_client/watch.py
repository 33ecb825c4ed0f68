"""Watching a table in the terminal client (``cuttle watch``, the lobby's Watch): SPEC 3.15
*Watchers*.

``WatchedTable`` is what the watcher's screen shows, without I/O: the game as a spectator
sees it (its positions, from the `Follower` that checks every entry), who sits and who
watches, the chat, and the table's story in words (the connection, each verdict, each
record saved).  ``Onlooker`` runs the watch (``cli_watch.watch``, the headless one's) in the
app's trio run and drives the connect screen until the first game begins; ``WatchScreen``
then draws the game with its own table widgets (the game registry's ``ReplayBoard``), read
only: there is no move to choose.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any, ClassVar

from cuttle_protocol.shells import Saved
from cuttle_protocol.store import RecordNotSaved
from cuttle_protocol.table import Began, Ended, Follower, GameVerdict, Said, Watching
from cuttle_protocol.table.follow import Note
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from cuttle_net.records.positions import Positions, positions, public_states
from cuttle_net.records.verify import Verdict

from .chat import (
    SEATS_ONLY,
    TOO_FAST,
    ChatActions,
    ChatBox,
    ChatPanel,
    TableChat,
    chat_bindings,
)
from .footer import Footer
from .games import ReplayBoard, game_ui
from .peertext import plain
from .seat import Meeting
from .tablewidgets import MoveLog, TooSmall
from .watching import WatchLaunch, note_line, watch

NEWS_SHOWN = 2
"""The lines of the table's story under the board (the newest)."""


class WatchedTable:
    """What a watcher's screen shows, fed the watch's notes and words (no I/O)."""

    def __init__(self) -> None:
        self.follower: Follower | None = None  # its game: the positions so far
        self.number = 0  # the game under way (0: none yet)
        self.watchers: tuple[str, ...] = ()
        self.chat = TableChat()
        self.can_chat = False  # the host takes our lines (SPEC 3.15 *Watchers*)
        self.verdict = ""  # the last game's verdict, in words
        self.final: Positions | None = None  # the game, card for card, once its audit passed
        self.news: list[str] = []  # the connection, records saved, the end: newest last

    def note(self, note: Note | Saved) -> None:
        if isinstance(note, Began):  # (the words of the meeting are the connect screen's)
            self.number, self.verdict, self.final, self.news = note.number, "", None, []
        elif isinstance(note, GameVerdict):
            self.verdict = verdict_words(note)
            with contextlib.suppress(ValueError):  # (a game cut short stays as it was seen)
                self.final = positions(note.record)
        elif isinstance(note, Watching):
            self.watchers = tuple(name for name, _ in note.watchers)
        elif isinstance(note, Said):
            if note.muted:
                self.chat.muted(note.name)
            else:
                self.chat.said(note.name, note.text)
        elif isinstance(note, Saved | Ended | RecordNotSaved):
            self.news.append(note_line(note))

    def say(self, line: str) -> None:
        """A word about the watch itself: the connection lost, dialled again, refused."""
        self.news.append(line)

    @property
    def game(self) -> Any:
        """The game under way (a `records.follow.WatchedGame`), or None before the first."""
        return self.follower.game if self.follower is not None else None

    def positions(self) -> Positions | None:
        """The game so far, each position as a third party saw it; once audited, card for
        card (the audit shows every hand)."""
        if self.final is not None:
            return self.final
        game = self.game
        if game is None or not game.public.states:  # (no table to show before the deal)
            return None
        public = game.public
        moves = list(public.played)
        dealer = game.header.dealer
        states = public_states(
            public.module, public.rules, public.seats, dealer, public.states, moves
        )
        return Positions(
            module=public.module,
            rules=public.rules,
            names=game.names,
            dealer=dealer,
            date="",
            practice=False,
            moves=moves,
            states=states,
            full=False,
            outcome=public.over,
            ending="",
        )

    def where(self, p: Positions | None, ending: str) -> str:
        """The lines under the board: the move, who sits and who watches, the latest news
        (``p`` None: the cards are being dealt)."""
        if p is None:
            moves = f"game {self.number} · the cards are being dealt (each step checked)"
        else:
            moves = f"game {self.number} · move {len(p)}"
        if ending:
            moves += f" · {ending}"
        elif p is not None and self.game is not None and not self.game.over:
            moves += " · checking every move as it comes"
        seated = ", ".join(self.game.names) if self.game is not None else "?"
        watching = ", ".join(self.watchers) or "nobody else"
        lines = [moves, f"playing: {seated} · watching: {watching}"]
        if self.verdict:
            lines.append(self.verdict)
        return "\n".join([*lines, *self.news[-NEWS_SHOWN:]])


def verdict_words(note: GameVerdict) -> str:
    """The audit's verdict on the watcher's copy of the game, for people."""
    report = note.report
    if report.verdict is Verdict.VALID:
        return f"game {note.number} verified: audit passed, every move checked"
    if report.verdict is Verdict.UNAUDITED:  # (its problem lists every card never shown)
        why = f" ({note.note})" if note.note else ""
        return f"game {note.number} unaudited: it stopped before its audit{why}"
    return f"game {note.number} INVALID: {report.problem}"


def talk_refused(connected: bool, may_say: bool) -> str:
    """Why a watcher's line was not sent: the host out of reach, not naming us (yet, or
    again after its restart), or our lines too fast."""
    if not connected:
        return "not sent: the connection to the host is lost (dialling again)"
    return TOO_FAST if may_say else "not sent: the host has not named us yet"


class Onlooker(Meeting):
    """The watch, for the connect screen (until the first game begins: ``on_ready``) and
    then the watch screen (``changed``)."""

    def __init__(self, launch: WatchLaunch) -> None:
        Meeting.__init__(self)
        self.launch = launch
        self.watched = WatchedTable()
        self.changed: Callable[[], None] = lambda: None  # the watch screen's redraw
        self.status_code: int | None = None  # the watch's exit status, once over
        self._began = False
        self._table: Any = None  # the watcher's shell, once it watches (our chat lines)

    async def _main(self) -> None:
        self.status_code = await watch(
            self.launch, self._show, self._say, self._following, self._seated
        )
        if not self._began:  # refused, or gone before any game: the connect screen says why
            self.failed = self.status[-1] if self.status else "the watch ended"
        self._changed()

    def _following(self, follower: Follower) -> None:
        self.watched.follower = follower

    def _seated(self, table: Any) -> None:
        self._table = table
        self.watched.can_chat = table.can_chat

    def talk(self, text: str) -> None:
        """A line to the table, where the host takes watchers' lines: it shows once the
        host relays it back (marked as a watcher's)."""
        if self._guest is not None:
            self._guest.run_sync_soon(self._talk_now, text)

    def _talk_now(self, text: str) -> None:
        table = self._table
        if table is None or table.ended.is_set() or table.say(text):
            return
        why = talk_refused(table.connected, table.core.may_say)
        self.watched.chat.note(why)
        self._changed()

    def _show(self, note: Note | Saved) -> None:
        self.watched.note(note)
        if isinstance(note, Began) and not self._began:
            self._began = True
            self._on_ready()
        self._changed()

    def _say(self, line: str) -> None:
        self.watched.say(line)
        super()._say(line)
        self._changed()

    def _changed(self) -> None:
        if self._began:
            self.changed()


class WatchScreen(ChatActions, Screen[None]):
    """A table watched: the game's own table widgets, read only; the moves in words, the
    chat (read, and said where the host takes watchers' lines: w and the canned keys),
    who sits and watches, the verdict and the record saved at the end."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q,escape", "close", "Stop watching"),
        *chat_bindings(),
    ]

    def __init__(self, onlooker: Onlooker, ascii: bool, *, quits: bool = False) -> None:
        """``quits``: closing it quits the app (``cuttle watch``), else back to the lobby."""
        super().__init__()
        self.onlooker, self.ascii, self.quits = onlooker, ascii, quits
        game = onlooker.watched.game
        self.ui = game_ui(game.header.name)
        self._board: Widget = self.ui.board()
        self._board.add_class("replay-board")

    @property
    def board(self) -> ReplayBoard:
        return self._board  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        yield Static(id="title", classes="fits")
        yield TooSmall()
        where = Static(id="where")
        chat: Widget = ChatPanel(id="chat")
        if self.onlooker.watched.can_chat:  # the panel, and the line typed under it
            chat = ChatBox(self.onlooker.talk, self._put_away, id="chat-box")
        if self.board.log_beside:  # Cuttle: the moves and the chat beside the board
            with Horizontal(id="body", classes="fits"):
                with Vertical(id="board"):
                    yield self._board
                    yield where
                with Vertical(id="right"):
                    yield MoveLog(id="log")
                    yield chat
        else:  # L'Unisson: the players' lines need the width, the rest goes below
            with Vertical(id="u-body", classes="fits"):
                yield self._board
                yield where
                with Horizontal(id="u-bottom"):
                    with Vertical(id="u-left"):
                        yield chat
                    yield MoveLog(id="log")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#log").border_title = "Moves"
        self.onlooker.changed = self.redraw
        self.redraw()

    async def on_unmount(self) -> None:
        self.onlooker.changed = lambda: None
        await self.onlooker.aclose()

    def redraw(self) -> None:
        table = self.onlooker.watched
        p = table.positions()
        if p is None:
            where = table.where(None, "")
            self.query_one("#where", Static).update(plain(where))
            return
        log = [line for lines in self.board.log(p, None) for line in lines]
        self.board.show(p, len(p), None, log, self.ascii)
        self.query_one("#log", MoveLog).show(log, self.ascii)
        players = " vs ".join(p.names) if len(p.names) == 2 else ", ".join(p.names)
        title = f"cuttle · watching {self.ui.title} · {players} · {p.rules.name}"
        self.query_one("#title", Static).update(plain(title))
        where = table.where(p, self._ending(p))
        self.query_one("#where", Static).update(plain(where))
        for box in self.query(ChatBox):  # (its panel's title: the keys that talk)
            box.show(table.chat.lines)
            return
        chat = self.query_one(ChatPanel)
        chat.border_title = "Chat (seats only)"
        chat.show(table.chat.lines, hint=SEATS_ONLY)

    def _put_away(self) -> None:
        self.set_focus(None)  # the keys go back to the screen (q, w, the canned lines)

    def _ending(self, p: Positions) -> str:
        """How the game ended by its rules, once the watcher can say: a game scored on the
        hands (L'Unisson) says it once the audit shows them (``ValueError`` until then)."""
        try:
            return self.board.ending(p)
        except ValueError:
            return "the game is over: its score comes with the audit"

    def action_close(self) -> None:
        if self.quits:
            self.app.exit()
        else:
            self.dismiss()
