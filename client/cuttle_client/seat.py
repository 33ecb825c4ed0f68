"""A seat at a networked table, for every game (SPEC 3.15): what the connect screen drives
(``Meeting``), and ``TableSeat``, the one network seat of the client, fed by the session
that `play_at_table` runs for it.

The table runs as a task of the app's trio run (a guest of Textual's loop, ``TrioGuest``),
so its hooks update the seat on the UI thread: ``_watch`` follows the table (who is seated,
the code, a connection lost and won back) and hands each session ``Step`` to the game's
seat (``_step``), ``_choose`` awaits the player's move, ``_confirm`` asks the player to
compare the table code.  Before the deal the connect screen shows ``status`` (where to be
found, who is seated, the code); the game's table screen opens once the cards are dealt.

A game's seat is ``TableSeat`` and that game's controller (``games.py`` names it): it keeps
``_view`` from the session (``_step``), says how the game ended (``_finished``), and sends
the player's moves with ``_send``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import trio
from cuttle_protocol.errors import ErrorCode
from cuttle_protocol.play import (
    Connected,
    GameSettings,
    Progress,
    SeatOrder,
    Step,
    TableGame,
    TableMatch,
    seat_key,
)
from cuttle_protocol.shells import (
    NOT_BACK,
    ConnectionEnded,
    Reconnected,
    Reconnecting,
    SeatAway,
    SeatBack,
    TableShell,
    TableTimeouts,
)
from cuttle_protocol.store import ConfigError, JournalDamaged, JournalInUse, JournalKept
from cuttle_protocol.table import (
    Chat,
    CodeShown,
    Lobby,
    Muted,
    Rematch,
    Started,
    TableEnded,
    TableGuest,
    Watching,
)
from cuttle_protocol.wire import CodeAlarm

from cuttle_net.games.interface import game_module
from cuttle_net.session import GameSession

from .chat import TOO_FAST
from .cli_table import Hosting, Rejoin, journal_words, sit_at_table
from .progress import alarm_words, listen_words, no_game_words, progress_lines, seat_words
from .tablebots import TableBots
from .trio_guest import GuestTask, TrioGuest


def sentence(line: str) -> str:
    """A line of words (``journal_words``…) as a sentence on the connect screen."""
    return line[0].upper() + line[1:] + "."


class Meeting:
    """What the connect screen drives, a joiner's meeting or a table seat: the story of the
    meeting (``status``), and the screen's hooks, given by ``connect``: ``on_status`` (the
    story grew), ``on_ready`` (the cards are dealt: open the table), ``on_code(table)`` (ask
    the player to compare a table's code, a changed key warned about beside it),
    ``on_alarm(text)`` (tries at our code pile up: warn, SPEC 3.11)."""

    def __init__(self) -> None:
        self.status: list[str] = []
        self.failed = ""  # why the meeting ended before any table opened (else "")
        self._guest: TrioGuest | None = None
        self._task: GuestTask | None = None
        self._on_status: Callable[[], None] = lambda: None
        self._on_ready: Callable[[], None] = lambda: None
        self._on_code: Callable[[Any], None] = lambda table: None
        self._on_alarm: Callable[[str], None] = lambda text: None

    def connect(
        self,
        guest: TrioGuest,
        on_status: Callable[[], None],
        on_ready: Callable[[], None],
        on_code: Callable[[Any], None] = lambda table: None,
        on_alarm: Callable[[str], None] = lambda text: None,
    ) -> None:
        """Start meeting the other players in ``guest`` (``_main``), with these hooks."""
        self._on_status, self._on_ready = on_status, on_ready
        self._on_code, self._on_alarm = on_code, on_alarm
        self._guest, self._task = guest, guest.start_task(self._main)

    def follow(self, other: Meeting) -> None:
        """Take over ``other``'s connect screen and task (a joiner's connection reached a
        table's host: the table goes on where the joiner's meeting began)."""
        self.status = other.status
        self._guest, self._task = other._guest, other._task
        self._on_status, self._on_ready = other._on_status, other._on_ready
        self._on_code = other._on_code
        self._on_alarm = other._on_alarm

    async def _main(self) -> None:
        raise NotImplementedError

    def _say(self, line: str) -> None:
        self.status.append(line)
        self._on_status()

    def _tell(self, event: Progress) -> None:
        self.status.extend(progress_lines(event))
        self._on_status()

    def _alarm(self, alarm: CodeAlarm) -> None:
        """Tries at our code pile up: in the story, and as a warning the player sees even
        when the story has grown past the screen."""
        words = alarm_words(alarm)
        self._say(words)
        self._on_alarm(words)

    def _give_up(self, why: str) -> None:
        """The meeting ended before any game: said on the connect screen, and kept for the
        command's exit status (``cuttle join`` that could not join exits 1)."""
        self.failed = why
        self._say(why)

    def close(self) -> None:
        """Cancel the task, then close the controller (the next class in the MRO), if any:
        a joiner's meeting and a watcher have none."""
        if self._task is not None:
            self._task.cancel()
        self._close_controller()

    async def aclose(self) -> None:
        """Wait for the task to unwind, then close the controller, if any."""
        if self._task is not None:
            await self._task.aclose()
        self._close_controller()

    def _close_controller(self) -> None:
        close = getattr(super(), "close", None)
        if close is not None:
            close()


