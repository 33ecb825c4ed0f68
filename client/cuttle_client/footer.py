"""The key bindings' line at the foot of every screen: Textual's ``Footer``, redrawn only
when what it shows changes.

Textual's footer composes all of its keys again (new widgets, each styled twice: a key is
born compact and made wide) whenever the screen's bindings may have changed, which is at
every focus move: most moves change nothing it shows. Here a move that changes nothing
draws nothing, and a key is born as wide as the footer makes it."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer as TextualFooter
from textual.widgets._footer import FooterKey


class Footer(TextualFooter):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._shown: object = None  # what the keys drawn last show

    def _showing(self, screen: Screen) -> object:
        """What the footer would show for ``screen``'s bindings now (compose reads these)."""
        keys = tuple(
            (binding, enabled, tooltip, self.app.get_key_display(binding))
            for (_, binding, enabled, tooltip) in screen.active_bindings.values()
            if binding.show
        )
        spare = self._spare(screen, keys)
        return keys, spare, self.show_command_palette, self.app.ENABLE_COMMAND_PALETTE

    def _spare(self, screen: Screen, keys: tuple[tuple[Any, ...], ...]) -> frozenset[str]:
        """The actions left out because the footer is too narrow for every key: those the
        screen names elsewhere (its ``FOOTER_SPARE``: "Host (h)" on a button), so that the
        keys shown nowhere else stay (at 60 columns the lobby's footer was cut at "r Playe",
        its "? Rules" and "^q Quit" lost)."""
        spare: frozenset[str] = getattr(screen, "FOOTER_SPARE", frozenset())
        # A key is drawn " k Description " (Textual's padding).
        wide = sum(len(k[3]) + len(k[0].description) + 3 for k in keys)
        return spare if spare and wide > self.app.size.width else frozenset()

    def on_resize(self) -> None:
        self.bindings_changed(self.screen)  # redrawn only if the keys left out change

    def bindings_changed(self, screen: Screen) -> None:
        if self.is_attached and screen is self.screen and screen.app.app_focus:
            showing = self._showing(screen)
            if showing == self._shown:
                return
            self._shown = showing
        super().bindings_changed(screen)

    def compose(self) -> ComposeResult:
        screen = self.screen
        keys = self._showing(screen)[0]  # type: ignore[index]
        spare = self._spare(screen, keys)
        for widget in super().compose():
            if isinstance(widget, FooterKey) and widget.action in spare:
                continue
            if isinstance(widget, FooterKey) and "compact" in (widget._reactive_connect or {}):
                widget.set_reactive(FooterKey.compact, self.compact)  # as `data_bind` makes it
            yield widget
