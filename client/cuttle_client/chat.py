"""A word to the table (SPEC 3.15): the chat lines a seat has heard, and the panel that
shows the last few beside the moves.

Every line is a peer's text: it is shown with ``plain`` (never markup, every control
character visible), the author's name too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from cuttle_protocol.table import MAX_CHAT_LEN, Chat, Muted
from cuttle_protocol.table.core import CHAT_BURST, CHAT_EVERY
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Input, Static

from .peertext import plain, visible
from .tablewidgets import NewestInSight

TALK = "w"
"""The key that opens a line to the table (a word), free in both games' table screens."""
CANNED = {"g": "good game", "h": "one moment", "y": "your turn"}
"""The lines on a key, for speed (h: hold on)."""
SHOWN = 3
"""The rows the panel shows (the newest): it fits under the moves at 80x24."""
KEPT = 50
"""The lines kept (older ones go)."""
HINT = f"Chat · {TALK} talk · {' '.join(CANNED)}"
TOO_FAST = f"not sent: at most {CHAT_BURST} lines at once, then one every {CHAT_EVERY:g} s"
"""Our line was not sent: we talked faster than the table's rate (SPEC 3.15)."""
SEATS_ONLY = "chat is for the seats only at this table"
"""A watcher's chat panel where the host takes no watcher's line."""


class TableChat:
    """The table's chat as this seat heard it, oldest first: (who, line); who is "" for
    a note of our own (a line that was not sent)."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, str]] = []

    def heard(self, event: Chat | Muted, name: Callable[[int], str]) -> None:
        if isinstance(event, Chat):
            self.said(event.who(name), event.text)
        else:
            self.muted(name(event.seat))

    def said(self, who: str, text: str) -> None:
        self._add(who, text)

    def muted(self, who: str) -> None:
        self._add("", f"the host muted {who} for flooding the chat")

    def note(self, text: str) -> None:
        self._add("", text)

    def _add(self, who: str, text: str) -> None:
        self.lines.append((who, text))
        del self.lines[:-KEPT]


class Talker:
    """A table controller's side of the chat: ``can_chat`` where there is a table to talk
    to (a networked one sets it, and implements ``say``), and the lines heard."""

    can_chat: bool = False
    _chat: TableChat | None = None

    @property
    def chat(self) -> TableChat:
        if self._chat is None:
            self._chat = TableChat()
        return self._chat

    def say(self, text: str) -> None:
        """A word to the table (only where ``can_chat``)."""
        raise NotImplementedError


class ChatPanel(NewestInSight):
    """The chat, each line as "who: line", wrapped, newest at the bottom: SHOWN rows show."""

    _content: Text | None = None

    def compose(self) -> ComposeResult:
        yield Static(self._content or "", id="chat-text")

    def on_mount(self) -> None:
        self.border_title = HINT
        self._update()

    def show(self, lines: list[tuple[str, str]], hint: str = "") -> None:
        """The lines; none yet: ``hint`` (else the keys that talk)."""
        t = Text()
        for i, (who, line) in enumerate(lines):
            if i:
                t.append("\n")
            if who:
                t.append_text(plain(who, style="bold")).append(": ")
                t.append_text(plain(line))
            else:
                t.append_text(plain(line, style="italic dim"))
        keys = " · ".join(f"{k}: {line}" for k, line in CANNED.items())
        empty = Text(hint or f"{TALK}: a word to the table · {keys}", style="dim")
        self._content = t if lines else empty
        self._update()

    def _update(self) -> None:
        # A panel just mounted may not have its text widget yet (a move drawn the moment the
        # chat opened failed on it): the text then waits for on_mount.
        for text in self.query("#chat-text").results(Static):
            text.update(self._content or "")
        self.scroll_end(animate=False)  # (after the next refresh; a new size: watched too)


class ChatBox(Vertical):
    """The panel, and the line being typed under it (``talk`` opens it: Enter sends it
    with ``say``, Esc puts it away; ``closed`` is called either way)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", show=False)]

    def __init__(
        self, say: Callable[[str], None], closed: Callable[[], None], **kwargs: str
    ) -> None:
        super().__init__(**kwargs)
        self._speak, self._put_away = say, closed
        self._lines: list[tuple[str, str]] = []
        self._seen: tuple[str, str] | None = None  # the newest line shown or told

    def compose(self) -> ComposeResult:
        yield ChatPanel(id="chat")
        yield Input(
            placeholder="a word to the table (Enter: send, Esc: cancel)",
            max_length=MAX_CHAT_LEN,
            id="chat-input",
        )

    @property
    def typing(self) -> bool:
        return any(field.display for field in self.query(Input))  # (none before composed)

    def show(self, lines: list[tuple[str, str]]) -> None:
        self._lines = lines
        for panel in self.query(ChatPanel):  # (none until composed: on_mount shows them)
            panel.show(lines)
            if not all(w.display for w in panel.ancestors_with_self):
                # Out of sight (Cuttle's panel under 80 columns): a line heard shows as a
                # notice instead of never (in tmux at 60 columns nobody saw one); the last
                # few only (a resumed table hears its history again).
                for who, line in self._unseen(lines)[-SHOWN:]:
                    if who:
                        self.app.notify(visible(f"{who}: {line}"), title="Chat", markup=False)
            self._seen = lines[-1] if lines else None

    def _unseen(self, lines: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """The lines after the last one shown (by identity: lines may repeat, and the
        oldest go past ``KEPT``)."""
        for i in range(len(lines) - 1, -1, -1):
            if lines[i] is self._seen:
                return lines[i + 1 :]
        return lines

    def on_mount(self) -> None:
        self.call_after_refresh(self.show, self._lines)

    def talk(self) -> None:
        field = self.query_one(Input)
        field.display = True
        self.screen.add_class("-talking")  # its line shows even where the panel does not
        field.focus()

    def canned(self, key: str) -> None:
        self._speak(CANNED[key])

    def action_close(self) -> None:
        field = self.query_one(Input)
        field.value = ""
        field.display = False
        self.screen.remove_class("-talking")
        self._put_away()

    @on(Input.Submitted, "#chat-input")
    def _send(self, event: Input.Submitted) -> None:
        event.stop()
        if event.value.strip():
            self._speak(event.value)
        self.action_close()


def show_chat(
    where: Widget,
    lines: list[tuple[str, str]],
    can_chat: bool,
    say: Callable[[str], None],
    closed: Callable[[], None],
) -> None:
    """Show the chat at the end of `where` (a table screen's column), mounting the box the
    first time the table can chat: a table without chat is laid out as it was without."""
    if not can_chat:
        return
    boxes = where.query(ChatBox)
    if boxes:
        boxes.first().show(lines)
        return
    box = ChatBox(say, closed, id="chat-box")
    box.show(lines)
    where.mount(box)


def typing(where: Widget) -> bool:
    """Is a chat line being typed in `where`?"""
    return any(box.typing for box in where.query(ChatBox))


class ChatActions:
    """A table screen's chat actions (``chat_bindings``' keys), for the box it shows."""

    def action_talk(self) -> None:
        for box in self.query(ChatBox):  # type: ignore[attr-defined]
            box.talk()

    def action_canned(self, key: str) -> None:
        for box in self.query(ChatBox):  # type: ignore[attr-defined]
            box.canned(key)


def chat_bindings() -> list[BindingType]:
    """A table screen's keys for the chat (its actions: ``talk`` and ``canned``)."""
    return [
        Binding(TALK, "talk", "Chat", show=False),
        *(Binding(k, f"canned('{k}')", show=False) for k in CANNED),
    ]
