"""The Textual application, built by ``make_app`` so tests can run it with set options."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from cuttle_protocol.play import GameSettings, NetPlan
from cuttle_protocol.store import data_dir as default_data_dir
from cuttle_protocol.store import games_dir, unfinished_tables
from cuttle_protocol.wire import Invitation, is_invitation, parse_address
from textual import events
from textual.app import App

from cuttle_net.games.interface import game_module

from .cli_table import Hosting
from .games import GAMES, game_ui
from .learn import Coaching, LearnScreen, lesson_table
from .lobby import LobbyScreen
from .modals import ConfirmScreen, NameScreen
from .network import ConnectScreen, Joining
from .peertext import visible
from .profile import login_name, name_problem, save_name, saved_name
from .seat import TableSeat
from .stylesheet import share_parsed_css
from .tablehost import Practising
from .trio_guest import TrioGuest
from .watch import Onlooker, WatchScreen
from .watching import WatchLaunch


@dataclass(frozen=True)
class Settings:
    ascii: bool = False  # suit letters instead of glyphs
    bot_delay: float = 0.6  # seconds before a bot's move shows, so a person can follow
    # Browse the LAN from the lobby; CUTTLE_NO_LAN=1 turns it off (tests never multicast).
    lan: bool = field(default_factory=lambda: os.environ.get("CUTTLE_NO_LAN") != "1")
    data_dir: Path | None = None  # where game records go (default: the user's data dir)
    config_dir: Path | None = None  # identity key, known peers, name (default: the user's)
    name: str | None = None  # the player's name (default: kept in the config, else asked)
    bell: bool = True  # the terminal's bell when the player's turn comes in a network game

    def games(self) -> Path:
        """Where game records are saved, practice games' too."""
        return games_dir(self.data_dir)


DEFAULT_GAME = next(iter(GAMES))  # the first game: wherever none is named


@dataclass(frozen=True)
class Practice:
    """A practice game to open at once (``cuttle play``)."""

    bot: str = "greedy"
    rules: str = ""  # the game's rules token ("": the game's default)
    seed: int | None = None
    game: str = DEFAULT_GAME  # with ``players`` around the table, where it has more than 2
    players: int = 4


@dataclass(frozen=True)
class NetworkLaunch:
    """A network game to open: how to meet the other player, and the game's timeouts.
    Hosting a table (``game`` other than Cuttle): its seats and rules token."""

    plan: NetPlan
    settings: GameSettings = field(default_factory=GameSettings)
    game: str = DEFAULT_GAME
    players: int = 2
    rules_token: str = ""