class TableSeat(Meeting):
    """This player's seat at a table of people (and bots) on other machines, any game.

    Host: ``Seat(name, ..., hosting=Hosting(...))``, given to a ``ConnectScreen`` (which
    calls ``connect``).  Join: ``cuttle join`` meets the host first (``network.Joining``),
    which hands the connection over to the seat of the table's game (``follow``, ``join``).
    The game's controller (the next class in the MRO) gives ``_view``, ``ending``, ``busy``,
    ``seat``, ``names``, ``log`` and ``_changed``.

    The table plays a match (SPEC 3.15, *Another game*): game after game while every
    player agrees (``rematch``, r on the game-over panel), the deal passing on; and a seat
    whose process died is rebuilt from its journal (SPEC 4.6), shown at once."""

    @property
    def leave_question(self) -> str:
        if self._view is None:  # still seating: no game to lose
            return "Leave this table? No game has been dealt: the others are told you left."
        return "Leave this table? The game stops for everyone, and you lose it."

    farewell = ""  # said in the lobby once the player left mid-game (where the record is)
    label = "table"
    bot_delay = 0.0  # a host's bots: seconds before each of their moves (the app sets it)
    bots: TableBots | None = None  # a host's: the bots it adds while its table waits
    _view: Any
    ending: Any
    busy: bool
    can_rematch: bool
    log: list[Any]
    seat: int
    names: tuple[str, ...]
    players: int
    _host: Any
    can_chat: bool
    chat: Any  # `chat.TableChat`, the game's controller's (`chat.Talker`)

    def __init__(
        self,
        name: str,
        settings: GameSettings | None = None,
        data_dir: Path | None = None,
        config_dir: Path | None = None,
        hosting: Hosting | None = None,
    ) -> None:
        Meeting.__init__(self)
        self.name, self.hosting = name, hosting
        self.game = hosting.game if hosting else ""  # a joiner learns it from the host
        self.players = hosting.players if hosting else 2
        self.settings = settings or GameSettings()
        self.data_dir, self.config_dir = data_dir, config_dir
        self.session: GameSession | None = None
        self.record: Path | None = None  # where our record was saved
        self.code = ""  # the table code, once every seat revealed
        self._table: TableShell | None = None
        self._move_in, self._moves = trio.open_memory_channel[Any](1)
        self._answer_in, self._answers = trio.open_memory_channel[bool](1)
        self._again_in, self._agains = trio.open_memory_channel[bool](1)  # "r" between games
        self.between = ""  # between games: who proposed, who agreed, who left
        self._asked = ""  # between games: the proposal, or our own wish, in words
        self._yes: list[str] = []  # the other players who agreed to the next game
        self._number = 1  # the number of the game under way (or the last one)
        self._last: Any = None  # the last game's ending (shown again between games)
        self._place = 0  # our place in the lobby (our seat once the table is full)
        self._lobby_names: dict[int, str] = {}
        self._lobby_line: str | None = None  # who sits at the table, as last told
        self._seats: list[str] = []  # every game seat's name, once the game starts
        self._order = SeatOrder(0, 1)  # table seats -> game seats, once the game starts
        self._differs = False  # the player said the code differs
        self._leaving = False  # the player left (or cancelled): not a failure to meet
        self.reconnecting = ""  # what to show while the lost connection is being won back
        self._away: dict[int, float] = {}  # host: table seat -> when its reconnect window ends
        self._ticking = False  # a redraw is due in a second (the countdown of `away`)
        # The move clock: the game seat that owes a move, and when its move timeout ends
        # (time.monotonic(): the screen's timers read it outside trio).
        self._clock: tuple[int, float] | None = None
        self.verified = False  # joined by invitation: the host proved the invitation's key
        self.bell: Callable[[], None] = lambda: None  # rings when the player's turn comes

    async def _main(self) -> None:
        """Host the table (the connect screen's ``connect`` starts it)."""
        assert self.hosting is not None
        bots = TableBots(self.game, self._timeouts(), self.bot_delay, lambda: self._on_status())
        self.bots = bots
        async with bots.running():  # the bots end with the table
            try:
                match = await sit_at_table(
                    self.name, self.hosting, listening=bots.listening, **self._hooks()
                )
            except (JournalDamaged, JournalInUse, JournalKept) as e:
                self._stopped(sentence(journal_words(e)))
                return
            except ConfigError as e:
                self._stopped(f"Cannot use the config directory: {e}")
                return
            except OSError as e:
                self._stopped(sentence(listen_words(self.hosting.port, e)))
                return
            self._match_over(match)

    # -- a host's bots, while the table waits (the connect screen's b, v, x)

    def add_bot(self) -> None:
        if self._guest is not None and self.bots is not None:
            self._guest.run_sync_soon(self.bots.add)

    def remove_bot(self) -> None:
        if self._guest is not None and self.bots is not None:
            self._guest.run_sync_soon(self.bots.remove)

    def _bots_only(self) -> bool:
        """Every other seat is a bot we added: its key was made here, and the handshake
        proved it, so there is no code to compare with anyone."""
        others = self._others()
        bots = self.bots
        return bots is not None and bool(others) and all(bots.ours(s.identity) for s in others)

    def _others(self) -> list[Any]:
        """The other seats at the table, once every seat is taken (their `SeatInfo`)."""
        core = self._table.core if self._table is not None else None
        return [s for s in core.seats if s.seat != core.me] if core is not None else []

    async def join(self, conn: Connected | Rejoin, address: str) -> None:
        """Sit at the table whose host ``conn`` reached at ``address`` (``cuttle join``), or
        take back the seat journaled at ``address`` (``Rejoin``)."""
        try:
            match = await sit_at_table(self.name, conn, address=address, **self._hooks())
        except (JournalDamaged, JournalInUse, JournalKept) as e:
            self._stopped(sentence(journal_words(e)))
            return
        except ConnectionEnded as e:
            self._stopped(f"The connection ended: {e.message}")
            return
        self._match_over(match)

    def _timeouts(self) -> TableTimeouts:
        s = self.settings
        return TableTimeouts(s.reply_timeout, s.move_timeout, s.reconnect_window)

    def _hooks(self) -> dict[str, Any]:
        return dict(
            config_dir=self.config_dir,
            timeouts=self._timeouts(),
            data_dir=self.data_dir,
            say=self._say,
            tell=self._tell,
            seated=self._seated,
            alarm=self._alarm,
            choose=self._choose,
            watch=self._watch,
            confirm=self._confirm,
            match=True,  # game after game while every player agrees (SPEC 3.15)
            games=None,
            again=self._again,
            report=lambda game, totals: self._report(game),
            resumed=lambda games, totals: self._earlier(games),
        )

    def _say(self, line: str) -> None:
        self.status.append(line)
        self._on_status()

    def _tell(self, event: Progress) -> None:
        lines = progress_lines(event)
        if isinstance(event, Lobby) and self.bots is not None:
            self.bots.follow(event)  # (the seats left for bots)
        if isinstance(event, Lobby):  # who is seated now, in place of who was
            if self._lobby_line in self.status:
                self.status.remove(self._lobby_line)
            self._lobby_line = lines[0]
        self.status.extend(lines)
        self._on_status()

    def _seated(self, table: TableShell) -> None:
        self._table = table
        self.can_chat = True

    # -- a word to the table (SPEC 3.15): never the game's

    def say(self, text: str) -> None:
        """Send a line to the table: it shows once the host relays it back."""
        if self._guest is not None:
            self._guest.run_sync_soon(self._say_now, text)

    def _say_now(self, text: str) -> None:
        if self._table is not None and not self._table.say(text):
            self.chat.note(TOO_FAST)
            self._changed()

    def _chat_name(self, seat: int) -> str:
        """Who said a line: table seat ``seat``'s name, ours "You"."""
        return "You" if seat == self._me else self._table_name(seat)

    async def _confirm(self, event: CodeShown) -> bool:
        self.code = event.code
        self._show_code(f"code {event.code}")
        if self.verified and self.players == 2:
            # The only other key at the table is the host's, which the invitation named
            # and the handshake proved (SPEC 3.14): nothing to compare.  (The table's shell
            # says so in the meeting's story.)
            self._show_code(f"verified · code {event.code}")
            return True
        if self._bots_only():
            self._say(f"every other seat is a bot of yours: no code to compare ({event.code})")
            return True
        self._on_code(self)
        same = await self._answers.receive()
        if same:
            self._say("you confirmed the code: waiting for every other player to confirm it…")
        self._differs = not same
        return same

    def _show_code(self, words: str) -> None:
        """The table code in the title: the table's label, and the banner beside it."""
        self.banner = words
        self.label = f"table · {words}"

    def code_question(self) -> str:
        """What the player is asked once every seat is taken: the others, and the code."""
        assert self._table is not None
        bots = self.bots
        seated = "\n".join(
            f"seat {s.seat}: {seat_words(seat_key(self._table, s))}"
            + (" · your bot" if bots is not None and bots.ours(s.identity) else "")
            for s in self._others()
        )
        if self.verified:  # the host's key is proven; the others' only through the code
            seated += "\n(the host is verified by the invitation)"
        return (
            f"{seated}\n\nThe table's code is {self.code}. Read it aloud with every "
            "other player (or over a call or message of your own: not in this table's "
            "chat, which opens after the deal and goes through the host): does each of "
            "them see this same code? (n: it differs; you leave the table)"
        )

    def answer_code(self, same: bool | None) -> None:
        """The player compared the table code with every other player's."""
        assert self._guest is not None
        self._guest.run_sync_soon(self._answer_in.send_nowait, bool(same))

    # -- the game

    def _lobby(self, lobby: Lobby) -> None:
        """Who is seated so far (a game's seat may read the table's settings)."""

    def _step(self, session: GameSession, events: list[object]) -> None:
        """The session moved: keep ``_view`` and the log (the game's seat)."""
        raise NotImplementedError

    def _finished(self, game: TableGame) -> None:
        """A game is over: how it ended, in words, in ``ending`` (the game's seat)."""
        raise NotImplementedError

    def _logged(self, seat: int | None, move: Any, before: Any) -> None:
        """Log ``move`` by ``seat`` (None: chance) from the view ``before`` it and
        ``_view`` after it (the game's seat)."""
        raise NotImplementedError

    def _replayed(self, session: GameSession) -> None:
        """The seat was rebuilt mid-game from its journal: the log of the moves so far,
        in the same words as a live log, from this seat's views replayed by the session."""
        now = self._view
        for seat, move, before, after in session.views():
            self._view = after
            self._logged(seat, move, before)
        self._view = now

    def _new_game(self) -> None:
        """The next game of the match is dealt: forget the last one's (the game's seat)."""

    def _open(self) -> None:
        """The cards are dealt: the table screen opens (once; later deals redraw it)."""
        ready, self._on_ready = self._on_ready, self._changed
        ready()

    def _watch(self, item: object) -> None:
        if isinstance(item, Lobby):
            self._place = item.you
            self._lobby_names = {p.seat: p.name for p in item.players}
            self.game, self.players = item.settings.game, item.settings.seats
            self._lobby(item)
        elif isinstance(item, Started):
            self._turn_seats(item.seats, item.dealer)
            self._number = item.number
            if item.number > 1:
                self._next_game()
            else:
                self._say("every player confirmed the code: dealing…")
        elif isinstance(item, Rematch):
            self._agreed(item)
        elif isinstance(item, Watching):  # the host's word, in the log (SPEC 3.15)
            self.watching = watching_words(item)
            self._changed()
        elif isinstance(item, Chat | Muted):
            self.chat.heard(item, self._chat_name)
            self._changed()
        elif isinstance(item, Step):
            if self.session is None and not self._seats and self._table is not None:
                core = self._table.core  # rebuilt from our journal: no Started was seen
                self._turn_seats(core.seats, core.game_dealer)
                self._number = max(core.game, 1)
                self._known_code()  # nor its CodeShown
            self._step(item.session, item.output.events)
            if self._view is None and not item.output.events and item.session.view is not None:
                self._resumed(item.session)
        elif isinstance(item, TableEnded) and self._view is None:
            self._give_up(self._before_the_deal(item))
        elif isinstance(item, TableEnded) and self.session is not None and self.session.finished:
            self._match_ended(item)
        elif isinstance(item, Reconnecting):  # our connection to the host (SPEC 4.6)
            # What is happening first: at 80 columns the status line ends about here.
            self.reconnecting = f"reconnecting to the host… (connection lost: {item.why})"
            self._changed()
        elif isinstance(item, Reconnected):
            self.reconnecting = ""
            self._changed()
        elif isinstance(item, SeatAway):  # a joiner's connection to us, the host
            self._away[item.seat] = time.monotonic() + item.window
            self._changed()
            self._keep_ticking()
        elif isinstance(item, SeatBack):
            self._away.pop(item.seat, None)
            self._changed()
        if isinstance(item, TableEnded):
            self._away.clear()  # the ending says who did not come back
        self._wind_clock()

    def _turn_seats(self, seats: Sequence[Any], dealer: int) -> None:
        """The game's seats (SPEC 4.1): the table's, turned as `play_at_table` turns them
        for this game's dealer."""
        count = len(seats)
        assert self._table is not None and self._table.core.settings is not None
        module = game_module(self._table.core.settings.game)
        self._order = SeatOrder.of(module, count, dealer)
        self._seats = [seats[self._order.table(g)].name for g in range(count)]

    def _known_code(self) -> None:
        """Rebuilt from our journal: the table's code as before (every screen at the table
        shows the same one), where the table had one."""
        if self._table is not None and self._table.core.code and not self.code:
            self.code = self._table.core.code
            self._show_code(f"code {self.code}")

    def _resumed(self, session: GameSession) -> None:
        """Rebuilt mid-game from our journal: show the game at once, with the code as
        before."""
        self._known_code()
        self._view = session.view.copy()
        self._replayed(session)
        self._open()

    def _wind_clock(self) -> None:
        """Read the move clock off the table (we run in trio here), for the screen."""
        s, table = self.session, self._table
        clock = None if table is None or s is None else table.move_clock(ours=s.my_turn)
        if clock is None or self.ending is not None:
            self._clock = None
            return
        seat, left = clock
        self._clock = (self._order.game(seat), time.monotonic() + left)
        self._keep_ticking()

    @property
    def move_clock(self) -> tuple[int, int] | None:
        """The game seat that owes a move, and the whole seconds left of its move timeout
        (the table ends naming it then); None while no move is owed."""
        if self._clock is None or self.ending is not None:
            return None
        seat, end = self._clock
        return seat, max(0, math.ceil(end - time.monotonic()))

    def _clock_words(self, mine: bool) -> str:
        """The move clock in words, if the seat that owes a move is ours (``mine``) or not."""
        clock = self.move_clock
        if clock is None or (clock[0] == self.seat) != mine:
            return ""
        left = clock_text(clock[1])
        return f"{left} to move" if mine else f"{left} left"

    def _before_the_deal(self, end: TableEnded) -> str:
        """Why the table ended before any card was dealt, naming whose doing it was."""
        if end.culprit == self._place and end.kind == "left":
            if self._differs:
                return "You left the table: your code differed from the others'. Nobody played."
            return "You left the table before the deal."
        who = "Nobody" if end.culprit is None else self._lobby_names.get(end.culprit, "?")
        if end.kind == "left":
            return f"The table ended before the deal: {who} left ({end.detail})."
        return f"The table ended before the deal: {who} is blamed ({end.kind}): {end.detail}"

    def _game_names(self, session: GameSession) -> tuple[str, ...]:
        """Each game seat's name, ours "You"."""
        return tuple("You" if s == session.seat else n for s, n in enumerate(self._seats))

    async def _choose(self, view: object) -> Any:
        played = self.session.played if self.session is not None else []
        if not played or played[-1][0] != self.seat:  # the turn came (not our own next step)
            self.bell()
        self._changed()  # the player's turn: the options appear
        return await self._moves.receive()

    def _send(self, move: object) -> None:
        """The player's move, checked: to the session (``busy`` until it is played)."""
        self.busy = True
        self._changed()
        assert self._guest is not None
        self._guest.run_sync_soon(self._move_in.send_nowait, move)

    @property
    def away(self) -> dict[int, int]:
        """Host: each game seat whose connection is lost, and the seconds left in its
        reconnect window (the table ends naming it if it is not back by then)."""
        now = time.monotonic()
        return {
            self._order.game(s): max(0, math.ceil(end - now))
            for s, end in sorted(self._away.items())
        }

    def start(self) -> None:
        self._keep_ticking()  # a seat may have gone away before the table screen opened

    def _keep_ticking(self) -> None:
        """Redraw each second while a seat is away or a move is owed: its countdown moves."""
        counting = self._away or self._clock is not None
        if not self._ticking and counting and self.ending is None and self._host is not None:
            self._ticking = True
            self._host.schedule(1.0, self._tick)

    def _tick(self) -> None:
        self._ticking = False
        self._changed()
        self._keep_ticking()

    def _away_words(self) -> str:
        return away_words(self.names, self.away)

    def trouble(self) -> str:
        """What is wrong, else on the player's turn the move clock (the title shows it)."""
        if self.ending is not None:
            return ""
        return self.reconnecting or self._away_words() or self._clock_words(mine=True)

    def _waiting_for(self) -> str:
        s = self.session
        if self.ending is not None or s is None:
            return ""
        if self.reconnecting:
            if self.busy or self._unsent():  # the table sends it once the host is back
                return "reconnecting: your move is sent once it is back"
            return self.reconnecting
        waiting = s.waiting_for
        if self.busy:  # (a draw waits for the others' steps: an away seat's too)
            words, waiting = "sending your move…", None
        elif s.outcome is not None:
            words = "checking the whole deal (the audit)…"
        elif waiting is None:
            words = ""
        elif waiting[1] == "move":
            words = f"{self.names[waiting[0]]} is thinking…"
        else:  # (the session's seats: the next game's while its cards are dealt)
            who = "your" if waiting[0] == s.seat else f"{self._game_names(s)[waiting[0]]}'s"
            words = f"the cards are being shown: waiting for {who} step…"
        clock = self._clock_words(mine=False)
        if clock and words.endswith("thinking…"):
            words = f"{words} ({clock})"
        if not self._away:
            return words
        if not words or (waiting is not None and waiting[0] in self.away):
            return self._away_words()  # the table waits for that seat's connection
        return f"{words} · {self._away_words()}"  # the others play on meanwhile

    def _unsent(self) -> bool:
        """A move of ours the host has not relayed yet: one made while the connection is
        lost is played here at once (unless it waits for others' deck steps: `busy`), and
        sent once the host is back."""
        core = self._table.core if self._table is not None else None
        return isinstance(core, TableGuest) and core.unrelayed > 0

    def _culprit(self, session: GameSession) -> int | None:
        """The seat that stopped the game (a fault, a close, a concession), if any."""
        s = session
        return s.fault.culprit if s.fault else s.closed.seat if s.closed else s.conceded

    def _unfinished(self, game: TableGame) -> bool:
        """No game was dealt: say why (once), and True."""
        if game.session is not None and self._view is not None:
            return False
        if self._table is None or self._table.core.ended is None:  # no words said yet
            self._stopped(f"No game: {no_game_words(game)}")
        return True

    # -- the match (SPEC 3.15, *Another game*)

    def _report(self, game: TableGame) -> None:
        """A game of the match is over: its ending, and whether another may follow."""
        self._finished(game)
        self._last = self.ending
        self.can_rematch = game.settled and not self._ended() and self.ending is not None
        if self.can_rematch and self._table is not None and self._table.core.asked_next:
            self._wanting(self._number + 1)  # we answered before a restart (our journal)
        self._changed()

    def _count(self, game: TableGame) -> None:
        """Add a game that is over to the match's score (the game's seat)."""
        raise NotImplementedError

    def _earlier(self, games: list[TableGame]) -> None:
        """Rebuilt from our journal mid-match: the games played before the one under way,
        replayed and checked by our own journal, count as they did (never a peer's word)."""
        for game in games:
            self._count(game)

    def _ended(self) -> bool:
        return self._table is not None and self._table.ended.is_set()

    def rematch(self) -> None:
        """The player wants another game (r on the game-over panel): the host proposes it,
        a joiner agrees to it (at once, or when the host proposes it)."""
        if not self.can_rematch or self._guest is None:
            return
        self._wanting(self._number + 1)
        self._guest.run_sync_soon(self._again_in.send_nowait, True)
        self._changed()

    def _wanting(self, number: int) -> None:
        """We want game ``number``: the panel goes, and the table waits for the others."""
        self.can_rematch = False
        first = "every other player" if self._me == 0 else "the host"
        self._asked = f"You want game {number}: waiting for {first} to agree…"
        self.between = " ".join([self._asked, *self._agreed_words()])
        self.ending = None  # the panel goes: the final table shows until the next deal
        self.dealing = True  # a move now is refused, and its refusal kept past the deal

    async def _again(self, played: int) -> bool:
        return await self._agains.receive()

    def _agreed(self, event: Rematch) -> None:
        """A table seat proposed (the host, seat 0) or agreed to the next game."""
        if event.seat == self._me:
            return
        who = self._table_name(event.seat)
        if event.seat == 0 and self.can_rematch:
            self._asked = f"{who} proposes game {event.number}: r to play it, l to leave."
        elif event.seat == 0:  # we had asked for it already: our yes is on its way
            self._asked = f"{who} proposes game {event.number}: you agreed."
        else:
            self._yes.append(who)
        self.between = " ".join([self._asked, *self._agreed_words()]).strip()
        self._changed()  # on the panel, or (after r) as what the table waits for

    @property
    def _me(self) -> int:
        """Our table seat."""
        return self._table.core.me if self._table is not None else self._place

    def _table_name(self, seat: int) -> str:
        """The name of the player at table seat ``seat``."""
        named = {s.seat: s.name for s in self._table.core.seats} if self._table else {}
        return named.get(seat) or self._lobby_names.get(seat, "?")

    def _agreed_words(self) -> list[str]:
        return [f"{' and '.join(self._yes)} agreed."] if self._yes else []

    def _match_ended(self, end: TableEnded) -> None:
        """The table ended between games: no more games, and who ended the match."""
        self.can_rematch = self.dealing = False
        if end.culprit == self._me:
            return  # we left
        who = "Nobody" if end.culprit is None else self._table_name(end.culprit)
        why = f": {end.detail}" if end.detail else ""
        left = "left" if end.kind == "left" else f"is blamed ({end.kind})"
        self.between = f"The match is over: {who} {left}{why}."
        self._note()

    def _note(self) -> None:
        """Show `between` on the game-over panel (again, if the player had asked for the
        next game: it will not come)."""
        if self.ending is None and self._last is not None:
            self.ending = self._last
        self._changed()

    def _next_game(self) -> None:
        """Every seat agreed: the next game is dealt; the table shows it once it is."""
        self.session, self.ending, self.between, self.busy = None, None, "", False
        self.log, self._asked, self._yes = [], "", []
        self._new_game()
        self._say("every player agreed: dealing the next game…")

    def match_note(self) -> str:
        """Between games, what the match waits for or why it ended, in words ("")."""
        return self.between

    @property
    def rematch_offer(self) -> str:
        return self.between

    def waiting_for(self) -> str:
        if self.ending is None and self.between:
            return self.between  # between games, the game-over panel put away
        return self._waiting_for()

    def _match_over(self, match: TableMatch) -> None:
        """The table is over: the last game's result stays (a match cut short before its
        first game's report says why)."""
        if match.totals is None and match.games:
            self._report(match.games[0])
        self.can_rematch = False
        self._changed()

    def _stopped(self, why: str) -> None:
        """No game to show: say why where the player is looking."""
        if self._view is None:
            self._give_up(why)
        else:
            self._stop_with(why)

    def _stop_with(self, why: str) -> None:
        """The game stopped for ``why`` after the deal (the game's seat shows it)."""
        raise NotImplementedError

    # -- leaving

    @property
    def game_in_progress(self) -> bool:
        return self._task is not None and not self._task.done and self.ending is None

    def _give_up(self, why: str) -> None:
        if self._leaving:  # the player cancelled before the deal: said, but no failure
            self._say(why)
            return
        super()._give_up(why)

    def leave(self) -> None:
        """Leave the table: the others are told (the game stops), and our record is kept."""
        self._leaving = True
        if self._guest is not None and self._table is not None:
            self._guest.run_sync_soon(self._table.leave, ErrorCode.PEER_QUIT, "")

    async def aclose(self) -> None:
        """Leave (the record is saved), then stop the table's task."""
        if self._task is not None and not self._task.done:
            self.leave()
            await self._task.wait(self.settings.reply_timeout)
            if self.ending is not None:
                self.farewell = self.ending.text
        await super().aclose()


