"""The table's widgets.  Each draws from a player's view when ``show`` is called; none keeps
game state (the hand remembers only where it drew each card, to map clicks back)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from cuttle_net.cards import RANK_OF
from cuttle_net.engine import Game

from . import cardtext
from .controller import LogEntry


def stack(view: Game, c: int, ascii: bool) -> Text:
    """A point card and its jacks, bottom to top, as the notation writes them: ``4♣/J♦``."""
    return Text("/").join(
        [cardtext.card(c, ascii), *(cardtext.card(j, ascii) for j in view.jacks.get(c, ()))]
    )


def permanents(view: Game, seat: int, ascii: bool) -> Text:
    parts = []
    for c in view.perms[seat]:
        label = cardtext.card(c, ascii)
        if RANK_OF[c] == 8:
            label.append(" glasses", style="italic")
        parts.append(label)
    return Text("  ").join(parts) if parts else Text("none", style="dim")


class Side(Static):
    """One player's side of the table: points with jack stacks, permanents, score to goal.

    The opponent's side also shows their hand: backs, the cards of it you know, or all of
    it face up while you wear glasses.
    """

    def show(self, view: Game, seat: int, me: int, names: Sequence[str], ascii: bool) -> None:
        kings = view.kings(seat)
        self.border_title = names[seat]
        self.border_subtitle = f"{view.score(seat)}/{view.goal(seat)} points" + (
            f" · {kings} king{'s' * (kings > 1)}" if kings else ""
        )
        lines = []
        if seat != me:
            hand = Text("Hand   ")
            hand.append_text(cardtext.cards(view.hands[seat], ascii))
            if view.hands[seat] and view.hidden[seat]:
                hand.append(" ")
            hand.append_text(Text(" ").join([cardtext.back(ascii)] * view.hidden[seat]))
            hand.append(f"  ({view.hand_size(seat)})", style="dim")
            if view.has_glasses(me) and view.hand_size(seat):
                hand.append("  open: your glasses", style="italic")
            elif view.hands[seat]:
                hand.append("  face up: known", style="italic")
            lines.append(hand)
        points = Text("Points ")
        if view.points[seat]:
            points.append_text(Text("  ").join(stack(view, c, ascii) for c in view.points[seat]))
        else:
            points.append("none", style="dim")
        lines.append(points)
        lines.append(Text("Perms  ").append_text(permanents(view, seat, ascii)))
        self.update(Text("\n").join(lines))


class Middle(Static):
    """Draw pile, scrap, turn, and a one-off or 7 that is waiting."""

    def show(self, view: Game, ascii: bool) -> None:
        t = Text(f"Draw {len(view.deck)}")
        if view.deck_known:
            t.append(" top ").append_text(cardtext.card(view.deck[-1], ascii)).append(" face up")
        t.append(" │ Scrap ")
        if view.scrap:
            t.append_text(cardtext.card(view.scrap[-1], ascii))
            t.append(f" ({len(view.scrap)}, s: browse)", style="dim")
        else:
            t.append("empty", style="dim")
        if view.chain:
            t.append(" │ Waiting ").append_text(cardtext.cards(view.chain, ascii, " ← "))
        if view.revealed:
            t.append(" │ Revealed ").append_text(cardtext.cards(view.revealed, ascii))
        t.append(f" │ Turn {view.turn}")
        self.update(t)


class Hand(Static):
    """Your hand, numbered for the keys 1–9; a ``*`` marks a card your opponent knows."""

    class Picked(Message):
        """A card of the hand was clicked."""

        def __init__(self, card: int) -> None:
            super().__init__()
            self.card = card

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._spans: list[tuple[int, int, int, int]] = []  # (line, start, end, card) for clicks

    def show(self, view: Game, seat: int, ascii: bool, highlight: int | None) -> None:
        """Draw the cards, wrapping lines here so that clicks map back to cards."""
        width = self.content_size.width or 50
        lines, self._spans = [Text("Hand ")], []
        for i, c in enumerate(view.hands[seat]):
            label = Text(f"{i + 1}:" if i < 9 else "")
            label.stylize("dim")
            label.append_text(cardtext.card(c, ascii))
            if c in view.known[seat]:
                label.append("*")
            if view.is_frozen(c):
                label.append("~")
            if c == highlight:
                label.stylize("reverse", len(label) - len(label.plain.split(":")[-1]))
            if lines[-1].cell_len + label.cell_len > width:
                lines.append(Text("     "))
            line = lines[-1]
            self._spans.append((len(lines) - 1, line.cell_len, line.cell_len + label.cell_len, c))
            line.append_text(label).append(" ")
        if not view.hands[seat]:
            lines[0].append("empty", style="dim")
        self.update(Text("\n").join(lines))

    def on_click(self, event: events.Click) -> None:
        x, y = event.x - self.gutter.left, event.y - self.gutter.top
        for line, start, end, c in self._spans:
            if line == y and start <= x < end:
                self.post_message(self.Picked(c))


class MoveLog(VerticalScroll):
    """The moves so far, in notation and in words, newest at the bottom."""

    def compose(self) -> ComposeResult:
        yield Static(id="log-text")

    def show(self, log: Sequence[LogEntry], names: Sequence[str], ascii: bool) -> None:
        t = Text()
        for i, entry in enumerate(log):
            if i:
                t.append("\n")
            who = names[entry.seat] if entry.seat in (0, 1) else "chance"
            t.append(f"{who}: ", style="bold").append(str(entry.move))
            words = cardtext.ascii_text(entry.words) if ascii else entry.words
            t.append(f"\n  {words}", style="dim")
        self.query_one("#log-text", Static).update(t)
        self.scroll_end(animate=False)


def board() -> Iterator[Widget]:
    """The two sides, the middle and your hand: the table and the replay show the same."""
    yield Side(id="them", classes="side")
    yield Middle(id="middle")
    yield Side(id="me", classes="side")
    yield Hand(id="hand")


def show_board(screen: Screen, view: Game, me: int, names: Sequence[str], ascii: bool) -> None:
    """Draw ``view`` on the ``board()`` of ``screen``, from seat ``me`` (the hand aside)."""
    screen.query_one("#them", Side).show(view, 1 - me, me, names, ascii)
    screen.query_one("#middle", Middle).show(view, ascii)
    screen.query_one("#me", Side).show(view, me, me, names, ascii)
