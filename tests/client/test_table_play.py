"""Whole games through the UI against a bot, by keys only, and the table's prompts."""

from __future__ import annotations

import random

import pytest
from cuttle_client.app import Practice, Settings, make_app
from cuttle_client.cuttle.table import TableScreen
from cuttle_client.modals import ConfirmScreen, GameOverScreen
from textual.pilot import Pilot
from textual.widgets import OptionList

from cuttle_net.games.cuttle.cards import card_display
from cuttle_net.games.cuttle.engine import IllegalMove
from cuttle_net.records.verify import Verdict, verify_text
from tests.client.helpers import (
    choose_any_option,
    keys,
    practice_app,
    run,
    screen_text,
    settle,
    until,
)


def table(pilot: Pilot) -> TableScreen:
    screen = pilot.app.screen_stack[2]
    assert isinstance(screen, TableScreen)
    return screen


def error_text(pilot: Pilot) -> str:
    error = pilot.app.screen.query_one("#error")
    return str(error.render()) if error.display else ""


async def play_by_keys(pilot: Pilot, rng: random.Random) -> None:
    """Choose among the options with arrow keys and Enter, or a hand card by its number."""
    t = table(pilot)
    c = t.controller
    for _ in range(3000):
        # a controller fed from elsewhere may take a moment
        await until(pilot, lambda: c.ending is not None or c.my_turn)
        if c.ending is not None:
            await until(pilot, lambda: isinstance(pilot.app.screen, GameOverScreen))
            return
        if rng.random() < 0.2 and c.view.hands[c.seat] and not t._path:
            await keys(pilot, str(rng.randint(1, min(9, len(c.view.hands[c.seat])))))
        await choose_any_option(pilot, t, rng)
    raise AssertionError("the game did not end")


# One deal per rule set, each a game, the rematch and a second game (two more deals cost
# the suite two such tests; whole games by the options are also played by
# test_network_game, test_cuttle_table and test_peer_text, and random games of every rule
# set in-process by tests/rules and tests/session).
@pytest.mark.parametrize(("rules", "seed"), [("classic", 1), ("standard", 4)])
def test_a_whole_game_by_keys_then_a_rematch(rules: str, seed: int) -> None:
    app = practice_app(seed=seed, rules=rules)

    async def body(pilot: Pilot) -> None:
        await play_by_keys(pilot, random.Random(seed))
        c = table(pilot).controller
        assert c.ending is not None
        over = str(pilot.app.screen.query_one("#result").render()).splitlines()
        assert over[0] == c.ending.text
        assert over[1] == f"Match: {c.score.text('Greedy bot')}"
        hand = " ".join(card_display(x) for x in c.game.hands[1])
        assert over[2:] == ([f"Greedy bot's hand: {hand}"] if hand else [])  # all of it
        await keys(pilot, "r")  # rematch: the dealer alternates, so the bot moves first
        await pilot.pause()
        assert c.ending is None and c.seat == 1 and c.log and c.log[0].seat == 0
        await play_by_keys(pilot, random.Random(seed + 100))
        await keys(pilot, "l")  # back to the lobby
        await pilot.pause()
        assert pilot.app.screen.id is None and "Practice (p)" in screen_text(pilot.app)

    run(app, body)


def test_an_illegal_typed_move_is_explained_inline() -> None:
    app = practice_app(seed=1)

    async def body(pilot: Pilot) -> None:
        await keys(pilot, "colon")
        await pilot.pause()
        await keys(pilot, *"scuttle 3d 7h", "enter")
        await pilot.pause()
        assert error_text(pilot) == (
            "✗ scuttle 3♦ 7♥: 3♦ cannot scuttle 7♥: it is not a point card your opponent controls"
        )
        assert "✗ scuttle 3♦ 7♥: 3♦ cannot" in screen_text(pilot.app)
        await keys(pilot, *"x", "enter")  # still in the field: a syntax error is explained too
        await pilot.pause()
        assert error_text(pilot).startswith("✗ '7hx' is not a card")
        field = pilot.app.screen.query_one("#move-input")
        field.value = ""
        await keys(pilot, *"points ah", "enter")
        await pilot.pause()
        c = table(pilot).controller
        assert c.log[0].words == "you play A♥ for 1 point" and not field.display

    run(app, body)


