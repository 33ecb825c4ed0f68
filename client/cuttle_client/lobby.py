"""The lobby: practice against a bot (the default), host, join, and games found on the LAN."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Footer, Input, ListView, Select, Static

from cuttle_net.bots import BOTS

NOT_YET = "Network play is not available yet in this version: practise against a bot for now."
LAN_HINT = "No games found on your network yet. LAN discovery is coming; join by address above."


class LobbyScreen(Screen[None]):
    """Where the client starts (``cuttle`` with no arguments)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("p", "practice", "Practice"),
        Binding("h", "host", "Host"),
        Binding("j", "join", "Join"),
        Binding("ctrl+q", "app.quit", "Quit"),
    ]

    class PracticeRequested(Message):
        """The player asked for a practice game; the app opens the table."""

        def __init__(self, bot: str, rules: str) -> None:
            super().__init__()
            self.bot, self.rules = bot, rules

    def compose(self) -> ComposeResult:
        yield Static("cuttle · the two-player combat card game", id="title")
        with Vertical(id="lobby-menu"):
            yield Button("Practice against a bot (p)", id="practice", variant="primary")
            with Horizontal(classes="row"):
                yield Static("Bot", classes="label")
                yield Select(
                    [(name, name) for name in BOTS],
                    value="greedy",
                    allow_blank=False,
                    compact=True,
                    id="bot",
                )
                yield Static("Rules", classes="label")
                yield Select(
                    [("classic", "classic"), ("standard", "standard")],
                    value="classic",
                    allow_blank=False,
                    compact=True,
                    id="rules",
                )
            yield Button("Host a game (h)", id="host")
            with Horizontal(classes="row"):
                yield Input(placeholder="HOST[:PORT]", id="address")
                yield Button("Join (j)", id="join")
            yield Static(id="notice")
            yield Static("Games on your network", classes="heading")
            yield ListView(id="lan")
            yield Static(LAN_HINT, id="lan-hint")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#practice", Button).focus()

    @on(Button.Pressed, "#practice")
    def action_practice(self) -> None:
        bot = str(self.query_one("#bot", Select).value)
        rules = str(self.query_one("#rules", Select).value)
        self.post_message(self.PracticeRequested(bot, rules))

    @on(Button.Pressed, "#host")
    def action_host(self) -> None:
        self.query_one("#notice", Static).update(f"Host: {NOT_YET}")

    @on(Button.Pressed, "#join")
    @on(Input.Submitted, "#address")
    def action_join(self) -> None:
        address = self.query_one("#address", Input).value.strip() or "an address"
        self.query_one("#notice", Static).update(f"Join {address}: {NOT_YET}")
