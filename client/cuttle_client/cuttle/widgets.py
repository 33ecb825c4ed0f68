"""The table's widgets.  Each draws from a player's view when ``show`` is called; none keeps
game state (the hand remembers only where it drew each card, to map clicks back)."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.dom import DOMNode
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from cuttle_net.games.cuttle.cards import RANK_OF
from cuttle_net.games.cuttle.engine import CHANCE, Game
from cuttle_net.games.cuttle.moves import parse_move
from cuttle_net.records.positions import Positions

from ..cardtext import back
from ..peertext import plain
from ..tablewidgets import sentence
from . import cardtext
from .controller import LogEntry, ending_text, log_entry


def stack(view: Game, c: int, ascii: bool, touched: Collection[int] = ()) -> Text:
    """A point card and its jacks, bottom to top, as the notation writes them: ``4♣/J♦``."""
    return cardtext.cards([c, *view.jacks.get(c, ())], ascii, "/", touched)


def permanents(view: Game, seat: int, ascii: bool, touched: Collection[int] = ()) -> Text:
    parts = []
    for c in view.perms[seat]:
        label = cardtext.card(c, ascii, c in touched)
        if RANK_OF[c] == 8:
            label.append(" glasses", style="italic")
        parts.append(label)
    return Text("  ").join(parts) if parts else Text("none", style="dim")


class Side(Static):
    """One player's side of the table: points with jack stacks, permanents, score to goal.

    The opponent's side also shows their hand: backs, the cards of it you know, or all of
    it face up while you wear glasses.
    """

    def show(
        self,
        view: Game,
        seat: int,
        me: int,
        names: Sequence[str],
        ascii: bool,
        touched: Collection[int] = (),
    ) -> None:
        kings = view.kings(seat)
        self.border_title = plain(names[seat])  # a peer's name: never markup
        self.border_subtitle = f"{view.score(seat)}/{view.goal(seat)} points" + (
            f" · {kings} king{'s' * (kings > 1)}" if kings else ""
        )
        lines = []
        if seat != me:
            hand = Text("Hand   ")
            hand.append_text(cardtext.cards(view.hands[seat], ascii, touched=touched))
            if view.hands[seat] and view.hidden[seat]:
                hand.append(" ")
            hand.append_text(Text(" ").join([back(ascii)] * view.hidden[seat]))
            hand.append(f"  ({view.hand_size(seat)})", style="dim")
            if view.has_glasses(me) and view.hand_size(seat):
                hand.append("  open: your glasses", style="italic")
            elif view.hands[seat]:
                hand.append("  known to you", style="italic")  # a 9 returned them, or the end
            lines.append(hand)
        points = Text("Points ")
        if view.points[seat]:
            points.append_text(
                Text("  ").join(stack(view, c, ascii, touched) for c in view.points[seat])
            )
        else:
            points.append("none", style="dim")
        lines.append(points)
        lines.append(Text("Perms  ").append_text(permanents(view, seat, ascii, touched)))
        self.update(Text("\n").join(lines))


class Middle(Static):
    """Draw pile, scrap, turn, and a one-off or 7 that is waiting: one line that never wraps
    (the less useful parts give way when the table is narrow)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._lines: list[Text] = []  # the line at each level of detail, fullest first

    def show(self, view: Game, ascii: bool, touched: Collection[int] = ()) -> None:
        def card(c: int) -> Text:
            return cardtext.card(c, ascii, c in touched)

        draw = Text(f"Draw {len(view.deck)}")
        top = Text(" top ").append_text(card(view.deck[-1])) if view.deck_known else Text()
        scrap = Text("Scrap ")
        if view.scrap:
            scrap.append_text(card(view.scrap[-1]))
        else:
            scrap.append("empty", style="dim")
        count = Text(f" ({len(view.scrap)})", style="dim") if view.scrap else Text()
        extra = []
        if view.chain:
            extra.append(Text("Waiting ").append_text(cardtext.cards(view.chain, ascii, "←")))
        if view.revealed:
            extra.append(Text("Revealed ").append_text(cardtext.cards(view.revealed, ascii)))
        turn = Text(f"Turn {view.turn}")
        sep = Text(" │ ")
        # From the fullest line to the barest: ``_fit`` shows the first that fits.
        self._lines = [
            sep.join(parts)
            for parts in (
                [draw + top, scrap + count, *extra, turn],
                [draw + top, scrap + count, *extra],
                [draw + top, scrap, *extra],
                [draw, scrap, *extra],
            )
        ]
        self._fit()

    def on_resize(self) -> None:
        if self._lines:
            self._fit()

    def _fit(self) -> None:
        width = self.content_size.width or 50
        # The last resort is cut with an ellipsis by the stylesheet.
        self.update(next((t for t in self._lines if t.cell_len <= width), self._lines[-1]))


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

    def show(
        self, view: Game, seat: int, ascii: bool, highlight: int | None, new: Collection[int] = ()
    ) -> None:
        """Draw the cards, wrapping lines here so that clicks map back to cards; ``+`` marks
        the cards ``new`` to the hand (the last move brought them)."""
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
            if c in new:
                label.append("+")
            if c == highlight:
                label.stylize("reverse", len(label) - len(label.plain.split(":")[-1]))
            if lines[-1].cell_len + label.cell_len > width:
                lines.append(Text("     "))
            line = lines[-1]
            self._spans.append((len(lines) - 1, line.cell_len, line.cell_len + label.cell_len, c))
            line.append_text(label).append(" ")
        if view.hidden[seat]:  # a replay of a game never audited: cards never shown
            lines[-1].append_text(Text(" ").join([back(ascii)] * view.hidden[seat]))
        elif not view.hands[seat]:
            lines[0].append("empty", style="dim")
        self.update(Text("\n").join(lines))

    def on_click(self, event: events.Click) -> None:
        x, y = event.x - self.gutter.left, event.y - self.gutter.top
        for line, start, end, c in self._spans:
            if line == y and start <= x < end:
                self.post_message(self.Picked(c))