def test_keys_on_a_card_open_its_uses_and_escape_goes_back() -> None:
    app = practice_app(seed=1)

    async def body(pilot: Pilot) -> None:
        await keys(pilot, "5")  # K♦
        assert "play K♦ as a king: your goal is now 14" in screen_text(pilot.app)
        await keys(pilot, "escape")
        assert "draw a card" in screen_text(pilot.app)
        await keys(pilot, "5", "enter")
        c = table(pilot).controller
        assert c.view.kings(c.seat) == 1

    run(app, body)


def test_conceding_asks_first() -> None:
    app = practice_app(seed=1)

    async def body(pilot: Pilot) -> None:
        c = table(pilot).controller
        await keys(pilot, "c")
        assert isinstance(pilot.app.screen, ConfirmScreen)
        await keys(pilot, "n")
        await pilot.pause()
        assert c.ending is None and isinstance(pilot.app.screen, TableScreen)
        await keys(pilot, "c", "y")
        await pilot.pause()
        assert c.ending is not None and isinstance(pilot.app.screen, GameOverScreen)
        # The end says where the game's record was saved: a practice record that verifies.
        assert c.ending.text == f"Greedy bot wins: you conceded · record saved: {c.saved}"
        assert c.saved is not None and verify_text(c.saved.read_text()).verdict == Verdict.VALID

    run(app, body)


def test_help_and_scrap_overlays_open_and_close() -> None:
    app = practice_app(seed=1)

    async def body(pilot: Pilot) -> None:
        await keys(pilot, "question_mark")
        assert "Rules in play: classic" in screen_text(pilot.app)
        await keys(pilot, "end")  # the keys follow the rules
        await until(pilot, lambda: "type a move in notation" in screen_text(pilot.app))  # animated
        await keys(pilot, "escape", "s")
        assert "Scrap pile" in screen_text(pilot.app)
        await keys(pilot, "escape")
        assert isinstance(pilot.app.screen, TableScreen)

    run(app, body)


def test_help_lines_that_wrap_indent_under_their_text() -> None:
    app = practice_app(seed=1, rules="standard")

    async def body(pilot: Pilot) -> None:
        await keys(pilot, "question_mark")
        lines = [line.split("█ ", 1)[-1] for line in screen_text(pilot.app).splitlines()]
        for start, text in (("Goal  ", "be the first"), ("  7   ", "reveal the top two")):
            n = next(i for i, line in enumerate(lines) if line.startswith(start + text))
            wrapped = lines[n + 1]  # the line goes on below, under its text
            assert wrapped[: len(start)] == " " * len(start) and wrapped[len(start)] != " "

    run(app, body, size=(80, 30))  # the help's own footer takes a row: "7" in sight


def test_the_mouse_works_too() -> None:
    app = practice_app(seed=1)

    async def body(pilot: Pilot) -> None:
        await pilot.click("#hand", offset=(9, 0))  # on "1:A♥" after "Hand "
        await pilot.pause()
        options = pilot.app.screen.query_one("#actions", OptionList)
        assert options.border_title == "Choose › A♥"
        await pilot.click("#actions", offset=(3, 1))  # the first option: points
        await pilot.pause()
        assert table(pilot).controller.log[0].words == "you play A♥ for 1 point"

    run(app, body)


def test_a_draw_offer_is_answered_by_the_bot() -> None:
    app = practice_app(seed=1)

    async def body(pilot: Pilot) -> None:
        await keys(pilot, "o")
        words = [e.words for e in table(pilot).controller.log]
        assert words == ["you offer a draw", "Greedy bot refuses the draw"]
        await keys(pilot, "o")  # once a turn
        assert (
            error_text(pilot) == "✗ offer-draw: a draw may be offered once a turn, on your own turn"
        )

    run(app, body)