class CuttleApp(App[None]):
    """The lobby, and a table pushed over it for each game.

    ``table`` opens a table at once over the lobby: any ``TableController`` (practice now,
    a network game later).
    """

    CSS_PATH = "cuttle.tcss"
    TITLE = "cuttle"
    # Size classes on every screen, for the stylesheet: below 60×20 a screen shows only
    # "too small"; below 80 columns the table drops its move log (the last move stays).
    HORIZONTAL_BREAKPOINTS: ClassVar[list[tuple[int, str]]] = [
        (0, "-too-small-x"),
        (60, "-narrow"),
        (80, "-normal"),
    ]
    VERTICAL_BREAKPOINTS: ClassVar[list[tuple[int, str]]] = [(0, "-too-small-y"), (20, "-tall")]

    def __init__(
        self,
        settings: Settings,
        table: Any = None,  # a game's TableController
        network: NetworkLaunch | None = None,
        learn: str | None = None,
        watch: WatchLaunch | None = None,
    ) -> None:
        super().__init__()
        share_parsed_css(self)
        self._first_watch = watch  # cuttle watch: the table to watch
        self.settings = settings
        self._first_lessons = learn  # cuttle learn: the lesson list, at this game's lessons
        self.trio = TrioGuest()  # the app's one trio run: lobby browsing, network games
        self._first_table = table
        self._first_network = network
        # The command's own network game (cuttle host, join, watch): its exit status.
        self._first_meeting: Joining | TableSeat | Onlooker | None = None
        self.player_name = settings.name or saved_name(settings.config_dir)
        self.farewell = ""  # said on the terminal once the app is gone: a game left, conceded

    async def on_event(self, event: events.Event) -> None:
        # A terminal sends Esc and a key pressed right after it (tmux's send-keys, a quick
        # hand) as one alt+key, and no screen here has alt keys: they are the two keys.
        two = None
        if isinstance(event, events.Key) and not event.is_forwarded and self.screen_stack:
            two = _escape_then(event.key, self.screen.active_bindings)
        if two is None:
            await super().on_event(event)
            return
        for key in two:
            await super().on_event(events.Key(key, key if len(key) == 1 else None))

    def on_mount(self) -> None:
        self.trio.start()
        # The name games are played under (the login name until one is chosen): after a
        # first `cuttle play` or `join`, the lobby showed an empty field.
        self.lobby = LobbyScreen(self.name_to_show, lan=self.settings.lan)
        self.push_screen(self.lobby)
        if self._first_table is not None:
            self.open_table(self._first_table)
        elif self._first_network is not None:
            self._first_meeting = self.open_network(self._first_network)
        elif self._first_watch is not None:
            self._first_meeting = self.open_watch(self._first_watch, quits=True)
        elif self._first_lessons is not None:
            self.push_screen(LearnScreen(self._first_lessons))
        else:
            if self.player_name is None:  # the first run: ask, offering the login name
                self.push_screen(NameScreen(login_name()), self._name_chosen)
            self._mention_unfinished_games()

    def _mention_unfinished_games(self) -> None:
        """Seats a killed or departed client left unfinished: how to take them back."""
        for h in unfinished_tables(self.settings.data_dir or default_data_dir()):
            if h.role == "joiner":
                if _dialable(h.address):  # Join (j) then Enter takes it back
                    self.lobby.suggest_join(h.address)
                where = f"join {h.address}"
            else:  # Host (h) then takes it back: the port is offered in its row
                self.lobby.suggest_port(h.port)
                where = f"host on port {h.port}"
            self.notify(
                visible(
                    f"Your seat at a table of {_title(h.game)} is unfinished: {where} "
                    "again to take it back (the others wait about a minute after a drop)."
                ),
                title="Unfinished game",
                timeout=15,
                markup=False,  # a peer's address
            )

    def _name_chosen(self, name: str | None) -> None:
        if name:
            self.player_name = name
            unkept = save_name(name, self.settings.config_dir)
            self.lobby.show_name(name)
            if unkept:
                self.lobby.notice(f"Your name is {name}, not kept for the next runs: {unkept}")

    def on_lobby_screen_name_changed(self, event: LobbyScreen.NameChanged) -> None:
        problem = name_problem(event.name)
        if problem:
            self.lobby.show_name(self.name_to_show)  # not the refused one
            self.lobby.notice(f"Name not changed (still {self.name_to_show}): {problem}")
            return
        self.lobby.notice(f"Other players will see you as {event.name}.")
        self._name_chosen(event.name)  # (its notice, if the name could not be kept)

    @property
    def name_to_show(self) -> str:
        return self.player_name or login_name()

    async def on_unmount(self) -> None:
        await self.trio.aclose()

    async def action_quit(self) -> None:
        """ctrl+q: at a table or a practice game in progress, ask first."""
        table = self._table_in_progress()
        if table is not None:
            await self._quit_table(table)
            return
        await self._quit_practice()

    async def _quit_practice(self) -> None:
        """ctrl+q at a practice game in progress asks first; a Cuttle game is then conceded,
        so that its record is saved."""
        practices = (getattr(s, "controller", None) for s in self.screen_stack)
        practice = next(
            (
                p
                for p in practices
                if isinstance(p, Practising)
                and p.ending is None
                and not isinstance(p, Coaching)  # a lesson has nothing to lose: quit at once
            ),
            None,
        )
        if practice is None:
            self.exit()
            return
        if any(isinstance(s, ConfirmScreen) for s in self.screen_stack):
            return  # already asking

        def answer(yes: bool | None) -> None:
            if yes:
                practice.quit_game()
                self.exit()

        self.push_screen(ConfirmScreen(practice.quit_question), answer)

    def _table_in_progress(self) -> TableSeat | None:
        tables = (getattr(s, "controller", None) for s in self.screen_stack)
        return next((t for t in tables if isinstance(t, TableSeat) and t.game_in_progress), None)

    async def _quit_table(self, table: TableSeat) -> None:
        if any(isinstance(s, ConfirmScreen) for s in self.screen_stack):
            return  # already asking

        async def answer(yes: bool | None) -> None:
            if yes:
                await self._leave_table(table)

        self.push_screen(ConfirmScreen(table.leave_question), answer)

    async def _leave_table(self, table: TableSeat) -> None:
        await table.aclose()  # leaves: every seat is told, our record is saved
        self.farewell = table.farewell
        self.exit()

    async def quit_for_signal(self) -> None:
        """SIGINT, SIGTERM or SIGHUP (``stopping.run_app``): quit as ``ctrl+q`` then *leave*
        would, without asking: a game in progress is left (the other player may wait for us
        to come back), never conceded."""
        table = self._table_in_progress()
        if table is not None:
            await self._leave_table(table)
        else:
            self.exit()

    def on_lobby_screen_host_requested(self, event: LobbyScreen.HostRequested) -> None:
        module = game_module(event.game)  # the lobby's players, where the game has a choice
        players = event.players if event.players in module.seats else module.seats[0]
        game, token = event.game, module.parse_rules(event.rules, players).name
        data = self.settings.data_dir or default_data_dir()
        for h in unfinished_tables(data):  # the table left unfinished on that port comes back
            if h.role == "host" and h.port == event.port:  # as it was, whatever the lobby shows
                game, players, token = h.game, h.seats, h.token
        self._plan_network(
            "host",
            game=game,
            players=players,
            token=token,
            port=event.port,
            announce=self.settings.lan,
            map_port=True,  # as `cuttle host` does: players may come from the internet
        )

    def on_lobby_screen_join_requested(self, event: LobbyScreen.JoinRequested) -> None:
        self._plan_network("join", address=event.address)

    def on_lobby_screen_watch_requested(self, event: LobbyScreen.WatchRequested) -> None:
        if not _dialable(event.address):
            self.lobby.notice(f"Not an address or an invitation: {event.address}")
            return
        settings = self.settings
        name = self.name_to_show
        self.open_watch(WatchLaunch(event.address, name, settings.config_dir, settings.data_dir))

    def _plan_network(
        self, mode: str, game: str = DEFAULT_GAME, players: int = 2, token: str = "", **how: object
    ) -> None:
        """Check the address and name before connecting: a typo is said in the lobby."""
        try:
            plan = NetPlan(
                mode,
                self.name_to_show,
                config_dir=self.settings.config_dir,
                **how,  # type: ignore[arg-type]
            )
        except ValueError as e:
            self.lobby.notice(str(e))
            return
        self.open_network(NetworkLaunch(plan, game=game, players=players, rules_token=token))

    def open_network(self, launch: NetworkLaunch) -> Joining | TableSeat:
        """Meet the other players on a connect screen, then play at a table; the meeting's
        controller."""
        plan = launch.plan
        controller: Joining | TableSeat
        if plan.mode == "host":  # a table of the game's seats, Cuttle's two included
            # The game's default rules unless a token is given.
            token = launch.rules_token or game_ui(launch.game).default_rules
            where = Hosting(
                launch.game,
                launch.players,
                token,
                plan.port,
                plan.bind,
                plan.announce,
                plan.map_port,
                plan.max_watchers,
                watcher_chat=plan.watcher_chat,
            )
            data, config = self.settings.data_dir, plan.config_dir
            game = game_ui(launch.game)
            controller = game.seat_class()(plan.name, launch.settings, data, config, where)
            controller.bot_delay = self.settings.bot_delay  # the bots the host may add
            title = f"cuttle · Hosting a table of {launch.players}: {game.title}"
        else:
            controller = Joining(plan, launch.settings, self.settings.data_dir)
            title = "cuttle · Joining a table"

        if self.settings.bell:
            controller.bell = self.bell

        def dealt() -> None:
            self.pop_screen()  # the connect screen
            # A joiner learns only now whether the host seats a table.
            self.open_table(getattr(controller, "table", None) or controller)

        self.push_screen(ConnectScreen(controller, dealt, title))
        return controller

    def open_watch(self, launch: WatchLaunch, quits: bool = False) -> Onlooker:
        """Watch a table: the connect screen until its game begins, then the watch screen
        (``quits``: closing it quits the app, as ``cuttle watch``'s)."""
        onlooker = Onlooker(launch)

        def began() -> None:
            self.pop_screen()  # the connect screen
            self.push_screen(WatchScreen(onlooker, self.settings.ascii, quits=quits))

        self.push_screen(ConnectScreen(onlooker, began, "cuttle · Watching a table"))
        return onlooker

    @property
    def command_status(self) -> int:
        """The exit status of ``cuttle host`` or ``cuttle join``: 1 if its meeting failed
        before any game (nobody there, a refused handshake, a table closed before the
        deal); else 0, also when the player cancelled."""
        meeting = self._first_meeting
        if isinstance(meeting, Onlooker):  # cuttle watch: 0 if every game watched verified
            return meeting.status_code or 0
        table = getattr(meeting, "table", None)  # a join that reached a table's host
        return 1 if meeting is not None and (table or meeting).failed else 0

    def on_lobby_screen_practice_requested(self, event: LobbyScreen.PracticeRequested) -> None:
        """From the lobby: a practice game on a random deal."""
        s = self.settings
        how = {"bot_delay": s.bot_delay, "records": s.games(), "player": self.name_to_show}
        game = game_ui(event.game)
        self.open_table(game.new_practice(event.bot, event.rules, event.players, None, **how))

    def on_lobby_screen_learn_requested(self, event: LobbyScreen.LearnRequested) -> None:
        self.push_screen(LearnScreen(event.game))

    def open_lesson(self, game: str, index: int) -> None:
        """Lesson ``index`` of ``game``, on that game's practice table."""
        s = self.settings  # the player's name: no other seat has it
        self.open_table(lesson_table(game, index, s.bot_delay, s.config_dir, self.name_to_show))

    def open_table(self, controller: Any) -> None:
        """The table screen of ``controller``'s game (a game's ``TableController``)."""
        # A lesson's table says so (its banner then gives the lesson's number and name).
        title = controller.table_title if isinstance(controller, Coaching) else None
        game = game_ui(controller.game_name)
        self.push_screen(game.new_table_screen(controller, self.settings.ascii, title))


