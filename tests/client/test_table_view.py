"""What the table shows of the last move, how it fits the terminal, and cards without colour."""

from __future__ import annotations

import pytest
from cuttle_client.app import Practice, Settings, make_app
from cuttle_client.cuttle.cardtext import card
from cuttle_client.cuttle.widgets import Hand, LastMove, Middle
from cuttle_client.tablewidgets import MoveLog
from textual.pilot import Pilot
from textual.widgets import Static

from cuttle_net.games.cuttle.cards import card_display
from tests.client.helpers import keys, practice_app, run, screen_text


def test_the_last_move_is_written_once_and_names_the_card_you_drew() -> None:
    # The bot waits a minute before it answers: the draw stays the last move.
    app = make_app(Settings(bot_delay=60), Practice("greedy", "classic", 1))

    async def body(pilot: Pilot) -> None:
        table = app.screen
        before = list(table.controller.view.hands[0])
        await keys(pilot, "d")
        c = table.controller
        mine = next(e for e in c.log if e.seat == 0)
        drawn = [x for x in c.view.hands[0] if x not in before]
        assert len(drawn) == 1
        assert mine.words == f"you draw {card_display(drawn[0])}"
        assert drawn[0] in mine.touched
        # One line per move in the log, in words (no notation beside it).
        log = str(table.query_one("#log-text", Static).render())
        assert log.count("\n") + 1 == len(c.log)
        assert "draw\n" not in log and "You draw" in log
        assert "Greedy bot is thinking" in screen_text(app)
        last = str(table.query_one("#last", LastMove).render())
        assert last == f"Last: You draw {card_display(drawn[0])}"
        # The drawn card is marked new in the hand until the next move.
        assert f"{card_display(drawn[0])}+" in str(table.query_one("#hand", Hand).render())

    run(app, body)


def test_the_status_line_never_wraps_at_80x24() -> None:
    from tests.client.test_snapshots import table_after

    app = table_after(21, ["points 3C", "oneoff 5C"])  # a 5 countered: a chain waits

    async def body(pilot: Pilot) -> None:
        middle = app.screen.query_one("#middle", Middle)
        assert middle.size.height == 1
        text = str(middle.render())
        assert "Waiting" in text and len(text.rstrip()) <= middle.size.width
        ask = app.screen.query_one("#ask", Static)
        assert ask.size.height == 1

    run(app, body)


def test_the_log_widens_with_the_terminal_and_goes_below_80_columns() -> None:
    app = practice_app(seed=1)

    async def body(pilot: Pilot) -> None:
        log = app.screen.query_one("#log", MoveLog)
        assert log.outer_size.width == 28
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        assert log.outer_size.width >= 40
        await pilot.resize_terminal(70, 24)
        await pilot.pause()
        assert not log.display or log.size.width == 0
        assert "Last:" in screen_text(app) or "No move yet" in screen_text(app)

    run(app, body)


def test_a_terminal_too_small_says_so_and_recovers() -> None:
    app = practice_app(seed=1)

    async def body(pilot: Pilot) -> None:
        await pilot.resize_terminal(50, 16)
        await pilot.pause()
        assert "too small for cuttle" in screen_text(app)
        assert "Hand 1:" not in screen_text(app)
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert "too small" not in screen_text(app)
        assert "Hand 1:" in screen_text(app)

    run(app, body, size=(50, 16))


@pytest.mark.parametrize("no_color", [False, True])
def test_red_cards_do_not_depend_on_colour(no_color: bool, monkeypatch) -> None:
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    else:
        monkeypatch.delenv("NO_COLOR", raising=False)
    heart, spade = card(38, False), card(39, False)  # 10♥, 10♠
    # Written as in L'Unisson, as the card shows it (issue 26, defect 13: T♦ and 10♦).
    assert heart.plain == "10♥" and spade.plain == "10♠"
    assert "bold" in str(heart.style) and "bold" in str(spade.style)
    if no_color:
        assert "underline" in str(heart.style) and "red" not in str(heart.style)
    else:
        assert "red" in str(heart.style)
    assert "underline" not in str(spade.style)


@pytest.mark.parametrize("ascii", [False, True])
def test_both_games_write_a_card_the_same_way(ascii: bool) -> None:
    """One card text for both games (SPEC 1.6, 6.6): Cuttle wrote T♦ where L'Unisson wrote
    10♦ (issue 26, defect 13)."""
    from cuttle_net.games.cuttle.cards import card_display, parse_card
    from cuttle_net.games.unisson.cards import ALL_FACES, face_display, face_text

    for f in ALL_FACES:
        assert face_display(f, ascii) == card_display(parse_card(face_text(f)), ascii)


def test_a_refused_move_is_read_back_with_the_cards_as_shown() -> None:
    """A refused move was echoed in notation ("✗ points 5S: legal, but not what this step
    asks" in a lesson, "scuttle 3D 7H: 3♦ cannot…"): the cards read as the table shows them."""
    from cuttle_client.cardtext import move_shown

    from cuttle_net.games.cuttle.moves import parse_move
    from cuttle_net.games.unisson import parse_move as unisson_move

    assert move_shown(parse_move("scuttle 3d th")) == "scuttle 3♦ 10♥"
    assert move_shown(parse_move("scuttle 3d th"), ascii=True) == "scuttle 3D TH"
    assert move_shown(unisson_move("extend 1 TH")) == "extend 1 10♥"
    assert move_shown("draw") == "draw"


def test_the_bottom_line_under_an_overlay_lists_the_overlays_keys() -> None:
    """Under the concede question, the help and the scrap pile, the footer lists the
    overlay's keys, not the table's (which do nothing then: issue 26)."""

    async def body(pilot: Pilot) -> None:
        def bottom() -> str:
            return screen_text(pilot.app).rstrip().splitlines()[-1]

        assert "Draw" in bottom()  # the table's own
        for key, shown, back in (
            ("c", "y Yes  n No", "n"),
            ("question_mark", "esc Close", "escape"),
        ):
            await keys(pilot, key)
            assert shown in bottom() and "Draw" not in bottom(), bottom()
            await keys(pilot, back)
        assert "Draw" in bottom()

    run(practice_app(), body)
