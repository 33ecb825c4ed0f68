"""A word to the table over the network, through the client's one table seat
(``seat.TableSeat``): at a 2-seat Cuttle table the person's app hosts, a joiner's hostile
line shows as plain text in the chat panel, named, and the person's canned line reaches
the joiner, signed and relayed like every entry."""

from __future__ import annotations

import random
import re
from collections.abc import Awaitable, Callable
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cuttle_client.chat import ChatPanel
from cuttle_protocol.play import play_at_table
from cuttle_protocol.shells import join_table
from cuttle_protocol.table import Chat, Started
from cuttle_protocol.wire import LocalPlayer
from textual.pilot import Pilot
from textual.widgets import Input

from cuttle_net.games.cuttle.bots import make_bot
from tests.client.helpers import keys, run, screen_text, until
from tests.client.test_cuttle_table import FAST, cuttle_host, cuttle_table_shown
from tests.client.test_unisson_network import answer_the_code

HOSTILE = "[b]x[/b] [@click=app.quit] \x1b[31mred\x07"
# What the panel shows (the line wraps in the panel; the sender signed it made safe).
SHOWN = ("Bob: [b]x[/b]", "[@click=app.quit]", "\ufffd[31mred\ufffd")


def bob_joins(
    port: str, tmp_path: Path, line: str, heard: list[tuple[int, str]]
) -> Callable[[], Awaitable[None]]:
    """Bob, a random bot, joins the app's table on ``port``, says ``line`` once the game
    starts, and notes every line he hears as (seat, text)."""
    bot, rng = make_bot("random"), random.Random(2)

    async def bob() -> None:
        key = Ed25519PrivateKey.generate()
        async with join_table(f"127.0.0.1:{port}", LocalPlayer("Bob", key), timeouts=FAST) as table:

            def watch(item: object) -> None:
                if isinstance(item, Started):
                    assert table.say(line)
                elif isinstance(item, Chat):
                    heard.append((item.seat, item.text))

            await play_at_table(
                table,
                key,
                "standard",
                choose=lambda v: bot.choose(v, rng),
                data_dir=tmp_path / "bob",
                watch=watch,
            )

    return bob


def test_a_cuttle_table_talks_both_ways_and_shows_a_peers_line_as_plain_text(
    tmp_path: Path,
) -> None:
    app = cuttle_host(tmp_path)
    heard: list[tuple[int, str]] = []

    async def body(pilot: Pilot) -> None:
        await until(pilot, lambda: "(port " in screen_text(app))
        port = re.search(r"\(port (\d+)\)", screen_text(app))[1]  # type: ignore[index]
        app.trio.start_task(bob_joins(port, tmp_path, HOSTILE, heard))  # type: ignore[attr-defined]
        await answer_the_code(pilot, True)
        table = await cuttle_table_shown(pilot)
        await until(pilot, lambda: bool(table.query(ChatPanel)))
        await until(pilot, lambda: all(part in screen_text(app) for part in SHOWN))
        assert app.is_running
        await keys(pilot, "g")  # a canned line, to the table
        await until(pilot, lambda: (0, "good game") in heard)
        await until(pilot, lambda: "You: good game" in screen_text(app))
        assert heard[0][0] == 1  # Bob's own line came back first, relayed
        panel = table.query_one(ChatPanel)
        assert panel.region.bottom <= 23  # at 80x24, on the screen

    run(app, body)


def test_under_80_columns_a_line_heard_is_a_notice_and_the_line_typed_shows(
    tmp_path: Path,
) -> None:
    """In tmux at 60×20 Cuttle's chat panel (beside the moves) was hidden: a line heard
    was never seen, and after `w` the line was typed blind."""
    app = cuttle_host(tmp_path)
    heard: list[tuple[int, str]] = []

    async def body(pilot: Pilot) -> None:
        await until(pilot, lambda: "(port " in " ".join(screen_text(app).split()))
        port = re.search(r"\(port (\d+)\)", " ".join(screen_text(app).split()))[1]  # type: ignore[index]
        app.trio.start_task(bob_joins(port, tmp_path, "[b]hello[/b]", heard))  # type: ignore[attr-defined]
        await answer_the_code(pilot, True)
        table = await cuttle_table_shown(pilot)
        await until(pilot, lambda: any(n.title == "Chat" for n in app._notifications))
        (note,) = [n for n in app._notifications if n.title == "Chat"]
        assert note.message == "Bob: [b]hello[/b]" and not note.markup
        await keys(pilot, "w", *"hi")
        await pilot.pause()
        field = table.query_one("#chat-input", Input)
        assert field.value == "hi" and field.region.height > 0, field.region  # in sight
        assert field.region.bottom <= 19 and field.region.width >= 50
        await keys(pilot, "enter")
        await until(pilot, lambda: (0, "hi") in heard)
        assert not table.has_class("-talking")

    run(app, body, size=(60, 20))
