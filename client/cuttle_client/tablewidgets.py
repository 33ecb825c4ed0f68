"""The widgets every game's table uses: the move log (with a lesson's coaching), the
too-small notice, the choices under the hand (each game's own: its ``widgets``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from .cardtext import ascii_text
from .peertext import plain


class LogLine(Protocol):
    """One line of a move log: a move in words, and the cards it moved."""

    @property
    def words(self) -> str: ...

    @property
    def touched(self) -> frozenset[int]: ...


class NewestInSight(VerticalScroll):
    """A panel of lines kept scrolled to its end, where the newest line is."""

    def watch_virtual_size(self) -> None:
        # The end again each time the text is measured anew. Scrolling when the text is
        # set is too early: the scrollbar it brings narrows the text, the lines that wrap
        # anew fall below (a Resize is not sent for that), and on a loaded machine the
        # text's layout can come after the refresh one waited for.
        self.scroll_end(animate=False)


class MoveLog(NewestInSight):
    """The moves so far, one a line in words, newest at the bottom (in bold)."""

    def compose(self) -> ComposeResult:
        yield Static(id="log-text")

    def show(
        self, log: Sequence[LogLine], ascii: bool, coach: Sequence[tuple[str, str]] = ()
    ) -> None:
        """The moves; in a lesson, the ``coach``'s lines after them (the newest last, so
        the panel, scrolled to its end, shows them)."""
        t = Text()
        for i, entry in enumerate(log):
            if i:
                t.append("\n")
            words = sentence(entry.words, ascii)
            last = i == len(log) - 1 and not coach
            t.append_text(plain(words, style="bold" if last else "dim" if coach else ""))
        if coach:
            t.append("\n\n" if log else "").append_text(coach_text(coach, ascii))
        self.query_one("#log-text", Static).update(t)
        self.scroll_end(animate=False)


GOAL, RULE, DONE = "goal", "rule", "done"  # the kinds of a lesson coach's lines
_COACH_STYLES = {GOAL: ("", "bold"), RULE: ("Rule: ", "yellow"), DONE: ("✓ ", "green")}


def coach_text(coach: Sequence[tuple[str, str]], ascii: bool) -> Text:
    """A lesson's lines: goals bold, the rule after a miss yellow, why a move worked green."""
    t = Text()
    for i, (kind, words) in enumerate(coach):
        mark, style = _COACH_STYLES[kind]
        if ascii:
            mark, words = mark.replace("✓", "+"), ascii_text(words)
        t.append("\n" if i else "").append(mark + words, style=style)
    return t


def sentence(words: str, ascii: bool) -> str:
    """A log entry as a sentence: "You draw 7♥" (a player's name is left as they wrote it)."""
    words = ascii_text(words) if ascii else words
    if words.startswith(("you ", "chance ")):
        return words[:1].upper() + words[1:]
    return words


class TooSmall(Static):
    """Shown instead of a screen's content when the terminal is below 60×20 (the stylesheet
    switches on the screen's size classes, see ``CuttleApp``)."""

    def __init__(self) -> None:
        super().__init__(
            "The terminal is too small for cuttle.\n"
            "It needs at least 60 columns and 20 lines (80×24 is best): please enlarge it.\n"
            "ctrl+q quits.",
            classes="too-small",
        )


def chosen_index(event: OptionList.OptionSelected) -> int | None:
    """The index of the option chosen, or None if the choices were replaced since the key
    was pressed: a second Enter queued behind the first must not choose from the list the
    first one's move brought (a move not meant, or a list emptied while others play)."""
    actions, index = event.option_list, event.option_index
    if index < actions.option_count and actions.get_option_at_index(index) is event.option:
        return index
    return None


def set_choices(
    actions: OptionList, options: Sequence[tuple[Text, bool]], question: object
) -> int | None:
    """Show ``options`` (label, enabled) in ``actions`` and return the one highlighted: the
    same as before when the options and the ``question`` they answer are (a redraw each
    second while a move clock runs must not send the highlight back to the top under the
    player's keys), else the first enabled one."""
    shown = (question, [(label.plain, enabled) for label, enabled in options])
    if shown == getattr(actions, "_shown_choices", None) and actions.highlighted is not None:
        return actions.highlighted
    actions._shown_choices = shown  # type: ignore[attr-defined]
    actions.set_options(Option(label, disabled=not enabled) for label, enabled in options)
    first = next((i for i, (_, enabled) in enumerate(options) if enabled), None)
    actions.highlighted = first
    return first
