"""The L'Unisson table against bots, by keys only: whole games at 3 and 6 players, the
effect prompts, a card's moves by its number, typed moves, the lobby's game choice."""

from __future__ import annotations

import random

import pytest
from cuttle_client.app import CuttleApp, Practice, Settings, make_app
from cuttle_client.modals import GameOverScreen
from cuttle_client.network import ConnectScreen
from cuttle_client.unisson.controller import PracticeController
from cuttle_client.unisson.table import UnissonTableScreen
from textual.pilot import Pilot
from textual.widgets import OptionList

from cuttle_net.games.unisson.cards import ACE, RANK_OF
from cuttle_net.records.verify import Verdict, verify_text
from tests.client.helpers import keys, pick_option, run, screen_text, until


def unisson_app(players: int = 4, seed: int = 1, ascii: bool = False) -> CuttleApp:
    practice = Practice("greedy", seed=seed, game="unisson", players=players)
    return make_app(Settings(ascii=ascii, bot_delay=0), practice)


def table(pilot: Pilot) -> UnissonTableScreen:
    screen = next(s for s in pilot.app.screen_stack if isinstance(s, UnissonTableScreen))
    return screen


def options(pilot: Pilot) -> list[str]:
    listing = pilot.app.screen.query_one("#actions", OptionList)
    return [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]


def line(pilot: Pilot, part: str) -> str:
    return str(pilot.app.screen.query_one(part).render())


async def play_by_keys(pilot: Pilot, rng: random.Random) -> None:
    """Play to the end: a group by its letter or a card by its number now and then, and
    always an enabled option by arrows and Enter."""
    t = table(pilot)
    c = t.controller
    for _ in range(2000):
        await pilot.pause()
        if c.ending is not None:
            await until(pilot, lambda: isinstance(pilot.app.screen, GameOverScreen))
            return
        assert c.my_turn
        hand = c.view.hand(c.seat)
        roll = rng.random()
        if roll < 0.3 and not c.view.effects:
            await keys(pilot, rng.choice("dtxmep"))
        elif roll < 0.45 and hand:
            await keys(pilot, str(rng.randint(1, min(9, len(hand)))))
        if not c.my_turn or c.ending is not None:
            continue
        listing = t.query_one("#actions", OptionList)
        enabled = [
            i for i in range(listing.option_count) if not listing.get_option_at_index(i).disabled
        ]
        if not enabled:
            await keys(pilot, "escape")
            continue
        await pick_option(pilot, enabled, rng.choice(enabled))
    raise AssertionError("the game did not end")


@pytest.mark.parametrize(("players", "seed"), [(3, 1), (6, 2)])
def test_a_whole_game_by_keys_then_another_deal(players: int, seed: int) -> None:
    async def body(pilot: Pilot) -> None:
        c = table(pilot).controller
        assert c.players == players and c.decks == (2 if players >= 5 else 1)
        await play_by_keys(pilot, random.Random(seed))
        over = str(pilot.app.screen.query_one("#result").render()).splitlines()
        assert over[0] == c.ending.text  # type: ignore[union-attr]
        assert c.saved is not None and over[0].endswith(f" · record saved: {c.saved}")
        assert verify_text(c.saved.read_text()).verdict == Verdict.VALID  # a practice record
        heads = ["meld", "hand", "empty", "last", "range", "unis.", "total", "match"]
        assert over[1].split() == heads
        rows = over[2:]
        assert [r[:9].strip() for r in rows] == [n[:8] for n in c.names]
        totals = [s.total for s in c.ending.scores]  # type: ignore[union-attr]
        assert [int(r.split()[-2]) for r in rows] == totals
        assert [int(r.split()[-1]) for r in rows] == totals  # the match so far: one game
        first = c.dealer
        await keys(pilot, "r")  # another deal: the deal passes left, the match adds up
        assert c.ending is None and c.dealer == (first + 1) % players and len(c.games) == 1
        assert "game 2 of the match" in line(pilot, "#title")
        rows = line(pilot, "#u-players").splitlines()
        assert [int(r.split("match")[1].split()[0]) for r in rows] == c.match
        await keys(pilot, "l", "y")  # leave the table, back to the lobby
        assert "Practice (p)" in screen_text(pilot.app)

    run(unisson_app(players, seed), body)


