"""Overlays: a yes/no question, the player's name, the scrap pile, and the game's end
(the help is in ``help``).

Every overlay has a footer of its own: it covers the screen's below, whose keys do
nothing while the overlay is up (issue 26), and lists the overlay's."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Footer, Input, Static

from .chat import CANNED
from .peertext import plain


def relabel(screen: Screen[Any], key: str, action: str, words: str) -> None:
    """Say ``key`` in the footer of this one ``screen`` as ``words`` (Textual's bindings are
    the class's: the screen's own copy of the map takes the new binding; the lists in it
    are not shared, so the class's stay as they were)."""
    screen._bindings.key_to_bindings[key] = [Binding(key, action, words)]


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question: y says yes; n, Esc, or Enter (on No, focused first) says no."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(plain(self.question))  # it may name a peer
            with Horizontal(classes="buttons"):
                yield Button("Yes (y)", id="yes", variant="error", compact=True)
                yield Button("No (n)", id="no", compact=True)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class NameScreen(ModalScreen[str]):
    """The player's name, asked on the first run (prefilled with the login name)."""

    def __init__(self, suggested: str, problem: str = "") -> None:
        super().__init__()
        self.suggested, self.problem = suggested, problem

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="name-dialog"):
            yield Static("[b]Welcome to cuttle![/b] What name should other players see?")
            yield Input(self.suggested, id="name-input")
            yield Static(self.problem, id="name-problem")
            yield Static("Enter to keep it · change it later in the lobby (n)", classes="hint")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#name-input", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        from .profile import name_problem

        problem = name_problem(event.value)
        if problem:
            self.query_one("#name-problem", Static).update(problem)
            return
        self.dismiss(event.value)


class ScrapScreen(ModalScreen[None]):
    """The scrap pile, top first."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,s,q", "dismiss", "Close")]

    def __init__(self, cards: Text, count: int) -> None:
        super().__init__()
        self.cards, self.count = cards, count

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="scrap"):
            cards = f"{self.count} card{'s' * (self.count != 1)}"
            yield Static(f"[b]Scrap pile[/b] ({cards}, top first)")
            yield Static(self.cards)
            yield Static("Esc to close", classes="hint")
        yield Footer()


class GameOverScreen(ModalScreen[str]):
    """The result, the match score and what is known of the opponent's hand; answers
    "rematch" or "lobby".  ``show`` updates it while it is up (a rematch asked for, the
    connection gone).

    No button takes the focus by itself: an Enter meant for the table (a move confirmed as
    the game ended) or pressed twice must not start the next game over the result. The
    choice is r or l, or a button reached with Tab."""

    AUTO_FOCUS = ""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "choose('rematch')", "Rematch"),
        Binding("l", "choose('lobby')", "Lobby"),
        # The final table lies under the panel: Esc or t moves the panel aside and back
        # (Esc went straight to the lobby, the final table and hands unseen).
        Binding("t,escape", "peek", "Panel / table"),
        # "good game" is said at the end: the canned lines reach the table under the panel.
        *(Binding(k, f"canned('{k}')", show=False) for k in CANNED),
    ]

    def __init__(
        self, heading: str = "Game over", again: str = "Rematch", back: str = "Lobby"
    ) -> None:
        super().__init__()
        self.rematch = False
        self._text: Text = Text()
        self._words = (heading, again, back)  # a lesson's: the next lesson, the lesson list
        # The footer says r and l as the buttons do.
        relabel(self, "r", "choose('rematch')", again)
        relabel(self, "l", "choose('lobby')", back)

    def compose(self) -> ComposeResult:
        heading, again, back = self._words
        with Vertical(classes="dialog", id="game-over"):
            yield Static(Text(heading, style="bold"))
            yield Static(self._text, id="result")
            with Horizontal(classes="buttons"):
                yield Button(f"{again} (r)", id="rematch", variant="primary", compact=True)
                yield Button(f"{back} (l)", id="lobby", compact=True)
                yield Button("Table (t)", id="peek", compact=True)
        # With the panel aside, this line says which keys work, in place of the footer.
        yield Static(id="peek-bar")
        yield Footer()

    def on_mount(self) -> None:
        self.show(self._text, self.rematch)

    def show(self, text: Text, rematch: bool) -> None:
        self._text, self.rematch = text, rematch
        if not self.query("#rematch"):  # not composed yet (or being taken down): on_mount
            return  # shows it
        self.query_one("#result", Static).update(text)
        button = self.query_one("#rematch", Button)
        button.display = rematch
        if self.focused is button and not rematch:  # (Tab had reached it) the offer is gone
            self.set_focus(None)
        self._show_bar()
        self.refresh_bindings()

    def _repaint_below(self) -> None:
        # The table under the panel took its last moves as the panel came up, and Textual
        # did not always paint them there (the final table, the panel aside, showed the
        # move log scrolled a few moves short): paint it again as the panel moves aside.
        for below in self.app.screen_stack[:-1]:
            below.refresh(repaint=True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "peek":
            self.action_peek()
        else:
            self.action_choose(event.button.id or "lobby")

    def action_canned(self, key: str) -> None:
        for screen in reversed(self.app.screen_stack[:-1]):  # the table screen below
            canned = getattr(screen, "action_canned", None)
            if canned is not None:
                canned(key)
                return

    def action_peek(self) -> None:
        panel = self.query_one("#game-over")
        panel.display = not panel.display
        self.query_one("#peek-bar", Static).display = not panel.display
        self.query_one(Footer).display = panel.display
        self._show_bar()
        self._repaint_below()

    def _show_bar(self) -> None:
        _, again, back = self._words
        keys = ["Esc: result", *[f"r: {again.lower()}"] * self.rematch, f"l: {back.lower()}"]
        self.query_one("#peek-bar", Static).update(plain(" Final table · " + " · ".join(keys)))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # r is in the footer only while its button is offered.
        return self.rematch if (action, parameters) == ("choose", ("rematch",)) else True

    def action_choose(self, answer: str) -> None:
        if answer == "rematch" and not self.rematch:
            return
        self.dismiss(answer)
