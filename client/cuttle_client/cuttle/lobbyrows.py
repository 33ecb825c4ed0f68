"""Cuttle's rows in the lobby (``games.LobbyRows``): its rule set on the Host row, and its
variant switches, chosen by ``v``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from textual.widget import Widget
from textual.widgets import Select, Static


class CuttleRows:
    """The rule set (classic or standard) and the variants: the rules token."""

    players = 2
    host_what = "rules"  # the Host row: "Host (h) rules [classic] (v: variants)"

    def __init__(self) -> None:
        self._variants: frozenset[str] = frozenset()  # chosen by v

    def game_row(self) -> Iterator[Widget]:
        yield from ()

    def host_row(self) -> Iterator[Widget]:
        self._rules = Select(
            [("classic", "classic"), ("standard", "standard")],
            value="classic",
            allow_blank=False,
            compact=True,
            id="rules",
        )
        self._hint = Static(id="rules-hint", classes="label hint")
        yield self._rules
        yield self._hint

    @property
    def token(self) -> str:
        return "+".join([str(self._rules.value), *sorted(self._variants)])

    def show(self) -> None:
        # The variants by name if they fit the row at 60 columns, else how many (? names them).
        named = f"+{' +'.join(sorted(self._variants))} (v)"
        count = len(self._variants)
        many = f"+{count} variant{'s' * (count > 1)} (v)"
        hint = named if len(named) <= 15 else many
        hint = hint if self._variants else "(v: variants)"  # ? is in the footer
        self._hint.update(hint)

    def variants(self, lobby: Any) -> None:
        from .variants import VariantsScreen

        def chosen(variants: frozenset[str] | None) -> None:
            self._variants = variants or frozenset()
            lobby.show_game()

        lobby.app.push_screen(VariantsScreen(self._variants), chosen)
