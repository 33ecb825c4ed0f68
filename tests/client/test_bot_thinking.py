"""A search bot thinks in a worker thread: the table stays responsive and says so."""

from __future__ import annotations

import threading

from cuttle_client.app import Practice, Settings, make_app
from textual.pilot import Pilot

from cuttle_net.games.cuttle.moves import DRAW
from cuttle_net.games.cuttle.rules import Rules

from .helpers import run, until


def test_a_search_bot_thinks_off_the_ui_thread() -> None:
    app = make_app(Settings(bot_delay=0.01), Practice("medium", Rules(), 3))
    thinkers: list[threading.Thread] = []

    async def body(pilot: Pilot) -> None:
        c = app.screen.controller  # type: ignore[attr-defined]
        choose = c._bot.choose

        def spy(view, rng):  # type: ignore[no-untyped-def]
            thinkers.append(threading.current_thread())
            return choose(view, rng)

        c._bot.choose = spy
        assert c.seat == 0 and c.my_turn
        c.submit(DRAW)
        assert "thinking" in (c.waiting_for() or "")
        # the UI loop keeps running while the bot thinks
        await until(pilot, lambda: c.my_turn or c.ending is not None)
        assert len(c.log) >= 2 and c.log[1].seat == 1  # the bot's move arrived

    run(app, body)
    assert thinkers and all(t is not threading.main_thread() for t in thinkers)