def clock_text(seconds: int) -> str:
    """Seconds left on a clock: "42 s" under a minute, else minutes and seconds ("9:56")."""
    return f"{seconds} s" if seconds < 60 else f"{seconds // 60}:{seconds % 60:02d}"


def away_words(names: Sequence[str], away: Mapping[int, int]) -> str:
    """The seats whose connection the host lost, named, and the seconds until the first
    window ends (the table ends then, naming that seat): "lost the connection to Bob
    (seat 1): waiting up to 42 s"; "" if none."""
    if not away:
        return ""
    who = ", ".join(f"{names[s]} (seat {s})" for s in sorted(away))
    return f"lost the connection to {who}: waiting up to {min(away.values())} s"


def stopped_words(
    session: GameSession,
    names: Sequence[str],
    lost_window: float | None = None,
    host: int = 0,
) -> str | None:
    """How a game that a seat stopped ended, in words naming that seat (``names`` call the
    player "You"), or None if nobody stopped it. ``lost_window``: the game stopped while a
    lost connection was being won back, with this wait in seconds (a timeout then means
    that the wait ran out, SPEC 4.6). ``host``: the host's game seat (a table turns its
    seats for each game's dealer)."""
    fault, closed = session.fault, session.closed
    if fault is not None:
        who = names[fault.culprit]
        if fault.kind == "timeout" and lost_window is not None:
            return _lost_on_time(fault.culprit, session.seat, names, lost_window, fault.message)
        if fault.kind == "timeout":
            return f"The game stopped: {who} took too long ({fault.message})"
        return f"The game stopped: {who} broke the protocol ({fault.kind}): {fault.message}"
    if closed is not None:
        who = names[closed.seat]
        if closed.code == "left" and closed.reason.startswith(f"{NOT_BACK} "):
            within = closed.reason.removeprefix(f"{NOT_BACK} ")
            return _not_back(closed.seat, session.seat, names, within, host)
        if closed.code == "left":  # a table's verdict: the seat left
            words = closed.reason
            if words.startswith("closed with"):  # its connection's close: only its words
                words = words.partition(": ")[2]
            said = f' ("{words}")' if words else ""
            return f"The game stopped: {who} left the table{said}"
        said = f' "{session.ending().text}"' if closed.reason else ""
        return f"The game stopped: {who} left, closing with {closed.code}{said}"
    return None


