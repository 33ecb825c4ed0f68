"""The seats of a game at a table (SPEC 4.1), without I/O: which table seat is which game
seat, and the game's header, as every seat and a watcher compute them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cuttle_net.games.interface import game_module
from cuttle_net.records.header import GameHeader
from cuttle_net.session import TABLE_HOST, GameSession, Output

from .core import Started, TableEnded, TableSettings


@dataclass(frozen=True)
class SeatOrder:
    """The seats of a game at a table (SPEC 4.1): the table's seats, in joining order, turned
    so that a game whose dealer always takes one seat (Cuttle: seat 1) finds the table's
    dealer there; any other game keeps the table's numbers. The session, its record and
    its result lines count game seats; the table's entries, faults and deadlines count
    table seats."""

    shift: int  # game seat = (table seat + shift) mod seats
    seats: int

    @classmethod
    def of(cls, module: Any, seats: int, dealer: int) -> SeatOrder:
        fixed = module.dealer_seat
        return cls(0 if fixed is None else (fixed - dealer) % seats, seats)

    def game(self, table_seat: int) -> int:
        return (table_seat + self.shift) % self.seats

    def table(self, game_seat: int) -> int:
        return (game_seat - self.shift) % self.seats


def game_header(
    settings: TableSettings, started: Started, rules_token: str
) -> tuple[SeatOrder, tuple[str, ...], GameHeader]:
    """The game a table starts (SPEC 4.1): its seat order, the players' names in game
    seats, and its header (what every seat and a watcher agree on)."""
    module = game_module(settings.game)
    count = len(started.seats)
    order = SeatOrder.of(module, count, started.dealer)
    seated = [started.seats[order.table(g)] for g in range(count)]
    header = GameHeader(
        connection=started.session_id,
        number=started.number,
        name=settings.game,
        rules=module.parse_rules(rules_token, count),
        dealer=order.game(started.dealer),
        keys=tuple(s.identity for s in seated),
    )
    return order, tuple(s.name for s in seated), header


def end_note(ended: TableEnded, me: int) -> str | None:
    """Why the table's end leaves our game unfinished with nobody to blame (its record's
    note): our leaving, or the host's word that our connection went (not a verdict a record
    of ours can state, 5.3), or no culprit (another connection of ours took over). None:
    the end names another seat, for the verdict rule (`end_verdict`)."""
    reporter = None if ended.reporter == me else ended.reporter
    if ended.culprit == me and ended.kind == "left" and reporter in (None, TABLE_HOST):
        return "you left the table"
    if ended.culprit is None:
        return ended.detail
    return None


def end_verdict(
    session: GameSession, order: SeatOrder, ended: TableEnded, me: int, overdue: bool
) -> Output:
    """The verdict rule (SPEC 3.15) on the table's end naming another seat (`end_note` gave
    None): our session checks that seat's word. `overdue`: the step due had been due past
    its timeout on our clock (the one input that hangs on time: a seat journals it)."""
    assert ended.culprit is not None
    reporter = None if ended.reporter == me else ended.reporter
    return session.table_verdict(
        order.game(ended.culprit),
        ended.kind,
        ended.detail,
        reporter=None if reporter is None else order.game(reporter),
        proven=ended.proven,
        overdue=overdue,
        host=order.game(TABLE_HOST),
    )
