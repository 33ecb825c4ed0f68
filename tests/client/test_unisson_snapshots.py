"""The L'Unisson table as a person sees it at 80×24, compared with accepted SVG snapshots.

Deterministic: fixed deals, bots that answer at once, the player's own moves made by a
greedy bot where a whole stretch of game is needed.  Update with ``pytest
--snapshot-update`` and look at the SVGs before committing them.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from cuttle_client.app import CuttleApp, Settings, make_app
from cuttle_client.seat import away_words
from cuttle_client.unisson.controller import PracticeController

from cuttle_net.games.unisson.bots import GreedyBot
from cuttle_net.games.unisson.cards import ACE, RANK_OF
from cuttle_net.games.unisson.moves import Kind


class SeatsAway(PracticeController):
    """A practice table drawn as a networked table's host sees it while seats 3 (42 s left)
    and 5 (7 s left) are away: a layout check (the network tests play the real thing)."""

    @property
    def away(self) -> dict[int, int]:
        return {3: 42, 5: 7}

    def trouble(self) -> str:
        return away_words(self.names, self.away)


def table(
    players: int,
    seed: int,
    until: Callable[[PracticeController], bool],
    ascii: bool = False,
    kind: type[PracticeController] = PracticeController,
) -> CuttleApp:
    """A practice table where a greedy bot plays the player's seat until ``until`` holds
    at one of the player's decisions."""
    c = kind("greedy", players, seed=seed, bot_delay=0)
    c.start()
    me, rng = GreedyBot(), random.Random(seed)
    while c.ending is None and not (c.my_turn and until(c)):
        c.submit(me.choose(c.view, rng))
    return CuttleApp(Settings(ascii=ascii, bot_delay=0), c)


def test_four_players_mid_game(snap_compare) -> None:
    assert snap_compare(table(4, 7, lambda c: c.view.turn >= 6 and not c.view.effects))


def test_six_players_two_decks(snap_compare) -> None:
    assert snap_compare(table(6, 3, lambda c: c.view.turn >= 9 and not c.view.effects))


def test_six_players_two_seats_lost(snap_compare) -> None:
    """The host's screen names the seats whose connection is lost (the title, on the
    player's turn) and marks their lines, within 80×24."""
    until = lambda c: c.view.turn >= 9 and not c.view.effects  # noqa: E731
    assert snap_compare(table(6, 3, until, kind=SeatsAway))


def test_the_last_round_marker(snap_compare) -> None:
    assert snap_compare(table(3, 5, lambda c: c.view.last_player is not None))


def test_an_ace_taken_asks_for_two_discards(snap_compare) -> None:
    c = PracticeController("greedy", 4, seed=1, bot_delay=0)
    c.start()
    ace = next(
        m for m in c.view.legal_moves() if m.kind is Kind.TAKE and RANK_OF[m.faces[0]] == ACE
    )
    c.submit(ace)
    assert snap_compare(CuttleApp(Settings(bot_delay=0), c))


def test_the_take_menu_highlights_the_range_card(snap_compare) -> None:
    assert snap_compare(table(4, 7, lambda c: c.view.turn >= 6), press=["t", "down"])


def test_game_over_with_every_score(snap_compare) -> None:
    assert snap_compare(table(4, 2, lambda c: False))


def test_the_final_table_with_the_panel_aside(snap_compare) -> None:
    """The game-over table at 80×24: every hand, the range, the keys on the bottom line."""
    assert snap_compare(table(4, 2, lambda c: False), press=["escape"])


def test_ascii_table(snap_compare) -> None:
    assert snap_compare(table(5, 4, lambda c: c.view.turn >= 4, ascii=True))


def test_help_at_the_table(snap_compare) -> None:
    assert snap_compare(table(4, 7, lambda c: True), press=["question_mark"])


def test_lobby_with_lunisson_chosen(snap_compare) -> None:
    assert snap_compare(make_app(Settings(bot_delay=0)), press=["g", "down", "enter"])