def test_a_long_hand_wraps_and_clicks_still_find_the_card() -> None:
    from cuttle_client.cuttle.widgets import Hand
    from textual.app import App, ComposeResult

    from tests.rules.build import position

    view = position(hand0="AC,2C,3C,4C,5C,6C,7C,8C,9C,TC,JC,QC", hand1="KC").view(0)
    picked: list[int] = []

    class HandApp(App[None]):
        CSS = "Hand { width: 40; height: auto; }"

        def compose(self) -> ComposeResult:
            yield Hand(id="hand")

        def on_hand_picked(self, event: Hand.Picked) -> None:
            picked.append(event.card)

    app = HandApp()

    async def body(pilot: Pilot) -> None:
        hand = app.query_one(Hand)
        hand.show(view, 0, ascii=True, highlight=None)
        await pilot.pause()
        lines = screen_text(app).splitlines()
        assert lines[0].startswith("Hand 1:AC 2:2C") and lines[1].strip().startswith("8:8C")
        await pilot.click("#hand", offset=(lines[1].index("9C"), 1))
        assert picked == [view.hands[0][8]]

    run(app, body)


@pytest.mark.parametrize("yes", [True, False])
def test_ctrl_q_at_a_practice_game_asks_then_concedes_with_a_record(yes: bool, tmp_path) -> None:
    """ctrl+q quit a practice game at once, with no question and no record (issue 26,
    defect 12)."""
    app = make_app(Settings(bot_delay=0, data_dir=tmp_path), Practice("greedy", seed=1))

    async def body(pilot: Pilot) -> None:
        await keys(pilot, "ctrl+q")
        assert isinstance(app.screen, ConfirmScreen)
        assert "conceded, and its record saved" in app.screen.question
        await keys(pilot, "y" if yes else "n")
        if not yes:
            assert app.is_running and app.screen.controller.ending is None  # type: ignore[attr-defined]

    run(app, body)
    assert len(list((tmp_path / "games").glob("*.cuttle"))) == (1 if yes else 0)


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
def test_the_game_over_panel_moves_aside_for_the_final_table(size, tmp_path) -> None:
    """Esc went straight to the lobby from the game-over panel, which covered the final
    table, and at 60×20 the record's path lost characters (issue 26, defect 6)."""
    from cuttle_client.lobby import LobbyScreen

    app = make_app(Settings(bot_delay=0, data_dir=tmp_path), Practice("greedy", seed=1))

    async def body(pilot: Pilot) -> None:
        await keys(pilot, "c", "y")  # concede: the game is over
        assert isinstance(app.screen, GameOverScreen)
        panel = app.screen.query_one("#game-over")
        assert app.screen.region.contains_region(panel.region)  # the path wraps, not cut
        await keys(pilot, "escape")
        assert isinstance(app.screen, GameOverScreen)  # not the lobby
        assert "Game over" not in screen_text(app) and "Points" in screen_text(app)
        await keys(pilot, "t")
        assert "Game over" in screen_text(app)
        await keys(pilot, "l")
        assert isinstance(app.screen, LobbyScreen)

    run(app, body, size=size)


