"""The client's game registry: what a screen must know of each game, by its name.

Screens that serve every game (the replay, the lobby's list of games played and its bots,
the lessons, the network seat) look a game up here instead of branching on its name; each
entry points at the game's own widgets, and names its seat at a networked table and its
lesson controller as ``module:Class``, imported only when used (no screen imports another
game's seat). Adding a game: docs/adding-a-game.md.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from textual.widget import Widget

from cuttle_net.games.cuttle.cards import card_display
from cuttle_net.games.unisson.cards import FACES, face_display
from cuttle_net.records.positions import Positions

from .cuttle import widgets as cuttle_widgets
from .gametitles import TITLES
from .tablewidgets import LogLine
from .unisson import widgets as unisson_widgets


class ReplayBoard(Protocol):
    """A game's board in the replay: a widget made of the game's table widgets."""

    log_beside: bool  # the move log beside the board (else below it)

    def log(self, p: Positions, seat: int | None) -> list[list[LogLine]]:
        """Each move's log lines as ``seat`` saw it (None: every card known, or an
        onlooker of a game never audited)."""

    def show(
        self, p: Positions, k: int, seat: int | None, log: Sequence[LogLine], ascii: bool
    ) -> None:
        """Draw the table after ``k`` moves as ``seat`` saw it; ``log`` is the log so far."""

    def ending(self, p: Positions) -> str:
        """How the game ended by its rules, every player named ("" if it did not)."""


class LobbyRows(Protocol):
    """A game's rows in the lobby: the widgets that choose its rules, shown while the game
    is chosen (their ids unique in the lobby: its style sheet sizes them by id)."""

    def game_row(self) -> Iterator[Widget]:
        """Its widgets after the Game choice (L'Unisson's players and decks)."""

    def host_row(self) -> Iterator[Widget]:
        """Its widgets after the Host row's words (Cuttle's rule set and variants)."""

    @property
    def token(self) -> str:
        """The rules token the rows choose."""

    @property
    def players(self) -> int:
        """The players of the table the rows choose."""

    @property
    def host_what(self) -> str:
        """The Host row's words: what would be hosted."""

    def show(self) -> None:
        """Bring the rows up to date after a choice (in them, or by ``variants``)."""

    def variants(self, lobby: Any) -> None:
        """The lobby's ``v``: choose the game's variants, or say in the lobby's ``notice``
        where its rules are chosen; after a choice, call the lobby's ``show_game``."""


@dataclass(frozen=True)
class GameUI:
    name: str  # the game module's name, the record's Game tag
    title: str  # for people: "L'Unisson"
    card: Callable[[int, bool], str]  # a card id's display text (ascii: the text form)
    board: Callable[[], Widget]  # a new ReplayBoard
    # The class of its seat at a networked table (``seat.TableSeat`` with the game's
    # controller), "module:Class" relative to this package: imported when a table opens.
    table_seat: str
    # The controller of its lessons (its practice controller with ``learn.Coaching``), as
    # "module:Class": imported when a lesson opens; "" for a game without lessons. Its
    # course is the core package's ``lessons.COURSE``.
    lesson: str = ""
    # Its rules screen, "module:function" taking (rules token, players, ascii, the keys to
    # list after the rules) and giving the screen: the lobby's ?.
    rules_help: str = ""
    default_bot: str = "easy"  # the lobby's choice of bot (a name in the core's ``bots``)
    # Its practice game, "module:function" taking (bot, rules token, players, seed, and the
    # controller's bot_delay, records, player) and giving the controller; and its table
    # screen, "module:function" taking (controller, ascii, title or None for its own).
    practice: str = ""
    table_screen: str = ""
    default_rules: str = ""  # the rules token of a table no one chose rules for
    # Its rows in the lobby, "module:Class" of a ``LobbyRows``: built when the lobby opens.
    lobby_rows: str = ""

    def replay_board(self) -> ReplayBoard:
        return self.board()  # type: ignore[return-value]

    def seat_class(self) -> Any:
        return _load(self.table_seat)

    def lesson_class(self) -> Any:
        if not self.lesson:
            raise ValueError(f"{self.title} has no lessons")
        return _load(self.lesson)

    def rules_screen(self, token: str, players: int, ascii: bool, keys: str) -> Any:
        return _load(self.rules_help)(token, players, ascii, keys)

    def new_practice(self, bot: str, token: str, players: int, seed: int | None, **how: Any) -> Any:
        return _load(self.practice)(bot, token, players, seed, **how)

    def new_lobby_rows(self) -> LobbyRows:
        return _load(self.lobby_rows)()  # type: ignore[no-any-return]

    def new_table_screen(self, controller: Any, ascii: bool, title: str | None) -> Any:
        return _load(self.table_screen)(controller, ascii, title)


def _load(path: str) -> Any:
    """The class (or function) a registry entry names as "module:Class" (the module relative
    to this package): imported only now, so that no screen imports another game's modules."""
    module, _, cls = path.partition(":")
    return getattr(importlib.import_module(module, __package__), cls)


GAMES: dict[str, GameUI] = {
    "cuttle": GameUI(
        "cuttle",
        TITLES["cuttle"],
        card_display,
        cuttle_widgets.ReplayBoard,
        ".cuttle.network:CuttleTable",
        ".cuttle.lesson:CuttleLesson",
        ".cuttle.help:rules_screen",
        practice=".cuttle.controller:practice",
        table_screen=".cuttle.table:table_screen",
        default_rules="classic",
        lobby_rows=".cuttle.lobbyrows:CuttleRows",
    ),
    # Two decks are the same faces twice: a card id is its face modulo 32.
    "unisson": GameUI(
        "unisson",
        TITLES["unisson"],
        lambda c, ascii: face_display(c % FACES, ascii),
        unisson_widgets.ReplayBoard,
        ".unisson.network:NetworkTable",
        ".unisson.lesson:UnissonLesson",
        ".unisson.help:rules_screen",
        practice=".unisson.controller:practice",
        table_screen=".unisson.table:table_screen",
        default_rules="one-deck",
        lobby_rows=".unisson.lobbyrows:UnissonRows",
    ),
}


def game_ui(name: str) -> GameUI:
    """The game called ``name`` (``ValueError`` naming those the client knows)."""
    try:
        return GAMES[name]
    except KeyError:
        raise ValueError(f"this client shows {', '.join(GAMES)}, not {name!r}") from None


__all__ = ["GAMES", "GameUI", "LobbyRows", "LogLine", "ReplayBoard", "game_ui"]
