"""``cuttle replay``: step through a verified game record.

Only a record that verifies is shown.  An audited game's audit revealed the deal, so both
hands are known at every step; a game never audited is shown as far as it is known, the
cards never shown face down.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Input, Static

from cuttle_net.games.cuttle.engine import CHANCE, Game
from cuttle_net.games.cuttle.moves import parse_move
from cuttle_net.records.record import parse_record
from cuttle_net.records.verify import Verdict, verify_text

from .controller import LogEntry, ending_text, log_entry
from .peertext import plain
from .widgets import Hand, LastMove, MoveLog, board, show_board


class Replay:
    """A game's positions, move by move: ``states[k]`` is the table after ``k`` moves.

    An audited game is shown with every card face up; one that was never audited (a
    concession, a fault) as a third party sees it: the cards never shown stay hidden.
    """

    def __init__(self, text: str) -> None:
        report = verify_text(text)
        audited = report.verdict == Verdict.VALID and report.order is not None
        if not audited and report.verdict != Verdict.UNAUDITED:
            why = {
                Verdict.UNREADABLE: f"not a game record: {report.problem}",
            }.get(report.verdict, f"the record does not verify: {report.problem}")
            raise ValueError(why)
        assert report.rules is not None and report.module is not None
        if report.module.name != "cuttle":
            raise ValueError(f"this replay shows Cuttle games, not {report.module.name}")
        record = parse_record(text)
        self.names = (record.tags["Seat0"], record.tags["Seat1"])
        self.title = f"{self.names[0]} vs {self.names[1]} · {report.rules} · {record.tags['Date']}"
        self.face_up = audited
        if audited:
            game = Game.deal(report.rules, order=report.order)
            self.states = [game.copy()]
        else:
            self.states = report.public[:1] or [Game.spectator_view(report.rules)]
        self.log: list[LogEntry] = []
        for k, (seat, text_move, _) in enumerate(record.moves):
            move = parse_move(text_move)
            before = self.states[-1]
            if audited:
                game.play(move, by=seat)
                self.states.append(game.copy())
            else:  # the public table after the move (a concession during the deal: none)
                self.states.append(report.public[k + 1] if k + 1 < len(report.public) else before)
            by = CHANCE if seat is None else seat
            self.log.append(log_entry(by, move, before, self.states[-1], self.names, None))
        self.outcome = self.states[-1].outcome
        if not audited and self.outcome is None and record.tags["Result"] != "*":
            self.outcome = record.tags["Ending"]  # a forfeit: the record says how it ended


class ReplayScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        # Priority: the scrolling move log would take the arrow keys otherwise.
        Binding("right,n,space", "step(1)", "Next", priority=True),
        Binding("left,p", "step(-1)", "Back", priority=True),
        Binding("home", "go(0)", "First", priority=True),
        Binding("end", "go(-1)", "Last", priority=True),
        Binding("g", "jump", "Go to move"),
        Binding("q,escape", "app.quit", "Quit"),
    ]

    def __init__(self, replay: Replay, ascii: bool) -> None:
        super().__init__()
        self.replay, self.ascii, self.at = replay, ascii, 0

    def compose(self) -> ComposeResult:
        yield Static(plain(f"cuttle · replay · {self.replay.title}"), id="title")
        with Horizontal(id="body"):
            with Vertical(id="board"):
                yield from board()
                yield Static(id="where")  # may take two lines, unlike the table's question
                # Under the board, one line: beside it, it took the board's width.  Disabled
                # while hidden, so it never takes the keys meant for the bindings.
                yield Input(
                    placeholder="go to move number (Enter)",
                    id="move-input",
                    disabled=True,
                    compact=True,
                )
            yield MoveLog(id="log")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#move-input").display = False
        self.query_one("#log").border_title = "Moves"
        self.show()

    def show(self) -> None:
        r, k = self.replay, self.at
        view, names = r.states[k], r.names
        log = r.log[:k]
        show_board(self, view, 0, names, self.ascii, log[-1].touched if log else ())
        self.query_one("#hand", Hand).show(view, 0, self.ascii, None)
        self.query_one("#log", MoveLog).show(log, self.ascii)
        self.query_one("#last", LastMove).show(log, self.ascii)
        where = f"move {k} of {len(r.log)}"
        if k == len(r.log) and isinstance(r.outcome, str):  # a forfeit, in the record's words
            where += f" · {r.outcome}"
        elif k == len(r.log) and r.outcome is not None:
            where += f" · {ending_text(r.outcome, view, None, names)}"
        if r.face_up:
            shown = f"{names[0]}'s hand below, every card face up"
        else:
            shown = (
                f"never audited: cards never shown stay hidden ({names[0]}: "
                f"{view.hidden[0]}, {names[1]}: {view.hidden[1]})"
            )
        self.query_one("#where", Static).update(plain(f"{where}\n{shown}"))  # names, the ending

    def action_step(self, by: int) -> None:
        self.at = max(0, min(len(self.replay.log), self.at + by))
        self.show()

    def action_go(self, k: int) -> None:
        self.at = len(self.replay.log) if k < 0 else k
        self.show()

    def action_jump(self) -> None:
        box = self.query_one("#move-input", Input)
        box.value, box.display, box.disabled = "", True, False
        box.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.input.display, event.input.disabled = False, True
        if event.value.strip().isdigit():
            self.action_go(min(int(event.value), len(self.replay.log)))


class ReplayApp(App[None]):
    CSS_PATH = "cuttle.tcss"
    TITLE = "cuttle replay"

    def __init__(self, replay: Replay, ascii: bool = False) -> None:
        super().__init__()
        self._replay, self._ascii = replay, ascii

    def on_mount(self) -> None:
        self.push_screen(ReplayScreen(self._replay, self._ascii))
