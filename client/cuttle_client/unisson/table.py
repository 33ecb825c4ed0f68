"""The L'Unisson table screen: draws one seat's view from a ``UnissonController`` and sends
it moves chosen by keys (or typed in notation).

The only state kept here is the UI's: the stack of option lists the player opened (a
group, a card's uses) and whether the game-over overlay is up.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Input, OptionList, Static

from cuttle_net.games.unisson import IllegalMove, MoveSyntaxError, parse_move
from cuttle_net.games.unisson.moves import Kind, Move

from .. import cardtext
from ..chat import ChatActions, chat_bindings, show_chat, typing
from ..footer import Footer
from ..modals import ConfirmScreen, GameOverScreen
from ..peertext import plain, visible
from ..tablewidgets import MoveLog, TooSmall, chosen_index, set_choices
from ..trio_guest import TrioGuest
from .choices import Choice, choices, for_card
from .controller import UnissonController
from .help import UnissonHelpScreen
from .widgets import HandLine, LastMove, Players, RangeLine, Status
from .words import card, effect_words

SCORE_COLUMNS = ("meld", "hand", "empty", "last", "range", "unis.", "total", "match")
SCORE_NAME = 9  # the name's column on the scores: 8 letters and a space


class UnissonTableScreen(ChatActions, Screen[None]):
    """A game of L'Unisson in progress, from the player's seat."""

    # Each is named with its key in the choices ("Meld… (m)"): the footer leaves them out,
    # the last first, when narrow (at 60 columns it was cut at "e Ex", Pass lost with it;
    # Pass stays: with six players the choices show five lines, Pass the sixth).
    FOOTER_SPARE = frozenset(f"key('{k}')" for k in "dtxme")

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Help"),
        Binding("d", "key('d')", "Draw"),
        Binding("t", "key('t')", "Take"),
        Binding("x", "key('x')", "Discard"),
        Binding("m", "key('m')", "Meld"),
        Binding("e", "key('e')", "Extend"),
        Binding("p", "key('p')", "Pass"),
        Binding("s", "key('s')", "Stop", show=False),
        Binding("colon", "type_move", "Type", show=False),
        Binding("l", "leave", "Leave", show=False),
        Binding("escape", "back", "Back", show=False),
        *chat_bindings(),
        *(Binding(str(n), f"card({n})", show=False) for n in range(1, 10)),
    ]

    def __init__(self, controller: UnissonController, ascii: bool, title: str) -> None:
        super().__init__()
        self.controller = controller
        self.ascii = ascii
        self.title_text = title
        self._stack: list[tuple[str, list[Choice]]] = []  # (title, options), top last
        self._decision: tuple[int, int, bool] | None = None
        self._over: GameOverScreen | None = None

    def compose(self) -> ComposeResult:
        yield Static(plain(self.title_text), id="title", classes="fits")
        yield TooSmall()
        with Vertical(id="u-body", classes="fits"):
            yield Players(id="u-players")
            yield RangeLine(id="u-range")
            yield Status(id="u-status")
            yield HandLine(id="u-hand")
            yield LastMove(id="last")
            yield Static(id="ask")
            yield Static(id="error")
            with Horizontal(id="u-bottom"):
                with Vertical(id="u-left"):
                    yield OptionList(id="actions")
                    yield Input(
                        placeholder="a move, e.g. meld 7H 8H 9H (Esc: cancel)", id="move-input"
                    )
                yield MoveLog(id="log")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#move-input").display = False
        self.query_one("#log").border_title = "Moves"
        self.set_class(bool(self.controller.coach), "lesson")  # its panel stays when narrow
        self.controller.attach(self)

    async def on_unmount(self) -> None:
        await self.controller.aclose()
        if self.controller.farewell:
            farewell = visible(self.controller.farewell)  # may name a seat: never markup
            self.app.notify(farewell, title="You left the table", timeout=10, markup=False)

    # -- TableHost

    def table_changed(self) -> None:
        # The screen may be being removed (its widgets first): a table left ends as it
        # closes, with nothing left to draw it on.
        with contextlib.suppress(NoMatches):
            self.redraw()

    def schedule(self, delay: float, callback: Callable[[], None]) -> object:
        return self.set_timer(delay, callback)

    @property
    def trio(self) -> TrioGuest:
        return self.app.trio  # type: ignore[attr-defined]

    # -- drawing

    def redraw(self) -> None:
        c = self.controller
        view, me = c.view, c.seat
        decision = (len(c.log), view.to_act, c.my_turn)
        if decision != self._decision:  # a new question: back to the top
            self._decision = decision
            self._stack = [("Choose", choices(view, me, self.ascii))] if c.my_turn else []
            self.query_one("#error", Static).display = False
        touched = c.log[-1].touched if c.log else frozenset()
        players = self.query_one("#u-players", Players)
        match = c.match if c.games else None
        players.show(view, c.names, me, self.ascii, touched, c.ending, c.away, match=match)
        self.query_one("#u-status", Status).show(view, c.names, me)
        self.query_one("#last", LastMove).show(c.log, self.ascii)
        log = self.query_one("#log", MoveLog)
        log.show(c.log, self.ascii, c.coach)
        log.border_title = "Lesson" if c.coach else "Moves"
        column = self.query_one("#u-left")
        show_chat(column, c.chat.lines, c.can_chat, c.say, self._fill_actions)
        self._title()
        self.query_one("#ask", Static).update(self._question())
        self._fill_actions()
        if c.ending is not None:
            if self._over is None:
                self._over = GameOverScreen(c.over_heading, c.again_label, c.back_label)
                self.app.push_screen(self._over, self._after_game)
            self._over.show(self._game_over_text(), c.can_rematch)

    def _title(self) -> None:
        c = self.controller
        parts = [self.title_text, *([c.banner] if c.banner else [])]
        if c.my_turn and c.trouble():  # otherwise the ask line says it
            parts.insert(0, c.trouble())
        if c.games:  # the table is known by now: its place goes to the match (whose
            # totals are on the players' lines)
            parts[-1] = f"L'Unisson · {c.label}"
            parts.append(f"game {len(c.games) + (c.ending is None)} of the match")
        parts += [c.watching] if c.watching else []
        self.query_one("#title", Static).update(plain(" · ".join(parts)))

    def _question(self) -> Text:
        c = self.controller
        v = c.view
        if c.ending is not None:
            return plain(c.ending.text, style="bold")
        if c.trouble() and not c.my_turn:  # what we wait for, and the connection lost
            return plain(c.waiting_for(), style="italic")
        if v.effects:
            words = effect_words(v, c.names, c.seat, c.cause())
            words = cardtext.ascii_text(words) if self.ascii else words
            return plain(words, style="bold" if c.my_turn else "italic")
        if c.my_turn:
            return Text(
                "Your turn: d draw, t take, x discard, m meld, e extend, p pass (1-9: a card)",
                style="bold",
            )
        return plain(c.waiting_for(), style="italic")

    def _fill_actions(self) -> None:
        actions = self.query_one("#actions", OptionList)
        level = self._stack[-1][1] if self._stack else []
        options = [(plain(self._shown(ch.label)), ch.enabled) for ch in level]
        shown = set_choices(actions, options, (self._decision, [t for t, _ in self._stack]))
        titles = [t for t, _ in self._stack]
        actions.border_title = plain(" › ".join(titles) if level else "Nothing to choose now")
        actions.border_subtitle = "Esc: back" if len(self._stack) > 1 else ""
        self._show_hand(level[shown] if shown is not None else None)
        busy_typing = self.query_one("#move-input").display or typing(self)
        if level and not busy_typing:
            actions.focus()

    def _shown(self, label: str) -> str:
        return cardtext.ascii_text(label) if self.ascii else label

    def _show_hand(self, choice: Choice | None) -> None:
        """Highlight the cards the option is about: in the range for a take, else in the
        hand (where ``+`` marks what the player's last move brought)."""
        c = self.controller
        last = c.log[-1] if c.log else None
        new = last.touched if last is not None and last.seat == c.seat else ()
        faces = choice.faces if choice is not None else ()
        take = choice is not None and choice.move is not None and choice.move.kind is Kind.TAKE
        in_range = faces if take else (last.touched if last is not None else ())
        self.query_one("#u-hand", HandLine).show(
            c.view, c.seat, self.ascii, () if take else faces, new
        )
        self.query_one("#u-range", RangeLine).show(c.view, self.ascii, in_range)

    # -- choosing

    @on(OptionList.OptionHighlighted, "#actions")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        level = self._stack[-1][1] if self._stack else []
        if 0 <= event.option_index < len(level):
            self._show_hand(level[event.option_index])

    @on(OptionList.OptionSelected, "#actions")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        level = self._stack[-1][1] if self._stack else []
        index = chosen_index(event)
        if index is not None and index < len(level):
            self._choose(level[index])

    def _choose(self, choice: Choice) -> None:
        if choice.move is not None:
            self._submit(choice.move)
        elif choice.children:
            title = choice.label.split(" (")[0].removesuffix("…")
            self._stack.append((title, list(choice.children)))
            self._fill_actions()
        else:
            self._error(choice.label)

    def action_key(self, key: str) -> None:
        """d t x m e p s: the option with that shortcut at the top level."""
        if not self.controller.my_turn:
            self._error(self.controller.waiting_for() or "nothing to choose now")
            return
        del self._stack[1:]
        for ch in self._stack[0][1] if self._stack else []:
            if ch.key == key:
                self._choose(ch)
                return
        if key == "x" and self._stack and self.controller.view.effects:
            self._fill_actions()  # the discards are the options already
            return
        self._fill_actions()
        self._error(f"'{key}' is not a choice now")

    def action_card(self, n: int) -> None:
        c = self.controller
        hand = c.view.hand(c.seat)
        if n > len(hand) or not c.my_turn:
            return
        f = hand[n - 1]
        options = for_card(c.view, c.seat, f, self.ascii)
        del self._stack[1:]
        if not options:
            self._fill_actions()
            self._error(f"{card(f, self.ascii)}: no move uses it now")
            return
        if c.view.effects:  # a forced discard: highlight it, Enter confirms
            self._fill_actions()
            level = self._stack[0][1]
            index = next(i for i, ch in enumerate(level) if ch.move == options[0].move)
            self.query_one("#actions", OptionList).highlighted = index
            return
        self._stack.append((card(f, self.ascii), options))
        self._fill_actions()

    def action_back(self) -> None:
        field = self.query_one("#move-input", Input)
        if field.display:
            field.display = False
            self._fill_actions()
        elif len(self._stack) > 1:
            self._stack.pop()
            self._fill_actions()

    # -- moves

    def _submit(self, move: Move) -> bool:
        try:
            self.controller.submit(move)
        except IllegalMove as e:
            self._error(f"{cardtext.move_shown(move, self.ascii)}: {self._to_you(str(e))}")
            return False
        return True

    def _to_you(self, why: str) -> str:
        """The engine names seats ("seat 0 holds no 7♥"); the player is "you"."""
        me = f"seat {self.controller.seat} "
        for verb, yours in (("holds", "hold"), ("has", "have"), ("must", "must"), ("may", "may")):
            why = why.replace(f"{me}{verb} ", f"you {yours} ")
        return why

    def _error(self, text: str) -> None:
        shown = cardtext.ascii_text(text) if self.ascii else text
        error = self.query_one("#error", Static)
        error.update(plain(f"{'x' if self.ascii else '✗'} {shown}", style="bold red"))
        error.display = True
        self.app.bell()

    def action_type_move(self) -> None:
        field = self.query_one("#move-input", Input)
        field.display = True
        field.focus()

    @on(Input.Submitted, "#move-input")
    def _typed(self, event: Input.Submitted) -> None:
        try:
            move = parse_move(event.value)
        except MoveSyntaxError as e:
            self._error(str(e))
            return
        if self._submit(move):
            event.input.value = ""
            event.input.display = False
            self._fill_actions()

    # -- overlays

    def action_help(self) -> None:
        c = self.controller
        self.app.push_screen(UnissonHelpScreen(c.players, c.decks, self.ascii))

    def action_leave(self) -> None:
        if self.controller.ending is not None:
            return
        self.app.push_screen(
            ConfirmScreen(self.controller.leave_question),
            lambda yes: self.dismiss() if yes else None,
        )

    def _game_over_text(self) -> Text:
        """The result, then each seat's score part by part, the match (over several games),
        and every hand."""
        c = self.controller
        end = c.ending
        assert end is not None
        t = plain(end.text, style="bold")
        if c.match_note():  # a networked match: who proposed, agreed or left
            t.append("\n").append_text(plain(c.match_note()))
        if not end.scores:  # the game stopped before its end: nothing to score
            return t
        columns = SCORE_COLUMNS if c.games else SCORE_COLUMNS[:-1]

        def cells(values: Sequence[object]) -> str:
            # 9 + 5 + 7×6 = 56 columns: the panel's inside at 60 (a wider row wrapped each
            # seat's match total onto a line of its own); "Medium 2" whole.
            return "".join(f"{v:>{5 if i == 0 else 6}}" for i, v in enumerate(values))

        t.append("\n" + " " * SCORE_NAME + cells(columns), style="dim")
        match = c.match
        for s, score in enumerate(end.scores):
            parts = [score.melded, score.hand, score.empty, score.last, score.range]
            parts += [score.unisson, score.total, match[s]][: len(columns) - 5]
            row = c.names[s][: SCORE_NAME - 1].ljust(SCORE_NAME) + cells(parts)
            t.append("\n").append_text(plain(row, style="bold" if s == c.seat else ""))
        return t

    def _after_game(self, answer: str | None) -> None:
        self._over = None
        if answer == "rematch":
            self.controller.rematch()
        else:
            self.dismiss()


def table_screen(
    controller: UnissonController, ascii: bool, title: str | None
) -> UnissonTableScreen:
    """The table of ``controller`` (the registry's ``GameUI.table_screen``); by default its
    title says what table it is, its players and decks."""
    if title is None:
        n, decks = controller.players, controller.decks
        title = f"L'Unisson · {controller.label} · {n} players, {decks} deck" + "s" * (decks > 1)
    return UnissonTableScreen(controller, ascii, title)