def test_six_seats_scores_fit_the_game_over_panel_at_60_by_20() -> None:
    """In tmux at 60×20 each seat's score row was 59 columns in a panel 56 wide: every
    match total wrapped onto a line of its own, under the name."""

    async def body(pilot: Pilot) -> None:
        c = table(pilot).controller
        c.names = ("You", "Medium 1", "Medium 2", "Medium 3", "Bartholomew", "Medium 5")
        await play_by_keys(pilot, random.Random(2))
        text = screen_text(pilot.app)
        for name, score, total in zip(c.names, c.ending.scores, c.match, strict=True):  # type: ignore[union-attr]
            (row,) = [r for r in text.splitlines() if r.startswith(f"█ {name[:8]} ")]
            assert row.split("█")[1].split()[-2:] == [str(score.total), str(total)], row
        assert "unis. total match" in text and "Rematch (r)" in text

    run(unisson_app(6, 2), body, size=(60, 20))


def test_the_footer_at_60_columns_shows_whole_keys_only() -> None:
    """In tmux at 60×20 the table's footer was cut at "e Ex", and Pass with it, which the
    choices (five lines shown with six players) showed only scrolled: keys the choices
    name make way, the last first; Help and Pass stay."""

    async def body(pilot: Pilot) -> None:
        footer = screen_text(pilot.app).splitlines()[-1]
        keys_shown = footer.split("▏")[0].split()
        assert keys_shown == ["?", "Help", "d", "Draw", "t", "Take", "x", "Discard", "p", "Pass"]

    run(unisson_app(6, 2), body, size=(60, 20))


LONG = ("Bartholomew Fairweather", "Maximiliana Rosenthal", "Christopher Longbottom")
LONG += ("Alexandrina Wellesley", "Theodora Kowalczykowa", "Wilhelmina Featherstone")


def test_every_seats_match_total_is_readable_at_80_columns_with_six_long_names() -> None:
    """The match at a table with six long names, as a networked table's title names it
    (its code, who watches): each seat's total on its own line, the title whole (it was
    cut: 'match: you 31, Theodora Kowalczyk…', issue 26)."""
    c = PracticeController("greedy", 6, seed=2, bot_delay=0)
    c.names, c.games = LONG, [[31, 112, 8, 75, 140, 99]]
    c.label, c.watching = "table · code 123 456", "3 watching"

    async def body(pilot: Pilot) -> None:
        await until(pilot, lambda: isinstance(pilot.app.screen, UnissonTableScreen))
        await until(pilot, lambda: bool(c.log))
        text = screen_text(pilot.app).splitlines()
        assert (
            text[0].strip() == "L'Unisson · table · code 123 456 · game 2 of the match · 3 watching"
        )
        for name, total, row in zip(LONG, c.match, text[1:7], strict=True):
            assert f" {name[:11]}  match {total:>3} " in row, row

    run(CuttleApp(Settings(bot_delay=0), c), body)


def ace_seed() -> int:
    """A deal where the player's first decision can take an ace from the range."""
    for seed in range(200):
        c = PracticeController("greedy", 4, seed=seed, bot_delay=0)
        c.start()
        aces = [f for f in c.view.range_cards() if RANK_OF[f] == ACE]
        if c.my_turn and not c.view.effects and aces:
            return seed
    raise AssertionError("no deal found")


def test_an_ace_taken_asks_for_two_discards() -> None:
    seed = ace_seed()

    async def body(pilot: Pilot) -> None:
        c = table(pilot).controller
        assert line(pilot, "#ask").startswith("Your turn: d draw")
        await keys(pilot, "t")
        takes = options(pilot)
        ace = next(i for i, o in enumerate(takes) if "then discard 2" in o)
        await keys(pilot, *["down"] * ace, "enter")
        assert c.view.effects and c.view.effects[0].count == 2
        ask = line(pilot, "#ask")
        assert ask.startswith("You took A") and "you must discard 2 cards" in ask
        hand = c.view.hand(c.seat)
        assert options(pilot) == [f"Discard {w}" for w in _shown(hand)]
        await keys(pilot, "1")  # a card's number picks that discard; Enter confirms
        await keys(pilot, "enter")
        assert c.view.effects[0].count == 1 and len(c.view.hand(c.seat)) == len(hand) - 1
        assert "you must discard 1 card" in line(pilot, "#ask")

    run(unisson_app(4, seed), body)


def _shown(faces: list[int]) -> list[str]:
    from cuttle_net.games.unisson import face_display

    return [face_display(f) for f in dict.fromkeys(faces)]


def test_a_card_number_opens_its_moves_and_escape_goes_back() -> None:
    async def body(pilot: Pilot) -> None:
        c = table(pilot).controller
        first = c.view.hand(c.seat)[0]
        await keys(pilot, "1")
        listing = pilot.app.screen.query_one("#actions", OptionList)
        assert listing.border_title == f"Choose › {_shown([first])[0]}"
        assert options(pilot)[0] == f"Discard {_shown([first])[0]}"
        await keys(pilot, "escape")
        assert listing.border_title == "Choose" and options(pilot)[0] == "Draw a card (d)"

    run(unisson_app(4, 3), body)