def _lost_on_time(culprit: int, seat: int, names: Sequence[str], window: float, detail: str) -> str:
    """Two players: the connection was lost and not back when the wait ended; the seat the
    game waited for then loses on time, whoever lost the connection (SPEC 4.6)."""
    other = names[1 - seat]
    wait = f"the {window:g} s wait"
    if culprit == seat:  # our own steps are sent at once: what we owed was a decision
        return (
            f"You lose on time: the connection to {other} was lost on your turn and you did "
            f"not move in {wait} (your move would have been sent once {other} was back)"
        )
    if detail.startswith("no move"):
        return (
            f"{other} loses on time: the connection to {other} was lost on {other}'s turn "
            f"and no move came in {wait}"
        )
    what = "the audit" if "in the audit" in detail else "the cards"
    return (
        f"{other} loses on time: the connection to {other} was lost while {what} waited "
        f"for {other}'s step, and it was not back in {wait}"
    )


def _not_back(culprit: int, seat: int, names: Sequence[str], within: str, host: int) -> str:
    """A table: a seat's connection was lost and not back within the window, so the seat
    forfeits. Only the host names a joiner so; a joiner names the host when its own
    connection to it is not back (SPEC 3.15)."""
    what = f"was lost and not back within {within}"
    if culprit == seat:
        return f"The game stopped: your connection {what}: you forfeit"
    who = names[culprit]
    if culprit == host and seat != host:  # our own connection to the host
        return f"The game stopped: the connection to {who}, the host, {what}: {who} forfeits"
    return f"The game stopped: {who}'s connection {what}: {who} forfeits"


def in_use_words(e: Any) -> str:
    """The one line for a ``JournalInUse``: this game is another live process's."""
    return (
        f"this game is being played by another cuttle process right now (its journal "
        f"{e.path} is in use): let that one finish, or use another --port or --data-dir"
    )


def watching_words(event: Watching) -> str:
    """Who watches, for the title: "Wendy watching", "3 watching", or nothing."""
    names = [n for n, _ in event.watchers]
    if not names:
        return ""
    return f"{names[0]} watching" if len(names) == 1 else f"{len(names)} watching"
