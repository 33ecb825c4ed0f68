"""The budget of tries at a wait's code (SPEC 3.11), sans-I/O: times are given."""

from __future__ import annotations

import pytest
import trio
from cuttle_client.progress import alarm_words
from cuttle_protocol.wire import Alarm, CodeAlarm, CodeBudget, CodeLimits

LIMITS = CodeLimits()


def spend_all(budget: CodeBudget, now: float, times: int) -> list[int | None]:
    return [budget.spend(now).number for _ in range(times)]


def test_a_burst_then_one_every_two_seconds() -> None:
    budget = CodeBudget(LIMITS, now=0.0)
    assert spend_all(budget, 0.0, 8) == [1, 2, 3, 4, 5, 6, None, None]
    assert budget.spend(1.9).number is None  # not yet a whole try back
    assert budget.spend(2.0).number == 7
    assert spend_all(budget, 10.0, 5) == [8, 9, 10, 11, None]  # 8 s: four more
    assert (budget.tries, budget.refused) == (11, 4)


def test_a_wait_has_50_tries_however_slowly_they_come() -> None:
    budget = CodeBudget(LIMITS, now=0.0)
    numbers = [budget.spend(10.0 * n).number for n in range(60)]  # one every 10 s
    assert numbers[:50] == list(range(1, 51))
    assert numbers[50:] == [None] * 10
    refused = budget.spend(1e9)  # and no time brings them back
    assert refused.number is None and "ask the host to host again" in refused.refusal


def test_the_player_is_told_once_of_each_pile_up() -> None:
    budget = CodeBudget(LIMITS, now=0.0)
    alarms = []
    for n in range(1600):  # a flood: eight tries a second (exact in binary) for 200 s
        spent = budget.spend(n / 8)
        if spent.alarm is not None:
            alarms.append((spent.alarm.kind, spent.alarm.tries, n / 8))
    assert alarms == [
        (Alarm.SLOWED, 6, 0.75),  # the seventh at once is the first turned away
        (Alarm.HALF, 25, 38.0),  # 6 at once, then one every 2 s
        (Alarm.SPENT, 50, 88.125),  # the 50th came at 88 s; the next is turned away
    ]
    assert (budget.tries, budget.refused) == (50, 1550)  # 50 saw a hello, from any address
    assert "all its 50 tries" in alarm_words(CodeAlarm(Alarm.SPENT, 50, LIMITS))


def test_the_words_give_the_odds() -> None:
    budget = CodeBudget(LIMITS, now=0.0)
    spent = [budget.spend(0.0) for _ in range(7)]
    assert spent[-1].alarm is not None
    slowed = alarm_words(spent[-1].alarm)
    assert "more than 6 connections tried this game's code" in slowed
    assert "6 chances in a million" in slowed and "wait 2 s each, 50 in all" in slowed
    assert spent[-1].refusal.startswith("too many tries at this game's code")


def test_a_clock_that_runs_back_gives_nothing() -> None:
    budget = CodeBudget(CodeLimits(burst=1, per_second=1.0, per_wait=10), now=100.0)
    assert budget.spend(100.0).number == 1
    assert budget.spend(50.0).number is None  # not 50 s of refill
    assert budget.spend(100.5).number is None
    assert budget.spend(101.0).number == 2


def test_limits_are_checked() -> None:
    with pytest.raises(ValueError):
        CodeLimits(burst=0)
    with pytest.raises(ValueError):
        CodeLimits(burst=6, per_wait=5)
    with pytest.raises(ValueError):
        CodeLimits(per_second=0)


@pytest.mark.trio
async def test_on_trios_clock(autojump_clock: trio.testing.MockClock) -> None:
    """The shell passes `trio.current_time()`: the refill follows trio's (mock) clock."""
    budget = CodeBudget(LIMITS, now=trio.current_time())
    assert None not in spend_all(budget, trio.current_time(), 6)
    assert budget.spend(trio.current_time()).number is None
    await trio.sleep(10)
    assert spend_all(budget, trio.current_time(), 6) == [7, 8, 9, 10, 11, None]
