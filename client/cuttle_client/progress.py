"""The words for a seat's progress at a table (`cuttle_protocol.play.events`): the one
place that says them, for the terminal client and the headless ``cuttle host``/``join``
alike (the protocol hands up data, never sentences)."""

from __future__ import annotations

from collections.abc import Callable

from cuttle_protocol.play import (
    CodeToCompare,
    Dialling,
    GameBegins,
    GameStopped,
    HostMet,
    Progress,
    SeatKey,
    Tell,
)
from cuttle_protocol.store import Trust
from cuttle_protocol.table import Lobby, Watching

from .gametitles import game_title


def lobby_words(lobby: Lobby) -> str:
    """Who sits at the table so far, and how many seats are free."""
    seats = lobby.settings.seats
    who = ", ".join(p.name for p in lobby.players)
    free = seats - len(lobby.players)
    wait = f"waiting for {free} more player{'s' * (free > 1)}" if free else "every seat is taken"
    return f"at the table ({game_title(lobby.settings.game)}, {seats} seats): {who}; {wait}"


def watching_words(event: Watching) -> str:
    """Who watches the table (the host's `watch` entry: SPEC 3.15 *Watchers*)."""
    return "watching: " + (", ".join(n for n, _ in event.watchers) or "nobody")


def seat_words(key: SeatKey) -> str:
    """A seated player as the others see it: name, key, and what trust on first use says."""
    trust = key.trust
    mark = f", {trust.value}" if trust is not None else ""
    if trust is not None and trust.value == "changed":
        mark += ": WARNING, this name had another key before: an impostor?"
    if key.known_as:
        mark += f": known to you as {key.known_as}"  # the same key, proven (SPEC 3.11)
    return f"{key.name} (key {key.fingerprint}{mark})"


def host_lines(met: HostMet) -> list[str]:
    """Who answered a joiner, and what its key proves (or a warning that it proves less)."""
    trust = f", {met.trust}" if met.trust is not None else ""
    where = f" at {met.remote}" if met.remote else ""
    lines = [f"connected to {met.name}{where} (key {met.fingerprint}{trust})"]
    if met.verified:
        lines.append(
            "verified: the host proved the key named by the invitation (no need to compare codes)"
        )
    elif met.trust == Trust.CHANGED:
        lines.append(
            f"WARNING: {met.name}'s identity key CHANGED since your last game (it was "
            f"{met.known_fingerprint}): someone may be impersonating them. "
            "Compare the table's code with every other player's before you trust it."
        )
    elif met.trust == Trust.RENAMED:
        lines.append(
            f"note: this is the key of the player you know as {met.known_as}, now calling "
            f"themselves {met.name}"
        )
    return lines


def progress_lines(event: Progress) -> list[str]:
    """The lines a seat's progress is told in (none for what it does not tell)."""
    if isinstance(event, Dialling):
        return [f"connecting to {event.address}… (giving up after {event.give_up_after:g} s)"]
    if isinstance(event, HostMet):
        return host_lines(event)
    if isinstance(event, Lobby):
        return [lobby_words(event)]
    if isinstance(event, Watching):
        return [watching_words(event)]
    if isinstance(event, SeatKey):
        return [f"seat {event.seat}: {seat_words(event)}"]
    if isinstance(event, CodeToCompare):
        if event.verified:
            return [f"verified: the host proved the invitation's key (code {event.code})"]
        return [f"compare this code with every other player's: {event.code}"]
    if isinstance(event, GameBegins):
        return [f"game {event.number}: you are seat {event.seat}; seat {event.dealer} deals"]
    if isinstance(event, GameStopped):
        saved = [f"record saved: {event.record}"] if event.record is not None else []
        return [event.line, *saved]
    return []


def told(say: Callable[[str], None]) -> Tell:
    """A ``tell`` hook that says each event's lines through `say` (the headless commands)."""

    def tell(event: Progress) -> None:
        for line in progress_lines(event):
            say(line)

    return tell
