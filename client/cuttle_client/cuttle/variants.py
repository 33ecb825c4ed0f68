"""Cuttle's variant switches, chosen in the lobby (``v``) for a practice game or a hosted one."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, SelectionList, Static
from textual.widgets.selection_list import Selection

from cuttle_net.games.cuttle.rules import VARIANTS, Rules

from .help import VARIANT_RULES


class VariantsScreen(ModalScreen[frozenset[str]]):
    """Space ticks a variant, Enter keeps the choice (if the variants go together), Esc
    leaves the variants as they were."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "keep", "Keep", priority=True),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, chosen: frozenset[str]) -> None:
        super().__init__()
        self.chosen = chosen

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="variants-dialog"):
            yield Static("[b]Variants[/b] (Space: on or off · Enter: keep · Esc: cancel)")
            yield SelectionList[str](
                *(Selection(f"{v}: {VARIANT_RULES[v]}", v, v in self.chosen) for v in VARIANTS),
                id="variants",
            )
            yield Static(id="variants-on")  # the ticks' colour alone would not say it
            yield Static(id="variants-error")
        yield Footer()  # its own keys, over the footer of the screen below (modals.py)

    def on_mount(self) -> None:
        self.query_one("#variants", SelectionList).focus()
        self._show_on()

    def on_selection_list_selected_changed(self) -> None:
        self._show_on()

    def _show_on(self) -> None:
        on = sorted(self.query_one("#variants", SelectionList).selected)
        self.query_one("#variants-on", Static).update(f"On: {', '.join(on) or 'none'}")

    def action_keep(self) -> None:
        chosen = frozenset(self.query_one("#variants", SelectionList).selected)
        try:
            Rules(variants=chosen)  # two variants may not go together
        except ValueError as e:
            self.query_one("#variants-error", Static).update(f"✗ {e}")
            return
        self.dismiss(chosen)

    def action_cancel(self) -> None:
        self.dismiss(self.chosen)