def test_enter_on_the_game_over_panel_does_not_skip_the_result(tmp_path) -> None:
    """The panel focused its Rematch button, so an Enter meant for the table (or pressed
    twice) started the next game over the result, unread. Enter now chooses only a button
    the player reached with Tab."""
    app = make_app(Settings(bot_delay=0, data_dir=tmp_path), Practice("greedy", seed=1))

    async def body(pilot: Pilot) -> None:
        await keys(pilot, "c", "y")  # concede: the game is over
        assert isinstance(app.screen, GameOverScreen)
        await keys(pilot, "enter", "enter")
        assert isinstance(app.screen, GameOverScreen) and "Game over" in screen_text(app)
        await keys(pilot, "tab")
        assert app.screen.focused is app.screen.query_one("#rematch")
        await keys(pilot, "enter")  # now a choice: the next game
        await until(pilot, lambda: isinstance(app.screen, TableScreen))

    run(app, body)


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
def test_the_final_table_says_how_to_get_back(size, tmp_path) -> None:
    """With the game-over panel aside, the table's footer offered Draw and Concede, and
    nothing said how to see the result again or reach the lobby; the panel never said the
    table was under it (a new player, issue 26)."""
    app = make_app(Settings(bot_delay=0, data_dir=tmp_path), Practice("greedy", seed=1))

    async def body(pilot: Pilot) -> None:
        await keys(pilot, "c", "y")
        assert isinstance(app.screen, GameOverScreen)
        assert "Table (t)" in screen_text(app)  # the panel names the way to the table
        await keys(pilot, "escape")
        last = screen_text(app).rstrip("\n").splitlines()[-1]
        assert "Final table · Esc: result · r: rematch · l: lobby" in last
        assert "Concede" not in last
        # the bot's hand, which the panel names, is face up on the final table too
        hand = table(pilot).controller.their_hand()[0]
        them = next(x for x in screen_text(app).splitlines() if "Hand   " in x)
        assert hand and all(card_display(x) in them for x in hand) and "▒▒" not in them, them
        await keys(pilot, "t")
        assert "Game over" in screen_text(app) and "Final table" not in screen_text(app)

    run(app, body, size=size)


def test_a_concession_the_table_refuses_is_said_not_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    """After r at a network table the next game is dealt before a move, a concession too,
    is taken ("not dealt yet"): conceding then raised out of the question's callback and
    stopped the client with a traceback. Now the error line says it, as for a move."""
    app = practice_app(seed=1)

    async def body(pilot: Pilot) -> None:
        c = table(pilot).controller

        def refuse() -> None:
            raise IllegalMove("wait: the next game is not dealt yet")

        monkeypatch.setattr(c, "concede", refuse)
        await keys(pilot, "c")
        await until(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen))
        await keys(pilot, "y")
        await until(pilot, lambda: bool(error_text(pilot)))
        assert error_text(pilot) == "✗ concede: wait: the next game is not dealt yet"
        assert pilot.app.is_running and c.ending is None

    run(app, body)


@pytest.mark.parametrize("game", ["cuttle", "unisson"])
def test_a_second_enter_queued_behind_a_move_chooses_nothing(game: str, tmp_path) -> None:
    """Enter pressed twice on the choices: the second selection, queued before the first
    one's move replaced the list, chose from the new list (a move not meant) or, with the
    list emptied while the bot played, ended the client in a traceback."""
    practice = Practice("greedy", seed=1, game=game, players=2 if game == "cuttle" else 3)
    app = make_app(Settings(bot_delay=0, data_dir=tmp_path), practice)

    async def body(pilot: Pilot) -> None:
        await until(pilot, lambda: hasattr(pilot.app.screen, "controller"))
        c = pilot.app.screen.controller
        await until(pilot, lambda: c.my_turn)
        actions = pilot.app.screen.query_one("#actions", OptionList)
        # a top-level choice that is a move (a card's entry opens its uses instead)
        index = next(i for i, o in enumerate(actions.options) if not o.disabled
                     and "…" not in str(o.prompt))  # fmt: skip
        option, mine = actions.get_option_at_index(index), len(c.moves)
        for _ in range(2):  # as two Enters would, both read before the first is handled
            actions.post_message(OptionList.OptionSelected(actions, option, index))
        await until(pilot, lambda: len(c.moves) > mine)
        await settle(pilot)
        assert [seat for seat, _ in c.moves[mine:]].count(c.seat) == 1

    run(app, body)
