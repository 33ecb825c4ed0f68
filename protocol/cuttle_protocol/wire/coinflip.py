"""The first-dealer coin flip's memory: a flip cannot be re-rolled by hanging up (SPEC 3.5).

The joiner commits to its value, the host answers with its own, the joiner opens. The
joiner learns the result first; the host learns it when the joiner opens. Whoever learns
it could hang up and reconnect hoping for a new flip, so each side remembers its part of
the last flip with each peer key for `LIFETIME` seconds, and a new connection between the
same two keys replays it:

- the joiner reuses its value (so sends the same commitment) and, once it has seen the
  host's value, refuses any other from that host;
- the host answers the same commitment with the same value, and refuses a different
  commitment while it remembers one.

`FlipBook` keeps this in memory (a fresh one per connection forgets everything: fine for
tests); `identity.FlipStore` keeps it in the config directory.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from .crypto import fingerprint

LIFETIME = 3600.0
"""Seconds a flip is remembered: long enough for any reconnection, short enough that the
next match between the same two players gets a new flip."""

Entry = dict[str, Any]


class FlipMismatch(Exception):
    """The peer did not replay the flip we remember; the message says what it did."""


class FlipMemoryError(Exception):
    """Our own memory of flips cannot be read or written; the message says why."""


def _ago(seconds: float) -> str:
    minutes = int(seconds // 60)
    return f"{minutes} min ago" if minutes else "moments ago"


class FlipBook:
    """Each side's memory of its last coin flip with each peer (by identity key)."""

    def __init__(self, now: Callable[[], float] = time.time) -> None:
        self._now = now
        self._entries: dict[str, dict[str, Entry]] = {"host": {}, "joiner": {}}

    # Persistence hooks: `FlipStore` reads before each change and writes after it.
    def _load(self) -> dict[str, dict[str, Entry]]:
        return self._entries

    def _save(self, entries: dict[str, dict[str, Entry]]) -> None:
        self._entries = entries

    def _alive(self, side: str, peer_key: bytes) -> tuple[dict[str, dict[str, Entry]], Entry]:
        entries = self._load()
        now = self._now()
        for table in entries.values():  # forget lapsed flips
            for fp in [fp for fp, e in table.items() if not 0 <= now - e["since"] < LIFETIME]:
                del table[fp]
        return entries, entries[side].get(fingerprint(peer_key), {})

    def joiner_value(self, host_key: bytes, fresh: bytes) -> bytes:
        """The joiner's value for a flip with `host_key`: the remembered one, else `fresh`
        (remembered before it is committed to)."""
        entries, entry = self._alive("joiner", host_key)
        if entry:
            return bytes.fromhex(entry["value"])
        entries["joiner"][fingerprint(host_key)] = {
            "value": fresh.hex(),
            "host_value": None,
            "since": self._now(),
        }
        self._save(entries)
        return fresh

    def joiner_saw(self, host_key: bytes, host_value: bytes) -> None:
        """The host's value arrived: refuse it if it is not the one this flip had."""
        entries, entry = self._alive("joiner", host_key)
        if not entry:
            return  # it lapsed during this handshake (or the clock jumped): nothing to hold
        seen = entry["host_value"]
        if seen is not None and seen != host_value.hex():
            raise FlipMismatch(
                "the host answered our coin-flip commitment with another value than "
                f"{_ago(self._now() - entry['since'])}: it may be trying to re-roll who deals"
            )
        entry["host_value"] = host_value.hex()
        self._save(entries)

    def host_value(self, joiner_key: bytes, commit: bytes, fresh: bytes) -> bytes:
        """The host's value for the joiner's `commit`: the remembered one for the same
        commitment, else `fresh` (remembered before it is sent)."""
        entries, entry = self._alive("host", joiner_key)
        if entry:
            if entry["commit"] == commit.hex():
                return bytes.fromhex(entry["value"])
            age = self._now() - entry["since"]
            raise FlipMismatch(
                f"a coin flip with you from {_ago(age)} was left unfinished and your "
                "commitment is not the same: only that flip can decide who deals (it lapses "
                f"in {math.ceil((LIFETIME - age) / 60)} min)"
            )
        entries["host"][fingerprint(joiner_key)] = {
            "commit": commit.hex(),
            "value": fresh.hex(),
            "since": self._now(),
        }
        self._save(entries)
        return fresh
