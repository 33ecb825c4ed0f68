"""The lobby: choose the game, practice against bots (the default), host, join, and games
found on the LAN.

Every part has a key (g, p, h, j, l, n, r, ?), so nothing needs a row of Tabs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, ClassVar

from cuttle_protocol.wire import seats_text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Input, Label, ListItem, ListView, Select, Static

from cuttle_net.games import game_part
from cuttle_net.games.interface import game_module

from .footer import Footer
from .games import GAMES, LobbyRows
from .peertext import plain
from .tablewidgets import TooSmall
from .trio_guest import GuestTask

GAME_TITLES = {name: game.title for name, game in GAMES.items()}
LAN_HINT = "No games found on your network yet: they appear here as hosts announce them."
LAN_OFF = "LAN discovery is off (CUTTLE_NO_LAN=1): join by address above."
# Each game's bots, weakest first as the games list them; "greedy" is "easy" under its
# other name, so it is not offered twice.
BOT_ORDER = {
    game: tuple(name for name in game_part(game, "bots").BOTS if name != "greedy") for game in GAMES
}
DEFAULT_BOT = {name: game.default_bot for name, game in GAMES.items()}
FIRST_GAME = next(iter(GAMES))  # the lobby's first choice
HOST_PORT = 4454  # the Host row's port until the player types another (`cuttle host`'s too)


def port_from(text: str) -> int:
    """The port typed in the Host row's field; ``ValueError`` saying what a port is."""
    words = text.strip()
    if not (words.isascii() and words.isdigit() and int(words) <= 65_535):
        raise ValueError(
            f"Not hosted: a port is a number, 1 to 65535 (0: any free port), not {words!r}"
        )
    return int(words)


def seats_words(game: str) -> str:
    """The players of ``game`` for the lobby's title: "2 players", "3 to 6 players"."""
    seats = game_module(game).seats
    return f"{seats[0]} players" if len(seats) == 1 else f"{seats[0]} to {seats[-1]} players"


# The title names every game, whole at 60 columns.
TITLE = "cuttle · " + " · ".join(f"{g.title} ({seats_words(n)})" for n, g in GAMES.items())


def bot_options(game: str) -> list[tuple[str, str]]:
    """The lobby's bot list for ``game``: (label, name), the default named as such."""
    default = DEFAULT_BOT[game]
    return [(f"{n} (default)" if n == default else n, n) for n in BOT_ORDER[game]]


class AddressInput(Input):
    """The Join field: a paste of several lines is kept whole (Input keeps only the first
    line), so an invitation copied from the rows of a screen that wrapped it still joins;
    a pasted ``cuttle join X`` (or ``cuttle watch X``) is X."""

    def _on_paste(self, event: events.Paste) -> None:
        words = event.text.split()
        if " ".join(words[:2]) in ("cuttle join", "cuttle watch"):
            words = words[2:]
        event.prevent_default()  # Input's own handler would keep the first line
        event.stop()
        super()._on_paste(events.Paste(" ".join(words)))


