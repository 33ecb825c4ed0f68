"""How a game at a table ended, as data: who sat where, the ending as the record states it
(SPEC 4.4, 5.2.1), the winners, the scores and whether the audit passed. The result line of
SPEC 4.5 is the client's words for it (``cuttle_client.progress``)."""

from __future__ import annotations

from dataclasses import dataclass

from cuttle_net.records.ending import Ending
from cuttle_net.session import GameSession


@dataclass(frozen=True)
class GameResult:
    """Game `number` of a table with `names` (by game seat) ended with `ending` (its
    `seat`: the culprit of a fault, the seat that closed or conceded), won by `winners`
    (game seats; none for a draw or an unfinished game), with `scores` for a game that
    scores, and `audited` once its audit passed; `game` is the game module's name (the
    record's ``Game`` tag), by which the client words an ending by the rules."""

    number: int
    names: tuple[str, ...]
    ending: Ending
    winners: tuple[int, ...] = ()
    scores: tuple[int, ...] = ()
    audited: bool = False
    game: str = ""

    @property
    def clean(self) -> bool:
        """The game ended by the rules with its audit passed."""
        return self.ending.by_rules and self.audited


def game_result(session: GameSession, names: tuple[str, ...], note: str = "") -> GameResult:
    """The result of `session`'s game; `note` says why an unfinished game stopped."""
    ending = session.ending(note)
    outcome = session.outcome
    winners = tuple(outcome.winners) if outcome is not None else ()
    if ending.form in ("fault", "closed"):  # the culprit, or the seat that left, forfeits
        winners = tuple(s for s in range(len(names)) if s != ending.seat)
    elif ending.form == "unfinished":
        winners = ()
    scores = tuple(outcome.scores) if outcome is not None and ending.by_rules else ()
    audited = session.audit is not None
    number = session.header.number
    return GameResult(number, names, ending, winners, scores, audited, session.module.name)