def test_a_typed_move_is_played_or_refused_with_the_rule() -> None:
    async def body(pilot: Pilot) -> None:
        c = table(pilot).controller
        await keys(pilot, "colon")
        await pilot.pause()
        await keys(pilot, *"meld 7h 8h 9h", "enter")
        error = line(pilot, "#error")
        assert error.startswith("✗ meld 7♥ 8♥ 9♥: ") and "you hold no" in error
        field = pilot.app.screen.query_one("#move-input")
        field.value = ""  # type: ignore[attr-defined]
        await keys(pilot, *"draw", "enter")
        mine = [e.words for e in c.log if e.seat == c.seat]
        assert not field.display and mine[0].startswith("You draw ")

    run(unisson_app(4, 5), body)


def test_the_lobby_opens_a_practice_table_of_the_game_chosen() -> None:
    async def body(pilot: Pilot) -> None:
        await keys(pilot, "g", "down", "enter")  # Cuttle → L'Unisson
        assert "players" in screen_text(pilot.app)
        await keys(pilot, "p")
        await until(
            pilot, lambda: any(isinstance(s, UnissonTableScreen) for s in pilot.app.screen_stack)
        )
        t = table(pilot)
        assert t.controller.players == 4
        await until(pilot, lambda: len(t.query_one("#u-players").render().plain.splitlines()) == 4)

    run(make_app(Settings(bot_delay=0)), body)


def test_ascii_cards_and_the_help() -> None:
    async def body(pilot: Pilot) -> None:
        text = screen_text(pilot.app)
        assert not set("♣♦♥♠–") & set(text)
        await keys(pilot, "question_mark")
        assert "L'Unisson" in screen_text(pilot.app) and "take an ace" in screen_text(pilot.app)
        await keys(pilot, "escape")

    run(unisson_app(5, 4, ascii=True), body)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--players", "7"], "3 to 6 players, not 7"),
        (["--players", "6", "--decks", "1"], "6 players need two decks"),
        (["--variant", "joker"], "L'Unisson has none"),
    ],
)
def test_cuttle_play_refuses_a_table_it_cannot_seat(
    capsys: pytest.CaptureFixture[str], args: list[str], says: str
) -> None:
    from cuttle_client.cli import main

    assert main(["play", "--game", "unisson", *args]) == 2
    assert says in capsys.readouterr().out


def test_the_lobby_explains_the_game_chosen() -> None:
    async def body(pilot: Pilot) -> None:
        app = pilot.app
        await keys(pilot, "g", "down", "enter")
        await until(pilot, lambda: app.lobby.game == "unisson")
        await keys(pilot, "question_mark")
        # a screen just pushed is drawn on a later refresh
        await until(pilot, lambda: "L'Unisson · 4 players, one deck of 32" in screen_text(app))
        helped = pilot.app.screen.text()  # the whole help, scrolled or not
        assert "Keys in the lobby" in helped and "Keys at the table" not in helped
        await keys(pilot, "escape")

    run(make_app(Settings(bot_delay=0)), body)


def test_hosting_lunisson_from_the_lobby_opens_a_table_of_the_players_chosen() -> None:
    async def body(pilot: Pilot) -> None:
        app = pilot.app
        await keys(pilot, "g", "down", "enter")  # L'Unisson
        assert line(pilot, "#host-what") == "a table for 4 players, one deck"
        assert not app.screen.query_one("#rules").display  # Cuttle's rules: not L'Unisson's
        app.screen.query_one("#players").value = 5
        await pilot.pause()
        assert line(pilot, "#host-what") == "a table for 5 players, two decks"
        await keys(pilot, "h")
        assert isinstance(app.screen, ConnectScreen)
        assert "Hosting a table of 5: L'Unisson" in screen_text(app)
        await until(
            pilot,
            lambda: (
                "waiting for 4 more players" in screen_text(app)
                or "Cannot listen" in screen_text(app)
            ),
        )
        text = screen_text(app)
        # The game by its name for people, not its id "unisson" (issue 26).
        assert "hosting L'Unisson (two-decks) for 5 players" in text or "Cannot listen" in text
        assert "at the table (L'Unisson, 5 seats)" in text or "Cannot listen" in text
        await keys(pilot, "escape")
        assert isinstance(app.screen, type(app.lobby))

    run(make_app(Settings(bot_delay=0)), body)
