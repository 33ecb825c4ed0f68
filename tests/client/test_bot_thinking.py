"""A search bot thinks in a worker thread: the table stays responsive and says so."""

from __future__ import annotations

import argparse
import inspect
import random
import threading
from types import SimpleNamespace

import pytest
import trio
from cuttle_client import cli_table
from cuttle_client.app import Practice, Settings, make_app
from cuttle_protocol.play import GameResult, NoMoreGames, TableGame, TableMatch
from textual.pilot import Pilot

from cuttle_net.games.cuttle.moves import DRAW
from cuttle_net.games.unisson import FACES
from cuttle_net.games.unisson import Game as UnissonGame
from cuttle_net.records.ending import Ending

from .helpers import run, until


def test_a_search_bot_thinks_off_the_ui_thread() -> None:
    app = make_app(Settings(bot_delay=0.01), Practice("medium", "classic", 3))
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


def test_a_unisson_search_bot_thinks_off_the_ui_thread() -> None:
    """The L'Unisson table is played by three search bots: each thinks in a worker thread
    (it froze the screen for 0.3 to 0.6 s a decision when it ran on the UI's loop)."""
    app = make_app(Settings(bot_delay=0.01), Practice("medium", seed=3, game="unisson"))
    thinkers: list[threading.Thread] = []

    async def body(pilot: Pilot) -> None:
        c = app.screen.controller  # type: ignore[attr-defined]
        for bot in c._bots:
            choose = bot.choose

            def spy(view, rng, choose=choose):  # type: ignore[no-untyped-def]
                thinkers.append(threading.current_thread())
                return choose(view, rng)

            bot.choose = spy
        await until(pilot, lambda: c.my_turn or c.ending is not None)
        turn = len(c.log)
        while c.my_turn:  # a move of ours may ask us for more (an effect's answer)
            c.submit(c.view.legal_moves()[0])
        assert c.waiting_for().endswith("is thinking…")
        await until(pilot, lambda: c.my_turn or c.ending is not None)
        assert len(c.log) > turn + 1  # the bots' moves arrived

    run(app, body)
    assert thinkers and all(t is not threading.main_thread() for t in thinkers)


def test_a_headless_table_bot_thinks_off_the_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    """`cuttle host/join --bot` at a L'Unisson table hands the table a chooser that thinks
    in a worker thread, so the table's keepalives and deadlines go on meanwhile."""
    thinkers: list[threading.Thread] = []

    class Spy:
        name = "spy"

        def choose(self, view: UnissonGame, rng: random.Random) -> object:
            thinkers.append(threading.current_thread())
            return view.legal_moves()[0]

    async def sit(name: str, where: object, *, choose, **kwargs) -> SimpleNamespace:  # type: ignore[no-untyped-def]
        view = UnissonGame.deal(4, order=list(range(FACES))).view(1)
        move = choose(view)
        assert inspect.isawaitable(move), "the chooser decided on the table's loop"
        assert await move in view.legal_moves()
        over = GameResult(1, ("Hal", "Ann"), Ending("octave"), (0,), (), True, "unisson")
        return TableMatch([TableGame(over)], None, NoMoreGames())

    monkeypatch.setattr(cli_table, "sit_at_table", sit)
    args = argparse.Namespace(
        config_dir=None,
        reply_timeout=1,
        move_timeout=1,
        reconnect_window=1,
        bot_delay=0,
        data_dir=None,
        games=1,
    )
    assert trio.run(cli_table._bot_at_table, args, "Hal", None, Spy(), print) == 0
    assert thinkers and thinkers[0] is not threading.main_thread()


def test_a_bot_thinking_when_the_table_closes_plays_nothing() -> None:
    """Leaving a L'Unisson table while a bot thinks: its move is dropped, and the bots
    after it do not go on deciding (on the UI thread, the table's host gone)."""
    app = make_app(Settings(bot_delay=0.01), Practice("medium", seed=3, game="unisson"))
    calls: list[tuple[threading.Thread, list[bool]]] = []
    hold, gate = threading.Event(), threading.Event()

    async def body(pilot: Pilot) -> None:
        c = app.screen.controller  # type: ignore[attr-defined]
        for bot in c._bots:
            choose = bot.choose

            def spy(view, rng, choose=choose):  # type: ignore[no-untyped-def]
                done: list[bool] = []
                calls.append((threading.current_thread(), done))
                try:
                    if hold.is_set():  # thinking until the test lets it go
                        assert gate.wait(30)
                    return choose(view, rng)
                finally:
                    done.append(True)

            bot.choose = spy
        await until(pilot, lambda: c.my_turn)
        hold.set()
        while c.my_turn:
            c.submit(c.view.legal_moves()[0])
        started = len(calls)
        await until(pilot, lambda: len(calls) > started)  # a bot is thinking
        moves = len(c.moves)
        c.close()
        gate.set()
        await until(pilot, lambda: all(done for _, done in calls))
        await pilot.pause()
        assert len(c.moves) == moves  # the thought in flight was dropped
        assert len(calls) == started + 1  # and no bot decided after it

    run(app, body)
    assert all(t is not threading.main_thread() for t, _ in calls)
