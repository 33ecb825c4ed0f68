"""Meeting the other players in the terminal client: a joiner's meeting with its host, and
the screen that shows the connection being made (the address to give, the code to compare).

The meeting runs under trio as a guest of Textual's asyncio loop (``TrioGuest``): trio's
tasks run on the UI thread, so events update the controller and the screen directly, and
the UI hands answers to trio with ``run_sync_soon``.  Every game is played at a table
(SPEC 3.15): once the host is met, the table's game is played by that game's table seat
(``seat.TableSeat``), which takes the connect screen over.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar

from cuttle_protocol.play import Connected, GameSettings, NetPlan, open_game_peer
from cuttle_protocol.shells import ConnectionEnded
from cuttle_protocol.store import (
    ConfigError,
    JournalDamaged,
    default_config_dir,
    load_or_create_identity,
)
from cuttle_protocol.wire import is_invitation
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Static

from .cli_table import Rejoin, has_table_seat, journal_words, journaled_game
from .footer import Footer
from .games import game_ui
from .modals import ConfirmScreen
from .peertext import plain
from .seat import Meeting, sentence
from .tablewidgets import TooSmall


class Joining(Meeting):
    """A joiner meeting its host (``cuttle join``, the lobby's Join): the handshake, then
    ``table``: the seat of the table's game, which plays it and takes this meeting's connect
    screen and task over (a changed key is warned about beside the table's code, which the
    player confirms: SPEC 3.11)."""

    def __init__(
        self,
        plan: NetPlan,
        settings: GameSettings | None = None,
        data_dir: Path | None = None,
    ) -> None:
        Meeting.__init__(self)
        self.plan, self.settings, self.data_dir = plan, settings or GameSettings(), data_dir
        self.table: Any = None  # the TableSeat, once the host is met
        self.bell: Callable[[], None] = lambda: None  # for the table's seat: the turn came

    async def _main(self) -> None:
        plan = self.plan
        try:
            if plan.mode == "join" and has_table_seat(self.data_dir, plan.address):
                # A seat kept by its journal: take it back (SPEC 4.6).
                try:
                    game = journaled_game(self.data_dir, plan.address)
                except JournalDamaged as e:
                    self._give_up(sentence(journal_words(e)))
                    return
                identity = load_or_create_identity(plan.config_dir or default_config_dir())
                await self._sit_at_table(Rejoin(identity, game=game))
                return
            async with open_game_peer(plan, self._tell) as conn:
                await self._sit_at_table(conn)
        except ConnectionEnded as e:
            self._give_up(f"The connection ended: {e.message}")
        except ConfigError as e:
            self._give_up(f"Cannot use the config directory: {e}")

    async def _sit_at_table(self, conn: Connected | Rejoin) -> None:
        """The table's game is played by that game's table seat (``games.py``), which takes
        this connect screen and task over (or we take back a journaled seat: ``Rejoin``)."""
        plan = self.plan
        game = conn.game if isinstance(conn, Rejoin) else conn.peer.info.rules.rules
        try:
            seat = game_ui(game).seat_class()
        except ValueError as e:
            self._give_up(f"Cannot sit at this table: {e}")
            return
        self.table = seat(plan.name, self.settings, self.data_dir, plan.config_dir)
        self.table.verified = getattr(getattr(conn, "peer", None), "verified", False)
        self.table.bell = self.bell
        self.table.follow(self)
        await self.table.join(conn, plan.address)


class ConnectScreen(Screen[None]):
    """Meeting the other players: where to find us, who answered (who is seated at a table),
    the code to compare.  ``controller`` is a joiner's ``Joining`` or a host's table seat:
    both ``connect`` with these hooks and keep ``status``."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("c", "copy_invitation", "Copy invitation"),
        # A host's table, while seats are free (`TableSeat.bots`): the #bots line names them.
        Binding("b", "add_bot", "Add bot"),
        Binding("v", "bot_level", "Bot level"),
        Binding("x", "remove_bot", "Remove bot"),
    ]
    # Named on the screen too: left out of the footer when it is too narrow for every key.
    FOOTER_SPARE = frozenset({"copy_invitation", "bot_level", "remove_bot"})

    def __init__(self, controller: Any, open_table: Callable[[], None], title: str) -> None:
        super().__init__()
        self.controller = controller
        self._open_table = open_table
        self._title = title
        self._handed_over = False  # the table took the controller over
        self._invitation = ""  # the command that joins us by invitation, once printed

    def compose(self) -> ComposeResult:
        yield Static(self._title, id="title", classes="fits")
        yield TooSmall()
        bots = Static("", id="bots", classes="fits")  # a host's: the keys that add bots
        bots.display = False  # (shown once there are any: a joiner's story starts up here)
        yield bots
        yield Static("", id="connect-status", classes="fits")
        # Its own widget: a selection (double-click) copies the command whole, where the
        # terminal's own copy of its wrapped rows would break it in two.
        yield Static("", id="invitation", classes="fits")
        yield Footer()

    def on_mount(self) -> None:
        self.controller.connect(
            self.app.trio,  # type: ignore[attr-defined]
            self._show_status,
            self._dealt,
            self._ask_about_code,
            self._warn,
        )

    def _warn(self, text: str) -> None:
        self.notify(text, severity="warning", timeout=30, markup=False)

    def _ask_about_code(self, table: Any) -> None:
        self.app.push_screen(ConfirmScreen(table.code_question()), table.answer_code)

    async def on_unmount(self) -> None:
        if not self._handed_over:  # cancelled, or the app is quitting
            await self.controller.aclose()

    def _dealt(self) -> None:
        self._handed_over = True
        self._open_table()

    def _show_status(self) -> None:
        if self._handed_over or not self.query("#connect-status"):
            # The table took over (or the screen was closed): the shells still log to
            # ``status`` (a connection lost mid-game), but this screen shows it no more.
            return
        lines, self._invitation = invitation_apart(self.controller.status)
        status = plain("\n".join(lines))  # it names the peers
        self.query_one("#connect-status", Static).update(status)
        if self._invitation:
            self.query_one("#invitation", Static).update(plain(in_groups(self._invitation)))
        bots = getattr(self.controller, "bots", None)
        if bots is not None:
            problem = f"{bots.problem}\n" if bots.problem else ""  # (it quotes a peer)
            words = self.query_one("#bots", Static)
            words.update(plain(problem + bots.hint()))
            words.display = bool(problem or bots.hint())
        self.refresh_bindings()
        table = getattr(self.controller, "table", None)
        if table is not None and table.game:  # the host we joined seats a table
            game = game_ui(table.game).title
            title = f"cuttle · Joining a table of {table.players}: {game}"
            self.query_one("#title", Static).update(title)

    def action_cancel(self) -> None:
        self.app.pop_screen()  # unmounting closes the connection

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        bots = getattr(self.controller, "bots", None)
        if action == "copy_invitation":
            return bool(self._invitation)
        if action in ("add_bot", "bot_level"):
            return bots is not None and bots.can_add
        if action == "remove_bot":
            return bots is not None and bots.can_remove
        return True

    def action_add_bot(self) -> None:
        """A bot sits at a free seat of the table we host, at the level shown."""
        self.controller.add_bot()

    def action_bot_level(self) -> None:
        self.controller.bots.next_level()

    def action_remove_bot(self) -> None:
        """The last bot added leaves (while the table still waits)."""
        self.controller.remove_bot()

    def action_copy_invitation(self) -> None:
        """The invitation to the clipboard (OSC 52: most terminals, not macOS Terminal)."""
        self.app.copy_to_clipboard(self._invitation)
        self.notify(
            "Copied to the clipboard, if your terminal lets programs do that: paste it in a chat.",
            title="Invitation",
        )


