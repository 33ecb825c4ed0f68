"""A watcher's word to the table in the terminal client (SPEC 3.15 *Watchers*): where the
host allows it, the watch screen sends a line (w, Enter) that the seats hear marked as a
watcher's, and a seat's table screen shows a watcher's line marked so, as plain text;
where the host does not, the watch screen says chat is for the seats only."""

from __future__ import annotations

import random
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cuttle_client.app import NetworkLaunch, Settings, make_app
from cuttle_client.chat import SEATS_ONLY, ChatBox, ChatPanel
from cuttle_protocol.play import GameSettings, NetPlan, TableGame, play_at_table
from cuttle_protocol.shells import follow_table, join_table, watch_table
from cuttle_protocol.table import Chat, Watching
from cuttle_protocol.wire import LocalPlayer
from textual.pilot import Pilot

from cuttle_net.games.cuttle.bots import make_bot
from tests.client.helpers import keys, run, screen_text, until
from tests.client.test_cuttle_table import FAST, cuttle_table_shown
from tests.client.test_unisson_network import answer_the_code
from tests.client.test_watch_screen import CUTTLE, watching_two_bots

LINE = "[b]gg[/b] [@click=app.quit]"


@pytest.mark.parametrize("allowed", [True, False])
def test_the_watch_screen_sends_a_line_the_seats_hear_as_a_watchers(
    tmp_path: Path, allowed: bool
) -> None:
    app = make_app(Settings(bot_delay=0, lan=False))
    heard: list[Chat] = []  # the host's seat: the watchers' lines it was relayed
    rng = random.Random(1)

    relayed = trio.Event()

    async def bot(view: Any) -> Any:
        if allowed:
            await relayed.wait()  # the game waits for the watcher's line
        return rng.choice(view.legal_moves())

    def listen(item: object) -> None:
        if isinstance(item, Chat) and item.watcher:
            heard.append(item)
            relayed.set()

    async def body(pilot: Pilot) -> None:
        where = replace(CUTTLE, watcher_chat=allowed)
        await watching_two_bots(pilot, tmp_path, bot, where, watch=listen)
        screen = app.screen
        if not allowed:
            seats_only = SEATS_ONLY.split(" only")[0]  # (the panel wraps it)
            await until(pilot, lambda: seats_only in screen_text(app))
            assert not screen.query(ChatBox)
            await keys(pilot, "w", "g")  # no box to type in: nothing is sent, nothing breaks
            assert not heard and app.is_running
            return
        await until(pilot, lambda: "watching: Wendy" in screen_text(app))  # named: may talk
        await keys(pilot, "w", *LINE, "enter")
        await until(pilot, lambda: bool(heard))
        assert [(c.who(str), c.text) for c in heard] == [("Wendy (watching)", LINE)]
        # It comes back to the watcher too, relayed, marked and as plain text.
        shown = ("Wendy (watching):", "[b]gg[/b]", "[@click=app.quit]")  # (wrapped)
        await until(pilot, lambda: all(part in screen_text(app) for part in shown))
        assert screen.query_one(ChatPanel).region.bottom <= 23  # at 80x24, on the screen

    run(app, body)


def test_a_seats_screen_shows_a_watchers_line_marked_and_as_plain_text(
    tmp_path: Path,
) -> None:
    """The person hosts a Cuttle table with --watcher-chat; Bob, a bot, joins; a watcher
    says a line made of markup: Ann's table screen shows it under the watcher's name,
    marked as a watcher's, every character as text."""
    plan = NetPlan("host", "Ann", port=0, bind="127.0.0.1", config_dir=tmp_path / "ann")
    plan = replace(plan, watcher_chat=True)
    timeouts = GameSettings(move_timeout=30, reply_timeout=10, reconnect_window=5)
    launch = NetworkLaunch(plan, timeouts, players=2, rules_token="standard")
    settings = Settings(bot_delay=0, data_dir=tmp_path / "ann", config_dir=tmp_path / "ann")
    app = make_app(replace(settings, lan=False), network=launch)
    games: dict[str, TableGame] = {}
    said: list[bool] = []

    async def body(pilot: Pilot) -> None:
        await until(pilot, lambda: "(port " in screen_text(app))
        address = "127.0.0.1:" + re.search(r"\(port (\d+)\)", screen_text(app))[1]  # type: ignore[index]

        async def wes() -> None:
            key = Ed25519PrivateKey.generate()
            async with watch_table(address, LocalPlayer("[i]Wes", key)) as table:

                def show(note: object) -> None:
                    if isinstance(note, Watching) and table.core.may_say and not said:
                        said.append(table.say(LINE))

                await follow_table(table, key, show=show, save=False)

        async def bob() -> None:
            key = Ed25519PrivateKey.generate()
            bot, rng = make_bot("random"), random.Random(2)
            async with join_table(address, LocalPlayer("Bob", key), timeouts=FAST) as table:
                games["Bob"] = await play_at_table(
                    table, key, "standard", choose=lambda v: bot.choose(v, rng), save=False
                )

        app.trio.start_task(wes)  # type: ignore[attr-defined]
        await until(pilot, lambda: "watch" in screen_text(app).lower())
        app.trio.start_task(bob)  # type: ignore[attr-defined]
        await answer_the_code(pilot, True)
        table = await cuttle_table_shown(pilot)
        await until(pilot, lambda: bool(table.query(ChatPanel)))
        shown = ("[i]Wes (watching):", "[b]gg[/b]", "[@click=app.quit]")  # (wrapped)
        await until(pilot, lambda: all(part in screen_text(app) for part in shown))
        assert said == [True] and app.is_running

    run(app, body)
