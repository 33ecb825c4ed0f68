"""How many tries a game's code gets: one budget per wait for a player, across every
address (SPEC 3.11, *Code attempts*). Sans-I/O: the caller passes the time.

Each connection that gets the host's `hello` is one try at the six-digit code for a man in
the middle (SPEC 3.5: one chance in a million). The per-address rate limit cannot bound
those tries, since an attacker may hold many addresses; this budget does: `burst` hellos in
a row, then `per_second` on average, and `per_wait` in all. Past it the host answers `busy`
instead of its hello: a flood denies the wait (its player is told, and can host again for a
new code) rather than buying tries at the code.

    budget = CodeBudget(CodeLimits(), now=clock())
    spent = budget.spend(clock())      # a joiner's commitment arrived
    if spent.alarm: tell_the_player(spent.alarm)
    if spent.refusal: refuse_with_busy(spent.refusal)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


@dataclass(frozen=True)
class CodeLimits:
    """The budget of one wait's code (SPEC 3.11 gives the reasons for these figures)."""

    burst: int = 6  # hellos in a row: a table's five joiners dialling at once, and one more
    per_second: float = 0.5  # ...then one every 2 s (five in 10 s)
    per_wait: int = 50  # ...and 50 in all: a man in the middle's odds stay below 1 in 20,000

    def __post_init__(self) -> None:
        if not (1 <= self.burst <= self.per_wait and self.per_second > 0):
            raise ValueError("a code budget allows 1 <= burst <= per_wait, per_second > 0")


class Alarm(StrEnum):
    SLOWED = "slowed"  # the first try turned away for the rate in this wait
    HALF = "half"  # half the wait's tries are used
    SPENT = "spent"  # the first try turned away because every try of the wait is used


@dataclass(frozen=True)
class CodeAlarm:
    """Tries at the code pile up: what the hosting player is told (once of each kind), as
    data (the client words it: ``cuttle_client.progress.alarm_words``)."""

    kind: Alarm
    tries: int  # hellos shown so far in this wait
    limits: CodeLimits


@dataclass(frozen=True)
class Spent:
    """What one try got: its number (None: refused, with `refusal` to send as `busy`),
    and an alarm for the hosting player, if this try raised one."""

    number: int | None
    refusal: str = ""
    alarm: CodeAlarm | None = None


class CodeBudget:
    """The tries at one wait's code, whoever makes them."""

    def __init__(self, limits: CodeLimits, now: float) -> None:
        self.limits = limits
        self.tries = 0  # hellos shown: each a try at the code
        self.refused = 0  # tries turned away (busy instead of the hello)
        self._tokens = float(limits.burst)
        self._when = now
        self._raised: set[Alarm] = set()

    def spend(self, now: float) -> Spent:
        """A joiner committed to its hello: may it see ours (a try at the code) now?"""
        limits = self.limits
        refill = max(0.0, now - self._when) * limits.per_second  # a clock never runs back
        self._tokens = min(limits.burst, self._tokens + refill)
        self._when = max(self._when, now)
        if self.tries >= limits.per_wait:
            self.refused += 1
            why = "this game's code has had all its tries: ask the host to host again"
            return Spent(None, why, self._raise(Alarm.SPENT))
        if self._tokens < 1:
            self.refused += 1
            why = "too many tries at this game's code just now: try again in a few seconds"
            return Spent(None, why, self._raise(Alarm.SLOWED))
        self._tokens -= 1
        self.tries += 1
        half = self.tries == limits.per_wait // 2 and limits.per_wait >= 4
        return Spent(self.tries, alarm=self._raise(Alarm.HALF) if half else None)

    def _raise(self, kind: Alarm) -> CodeAlarm | None:
        if kind in self._raised:
            return None
        self._raised.add(kind)
        return CodeAlarm(kind, self.tries, self.limits)