INVITATION_BELOW = "  (below: c copies it, or double-click it then ctrl+c)"


INVITATION_GROUP = 8  # letters: a group of a base32 invitation, as it is shown


def in_groups(command: str) -> str:
    """``cuttle join cuttle:…`` as the screen shows it: the invitation in groups of
    letters, so that a screen narrower than the command (80 columns: it takes about 90)
    wraps it between two groups, never inside one. A reader drops the spaces (SPEC 3.14),
    ``cuttle join`` and the Join field take it in pieces; ``c`` copies it in one piece."""
    head, _, invitation = command.rpartition(" ")
    prefix, _, letters = invitation.partition(":")
    step = INVITATION_GROUP
    groups = [letters[i : i + step] for i in range(0, len(letters), step)]
    return f"{head} {prefix}:{' '.join(groups)}"


def invitation_apart(status: Sequence[str]) -> tuple[list[str], str]:
    """The meeting's story without its invitation commands, and the last invitation command
    (``cuttle join cuttle:…``, the best one: with the router's address once mapped)."""
    lines, invitation = [], ""
    for line in status:
        words = line.split()
        if len(words) == 3 and " ".join(words[:2]) == "cuttle join" and is_invitation(words[2]):
            invitation = " ".join(words)
            line = INVITATION_BELOW
        lines.append(line)
    return lines, invitation