class LastMove(Static):
    """The last move in words, above the question: what just happened at a glance."""

    def show(self, log: Sequence[LogEntry], ascii: bool) -> None:
        if not log:
            self.update(Text("No move yet", style="dim"))
            return
        # One line: the stylesheet cuts it with an ellipsis if the table is very narrow.
        self.update(
            Text("Last: ", style="dim").append_text(plain(sentence(log[-1].words, ascii), "italic"))
        )


def board() -> Iterator[Widget]:
    """The two sides, the middle, your hand and the last move: the table and the replay show
    the same."""
    yield Side(id="them", classes="side")
    yield Middle(id="middle")
    yield Side(id="me", classes="side")
    yield Hand(id="hand")
    yield LastMove(id="last")


def show_board(
    screen: DOMNode,
    view: Game,
    me: int,
    names: Sequence[str],
    ascii: bool,
    touched: Collection[int] = (),
) -> None:
    """Draw ``view`` on the ``board()`` under ``screen`` (or any widget), from seat ``me``
    (the hand aside), the ``touched`` cards (the last move's) in reverse video."""
    screen.query_one("#them", Side).show(view, 1 - me, me, names, ascii, touched)
    screen.query_one("#middle", Middle).show(view, ascii, touched)
    screen.query_one("#me", Side).show(view, me, me, names, ascii, touched)


class ReplayBoard(Vertical):
    """The Cuttle table of a replay (``games.ReplayBoard``): the table's own ``board()``."""

    log_beside = True  # the moves beside the board, as at the table

    def compose(self) -> ComposeResult:
        yield from board()

    def log(self, p: Positions, seat: int | None) -> list[list[LogEntry]]:
        """Each move in words, as ``seat`` saw it (None: every card known)."""
        lines = []
        for k, (by, text) in enumerate(p.moves):
            before, after = p.view(k, seat), p.view(k + 1, seat)
            who = CHANCE if by is None else by
            lines.append([log_entry(who, parse_move(text), before, after, p.names, seat)])
        return lines

    def show(
        self, p: Positions, k: int, seat: int | None, log: Sequence[LogEntry], ascii: bool
    ) -> None:
        view, me = p.view(k, seat), 0 if seat is None else seat
        touched = log[-1].touched if log else frozenset()
        # A seat's view is that seat's table: its side is "You", as its moves say.
        names = [("You" if s == seat else n) for s, n in enumerate(p.names)]
        show_board(self, view, me, names, ascii, touched)
        self.query_one("#hand", Hand).show(view, me, ascii, None)
        self.query_one("#last", LastMove).show(log, ascii)

    def ending(self, p: Positions) -> str:
        final = p.states[-1]
        if final.outcome is None:
            return ""  # not by the rules: the replay says how (a forfeit)
        return ending_text(final.outcome, final, None, p.names)  # type: ignore[arg-type]
