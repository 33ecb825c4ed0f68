"""L'Unisson's rows in the lobby (``games.LobbyRows``): the players and the decks, on the
Game row."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from textual.widget import Widget
from textual.widgets import Select, Static


def deck_options(players: int) -> list[tuple[str, str]]:
    """L'Unisson's decks for ``players``: one or two for 3 or 4, two for 5 or 6."""
    two = ("two", "two-decks")
    return [two] if players >= 5 else [("one", "one-deck"), two]


class UnissonRows:
    """The players (3 to 6) and the decks they may have: the rules token is the decks."""

    def __init__(self) -> None:
        self._deck_options = deck_options(4)  # for the players chosen

    def game_row(self) -> Iterator[Widget]:
        self._players = Select(
            [(str(n), n) for n in range(3, 7)],
            value=4,
            allow_blank=False,
            compact=True,
            id="players",
        )
        self._decks = Select(
            self._deck_options,
            value="one-deck",
            allow_blank=False,
            compact=True,
            id="decks",
        )
        yield Static("players", classes="label", id="players-label")
        yield self._players
        yield Static("decks", classes="label", id="decks-label")
        yield self._decks

    def host_row(self) -> Iterator[Widget]:
        yield from ()

    @property
    def token(self) -> str:
        return str(self._decks.value)

    @property
    def players(self) -> int:
        return int(self._players.value)  # type: ignore[arg-type]

    @property
    def host_what(self) -> str:
        two = self.token == "two-decks"
        return f"a table for {self.players} players, {'two decks' if two else 'one deck'}"

    def show(self) -> None:
        options = deck_options(self.players)
        if options != self._deck_options:  # only on a change: setting them posts Changed
            self._deck_options, kept = options, self._decks.value
            self._decks.set_options(options)
            self._decks.value = kept if kept in [v for _, v in options] else options[0][1]

    def variants(self, lobby: Any) -> None:
        lobby.notice("L'Unisson has no variants: choose the players and the decks (g).")
