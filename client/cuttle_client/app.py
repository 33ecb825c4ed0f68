"""The Textual application, built by ``make_app`` so tests can run it with set options."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import App

from cuttle_net.rules import CLASSIC, Rules

from .controller import PracticeController, TableController
from .lobby import LobbyScreen
from .table import TableScreen


@dataclass(frozen=True)
class Settings:
    ascii: bool = False  # suit letters instead of glyphs
    bot_delay: float = 0.6  # seconds before a bot's move shows, so a person can follow


@dataclass(frozen=True)
class Practice:
    """A practice game to open at once (``cuttle play``)."""

    bot: str = "greedy"
    rules: Rules = CLASSIC
    seed: int | None = None


class CuttleApp(App[None]):
    """The lobby, and a table pushed over it for each game.

    ``table`` opens a table at once over the lobby: any ``TableController`` (practice now,
    a network game later).
    """

    CSS_PATH = "cuttle.tcss"
    TITLE = "cuttle"

    def __init__(self, settings: Settings, table: TableController | None = None) -> None:
        super().__init__()
        self.settings = settings
        self._first_table = table

    def on_mount(self) -> None:
        self.push_screen(LobbyScreen())
        if self._first_table is not None:
            self.open_table(self._first_table)

    def on_lobby_screen_practice_requested(self, event: LobbyScreen.PracticeRequested) -> None:
        """From the lobby: a practice game on a random deal."""
        rules = Rules.parse(event.rules)
        self.open_table(PracticeController(event.bot, rules, bot_delay=self.settings.bot_delay))

    def open_table(self, controller: TableController) -> None:
        other = controller.names[controller.opponent]
        if isinstance(controller, PracticeController):
            title = f"cuttle · practice against {other} · {controller.rules}"
        else:
            title = f"cuttle · against {other} · {controller.rules}"
        self.push_screen(TableScreen(controller, self.settings.ascii, title))


def make_app(settings: Settings | None = None, practice: Practice | None = None) -> CuttleApp:
    """The app, opening at the lobby, or at a practice table if ``practice`` is given."""
    settings = settings or Settings()
    table = None
    if practice is not None:
        p = practice
        table = PracticeController(p.bot, p.rules, p.seed, bot_delay=settings.bot_delay)
    return CuttleApp(settings, table)
