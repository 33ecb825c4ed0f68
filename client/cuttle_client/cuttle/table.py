"""The table screen: draws one player's view from a ``TableController`` and sends it moves.

The only state kept here is the UI's: where the player is in the choice tree (card, use,
target) and whether the game-over overlay is up.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Input, OptionList, Static

from cuttle_net.games.cuttle.engine import IllegalMove
from cuttle_net.games.cuttle.moves import DRAW, OFFER_DRAW, PASS, Move, MoveSyntaxError, parse_move

from ..cardtext import ascii_text, move_shown
from ..chat import ChatActions, chat_bindings, show_chat, typing
from ..footer import Footer
from ..modals import ConfirmScreen, GameOverScreen, ScrapScreen, relabel
from ..peertext import plain
from ..tablewidgets import MoveLog, TooSmall, chosen_index, set_choices
from ..trio_guest import TrioGuest
from . import cardtext
from .choices import Choice, ask, choices
from .controller import MatchScore, PracticeController, TableController
from .help import CuttleHelpScreen
from .widgets import Hand, LastMove, board, show_board


class TableScreen(ChatActions, Screen[None]):
    """A game in progress, from the player's seat."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Help"),
        Binding("d", "draw", "Draw"),
        Binding("colon,m", "type_move", "Type move"),
        Binding("s", "scrap", "Scrap"),
        Binding("c", "concede", "Concede"),
        Binding("o", "offer_draw", "Offer draw", show=False),
        Binding("escape", "back", "Back", show=False),
        *chat_bindings(),
        *(Binding(str(n), f"card({n})", show=False) for n in range(1, 10)),
    ]

    def __init__(self, controller: TableController, ascii: bool, title: str) -> None:
        super().__init__()
        self.controller = controller
        self.ascii = ascii
        self.title_text = title
        self._tree: list[Choice] = []
        self._path: list[int] = []  # indexes into the choice tree
        self._decision: tuple[int, int, int] | None = None
        self._keep_error = False  # the error shown stays through the next new question
        self._refused = ""  # the controller's last refusal, once shown
        self._over: GameOverScreen | None = None  # the game-over overlay, while it is up
        # c leaves a lesson (it concedes nothing): the footer says so.
        relabel(self, "c", "concede", getattr(controller, "concede_label", "Concede"))

    def compose(self) -> ComposeResult:
        yield Static(plain(self.title_text), id="title", classes="fits")
        yield TooSmall()
        with Horizontal(id="body", classes="fits"):
            with Vertical(id="board"):
                yield from board()
                yield Static(id="ask")
                yield Static(id="error")
                yield OptionList(id="actions")
                yield Input(placeholder="a move, e.g. scuttle 9H 4C (Esc: cancel)", id="move-input")
            with Vertical(id="right"):
                yield MoveLog(id="log")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#move-input").display = False
        self.query_one("#log").border_title = "Moves"
        self.set_class(bool(self.controller.coach), "lesson")  # its panel stays when narrow
        self.controller.attach(self)

    async def on_unmount(self) -> None:
        await self.controller.aclose()

    # -- TableHost

    def table_changed(self) -> None:
        self.redraw()

    def schedule(self, delay: float, callback: Callable[[], None]) -> object:
        return self.set_timer(delay, callback)

    @property
    def trio(self) -> TrioGuest:
        return self.app.trio  # type: ignore[attr-defined]

    # -- drawing

    def redraw(self) -> None:
        c = self.controller
        view, me, names = c.view, c.seat, c.names
        decision = (len(c.log), view.phase, c.my_turn)
        if decision != self._decision:  # a new question: back to the top of the tree
            self._decision, self._path = decision, []
            self._tree = choices(view, me, names, self.ascii) if c.my_turn else []
            # A move refused while a game was being dealt stays explained until the first
            # question of that game has passed: the player learns it was not played.
            if not self._keep_error:
                self.query_one("#error", Static).display = False
            self._keep_error = c.dealing
        if c.refused != self._refused:  # a move the game refused after it was sent
            self._refused = c.refused
            if c.refused:
                self._error(c.refused)
        touched = c.log[-1].touched if c.log else frozenset()
        if c.ending is not None and not c.coach:
            # The final table shows their hand as far as it is known (the game-over panel
            # names it; moved aside, it left backs on the table).
            view = view.copy()
            view.hands[c.opponent], view.hidden[c.opponent] = c.their_hand()
        show_board(self, view, me, names, self.ascii, touched)
        log = self.query_one("#log", MoveLog)
        log.show(c.log, self.ascii, c.coach)
        log.border_title = "Lesson" if c.coach else "Moves"
        column = self.query_one("#right")
        show_chat(column, c.chat.lines, c.can_chat, c.say, self._fill_actions)
        self.query_one("#last", LastMove).show(c.log, self.ascii)
        # Most useful first, the title may be cut at the right: the code to compare, the
        # match score, then the rules (also in the help).
        parts = [self.title_text, c.banner]
        if c.my_turn and c.trouble():  # otherwise the ask line says it
            parts.insert(0, c.trouble())
        if c.score != MatchScore():
            parts.append(c.score.text(names[c.opponent]))
        parts.append(c.watching)
        title = " · ".join(p for p in [*parts, str(c.rules)] if p)
        self.query_one("#title", Static).update(plain(title))
        if c.ending is not None:
            question = plain(c.ending.text, style="bold")
        elif c.my_turn:
            question = plain(ask(view, me, names, self.ascii), style="bold")
        else:
            question = plain(c.waiting_for() or "", style="italic")
        self.query_one("#ask", Static).update(question)
        self._fill_actions()
        if c.ending is not None:
            if self._over is None:
                self._over = GameOverScreen(c.over_heading, c.again_label, c.back_label)
                self.app.push_screen(self._over, self._after_game)
            self._over.show(self._game_over_text(), c.can_rematch)

    def _game_over_text(self) -> Text:
        """The result, the match score, what is known of their hand, a rematch asked for."""
        c = self.controller
        assert c.ending is not None
        other = c.names[c.opponent]
        t = plain(c.ending.text, style="bold")
        if c.coach:  # a lesson: no match, and the hand does not matter
            return t
        t.append_text(plain(f"\nMatch: {c.score.text(other)}"))
        cards, unseen = c.their_hand()
        if cards or unseen:
            t.append_text(plain(f"\n{other}'s hand: "))
            t.append_text(cardtext.cards(cards, self.ascii))
            if unseen:  # no audit (a concession): only the cards shown in play are known
                t.append(f"{' + ' if cards else ''}{unseen} never shown")
        if c.rematch_offer:
            t.append("\n").append_text(plain(c.rematch_offer, style="bold reverse"))
        return t

    def _level(self) -> list[Choice]:
        level = self._tree
        for i in self._path:
            level = list(level[i].children)
        return level

    def _fill_actions(self) -> None:
        actions = self.query_one("#actions", OptionList)
        level = self._level()
        options = [(plain(ch.label), ch.enabled) for ch in level]
        shown = set_choices(actions, options, (self._decision, tuple(self._path)))
        crumbs, walk = [], self._tree
        for i in self._path:  # "9♥  points, scuttle" then "scuttle…" read "9♥ › scuttle"
            crumbs.append(walk[i].label.split("  ")[0].removesuffix("…"))
            walk = list(walk[i].children)
        title = " › ".join(["Choose", *crumbs]) if level else "Nothing to choose now"
        actions.border_title = plain(title)  # a choice may name a peer
        actions.border_subtitle = "Esc: back" if self._path else ""
        self._show_hand(level[shown].card if shown is not None else None)
        busy_typing = self.query_one("#move-input").display or typing(self)
        if level and not busy_typing:
            actions.focus()

    def _show_hand(self, highlight: int | None) -> None:
        c = self.controller
        new = c.log[-1].touched if c.log else ()
        self.query_one("#hand", Hand).show(c.view, c.seat, self.ascii, highlight, new)

    # -- choosing

    @on(OptionList.OptionHighlighted, "#actions")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        level = self._level()
        if 0 <= event.option_index < len(level):
            self._show_hand(level[event.option_index].card)

    @on(OptionList.OptionSelected, "#actions")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        index = chosen_index(event)
        if index is not None:
            self._choose(index)

    def _choose(self, index: int) -> None:
        choice = self._level()[index]
        if choice.move is not None:
            self._submit(choice.move)
        elif choice.children:
            self._path.append(index)
            self._fill_actions()

    @on(Hand.Picked)
    def _picked(self, event: Hand.Picked) -> None:
        self._pick_card(event.card)

    def action_card(self, n: int) -> None:
        hand = self.controller.view.hands[self.controller.seat]
        if n <= len(hand):
            self._pick_card(hand[n - 1])

    def _pick_card(self, card: int) -> None:
        """Open the uses of ``card`` (or highlight the option about it)."""
        self._path = []
        self._fill_actions()
        for i, ch in enumerate(self._tree):
            if ch.card == card:
                if not ch.enabled:
                    self._error(ch.label)
                elif ch.children:
                    self._choose(i)
                else:
                    self.query_one("#actions", OptionList).highlighted = i
                return
        self._error("that card is not a choice now")

    def action_back(self) -> None:
        field = self.query_one("#move-input", Input)
        if field.display:
            field.display = False
            self._fill_actions()
        elif self._path:
            self._path.pop()
            self._fill_actions()

    # -- moves

    def _submit(self, move: Move) -> bool:
        try:
            self.controller.submit(move)
        except IllegalMove as e:
            self._say_refused(f"{move_shown(move, self.ascii)}: {e}")
            return False
        return True

    def _say_refused(self, text: str) -> None:
        self._error(text)
        self._keep_error = self.controller.dealing

    def _error(self, text: str) -> None:
        shown = ascii_text(text) if self.ascii else text
        error = self.query_one("#error", Static)
        error.update(plain(f"{'x' if self.ascii else '✗'} {shown}", style="bold red"))
        error.display = True
        self.app.bell()

    def action_draw(self) -> None:
        self._submit(DRAW if self.controller.view.deck else PASS)

    def action_offer_draw(self) -> None:
        self._submit(OFFER_DRAW)

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
        self.app.push_screen(CuttleHelpScreen(self.controller.rules, self.ascii))

    def action_scrap(self) -> None:
        scrap = self.controller.view.scrap
        shown = cardtext.cards(reversed(scrap), self.ascii) if scrap else Text("empty")
        self.app.push_screen(ScrapScreen(shown, len(scrap)))

    def action_concede(self) -> None:
        if self.controller.ending is not None:
            return
        self.app.push_screen(ConfirmScreen(self.controller.concede_question), self._concede)

    def _concede(self, yes: bool | None) -> None:
        if not yes:
            return
        try:
            self.controller.concede()
        except IllegalMove as e:  # r was pressed and the next game is not dealt yet
            self._say_refused(f"concede: {e}")

    def _after_game(self, answer: str | None) -> None:
        self._over = None
        if answer == "rematch":
            self.controller.rematch()
        else:
            self.dismiss()


def table_screen(controller: TableController, ascii: bool, title: str | None) -> TableScreen:
    """The table of ``controller`` (the registry's ``GameUI.table_screen``); by default its
    title names the opponent."""
    if title is None:
        other = controller.names[controller.opponent]
        practice = isinstance(controller, PracticeController)
        title = f"cuttle · {'practice ' if practice else ''}against {other}"
    return TableScreen(controller, ascii, title)
