"""The replay viewer, for every game: ``cuttle replay FILE`` and the lobby's games played.

Only a record that verifies is shown (``cuttle_net.records.positions`` steps through it);
the board is the game's own, found in the client's game registry (``games``).  An audited
game (or a practice one) is known card for card: every face up, or the hands as any one
seat saw them (``s``).  A game never audited is shown as a third party saw it.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, Static

from cuttle_net.records.ending import EndingError, parse_ending
from cuttle_net.records.positions import Positions, positions

from .footer import Footer
from .games import LogLine, ReplayBoard, game_ui
from .peertext import plain
from .stylesheet import share_parsed_css
from .tablewidgets import MoveLog


def load(text: str) -> Positions:
    """The record's positions (``ValueError`` saying why it cannot be replayed), for a
    game this client can draw."""
    p = positions(text)
    game_ui(p.game)
    return p


def forfeit_words(p: Positions) -> str:
    """An end the rules did not make, in words that name the players (the record's
    ``Ending`` names seats by number)."""
    try:
        end = parse_ending(p.ending) if p.ending else None
    except EndingError:
        return p.ending
    if end is None:
        return ""
    who = p.names[end.seat] if end.seat is not None and end.seat < len(p.names) else ""
    if end.form == "fault":
        return f"{who} forfeits ({end.code.replace('_', ' ')}: {end.text})"
    if end.form == "closed":
        return f"{who} left ({end.text or end.code}) and forfeits"
    if end.form == "concede":
        return "conceded"
    return str(end)


class ReplayScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        # Priority: the scrolling move log would take the arrow keys otherwise.
        Binding("right,n,space", "step(1)", "Next", priority=True),
        Binding("left,p", "step(-1)", "Back", priority=True),
        Binding("home", "go(0)", "First", priority=True),
        Binding("end", "go(-1)", "Last", priority=True),
        Binding("g", "jump", "Go to move"),
        Binding("s", "seat", "Seat"),
        Binding("q,escape", "close", "Close"),
    ]

    def __init__(self, p: Positions, ascii: bool, *, quits: bool = False) -> None:
        """``quits``: closing the replay quits the app (``cuttle replay``), else it goes
        back to the screen below (the lobby)."""
        super().__init__()
        self.p, self.ascii, self.quits = p, ascii, quits
        self.ui = game_ui(p.game)
        self.at = 0
        self.seat: int | None = None  # None: every card known (or a third party's view)
        self._board: Widget = self.ui.board()
        self._board.add_class("replay-board")
        self._logs: dict[int | None, list[list[LogLine]]] = {}

    @property
    def board(self) -> ReplayBoard:
        return self._board  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        p = self.p
        players = " vs ".join(p.names) if len(p.names) == 2 else ", ".join(p.names)
        practice = " practice" if p.practice else ""
        title = f"replay · {self.ui.title}{practice} · {players} · {p.rules.name} · {p.date}"
        yield Static(plain(title), id="title")
        parts = [
            self._board,
            Static(id="where"),  # may take two lines
            # Disabled while hidden, so it never takes the keys meant for the bindings.
            Input(
                placeholder="go to move number (Enter)",
                id="move-input",
                disabled=True,
                compact=True,
            ),
        ]
        if self.board.log_beside:
            with Horizontal(id="body"):
                with Vertical(id="board"):
                    yield from parts
                yield MoveLog(id="log")
        else:
            with Vertical(id="u-body"):
                yield from parts
                yield MoveLog(id="log", classes="below")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#move-input").display = False
        self.query_one("#log").border_title = "Moves"
        self.show()

    def _log(self) -> list[LogLine]:
        if self.seat not in self._logs:
            self._logs[self.seat] = self.board.log(self.p, self.seat)
        return [line for lines in self._logs[self.seat][: self.at] for line in lines]

    def show(self) -> None:
        p, k = self.p, self.at
        log = self._log()
        self.board.show(p, k, self.seat, log, self.ascii)
        self.query_one("#log", MoveLog).show(log, self.ascii)
        where = f"move {k} of {len(p)}"
        ending = self.board.ending(p) or forfeit_words(p)
        if k == len(p) and ending:
            where += f" · {ending}"
        if not p.full:
            shown = "never audited: the cards never shown stay hidden"
        elif self.seat is None:
            shown = "every card face up · s: as each player saw it"
        else:
            shown = f"as {p.names[self.seat]} saw it · s: the next player"
        self.query_one("#where", Static).update(plain(f"{where}\n{shown}"))  # names

    def action_step(self, by: int) -> None:
        self.at = max(0, min(len(self.p), self.at + by))
        self.show()

    def action_go(self, k: int) -> None:
        self.at = len(self.p) if k < 0 else k
        self.show()

    def action_seat(self) -> None:
        """Every card, then each seat's view in turn (an audited game only)."""
        if not self.p.full:
            self.notify("This game was never audited: only what every player saw is known.")
            return
        order: list[int | None] = [None, *range(len(self.p.names))]
        self.seat = order[(order.index(self.seat) + 1) % len(order)]
        self.show()

    def action_jump(self) -> None:
        box = self.query_one("#move-input", Input)
        box.value, box.display, box.disabled = "", True, False
        box.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.input.display, event.input.disabled = False, True
        if event.value.strip().isdigit():
            self.action_go(min(int(event.value), len(self.p)))

    def action_close(self) -> None:
        box = self.query_one("#move-input", Input)
        if box.display:  # Esc leaves the move number, not the replay
            box.display, box.disabled = False, True
            return
        if self.quits:
            self.app.exit()
        else:
            self.dismiss()


class ReplayApp(App[None]):
    CSS_PATH = "cuttle.tcss"
    TITLE = "cuttle replay"

    def __init__(self, p: Positions, ascii: bool = False) -> None:
        super().__init__()
        share_parsed_css(self)
        self._positions, self._ascii = p, ascii

    def on_mount(self) -> None:
        self.push_screen(ReplayScreen(self._positions, self._ascii, quits=True))
