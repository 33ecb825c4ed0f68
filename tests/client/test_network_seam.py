"""The seam a network game will use: a controller that only holds a view, fed by a trio task.

``RemoteController`` stands in for the future network controller.  Its peer runs under
trio in guest mode inside Textual's asyncio loop (``TrioGuest``), holds the full game as
the other machine would, and sends back each move with the cards it shows this player.
The table plays a whole game through it by keys, exactly as against the practice bot.
"""

from __future__ import annotations

import random

import trio
from cuttle_client.app import CuttleApp, Settings
from cuttle_client.cuttle.controller import TableController
from cuttle_client.trio_guest import GuestTask
from textual.pilot import Pilot

from cuttle_net.games.cuttle.bots import make_bot
from cuttle_net.games.cuttle.engine import Game
from cuttle_net.games.cuttle.moves import Move
from cuttle_net.games.cuttle.rules import CLASSIC
from tests.client.helpers import run
from tests.client.test_table_play import play_by_keys


class RemoteController(TableController):
    """Seat 0's view only; moves go to, and come from, a trio task."""

    def __init__(self, seed: int) -> None:
        super().__init__()
        self.seat, self.rules, self.names = 0, CLASSIC, ("You", "Peer")
        self._truth = Game.deal(CLASSIC, seed=seed)  # the peer's; the UI never sees it
        self._view = self._truth.view(0)
        self._task: GuestTask | None = None
        self._outbox, self._inbox = trio.open_memory_channel[Move](10)
        self._rng = random.Random(seed)

    def waiting_for(self) -> str | None:
        if self.busy:
            return "sending your move…"
        return "waiting for the peer…" if self.view.to_act == 1 else None

    def start(self) -> None:
        assert self._host is not None
        self._guest = self._host.trio
        self._task = self._guest.start_task(self._peer)

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
        super().close()

    def submit(self, move: Move) -> None:
        self.check(move)
        self.busy = True
        self._changed()
        self._guest.run_sync_soon(self._outbox.send_nowait, move)

    def _receive(self, seat: int, move: Move, cards: tuple[int, ...]) -> None:
        """A move arrived (on the UI thread: trio is a guest), with the cards it shows us."""
        before = self.view.copy()
        self.view.apply(move, by=seat, reveal=cards)
        self.busy = False
        self._record(seat, move, before)
        if self.view.outcome is not None:
            self._end(self.view.outcome)
        else:
            self._changed()

    async def _peer(self) -> None:
        truth, bot = self._truth, make_bot("random")
        while truth.outcome is None:
            seat = truth.to_act
            if seat == 0:
                move = await self._inbox.receive()
            else:
                await trio.sleep(0)
                move = bot.choose(truth.view(1), self._rng)
            shown = truth.play(move)
            self._receive(seat, move, shown.seat0)


def test_a_whole_game_through_a_trio_fed_controller() -> None:
    controller = RemoteController(seed=11)
    app = CuttleApp(Settings(), controller)

    async def body(pilot: Pilot) -> None:
        await play_by_keys(pilot, random.Random(11))
        assert controller.ending is not None
        assert controller.view.outcome == controller._truth.outcome
        assert len(controller.log) > 5

    run(app, body)
    assert controller._task.done and app.trio.done  # leaving the app ended the trio run
