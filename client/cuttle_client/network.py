"""Network play in the terminal client: a controller fed by the session, and the screen that
shows the connection being made (the address to give, the code to compare).

The session runs under trio as a guest of Textual's asyncio loop (``TrioGuest``): trio's
tasks run on the UI thread, so session events update the controller and the screen
directly, and the UI hands moves to trio with ``run_sync_soon``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

import trio
from cuttle_protocol.identity import Trust
from cuttle_protocol.netgame import GameSettings, GameStarted, Rejected, play_match
from cuttle_protocol.netplay import NetPlan, keep_records, open_game_peer, seat_names
from cuttle_protocol.trio_peer import ConnectionEnded
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Static

from cuttle_net.engine import CHANCE
from cuttle_net.moves import Move
from cuttle_net.session import Audited, Dealt, Fault, GameOver, GameSession, MovePlayed

from .controller import Ending, TableController
from .trio_guest import GuestTask, TrioGuest


class NetworkController(TableController):
    """This player's seat in a game against a person on another machine."""

    def __init__(
        self,
        plan: NetPlan,
        settings: GameSettings | None = None,
        data_dir: Path | None = None,
    ) -> None:
        super().__init__()
        self.plan, self.settings, self.data_dir = plan, settings or GameSettings(), data_dir
        self.rules = plan.rules
        self.seat, self.names = 0, ("You", "the other player")
        self._peer_name = "the other player"
        self.status: list[str] = []  # the connection's story so far, for the connect screen
        self.session: GameSession | None = None
        self._guest: TrioGuest | None = None
        self._task: GuestTask | None = None
        self._outbox, self._intents = trio.open_memory_channel[Move](16)
        self._on_status: Callable[[], None] = lambda: None
        self._on_ready: Callable[[], None] = lambda: None

    # -- the connection

    def connect(
        self, guest: TrioGuest, on_status: Callable[[], None], on_ready: Callable[[], None]
    ) -> None:
        """Start meeting the other player in ``guest``; ``on_ready`` once the cards are dealt."""
        self._on_status, self._on_ready = on_status, on_ready
        self._guest, self._task = guest, guest.start_task(self._main)

    async def _main(self) -> None:
        try:
            async with open_game_peer(self.plan, self._say) as (peer, identity):
                name = self._peer_name = peer.info.peer_name
                changed = " · ⚠ THEIR KEY CHANGED" if peer.trust == Trust.CHANGED else ""
                self.banner = f"code {peer.info.sas}{changed}"
                result = await play_match(
                    peer,
                    identity,
                    intents=self._intents,
                    on_event=self._on_event,
                    settings=self.settings,
                )
                games = [(s, seat_names(s, self.plan.name, name)) for s in result.games]
                kept = keep_records(games, result.ended, self.data_dir)
            saved = f" · record saved: {kept[-1][1]}" if kept else ""
            if result.ended is not None and self.ending is None:
                self._stop(f"The connection ended: {result.ended.message}{saved}")
            elif self.ending is not None:
                self.ending = Ending(self.ending.outcome, self.ending.text + saved)
                self._changed()
        except ConnectionEnded as e:
            self._stop(f"The connection ended: {e.message}")
        except OSError as e:
            self._stop(f"Cannot listen on {self.plan.bind}:{self.plan.port}: {e.strerror or e}")

    def _say(self, line: str) -> None:
        self.status.append(line)
        self._on_status()

    def _stop(self, why: str) -> None:
        if self._view is None:  # still on the connect screen
            self._say(why)
        else:
            self._end(None, why)

    def _on_event(self, event: object) -> None:
        if isinstance(event, GameStarted):
            self.session = event.session
            self.seat, self.rules = event.session.seat, event.session.rules
            other = self._peer_name
            self.names = ("You", other) if self.seat == 0 else (other, "You")
        elif isinstance(event, Dealt):
            assert self.session is not None and self.session.view is not None
            self._view = self.session.view.copy()
            self._on_ready()
        elif isinstance(event, MovePlayed):
            assert self.session is not None and self.session.view is not None
            before = self.view
            self._view = self.session.view.copy()
            self._record(CHANCE if event.seat is None else event.seat, event.move, before)
            if event.seat == self.seat:
                self.busy = False
            self._changed()
        elif isinstance(event, GameOver):
            self.busy = False
            self._end(event.outcome)
        elif isinstance(event, Audited) and self.ending is not None:
            text = self.ending.text + " · audit passed: the deal was fair"
            self.ending = Ending(self.ending.outcome, text)
            self._changed()
        elif isinstance(event, Fault):
            who = "You" if event.culprit == self.seat else self.names[event.culprit]
            self._end(
                None, f"The game stopped: {who} broke the protocol ({event.kind}): {event.message}"
            )
        elif isinstance(event, Rejected):
            self.busy = False
            self._changed()

    # -- the table's side

    def waiting_for(self) -> str | None:
        if self.ending is not None:
            return None
        if self.busy:
            return "sending your move…"
        session = self.session
        if session is not None and session.waiting_for_peer == "move":
            return f"{self.names[self.opponent]} is thinking…"
        if session is not None and session.busy:
            return "the cards are being shown (deck protocol)…"
        return None

    def submit(self, move: Move) -> None:
        self.check(move)
        self.busy = True
        self._changed()
        assert self._guest is not None
        self._guest.run_sync_soon(self._outbox.send_nowait, move)

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
        super().close()

    async def aclose(self) -> None:
        if self._task is not None:
            await self._task.aclose()
        super().close()


class ConnectScreen(Screen[None]):
    """Meeting the other player: where to find us, who answered, the code to compare."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, controller: NetworkController, open_table: Callable[[], None]) -> None:
        super().__init__()
        self.controller = controller
        self._open_table = open_table
        self._handed_over = False  # the table took the controller over

    def compose(self) -> ComposeResult:
        verb = "Hosting" if self.controller.plan.mode == "host" else "Joining"
        yield Static(f"cuttle · {verb} a game", id="title")
        yield Static("", id="connect-status")
        yield Footer()

    def on_mount(self) -> None:
        self.controller.connect(self.app.trio, self._show_status, self._dealt)  # type: ignore[attr-defined]

    async def on_unmount(self) -> None:
        if not self._handed_over:  # cancelled, or the app is quitting
            await self.controller.aclose()

    def _dealt(self) -> None:
        self._handed_over = True
        self._open_table()

    def _show_status(self) -> None:
        self.query_one("#connect-status", Static).update("\n".join(self.controller.status))

    def action_cancel(self) -> None:
        self.app.pop_screen()  # unmounting closes the connection
