"""A word to the table in both games' table screens (SPEC 3.15): the chat panel beside the
moves (L'Unisson: under the options; Cuttle: under the moves), at 80x24, shows a peer's name
and line as plain visible text; w talks, g h y say a canned line."""

from __future__ import annotations

from cuttle_client.app import Settings, make_app
from cuttle_client.chat import SHOWN, ChatBox, ChatPanel
from cuttle_client.cuttle.controller import PracticeController as CuttlePractice
from cuttle_client.cuttle.table import TableScreen
from cuttle_client.modals import GameOverScreen
from cuttle_client.unisson.controller import Ending, PracticeController
from cuttle_client.unisson.table import UnissonTableScreen
from cuttle_protocol.table import Chat, Muted
from textual.pilot import Pilot
from textual.widgets import OptionList

from tests.client.helpers import keys, run, screen_text, until

# A peer's line and what the panel must show of it.
HOSTILE = {
    "[b]x[/b]": "[b]x[/b]",
    "[@click=app.quit]": "[@click=app.quit]",
    "\x1b[31mred\x07": "?[31mred?",
}


class Talking(PracticeController):
    """A practice table that says it can chat: what the player says is kept."""

    can_chat = True

    def __init__(self) -> None:
        super().__init__("greedy", 3, seed=2, bot_delay=0)
        self.said: list[str] = []

    def say(self, text: str) -> None:
        self.said.append(text)


def test_the_chat_panel_shows_hostile_names_and_lines_as_plain_text() -> None:
    app = make_app(Settings(bot_delay=0))
    talking = Talking()

    async def body(pilot: Pilot) -> None:
        app.open_table(talking)
        await until(pilot, lambda: isinstance(app.screen, UnissonTableScreen))
        await until(pilot, lambda: bool(app.screen.query("#chat")) and talking.my_turn)
        screen = app.screen
        names = {1: "[/b]Eve", 2: "Bob"}
        talking.chat.heard(Chat(2, "first line, scrolled away", 11), names.__getitem__)
        for i, line in enumerate(HOSTILE):
            talking.chat.heard(Chat(1, line, 12 + i), names.__getitem__)
        screen.redraw()
        await until(pilot, lambda: "?[31mred?" in screen_text(app))  # scrolled to the end
        text = screen_text(app)
        for shown in HOSTILE.values():
            assert f"[/b]Eve: {shown}" in text, text
        assert "first line" not in text  # the newest SHOWN rows only
        assert app.is_running and len(talking.chat.lines) == SHOWN + 1
        # At 80x24 the panel fits under the options, beside the moves.
        panel = screen.query_one("#chat", ChatPanel)
        assert panel.display and panel.region.bottom <= 23 and panel.region.height == 5
        assert screen.query_one("#actions", OptionList).region.height >= 3
        talking.chat.heard(Muted(1), names.__getitem__)
        screen.redraw()
        await until(pilot, lambda: "the host muted [/b]Eve for" in screen_text(app))
        # w opens the line, Enter sends it as typed (markup is just text); g is canned;
        # Esc puts a line away unsent, and the options have the keys again.
        await keys(pilot, "w", *"[b]hi", "enter", "g", "w", *"dx", "escape", "h")
        assert talking.said == ["[b]hi", "good game", "one moment"]
        assert not screen.query_one("#chat-input").display
        assert screen.query_one("#actions", OptionList).has_focus
        # At the game-over panel the canned lines still reach the table ("good game").
        talking.ending = Ending("Bob wins the game", (), ())
        talking._changed()
        await until(pilot, lambda: isinstance(app.screen, GameOverScreen))
        await keys(pilot, "g")
        assert talking.said[-1] == "good game" and isinstance(app.screen, GameOverScreen)

    run(app, body)


def test_no_chat_panel_where_there_is_no_table_to_talk_to() -> None:
    app = make_app(Settings(bot_delay=0))
    practice = PracticeController("greedy", 3, seed=2, bot_delay=0)

    async def body(pilot: Pilot) -> None:
        app.open_table(practice)
        await until(pilot, lambda: isinstance(app.screen, UnissonTableScreen))
        await until(pilot, lambda: practice.my_turn)
        await pilot.pause()
        assert not app.screen.query(ChatBox)
        await keys(pilot, "w", "g")
        assert not app.screen.query(ChatBox) and app.is_running

    run(app, body)


class CuttleTalking(CuttlePractice):
    can_chat = True

    def __init__(self) -> None:
        super().__init__("greedy", seed=3, bot_delay=0)
        self.said: list[str] = []

    def say(self, text: str) -> None:
        self.said.append(text)


def test_the_cuttle_table_screen_has_the_same_chat() -> None:
    app = make_app(Settings(bot_delay=0))
    talking = CuttleTalking()

    async def body(pilot: Pilot) -> None:
        app.open_table(talking)
        await until(pilot, lambda: isinstance(app.screen, TableScreen))
        await until(pilot, lambda: bool(app.screen.query("#chat")) and talking.my_turn)
        screen = app.screen
        for i, line in enumerate(HOSTILE):
            talking.chat.heard(Chat(1, line, 12 + i), {1: "[@click=app.quit]"}.__getitem__)
        screen.redraw()
        await until(pilot, lambda: "red?" in screen_text(app))
        text = screen_text(app)
        assert "[@click=app.quit]:" in text and "│ ?[31mred?" in text, text  # wrapped
        panel = screen.query_one("#chat", ChatPanel)
        assert panel.region.bottom <= 23 and panel.region.height == 5
        await keys(pilot, "w", *"hi", "enter", "y")
        assert talking.said == ["hi", "your turn"] and app.is_running

    run(app, body)


def test_the_code_question_sends_nobody_to_the_tables_own_chat() -> None:
    """The code is compared before the deal, when the table's chat is not open yet, and a
    chat through the host is no place to compare it: the question says so (issue 27)."""
    from types import SimpleNamespace

    from cuttle_client.cuttle.network import CuttleTable

    seat = CuttleTable("ann")
    seat.code = "123 456"
    seat._table = SimpleNamespace(core=SimpleNamespace(seats=(), me=0))  # type: ignore[assignment]
    question = seat.code_question()
    assert "or in a chat" not in question
    assert "not in this table's chat" in question and "123 456" in question


def test_lines_shown_to_a_panel_not_yet_composed_appear_once_it_is() -> None:
    """A move drawn the moment the chat box was mounted showed the lines to a panel whose
    text widget did not exist yet: NoMatches stopped the game ("our program failed")."""
    app = make_app(Settings(bot_delay=0, lan=False))

    async def body(pilot: Pilot) -> None:
        panel = ChatPanel(id="early")
        app.screen.mount(panel)  # not awaited: compose has not run yet
        panel.show([("Bea", "one moment")])
        await until(pilot, lambda: "Bea: one moment" in screen_text(app))

    run(app, body)