class LobbyScreen(Screen[None]):
    """Where the client starts (``cuttle`` with no arguments)."""

    # Focused as soon as the lobby is composed: Textual's default focused the name field
    # first, so a key pressed before on_mount (a loaded machine) was typed into the name.
    AUTO_FOCUS = "#practice"

    # Named on the lobby's own rows ("Host (h)"): the footer leaves them out when narrow.
    FOOTER_SPARE = frozenset({"game", "practice", "learn", "host", "join", "lan"})

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("g", "game", "Game"),
        Binding("p", "practice", "Practice"),
        Binding("e", "learn", "Learn"),
        Binding("h", "host", "Host"),
        Binding("j", "join", "Join"),
        Binding("l", "lan", "LAN"),
        Binding("w", "watch", "Watch", show=False),  # its button says "Watch (w)"
        Binding("n", "name", "Name", show=False),  # its field says "Your name (n)"
        Binding("o", "port", "Port", show=False),  # its row says "on port (o)"
        Binding("r", "played", "Played"),
        Binding("v", "variants", "Variants", show=False),  # the rules' row names the key
        Binding("question_mark", "help", "Rules"),
        Binding("ctrl+q", "app.quit", "Quit", priority=True),
        # Out of a field (only there: the footer shows it): its letters are the lobby's keys.
        Binding("escape", "leave_field", "Leave field"),
    ]

    class PracticeRequested(Message):
        """The player asked for a practice game of ``game``, against ``players - 1`` bots;
        the app opens the table."""

        def __init__(self, bot: str, rules: str, game: str, players: int) -> None:
            super().__init__()
            self.bot, self.rules = bot, rules
            self.game, self.players = game, players

    class LearnRequested(Message):
        """The player asked for the lessons, ``game``'s first."""

        def __init__(self, game: str) -> None:
            super().__init__()
            self.game = game

    class HostRequested(Message):
        """Host a table of ``players`` for ``game`` under ``rules`` (its rules token), on
        ``port``."""

        def __init__(self, rules: str, game: str, players: int, port: int = HOST_PORT) -> None:
            super().__init__()
            self.rules, self.game, self.players, self.port = rules, game, players, port

    class JoinRequested(Message):
        """Join the game at ``address`` (HOST[:PORT])."""

        def __init__(self, address: str) -> None:
            super().__init__()
            self.address = address

    class WatchRequested(Message):
        """Watch the table at ``address`` (HOST[:PORT] or an invitation)."""

        def __init__(self, address: str) -> None:
            super().__init__()
            self.address = address

    class NameChanged(Message):
        """The player typed a new name (the app checks and keeps it)."""

        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

    def __init__(self, name: str = "", lan: bool = True) -> None:
        super().__init__()
        self._name = name
        self._lan = lan
        self._browsing: GuestTask | None = None
        self._join_at = ""  # the Join field's first value (an unfinished game's host)
        self._port = str(HOST_PORT)  # the port field's first value (an unfinished table's)
        # Each game's rows choosing its rules (shown while it is chosen), and their widgets.
        self.rows: dict[str, LobbyRows] = {name: g.new_lobby_rows() for name, g in GAMES.items()}
        self._rows_widgets: dict[str, list[Widget]] = {name: [] for name in GAMES}
        self._said_none = False  # the notice says no LAN game was found

    def compose(self) -> ComposeResult:
        yield Static(TITLE, id="title", classes="fits")
        yield TooSmall()
        with Vertical(id="lobby-menu", classes="fits"):
            with Horizontal(classes="row"):
                yield Static("Your name (n)", classes="label")
                yield Input(
                    self._name,
                    placeholder="your name",
                    id="name",
                    compact=True,
                    select_on_focus=False,
                )
            with Horizontal(classes="row"):
                yield Static("Game (g)", classes="label")
                yield Select(
                    [(title, name) for name, title in GAME_TITLES.items()],
                    value=FIRST_GAME,
                    allow_blank=False,
                    compact=True,
                    id="game",
                )
                yield from self._game_rows(lambda rows: rows.game_row())
            with Horizontal(classes="row"):
                yield Button("Practice (p)", id="practice", variant="primary", compact=True)
                yield Static("against", classes="label")
                yield Select(
                    bot_options(FIRST_GAME),
                    value=DEFAULT_BOT[FIRST_GAME],
                    allow_blank=False,
                    compact=True,
                    id="bot",
                )
                yield Button("Learn (e)", id="learn", compact=True)
            with Horizontal(classes="row"):
                yield Button("Host (h)", id="host", compact=True)
                yield Static("a game, rules", classes="label", id="host-what")
                yield from self._game_rows(lambda rows: rows.host_row())
            with Horizontal(classes="row"):
                yield Static("on port (o)", classes="label", id="port-label")
                yield Input(self._port, id="port", compact=True, max_length=5)
                yield Static("(0: any free port)", classes="label hint")
            with Horizontal(classes="row"):
                yield Button("Join (j)", id="join", compact=True)
                yield AddressInput(
                    self._join_at,
                    placeholder="HOST[:PORT], e.g. 192.168.1.20:4454",
                    id="address",
                    compact=True,
                )
                yield Button("Watch (w)", id="watch", compact=True)
            yield Static(id="notice")
            yield Static("Games on your network (l)", classes="heading")
            yield ListView(id="lan")
            yield Static(LAN_HINT, id="lan-hint")
        yield Footer(show_command_palette=False)

    def _game_rows(self, part: Callable[[LobbyRows], Iterator[Widget]]) -> Iterator[Widget]:
        """Every game's widgets for one row (``part``), kept to show while it is chosen."""
        for name, rows in self.rows.items():
            for widget in part(rows):
                widget.add_class("game-rules")  # a choice there updates the rows
                self._rows_widgets[name].append(widget)
                yield widget

    def on_mount(self) -> None:
        self.show_game()
        self.query_one("#practice", Button).focus()
        if self._lan:
            self._browsing = self.app.trio.start_task(self._browse)  # type: ignore[attr-defined]
        else:
            self.query_one("#lan-hint", Static).update(LAN_OFF)

    async def on_unmount(self) -> None:
        if self._browsing is not None:
            await self._browsing.aclose()

    async def _browse(self) -> None:
        """List the games announced on the LAN, live (trio, as a guest of this loop)."""
        from cuttle_protocol.shells import mdns as lan

        try:
            async with lan.browse() as live:
                async for games in live:
                    self._show_games(games)
        except lan.LanUnavailable as e:
            self.query_one("#lan-hint", Static).update(plain(str(e)))

    def _show_games(self, games: list) -> None:
        # From the trio task: the list is rebuilt on Textual's side, one change after another.
        self.call_next(self._list_games, games)

    def _lan_list(self) -> ListView | None:
        """The list of LAN games, or None once it is being taken down: quitting withdraws
        our own announcement (``cuttle host``), and the browser reports that as the app's
        widgets go; the news is then for no one."""
        listing = next(iter(self.query("#lan").results(ListView)), None)
        return listing if listing is not None and listing.is_attached else None

    async def _list_games(self, games: list) -> None:
        listing = self._lan_list()
        if listing is None:
            return
        # A table's seats change as players sit down: the game the player has highlighted
        # stays highlighted, so Enter still joins what they see.
        keep = getattr(listing.highlighted_child, "service", None)
        await listing.clear()
        if self._lan_list() is None:  # taken down meanwhile
            return
        items = []
        for g in games:
            a = g.announcement
            what = f"{GAME_TITLES.get(a.game, a.game)} {a.rules.name}"
            # Anyone on the network chooses what an announcement says.
            # (w watches a table that takes watchers: said short, so that the line fits)
            seats = seats_text(a, watch_words=False) + " · w watches" * a.watchers
            line = plain(f"{a.name} · {g.join_address} · {what} · {seats}")
            item = ListItem(Label(line))
            item.address = g.join_address  # type: ignore[attr-defined]
            # A full table that takes watchers is one to watch: Enter watches it.
            item.to_watch = a.watchers and not a.seat_free  # type: ignore[attr-defined]
            item.watchable = a.watchers  # type: ignore[attr-defined]
            item.service = g.service  # type: ignore[attr-defined]
            items.append(item)
        await listing.extend(items)
        services = [g.service for g in games]
        if keep in services:
            listing.index = services.index(keep)
        elif listing.has_focus and games:
            listing.index = 0
        self.query_one("#lan-hint", Static).update("" if games else LAN_HINT)
        if games and self._said_none:  # `l` came before the first announcement
            self.notice("")

    def suggest_join(self, address: str) -> None:
        """Fill the Join field with ``address`` unless the player typed something there."""
        fields = self.query("#address").results(Input)
        field = next(iter(fields), None)
        if field is None:  # not composed yet
            self._join_at = self._join_at or address
        elif not field.value:
            field.value = address

    def suggest_port(self, port: int) -> None:
        """Fill the port field with ``port`` (an unfinished table's) unless the player
        typed another there."""
        fields = self.query("#port").results(Input)
        field = next(iter(fields), None)
        if field is None:  # not composed yet
            self._port = str(port) if self._port == str(HOST_PORT) else self._port
        elif field.value == str(HOST_PORT):
            field.value = str(port)

    def notice(self, text: str) -> None:
        """A problem to fix before going on (a bad address, a bad name)."""
        self.query_one("#notice", Static).update(plain(text))  # it may quote what was typed
        self._said_none = False

    @property
    def rules(self) -> str:
        """The rules token the game's rows choose."""
        return self.rows[self.game].token

    def action_variants(self) -> None:
        """The game's variants, as its rows choose them (or where its rules are chosen)."""
        self.rows[self.game].variants(self)

    @on(ListView.Selected, "#lan")
    def _join_found(self, event: ListView.Selected) -> None:
        item: Any = event.item
        wanted = self.WatchRequested if item.to_watch else self.JoinRequested
        self.post_message(wanted(item.address))

    @property
    def game(self) -> str:
        return str(self.query_one("#game", Select).value)

    def action_game(self) -> None:
        """Open the list of games (g said "Game" and only focused it: issue 26)."""
        game = self.query_one("#game", Select)
        game.focus()
        game.action_show_overlay()

    @on(Select.Changed, "#game")
    def _game_chosen(self) -> None:
        self.show_game()
        self.query_one("#practice", Button).focus()  # the next step: practice, or keys

    @on(Select.Changed, ".game-rules")
    def _rules_chosen(self) -> None:
        self.show_game()

    def show_game(self) -> None:
        """The rows of the game chosen, up to date; each game has its own bots; the Host row
        says what would be hosted."""
        for name, widgets in self._rows_widgets.items():
            for widget in widgets:
                widget.display = name == self.game
        for rows in self.rows.values():
            rows.show()
        self.query_one("#host-what", Static).update(self.rows[self.game].host_what)
        bot = self.query_one("#bot", Select)
        chosen = bot.value
        bot.set_options(bot_options(self.game))
        bot.value = chosen if chosen in BOT_ORDER[self.game] else DEFAULT_BOT[self.game]

    def _seats(self) -> int:
        """The players of the game chosen, as its rows choose them."""
        return self.rows[self.game].players

    @on(Button.Pressed, "#practice")
    def action_practice(self) -> None:
        bot = str(self.query_one("#bot", Select).value)
        self.post_message(self.PracticeRequested(bot, self.rules, self.game, self._seats()))

    @on(Button.Pressed, "#learn")
    def action_learn(self) -> None:
        self.post_message(self.LearnRequested(self.game))

    @on(Button.Pressed, "#host")
    @on(Input.Submitted, "#port")
    def action_host(self) -> None:
        field = self.query_one("#port", Input)
        try:
            port = port_from(field.value)
        except ValueError as e:
            self.notice(str(e))
            field.focus()
            return
        self.query_one("#host", Button).focus()  # (its keys are the lobby's again)
        self.post_message(self.HostRequested(self.rules, self.game, self._seats(), port))

    def action_port(self) -> None:
        field = self.query_one("#port", Input)
        field.focus()
        field.cursor_position = len(field.value)

    @on(Button.Pressed, "#join")
    @on(Input.Submitted, "#address")
    def action_join(self) -> None:
        field = self.query_one("#address", Input)
        address = field.value.strip()
        if not address:
            self.notice("Type the host's address here, then Enter: HOST[:PORT]")
            field.focus()
            return
        # Back in the lobby after that game, its keys work again (the field kept the focus
        # and took them as text, out of sight at the end of an invitation); Enter rejoins.
        self.query_one("#join", Button).focus()
        self.post_message(self.JoinRequested(address))

    @on(Button.Pressed, "#watch")
    def action_watch(self) -> None:
        """Watch the table highlighted in the LAN list (when it has the focus), else the
        one at the address typed in the Join field."""
        listing = self.query_one("#lan", ListView)
        found: Any = listing.highlighted_child if listing.has_focus else None
        if found is not None:
            if not found.watchable:
                self.notice("That host takes no watchers: join it, or watch another.")
                return
            self.post_message(self.WatchRequested(found.address))
            return
        field = self.query_one("#address", Input)
        address = field.value.strip()
        if not address:
            self.notice("Type the table's address (or invitation) here, then w to watch it")
            field.focus()
            return
        self.query_one("#watch", Button).focus()
        self.post_message(self.WatchRequested(address))

    def action_lan(self) -> None:
        listing = self.query_one("#lan", ListView)
        if listing.children:
            listing.focus()
            if listing.index is None:
                listing.index = 0  # Enter joins the first game at once
        else:
            self.notice("No game found on your network yet: join by address (j).")
            self._said_none = True  # withdrawn when one is found

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "leave_field":
            return isinstance(self.focused, Input)
        return True

    def action_leave_field(self) -> None:
        """Esc in a field: the keys are the lobby's again; a name half typed is dropped."""
        if self.focused is self.query_one("#name", Input):
            self.show_name(self._name)
            self.query_one("#practice", Button).focus()
        elif self.focused is self.query_one("#port", Input):
            self.query_one("#host", Button).focus()
        else:
            self.query_one("#join", Button).focus()

    def show_name(self, name: str) -> None:
        """The name the games are played under, in its field (after a change, or after a
        name refused: the field then shows the name kept, not the one refused)."""
        self._name = name
        self.query_one("#name", Input).value = name

    def action_name(self) -> None:
        field = self.query_one("#name", Input)
        field.focus()
        field.cursor_position = len(field.value)

    @on(Input.Submitted, "#name")
    def _name_typed(self, event: Input.Submitted) -> None:
        self.post_message(self.NameChanged(event.value))
        self.query_one("#practice", Button).focus()

    def action_played(self) -> None:
        """The games played: their records, to replay, verify or export."""
        from .played import PlayedScreen

        settings = self.app.settings  # type: ignore[attr-defined]
        self.app.push_screen(PlayedScreen(settings.games(), settings.ascii))

    def action_help(self) -> None:
        """The rules of the game chosen, as the lobby's rows set them: its own screen."""
        from .helpscreen import LOBBY_KEYS

        ascii = self.app.settings.ascii  # type: ignore[attr-defined]
        ui = GAMES[self.game]
        self.app.push_screen(ui.rules_screen(self.rules, self._seats(), ascii, LOBBY_KEYS))