def make_app(
    settings: Settings | None = None,
    practice: Practice | None = None,
    network: NetworkLaunch | None = None,
    learn: str | None = None,
    watch: WatchLaunch | None = None,
) -> CuttleApp:
    """The app, opening at the lobby, a practice table, a network game's connect screen, or
    the lessons (``learn``: the game whose lessons come first)."""
    settings = settings or Settings()
    table = None
    if practice is not None:
        # The person's name, for practice records (the table itself says "You").
        player = settings.name or saved_name(settings.config_dir) or login_name()
        p, how = practice, {"bot_delay": settings.bot_delay, "records": settings.games()}
        table = game_ui(p.game).new_practice(
            p.bot, p.rules, p.players, p.seed, player=player, **how
        )
    return CuttleApp(settings, table, network, learn, watch)


def _title(game: str) -> str:
    """A game's title for the player (a journal names its game; an unknown one as is)."""
    try:
        return game_ui(game).title
    except ValueError:
        return game


def _escape_then(key: str, bound: Mapping[str, object]) -> tuple[str, str] | None:
    """("escape", "w") for alt+w (Esc then w, as the terminal sent them) where no binding
    takes it; else None."""
    alt, _, plain = key.partition("+")
    if alt != "alt" or len(plain) != 1 or key in bound:
        return None
    return "escape", plain


def _dialable(address: str) -> bool:
    """An address a joiner could dial (a journal is a file its owner may have edited)."""
    try:
        if is_invitation(address):
            Invitation.decode(address)
        else:
            parse_address(address)
    except ValueError:
        return False
    return True
