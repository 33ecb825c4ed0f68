"""A verified record, position by position, for a replay viewer (``cuttle replay``).

Pure stepping, no drawing: ``positions`` verifies a record and lays out the table after the
deal and after each move, for any game.  An audited game (or a practice one) is known card
for card, so it can be seen with every face up or from any seat's chair; a game never
audited only as a third party saw it (SPEC 5.3).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cuttle_net.games.interface import GameModule, Outcome

from .record import parse_record
from .replay import full_states
from .verify import Verdict, verify_text


@dataclass(frozen=True)
class Positions:
    """``states[k]`` is the table after ``k`` of ``moves``: every card known when ``full``,
    else what a third party saw (a move whose table was never shown keeps the one before)."""

    module: GameModule
    rules: Any
    names: tuple[str, ...]  # each seat's name, as the record gives it
    dealer: int
    date: str
    practice: bool
    moves: list[tuple[int | None, str]]
    states: list[Any]
    full: bool
    outcome: Outcome | None  # the end by the rules, if the game reached one
    ending: str  # the record's own words for an end the rules did not make (a forfeit)

    @property
    def game(self) -> str:
        return self.module.name

    def __len__(self) -> int:
        """The number of moves."""
        return len(self.moves)

    def view(self, k: int, seat: int | None) -> Any:
        """The table after ``k`` moves as ``seat`` saw it, or every face (``seat`` None);
        a game never audited is only ever seen as a third party saw it."""
        state = self.states[k]
        if seat is None or not self.full:
            return state
        return self.module.view(state, seat)


def public_states(
    module: GameModule,
    rules: Any,
    seats: int,
    dealer: int,
    public: list[Any],
    moves: list[tuple[int | None, str]],
) -> list[Any]:
    """The table after each of ``moves`` as a third party saw it (``public``: the spectator's
    view after the deal, then after each move shown; a record never audited, or a game
    watched live). A concession during the deal shows no table: the spectator's start
    stays."""
    states = list(public) or [module.new_view(rules, seats, dealer, None, (), ())]
    return states + [states[-1]] * (len(moves) + 1 - len(states))


def positions(text: str) -> Positions:
    """Verify ``text`` and lay out its positions; ``ValueError`` saying why a record cannot
    be replayed (not a record, or one that does not verify)."""
    report = verify_text(text)
    if report.verdict == Verdict.UNREADABLE:
        raise ValueError(f"not a game record: {report.problem}")
    if report.verdict not in (Verdict.VALID, Verdict.UNAUDITED):
        raise ValueError(f"the record does not verify: {report.problem}")
    module, rules = report.module, report.rules
    assert module is not None
    record = parse_record(text)
    moves = list(report.moves)
    full = report.order is not None
    if report.order is not None:
        states = full_states(module, rules, report.seats, report.dealer, report.order, moves)
    else:
        states = public_states(module, rules, report.seats, report.dealer, report.public, moves)
    tags = record.tags
    return Positions(
        module=module,
        rules=rules,
        names=tuple(tags[f"Seat{s}"] for s in range(report.seats)),
        dealer=report.dealer,
        date=tags.get("Date", ""),
        practice=report.practice,
        moves=moves,
        states=states,
        full=full,
        outcome=report.outcome,
        ending=tags.get("Ending", "") if tags.get("Result", "*") != "*" else "",
    )


__all__ = ["Positions", "positions", "public_states"]
