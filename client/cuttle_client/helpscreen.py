"""The help screen of every game (its rules, then its keys; each game's ``help`` gives the
rules) and the lobby's keys.  ``?`` opens it from the lobby (for the rules chosen there) and
from the table."""

from __future__ import annotations

import re
from typing import ClassVar

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from .cardtext import ascii_text

LOBBY_KEYS = """\
[b]Keys in the lobby[/b]
  g   the game: Cuttle or L'Unisson (for 3 to 6, with the players)
  p   practice against a bot        h   host a game
  o   the port to host on           j   join by address
  l   games found on your network   e   lessons, one idea each
  n   change your name              r   games played: replay, verify…
  ?   this help
  Hosting, while seats are free: b adds a bot to one (v: its level),
  x removes the last bot added.
  Tab moves between fields; Enter presses the focused button."""


# A line's label: its leading spaces, a word or a few (single spaces), then two spaces or more.
_LABEL = re.compile(r"( *)(\S(?:\S| (?! ))*)( {2,})(?=\S)")
_MAX_LABEL = 24  # a longer "label" is a line of text with a wide gap in it


def hang_indent(line: str) -> int:
    """Where ``line``'s wrapped part starts: under the text after its label ("  7   reveal…"
    goes on under "reveal"), else two columns in from the line's own indent."""
    label = _LABEL.match(line)
    if label and label.end() <= _MAX_LABEL:
        return label.end()
    return len(line) - len(line.lstrip(" ")) + 2


class HangingLines:
    """Rich text whose lines, wrapped at the width given, go on under their text
    (``hang_indent``) rather than at the left margin."""

    def __init__(self, text: Text) -> None:
        self.text = text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        for line in self.text.split("\n", allow_blank=True):
            indent = hang_indent(line.plain)
            if width - indent < 20:  # too narrow to hang: wrap at the margin
                indent = 0
            head, body = line[:indent], line[indent:]
            for n, part in enumerate(body.wrap(console, width - indent)):
                yield from ((head if n == 0 else Text(" " * indent)) + part).render(console)
                yield Segment.line()

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(1, options.max_width)


class HelpScreen(ModalScreen[None]):
    """A game's rules, then the keys; scrolls with the arrows.  Each game's help screen
    gives them (``text``)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,question_mark,q", "dismiss", "Close")]

    def __init__(self, ascii: bool, keys: str) -> None:
        super().__init__()
        self.ascii, self.keys = ascii, keys

    def text(self) -> str:
        """The game's rules (Rich markup), then the keys."""
        raise NotImplementedError

    def compose(self) -> ComposeResult:
        text = self.text()
        if self.ascii:
            text = ascii_text(text).replace("▒▒ / ", "")
        with Vertical(classes="dialog", id="help"):
            with VerticalScroll(id="help-text"):
                yield Static(HangingLines(Text.from_markup(text)))
            yield Static("↑ ↓ PgUp PgDn to scroll · Esc or ? to close", classes="hint")
        yield Footer()  # its own keys, over the footer of the screen below (modals.py)

    def on_mount(self) -> None:
        self.query_one("#help-text").focus()
