"""What every game's table controller shares: the ``TableHost`` it draws on, a bot's
thinking, and a practice game's record (each game's controller: its ``controller.py``)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from cuttle_protocol.play import Chooser, bot_decision
from cuttle_protocol.store import RecordNotSaved, save_text

from cuttle_net.games.interface import game_module
from cuttle_net.records.record import build_practice_record

from .progress import record_words

if TYPE_CHECKING:
    from .trio_guest import TrioGuest


class TableHost(Protocol):
    """What a controller needs from the UI."""

    def table_changed(self) -> None:
        """The view, the log or the ending changed: redraw."""

    def schedule(self, delay: float, callback: Callable[[], None]) -> object:
        """Run ``callback`` on the UI's loop after ``delay`` seconds."""

    @property
    def trio(self) -> TrioGuest:
        """The app's trio run, for controllers whose game runs under trio."""


@runtime_checkable
class Practising(Protocol):
    """A practice game's controller (each game's ``PracticeController``): ctrl+q mid-game
    asks ``quit_question``, then ``quit_game`` (a Cuttle game is conceded, its record
    saved)."""

    quit_question: str
    ending: Any  # None until the game is over

    def quit_game(self) -> None: ...


def save_practice(
    directory: Path,
    game: str,
    rules: str,
    dealer: int,
    order: Sequence[int],
    moves: Sequence[tuple[int | None, str]],
    names: Sequence[str],
    bot: str,
    player: tuple[int, str],
) -> Path | RecordNotSaved:
    """Save a practice game of ``game`` (its ``rules`` token) as a record (SPEC 5.5) under
    ``directory``: its path, or why it could not be written (the table shows it beside the
    result).  ``player``: the person's seat and name, which the record gives in place of
    the table's "You"."""
    seat, name = player
    names = [name if s == seat else n for s, n in enumerate(names)]
    date = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    module = game_module(game)
    table = module.parse_rules(rules, len(names))
    text = build_practice_record(module, table, dealer, order, moves, names, bot, date)
    return save_text(text, directory, f"{date}-{game}-practice-{bot}", None)


_M = TypeVar("_M")


def bot_thinks(
    host: TableHost | None,
    bot: Chooser[Any, _M],
    view: Any,
    rng: random.Random,
    then: Callable[[_M], None],
) -> None:
    """Have ``bot`` choose from ``view`` and hand its move to ``then``, in either game.

    A search bot (``searches``) thinks for up to a second: in a worker thread
    (``bot_decision``, as a headless bot does), so that the table stays live and can say
    it is thinking; ``then`` runs back on the UI thread, where trio is a guest, and must
    check that the game is still where it was.  A quick bot, or a controller with no
    screen (tests, benchmarks), decides at once.
    """
    if host is None or not getattr(bot, "searches", False):
        then(bot.choose(view, rng))
        return

    async def think() -> None:
        then(await bot_decision(bot, view, rng))

    host.trio.start_task(think)


def saved_words(saved: Path | RecordNotSaved | None) -> str:
    """What the end of a game says of its record: where it was saved, or why it was not."""
    words = record_words(saved)
    return f" · {words}" if words else ""
