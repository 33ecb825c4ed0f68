"""The Textual application, built by ``make_app`` so tests can run it with set options."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import App

from cuttle_net.rules import CLASSIC, Rules

from .controller import PracticeController
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
    """The lobby, and a table pushed over it for each game."""

    CSS_PATH = "cuttle.tcss"
    TITLE = "cuttle"
    ENABLE_COMMAND_PALETTE = True

    def __init__(self, settings: Settings, practice: Practice | None = None) -> None:
        super().__init__()
        self.settings = settings
        self._practice = practice

    def on_mount(self) -> None:
        self.push_screen(LobbyScreen())
        if self._practice is not None:
            p = self._practice
            self.open_practice(
                PracticeController(p.bot, p.rules, p.seed, bot_delay=self.settings.bot_delay)
            )

    def start_practice(self, bot: str, rules: str) -> None:
        """From the lobby: a practice game on a random deal."""
        c = PracticeController(bot, Rules.parse(rules), bot_delay=self.settings.bot_delay)
        self.open_practice(c)

    def open_practice(self, controller: PracticeController) -> None:
        bot = controller.names[controller.opponent]
        title = f"cuttle · practice against {bot} · {controller.rules}"
        self.push_screen(TableScreen(controller, self.settings.ascii, title))


def make_app(settings: Settings | None = None, practice: Practice | None = None) -> CuttleApp:
    return CuttleApp(settings or Settings(), practice)
