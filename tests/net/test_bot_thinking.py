"""A headless bot (``cuttle host/join --bot``) thinks off the trio loop."""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path

import pytest
import trio
from cuttle_protocol.play import bot_decision

from cuttle_net.games.cuttle.engine import Game
from cuttle_net.games.cuttle.moves import Move
from cuttle_net.games.cuttle.rules import CLASSIC
from cuttle_net.games.cuttle.search import SearchBot

from .test_host_join import finish, join, result_lines, start_host


class WaitingBot:
    """Blocks in ``choose`` until released (as a long search would), then plays a move."""

    name = "waiting"

    def __init__(self) -> None:
        self.release = threading.Event()
        self.thread: int | None = None

    def choose(self, view: Game, rng: random.Random) -> Move:
        self.thread = threading.get_ident()
        moves = view.legal_moves()
        view.hands[view.viewer].clear()  # it may scribble on its view: that is its own copy
        if not self.release.wait(10):
            raise AssertionError("nobody released the bot: the trio loop was blocked")
        return rng.choice(moves)


def _view() -> Game:
    return Game.deal(CLASSIC, seed=1).view(0)


def test_the_loop_runs_while_the_bot_thinks() -> None:
    bot, view = WaitingBot(), _view()
    before = view.copy()
    ticks: list[float] = []

    async def main() -> Move:
        async def tick() -> None:  # a keepalive, a timeout: anything else on the loop
            for _ in range(5):
                await trio.sleep(0.01)
                ticks.append(time.monotonic())
            bot.release.set()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(tick)
            return await bot_decision(bot, view, random.Random(3))

    move = trio.run(main)
    assert len(ticks) == 5
    assert bot.thread not in (None, threading.get_ident())  # a worker thread decided
    assert move in before.legal_moves()
    assert view.hands == before.hands  # the caller's view intact


def test_cancelling_the_wait_does_not_wait_for_the_bot() -> None:
    bot = WaitingBot()

    async def main() -> float:
        start = time.monotonic()
        with trio.move_on_after(0.1):
            await bot_decision(bot, _view(), random.Random(3))
            raise AssertionError("the bot decided though nobody released it")
        return time.monotonic() - start

    try:
        assert trio.run(main) < 2
    finally:
        bot.release.set()  # the abandoned thread finishes on its own


def test_hard_plays_a_whole_headless_game(tmp_path: Path) -> None:
    host, port = start_host(tmp_path, "--bot", "hard", "--games", "1")
    joined = join(tmp_path, port, "--bot", "random", "--games", "1")
    code, out, err = finish(host)
    assert joined.returncode == 0 and code == 0, joined.stderr + err
    assert len(result_lines(out)) == 1 and result_lines(out) == result_lines(joined.stdout)
    assert "audit passed" in result_lines(out)[0]


class Reader(SearchBot):
    """A small search bot with inference that keeps what it was shown."""

    def __init__(self) -> None:
        super().__init__("reader", 30, infer=0.7)
        self.shown: list[tuple[Game, Move]] = []

    def observe(self, view: Game, move: Move) -> None:
        self.shown.append((view.copy(), move))
        super().observe(view, move)


@pytest.mark.trio
async def test_a_headless_bot_is_shown_each_move_of_its_opponent(tmp_path: Path) -> None:
    """At Cuttle's 2-seat table (what `cuttle host/join --bot` play), a bot that reads its
    opponent's play is shown each of the other seat's moves, with the view it had when the
    other seat decided."""
    from cuttle_protocol.play import observer, play_match_at_table

    from .test_tablegame import table_of

    reader, rng = Reader(), random.Random(3)
    hooks = {
        0: {"choose": lambda view: reader.choose(view, rng), "watch": observer(reader)},
        1: {},
    }
    matches = await table_of(
        tmp_path, hooks, game="cuttle", token="classic", play=play_match_at_table
    )
    (game,) = matches[0].games
    mine = game.session
    seat = mine.seat
    theirs = [r.text for r in mine.records if r.seat != seat]
    assert theirs and [str(m) for _, m in reader.shown] == theirs
    for view, move in reader.shown:  # each from the view the opponent decided in
        assert view.viewer == seat and view.to_act == 1 - seat
        view.check(move)
