"""A match at a table (SPEC 3.15 *Another game*, 4.1): game after game with the same seats,
the deal passing left, and the match totals every seat keeps from the games' outcomes.

    match = await play_match_at_table(table, identity, rules_token, games=3, choose=bot_move)
    print(match.totals.wins)  # by table seat: the client words them

Each game is `play_at_table`'s (its own session id: SPEC 4.1 binds the game's number; its
own record, `…-game2`). Once a game is over by the rules (its audit passed), the host is
asked whether to play again (`again`); if so it proposes the next game, and every other
seat, asked in turn, agrees or leaves. A seat that leaves ends the match for everyone; the
games played stay played. Between games each seat follows the table's events, so a seat
that leaves while another player decides ends the match at once.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cuttle_net.session import GameSession, Output

from ..errors import ErrorCode
from ..shells.table_shell import TableShell
from ..store import RecordNotSaved, SeatJournal, keep_record
from ..table.core import Rematch, SeatInfo, TableEnded
from .events import Tell
from .game import HOST, Step, TableGame, Watch, leave_when_over, play_at_table
from .result import game_result

Again = Callable[[int], Awaitable[bool] | bool]
"""After `played` games: play another one? The host is asked once a game is over by the
rules; a joiner once the host proposed the next game."""


def again_always(played: int) -> bool:
    return True


@dataclass
class MatchTotals:
    """Each player's wins over the games of a match, and points for a game that scores,
    by table seat (a game's seats may be turned: Cuttle's dealer sits at game seat 1).
    Counted from each game's own outcome as the session verified it: a game ended by the
    rules (audited) or by a concession; a game stopped by a fault or a seat leaving counts
    for no one."""

    seats: tuple[SeatInfo, ...]
    wins: list[int] = field(default_factory=list)
    points: list[int] | None = None
    games: int = 0  # the games counted

    def __post_init__(self) -> None:
        self.wins = self.wins or [0] * len(self.seats)

    def add(self, game: TableGame) -> None:
        session = game.session
        if session is None or not session.finished:
            return
        outcome = session.outcome
        if outcome is None or session.fault is not None or session.closed is not None:
            return
        keys = [s.identity for s in self.seats]
        table_seat = [keys.index(k) for k in session.header.keys]  # by game seat
        self.games += 1
        for g in outcome.winners:
            self.wins[table_seat[g]] += 1
        if outcome.scores:
            self.points = self.points or [0] * len(self.seats)
            for g, score in enumerate(outcome.scores):
                self.points[table_seat[g]] += score


@dataclass(frozen=True)
class NoMoreGames:
    """The match ended as agreed: a seat wanted no more games (or played as many as it
    would)."""


@dataclass(frozen=True)
class GameUnsettled:
    """The last game did not end by the rules (nor by a concession): `note` says why it
    stopped, as its record does ("" when it ended otherwise: a fault, a seat leaving)."""

    note: str = ""


@dataclass(frozen=True)
class TableClosed:
    """The table ended between games: how (`ended`: the host's words for a fault), and the
    seat it names (None: nobody, or us when `ours`)."""

    ended: TableEnded
    seat: SeatInfo | None = None
    ours: bool = False


MatchEnd = NoMoreGames | GameUnsettled | TableClosed
"""Why a match ended (`TableMatch.end`)."""


@dataclass
class TableMatch:
    """How the match went: every game played (a table that ended before game 1: its one
    "no game" result), the totals, and why the match ended."""

    games: list[TableGame]
    totals: MatchTotals | None
    end: MatchEnd

    @property
    def clean(self) -> bool:
        """Every game ended by the rules with its audit passed."""
        return all(g.clean for g in self.games)


async def play_match_at_table(
    table: TableShell,
    identity: Ed25519PrivateKey,
    rules_token: str,
    *,
    games: int | None = 1,
    again: Again = again_always,
    report: Callable[[TableGame, MatchTotals], None] = lambda game, totals: None,
    resumed: Callable[[list[TableGame], MatchTotals], None] = lambda games, totals: None,
    tell: Tell = lambda event: None,
    watch: Watch = lambda item: None,
    **play: Any,
) -> TableMatch:
    """Play games at `table` until a seat wants no more: `games` (None: no limit) is as many
    as this seat plays; `again` is asked before each further one; `report` sees each game
    once it is over, with the totals so far. `play` are `play_at_table`'s other hooks.
    A match rebuilt from our journal (`play["journal"]`) mid-game goes on counting: the
    games before the one under way are `played` already, and `resumed` sees them (and the
    totals) once, before the game under way is shown."""
    journal = play.get("journal")
    played = _replayed(journal, play)
    totals: MatchTotals | None = None
    if played:
        totals = MatchTotals(table.core.seats)
        for game in played:
            totals.add(game)
        resumed(list(played), totals)
    over = _over_at_restart(journal, play)
    end: MatchEnd = NoMoreGames()
    try:
        while True:
            if over is not None:  # rebuilt between games: the last one is over already
                game, over = over, None
                assert game.session is not None
                watch(Step(game.session, Output()))  # a UI shows it as it ended
            else:
                game = await play_at_table(
                    table, identity, rules_token, tell=tell, watch=watch, stay=True, **play
                )
            if game.session is None:  # the table ended before this game began
                if not played:
                    played.append(game)
                end = _why_closed(table)
                break
            played.append(game)
            totals = totals or MatchTotals(table.core.seats)
            totals.add(game)
            report(game, totals)
            if not game.settled:
                end = GameUnsettled(game.note)
                break
            if table.ended.is_set():  # a seat left as the game ended
                end = _why_closed(table)
                break
            limit = games is not None and len(played) >= games
            if not await _another(table, len(played), limit, again, watch):
                end = _why_closed(table) if table.ended.is_set() else NoMoreGames()
                break
        _pass_on_unread(table, watch)
    except BaseException:
        # Interrupted between games (Ctrl+C, SIGTERM, a quitting app): leave now, as a
        # player's `l` does, rather than wait out the reply timeout for a host that is
        # waiting for us (a stopped `cuttle join` lived on 20 s, the host told nothing).
        if not table.ended.is_set() and table.core.leaving is None:
            table.leave(ErrorCode.PEER_QUIT, "")
        raise
    finally:
        with trio.CancelScope(shield=True):
            await leave_when_over(table)
    return TableMatch(played, totals, end)


def _replayed(journal: SeatJournal | None, play: dict[str, Any] | None = None) -> list[TableGame]:
    """The games of the match before the one under way, as our own journal replayed them
    (`seatjournal.rebuild`): every message checked and every audit run again, here. Never
    a peer's word about past games. Their records were saved as each game ended (one that
    could not be is saved now)."""
    resumed = journal.resumed if journal is not None else None
    if journal is None or resumed is None:
        return []
    return [_journaled(s, names, journal, resumed.saved, play) for s, names in resumed.earlier]


def _journaled(
    session: GameSession,
    names: tuple[str, ...],
    journal: SeatJournal,
    saved: set[int],
    play: dict[str, Any] | None,
) -> TableGame:
    """A game over that our journal replayed: its result, and no record (saved already),
    unless its record could not be saved as it ended: then it is saved now (as `play`,
    `play_at_table`'s arguments, says: none without them)."""
    game = TableGame(game_result(session, names), session)
    if play is None or session.header.number in saved or not play.get("save", True):
        return game
    kept = keep_record(session, names, "", play.get("data_dir"), journal)
    if isinstance(kept, RecordNotSaved):
        game.unsaved = kept
    else:
        game.record = kept
    return game


def _over_at_restart(
    journal: SeatJournal | None, play: dict[str, Any] | None = None
) -> TableGame | None:
    """Rebuilt from our journal between games: the game just over (its record was saved
    as it ended), which the match reports and follows with the next one, not plays again."""
    resumed = journal.resumed if journal is not None else None
    session = resumed.session if resumed is not None else None
    if journal is None or resumed is None or session is None or not session.finished:
        return None
    journal.resumed = None  # (`play_at_table` starts the next game anew)
    return _journaled(session, resumed.names, journal, resumed.saved, play)


def _pass_on_unread(table: TableShell, watch: Watch) -> None:
    """The table may have ended while no loop of ours was reading its events (the host left
    as our last game was being saved): `watch` still sees them, its `TableEnded` included."""
    while True:
        try:
            event = table.events.receive_nowait()
        except (trio.WouldBlock, trio.EndOfChannel, trio.ClosedResourceError):
            return
        watch(event)


def _why_closed(table: TableShell) -> MatchEnd:
    """Why the table ended between games, and the seat it names."""
    ended = table.core.ended
    if ended is None:
        return NoMoreGames()
    culprit, seats = ended.culprit, table.core.seats
    seat = seats[culprit] if culprit is not None and culprit < len(seats) else None
    return TableClosed(ended, seat, culprit is not None and culprit == table.core.me)


async def _another(table: TableShell, played: int, limit: bool, again: Again, watch: Watch) -> bool:
    """Between games: True once this seat proposed (host) or agreed to (joiner) the next one.
    A joiner that wants no more leaves when it is proposed; the host then leaves."""
    if table.core.asked_next:  # answered before a restart (our journal replayed it)
        return True
    if table.core.me == HOST:
        if limit:
            return False
        if not await _deciding(table, again, played, watch):
            return False
        table.rematch()
        return True
    if limit:  # the host leaves, or proposes one game too many: we leave then (or at once)
        with trio.move_on_after(table.timeouts.reply):
            await _proposal(table, watch)
        if not table.ended.is_set():
            table.leave(ErrorCode.PEER_QUIT, "no more games for me")
        return False
    if not await _proposal(table, watch):
        return False
    if await _deciding(table, again, played, watch):
        table.rematch()
        return True
    table.leave(ErrorCode.PEER_QUIT, "no more games for me")
    return False


async def _proposal(table: TableShell, watch: Watch) -> bool:
    """Wait for the host to propose the next game (True) or for the table to end."""
    while not table.ended.is_set():
        event = await table.events.receive()
        watch(event)
        if isinstance(event, Rematch) and event.seat == HOST:
            return True
        if isinstance(event, TableEnded):
            break
    return False


async def _deciding(table: TableShell, again: Again, played: int, watch: Watch) -> bool:
    """Our player's answer to "another game?", while the table's events go on: if the table
    ends meanwhile (another seat left) the question is withdrawn (False)."""
    decided: list[bool] = []
    async with trio.open_nursery() as nursery:

        async def decide() -> None:
            answer = again(played)
            decided.append(bool(await answer if inspect.isawaitable(answer) else answer))
            nursery.cancel_scope.cancel()

        async def follow() -> None:
            while True:
                event = await table.events.receive()
                watch(event)  # another seat agreeing, a connection lost and back...
                if isinstance(event, TableEnded):
                    nursery.cancel_scope.cancel()
                    return

        nursery.start_soon(decide)
        nursery.start_soon(follow)
    return decided == [True] and not table.ended.is_set()


__all__ = [
    "Again",
    "GameUnsettled",
    "MatchEnd",
    "MatchTotals",
    "NoMoreGames",
    "TableClosed",
    "TableMatch",
    "again_always",
    "play_match_at_table",
]
