"""The seats of a game at a table (SPEC 4.1), without I/O: which table seat is which game
seat, and the game's header, as every seat and a watcher compute them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cuttle_net.games.interface import game_module
from cuttle_net.records.header import GameHeader

from .core import Started, TableSettings


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
