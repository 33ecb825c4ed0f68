"""The use cases that drive a seat: meeting a host (`meet`), a game and a match at a
table (`game`, `match`), what a seat brings besides its connection (`seat`: timeouts, bot
turns), the progress a seat tells its player as data (`events`), and how a game ended (`result`):
the client alone words them."""

from __future__ import annotations

from .events import (
    CodeToCompare,
    Dialling,
    GameBegins,
    GameStopped,
    HostMet,
    PortMapped,
    Progress,
    SeatKey,
    Tell,
)
from .game import SeatOrder, Step, TableGame, game_session, play_at_table, seat_key
from .match import (
    GameUnsettled,
    MatchEnd,
    MatchTotals,
    NoMoreGames,
    TableClosed,
    TableMatch,
    play_match_at_table,
)
from .meet import Connected, NetPlan, host_met, invitation_for, map_port, open_game_peer
from .result import GameResult, game_result
from .seat import Chooser, GameSettings, bot_decision, observer

__all__ = [
    "Chooser",
    "CodeToCompare",
    "Connected",
    "Dialling",
    "GameBegins",
    "GameResult",
    "GameSettings",
    "GameStopped",
    "GameUnsettled",
    "HostMet",
    "MatchEnd",
    "MatchTotals",
    "NetPlan",
    "NoMoreGames",
    "PortMapped",
    "Progress",
    "SeatKey",
    "SeatOrder",
    "Step",
    "TableClosed",
    "TableGame",
    "TableMatch",
    "Tell",
    "bot_decision",
    "game_result",
    "game_session",
    "host_met",
    "invitation_for",
    "map_port",
    "observer",
    "open_game_peer",
    "play_at_table",
    "play_match_at_table",
    "seat_key",
]
