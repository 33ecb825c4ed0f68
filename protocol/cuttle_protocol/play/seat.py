"""What a seat brings to a table beside its connection: its timeouts, and a bot's turn
worked out off the trio loop (either game's bots, headless or in the client)."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, Self, TypeVar

import trio

from cuttle_net.session import MovePlayed


@dataclass(frozen=True)
class GameSettings:
    """A seat's timeouts (SPEC 3.11, 3.15) and a bot's pace."""

    move_timeout: float = 600.0  # seconds a player may take over one decision
    reply_timeout: float = 20.0  # seconds for a deck-protocol step (pure computation)
    reconnect_window: float = 60.0  # seconds to get a lost connection back mid-game
    bot_delay: float = 0.0  # seconds a bot waits before each move (to watch it play)


class _View(Protocol):
    def copy(self) -> Self: ...


_VC = TypeVar("_VC", bound=_View, contravariant=True)
_MC = TypeVar("_MC", covariant=True)
_V = TypeVar("_V", bound=_View)
_M = TypeVar("_M")


class Chooser(Protocol[_VC, _MC]):
    """A bot of either game: a move from a seat's view."""

    def choose(self, view: _VC, rng: random.Random, /) -> _MC: ...


async def bot_decision(bot: Chooser[_V, _M], view: _V, rng: random.Random) -> _M:
    """``bot``'s move from ``view``, worked out in a worker thread.

    A search bot thinks for up to about a second: on the trio loop that would stall the
    keepalives, the peers' messages and every deadline.  The thread gets its own copy of
    the view.  Cancelling the wait returns at once and abandons the thread, which finishes
    its search alone and whose move is dropped (it holds no lock and touches nothing else).
    """
    return await trio.to_thread.run_sync(bot.choose, view.copy(), rng, abandon_on_cancel=True)


def observer(bot: object) -> Callable[[object], None] | None:
    """For a bot that reads the others' play (``observe(view, move)``, e.g. Cuttle's
    ``hard``): a `watch` hook for ``play_at_table`` that shows it each other seat's move
    with the view this seat had when that seat decided (None for a bot that reads none)."""
    observe = getattr(bot, "observe", None)
    if observe is None:
        return None
    waiting: list[Any] = []  # this seat's view when the session last waited for a move

    def watch(item: object) -> None:
        session, output = getattr(item, "session", None), getattr(item, "output", None)
        if session is None or output is None:  # a table event, not a session step
            return
        for event in output.events:
            theirs = isinstance(event, MovePlayed) and event.seat not in (None, session.seat)
            if theirs and waiting:
                observe(waiting[-1], event.move)  # they decided in the view we last saw
        if session.view is not None and not session.busy:
            waiting[:] = [session.view.copy()]

    return watch
