"""A seat at a networked L'Unisson table (SPEC 3.15): the table screen of practice, fed by the
session that `play_at_table` runs for this seat.

The table runs as a task of the app's trio run (a guest of Textual's loop, ``TrioGuest``),
so its hooks update the controller on the UI thread: ``watch`` keeps ``_view`` as a copy of
the session's view and logs each move from the views around it, ``choose`` awaits the
player's move, ``confirm`` asks the player to compare the table code.  Before the deal the
connect screen shows ``status`` (where to be found, who is seated, the code); the table
screen opens once the cards are dealt.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import trio
from cuttle_protocol.errors import ErrorCode
from cuttle_protocol.identity import ConfigError
from cuttle_protocol.journal import JournalDamaged, JournalInUse
from cuttle_protocol.netgame import GameSettings
from cuttle_protocol.netplay import Connected
from cuttle_protocol.table import CodeShown, Lobby, Rematch, Started, TableEnded, TableGuest
from cuttle_protocol.tablegame import Step, TableGame, seat_text
from cuttle_protocol.tablematch import TableMatch
from cuttle_protocol.trio_peer import ConnectionEnded, Reconnected, Reconnecting
from cuttle_protocol.trio_table import SeatAway, SeatBack, TableShell, TableTimeouts

from cuttle_net.games.unisson import Game, IllegalMove
from cuttle_net.games.unisson.moves import Move
from cuttle_net.session import Dealt, GameOver, GameSession, MovePlayed

from ..cli_table import Hosting, Rejoin, journal_words, sit_at_table
from ..network import Meeting, stopped_words
from .controller import Ending, Entry, UnissonController
from .words import away_words, result_words

LOBBY = "at the table ("  # how `play_at_table` says who is seated (`lobby_text`)


def _sentence(line: str) -> str:
    return line[0].upper() + line[1:] + "."


class NetworkTable(Meeting, UnissonController):
    """This player's seat at a table of people (and bots) on other machines.

    Host: ``NetworkTable(name, ..., hosting=Hosting(...))``, given to a ``ConnectScreen``
    (which calls ``connect``).  Join: ``cuttle join`` meets the host first, as for a
    two-player game; its ``NetworkController`` hands the connection over when the host
    turns out to seat a table (``follow`` and ``join``)."""

    leave_question = "Leave this table? The game stops for everyone, and you lose it."

    def __init__(
        self,
        name: str,
        settings: GameSettings | None = None,
        data_dir: Path | None = None,
        config_dir: Path | None = None,
        hosting: Hosting | None = None,
    ) -> None:
        UnissonController.__init__(self)
        Meeting.__init__(self)
        self.name, self.hosting = name, hosting
        self.settings = settings or GameSettings()
        self.data_dir, self.config_dir = data_dir, config_dir
        self.seat, self.names = 0, ("You",)
        self.players = hosting.players if hosting else 3
        self.decks = 2 if hosting and hosting.token == "two-decks" else 1
        self.label = "table"
        self.session: GameSession | None = None
        self.record: Path | None = None  # where our record was saved
        self.code = ""  # the table code, once every seat revealed
        self._table: TableShell | None = None
        self._move_in, self._moves = trio.open_memory_channel[Move](1)
        self._answer_in, self._answers = trio.open_memory_channel[bool](1)
        self._again_in, self._agains = trio.open_memory_channel[bool](1)  # "r" between games
        self.between = ""  # between games: who proposed, who agreed, who left
        self._asked = ""  # between games: the proposal, or our own wish, in words
        self._yes: list[str] = []  # the other players who agreed to the next game
        self._place = 0  # our place in the lobby (our seat once the table is full)
        self._lobby_names: dict[int, str] = {}
        self._seats: list[str] = []  # every seat's name, once the game starts
        self._differs = False  # the player said the code differs
        self.reconnecting = ""  # what to show while the lost connection is being won back
        self._last: Ending | None = None  # the last game's ending (shown again between games)
        self._away: dict[int, float] = {}  # host: seat -> when its reconnect window ends
        self._ticking = False  # a redraw is due in a second (the countdown of `away`)

    async def _main(self) -> None:
        """Host the table (the connect screen's ``connect`` starts it)."""
        assert self.hosting is not None
        try:
            match = await sit_at_table(self.name, self.hosting, **self._hooks())
        except (JournalDamaged, JournalInUse) as e:
            self._stopped(_sentence(journal_words(e)))
            return
        except ConfigError as e:
            self._stopped(f"Cannot use the config directory: {e}")
            return
        except OSError as e:
            self._stopped(f"Cannot listen on port {self.hosting.port}: {e.strerror or e}")
            return
        self._match_over(match)

    async def join(self, conn: Connected | Rejoin, address: str) -> None:
        """Sit at the table whose host ``conn`` reached at ``address`` (``cuttle join``), or
        take back the seat journaled at ``address`` (``Rejoin``)."""
        try:
            match = await sit_at_table(self.name, conn, address=address, **self._hooks())
        except (JournalDamaged, JournalInUse) as e:
            self._stopped(_sentence(journal_words(e)))
            return
        except ConnectionEnded as e:
            self._stopped(f"The connection ended: {e.message}")
            return
        self._match_over(match)

    def _hooks(self) -> dict[str, Any]:
        s = self.settings
        return dict(
            config_dir=self.config_dir,
            timeouts=TableTimeouts(s.reply_timeout, s.move_timeout, s.reconnect_window),
            data_dir=self.data_dir,
            say=self._say,
            seated=self._seated,
            choose=self._choose,
            watch=self._watch,
            confirm=self._confirm,
            match=True,  # game after game while every player agrees (SPEC 3.15)
            games=None,
            again=self._again,
            report=lambda game, totals: self._finished(game),
        )

    def _say(self, line: str) -> None:
        if line.startswith(LOBBY):  # who is seated now, in place of who was
            self.status[:] = [x for x in self.status if not x.startswith(LOBBY)]
        self.status.append(line)
        self._on_status()

    def _seated(self, table: TableShell) -> None:
        self._table = table

    async def _confirm(self, event: CodeShown) -> bool:
        self.code = event.code
        self.label = f"table · code {event.code}"
        self._on_code(self)
        same = await self._answers.receive()
        if same:
            self._say("you confirmed the code: waiting for every other player to confirm it…")
        self._differs = not same
        return same

    def code_question(self) -> str:
        """What the player is asked once every seat is taken: the others, and the code."""
        assert self._table is not None
        others = [s for s in self._table.core.seats if s.seat != self._table.core.me]
        seated = "\n".join(f"seat {s.seat}: {seat_text(self._table, s)}" for s in others)
        return (
            f"{seated}\n\nThe table's code is {self.code}. Read it aloud (or in a chat) "
            "with every other player: does each of them see this same code? (n: it "
            "differs; you leave the table)"
        )

    def answer_code(self, same: bool) -> None:
        """The player compared the table code with every other player's."""
        assert self._guest is not None
        self._guest.run_sync_soon(self._answer_in.send_nowait, same)

    # -- the game

    def _watch(self, item: object) -> None:
        if isinstance(item, Lobby):
            self._place = item.you
            self._lobby_names = {p.seat: p.name for p in item.players}
            self.players = item.settings.seats
            self.decks = 2 if "two-decks" in item.settings.options else 1
        elif isinstance(item, Started) and item.number > 1:
            self._next_game()
        elif isinstance(item, Started):
            self._seats = [s.name for s in item.seats]
            self._say("every player confirmed the code: dealing…")
        elif isinstance(item, Rematch):
            self._agreed(item)
        elif isinstance(item, Step):
            self._step(item.session, item.output.events)
        elif isinstance(item, TableEnded) and self._view is None:
            self._give_up(self._before_the_deal(item))
        elif isinstance(item, TableEnded) and self.session is not None and self.session.finished:
            self._match_ended(item)
        elif isinstance(item, Reconnecting):  # our connection to the host (SPEC 4.6)
            self.reconnecting = f"connection lost ({item.why}): reconnecting…"
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

    def _step(self, session: GameSession, events: list[object]) -> None:
        if self.session is None:
            self.session = session
            self.seat = session.seat
            if not self._seats and self._table is not None:  # rebuilt from our journal
                self._seats = [s.name for s in self._table.core.seats]  # (seats not turned)
            self.names = tuple("You" if s == self.seat else n for s, n in enumerate(self._seats))
            if not events and session.view is not None:  # rebuilt mid-game: show it now
                if self._table is not None and self._table.core.code:  # the same code as before
                    self.code = self._table.core.code
                    self.label = f"table · code {self.code}"
                self._view = session.view.copy()
                # The moves so far, in notation (the views around them are gone).
                self.log = [
                    Entry(seat, None, f"{self.names[seat]}: {m}")
                    for seat, m in session.played
                    if seat is not None
                ]
                self._on_ready()
        for event in events:
            if isinstance(event, Dealt):
                self._view = session.view.copy()
                ready, self._on_ready = self._on_ready, self._changed  # the table opens once
                ready()
            elif isinstance(event, MovePlayed) and not isinstance(event.move, Move):
                who = self.names[event.seat]  # a concession (another client may offer it)
                self.log.append(Entry(event.seat, None, f"{who} concede" + "s" * (who != "You")))
            elif isinstance(event, MovePlayed):
                before = self.view
                self._view = session.view.copy()
                self._record(event.seat, event.move, before, self._view)
                if event.seat == self.seat:
                    self.busy = False
            elif isinstance(event, GameOver):
                self._view = session.view.copy()  # every hand shown
        if self._view is not None:
            self._changed()

    async def _choose(self, view: Game) -> Move:
        self._changed()  # the player's turn: the options appear
        return await self._moves.receive()

    def submit(self, move: Move) -> None:
        if self.busy:
            raise IllegalMove("your move is on its way")
        self.check(move)
        self.busy = True
        self._changed()
        assert self._guest is not None
        self._guest.run_sync_soon(self._move_in.send_nowait, move)

    @property
    def away(self) -> dict[int, int]:
        """Host: each seat whose connection is lost, and the seconds left in its reconnect
        window (the table ends naming it if it is not back by then)."""
        now = time.monotonic()
        return {s: max(0, math.ceil(end - now)) for s, end in sorted(self._away.items())}

    def start(self) -> None:
        self._keep_ticking()  # a seat may have gone away before the table screen opened

    def _keep_ticking(self) -> None:
        """Redraw each second while a seat is away: its countdown moves."""
        if not self._ticking and self._away and self.ending is None and self._host is not None:
            self._ticking = True
            self._host.schedule(1.0, self._tick)

    def _tick(self) -> None:
        self._ticking = False
        self._changed()
        self._keep_ticking()

    def _away_words(self) -> str:
        return away_words(self.names, self.away)

    def trouble(self) -> str:
        return (self.reconnecting or self._away_words()) if self.ending is None else ""

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
        else:
            words = f"the cards are being shown: waiting for {self.names[waiting[0]]}'s step…"
        if not self._away:
            return words
        if not words or (waiting is not None and waiting[0] in self._away):
            return self._away_words()  # the table waits for that seat's connection
        return f"{words} · {self._away_words()}"  # the others play on meanwhile

    def _unsent(self) -> bool:
        """A move of ours the host has not relayed yet: one made while the connection is
        lost is played here at once (unless it waits for others' deck steps: `busy`), and
        sent once the host is back."""
        core = self._table.core if self._table is not None else None
        return isinstance(core, TableGuest) and core.unrelayed > 0

    def _finished(self, game: TableGame) -> None:
        """The table is over: the result in words, whose fault if any, and the record."""
        s = game.session
        if s is None or self._view is None:
            if self._table is None or self._table.core.ended is None:  # no words said yet
                self._stopped(f"No game: {game.line.removeprefix('result: no game: ')}")
            return
        v = self.view
        text = stopped_words(s, self.names)
        if text is None and s.conceded is not None:  # another client may offer it
            text = f"The game stopped: {self.names[s.conceded]} conceded"
        culprit = s.fault.culprit if s.fault else s.closed.seat if s.closed else s.conceded
        if text is not None and culprit is not None:  # every other seat shares the win
            text += f" · {' and '.join(n for i, n in enumerate(self.names) if i != culprit)} win"
        if text is None and not s.finished:
            text = f"The game stopped: {s.ending(game.note).text}"
        elif text is None:
            text = result_words(v, self.names, self.seat)
            text += " · audit passed: the deal was fair" if s.audit else ""
        if game.record is not None:
            text += f" · record saved: {game.record}"
        self.record = game.record
        over = v.is_over
        scores = tuple(v.scores()) if over else ()
        hands = tuple(tuple(v.hand(p)) for p in range(self.players)) if over else ()
        self.ending = self._last = Ending(text, scores, hands)
        self.busy = False
        outcome = s.outcome
        if game.clean and outcome is not None and outcome.scores:
            self.games.append(list(outcome.scores))  # the match totals: verified scores
        self.can_rematch = game.clean and not self._ended()
        self._changed()

    def _ended(self) -> bool:
        return self._table is not None and self._table.ended.is_set()

    # -- the match (SPEC 3.15, *Another game*)

    def rematch(self) -> None:
        """The player wants another game (r on the game-over panel): the host proposes it,
        a joiner agrees to it (at once, or when the host proposes it)."""
        if not self.can_rematch or self._guest is None:
            return
        self.can_rematch = False
        n = len(self.games) + 1
        first = "every other player" if self.seat == 0 else "the host"
        self._asked = f"You want game {n}: waiting for {first} to agree…"
        self.between = " ".join([self._asked, *self._agreed_words()])
        self.ending = None  # the panel goes: the final table shows until the next deal
        self._guest.run_sync_soon(self._again_in.send_nowait, True)
        self._changed()

    async def _again(self, played: int) -> bool:
        return await self._agains.receive()

    def _agreed(self, event: Rematch) -> None:
        """A seat proposed (the host) or agreed to the next game."""
        if event.seat == self.seat:
            return
        who = self._seats[event.seat] if event.seat < len(self._seats) else "?"
        if event.seat == 0 and self.can_rematch:
            self._asked = f"{who} proposes game {event.number}: r to play it, l to leave."
        elif event.seat == 0:  # we had asked for it already: our yes is on its way
            self._asked = f"{who} proposes game {event.number}: you agreed."
        else:
            self._yes.append(who)
        self.between = " ".join([self._asked, *self._agreed_words()]).strip()
        self._changed()  # on the panel, or (after r) as what the table waits for

    def _agreed_words(self) -> list[str]:
        return [f"{' and '.join(self._yes)} agreed."] if self._yes else []

    def _match_ended(self, end: TableEnded) -> None:
        """The table ended between games: no more games, and who ended the match."""
        self.can_rematch = False
        if end.culprit == self.seat:
            return  # we left
        who = "Nobody" if end.culprit is None else self._seats[end.culprit]
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
        self._say("every player agreed: dealing the next game…")

    def match_note(self) -> str:
        return self.between

    def waiting_for(self) -> str:
        if self.ending is None and self.between:
            return self.between  # between games, the game-over panel put away
        return self._waiting_for()

    def _match_over(self, match: TableMatch) -> None:
        """The table is over: the last game's result stays (a match cut short says why)."""
        self.can_rematch = False
        if match.totals is None and match.games:
            self._finished(match.games[0])
        self._changed()

    def _stopped(self, why: str) -> None:
        """No game to show: say why where the player is looking."""
        if self._view is None:
            self._give_up(why)
        else:
            self.ending = Ending(why, (), ())
            self._changed()

    # -- leaving

    @property
    def game_in_progress(self) -> bool:
        return self._task is not None and not self._task.done and self.ending is None

    def leave(self) -> None:
        """Leave the table: the others are told (the game stops), and our record is kept."""
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
