"""The practice controller: a whole game through the seam the table screen uses."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from cuttle_client.cuttle.controller import PracticeController

from cuttle_net.games.cuttle.engine import IllegalMove
from cuttle_net.games.cuttle.moves import parse_move
from cuttle_net.games.cuttle.rules import Rules


class Host:
    """A UI stand-in: counts redraws and runs timers at once."""

    def __init__(self) -> None:
        self.changes = 0

    def table_changed(self) -> None:
        self.changes += 1

    def schedule(self, delay: float, callback: Callable[[], None]) -> None:
        callback()


def play_out(c: PracticeController, rng: random.Random) -> None:
    for _ in range(2000):
        if c.ending is not None:
            return
        assert c.my_turn, "the controller waits for nobody"
        c.submit(rng.choice(c.view.legal_moves()))
    raise AssertionError("the game did not end")


@pytest.mark.parametrize(
    "rules", ["classic", "standard", "classic+random-fours+ten-blocks-scuttle+joker"]
)
def test_whole_games_end_with_a_result(rules: str) -> None:
    for seed in range(4):
        c = PracticeController("greedy", Rules.parse(rules), seed, bot_delay=0.5)
        host = Host()
        c.attach(host)
        play_out(c, random.Random(seed))
        assert c.ending is not None and c.ending.outcome == c.game.outcome
        assert host.changes > 0 and c.log
        assert all(entry.words for entry in c.log)


def test_the_view_hides_the_bots_hand() -> None:
    c = PracticeController("random", seed=1, bot_delay=0)
    c.attach(Host())
    assert c.view.viewer == 0 and c.view.hidden[1] == 6


def test_illegal_moves_are_refused_with_the_rule() -> None:
    c = PracticeController("random", seed=1, bot_delay=0)
    c.attach(Host())
    card = c.view.hands[0][0]
    with pytest.raises(IllegalMove, match="not in your hand"):
        c.submit(parse_move("points KS" if card != 51 else "points KH"))
    with pytest.raises(IllegalMove, match="answers a pending decision"):
        c.submit(parse_move("decline"))
    assert not c.log


def test_concede_ends_the_game_for_the_bot() -> None:
    c = PracticeController("random", seed=1, bot_delay=0)
    c.attach(Host())
    c.concede()
    assert c.ending is not None and c.ending.text == "Random bot wins: you conceded"


def test_rematch_alternates_the_dealer() -> None:
    c = PracticeController("random", seed=5, bot_delay=0)
    c.attach(Host())
    c.concede()
    c.rematch()
    assert c.seat == 1 and c.ending is None and c.view.viewer == 1
    assert c.my_turn  # the bot (seat 0) moved first, and now it is our turn
    assert len(c.log) >= 1 and c.log[0].seat == 0
