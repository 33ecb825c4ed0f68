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

PALETTE_WIDTH = 12  # "▏^p palette ", docked right


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
        screen names elsewhere (its ``FOOTER_SPARE``: "Host (h)" on a button), the last
        first, until the rest fit, so that the keys shown nowhere else stay (at 60 columns
        the lobby's footer was cut at "r Playe", its "? Rules" and "^q Quit" lost)."""
        spare = getattr(screen, "FOOTER_SPARE", frozenset())
        palette = self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE
        room = self.app.size.width - (PALETTE_WIDTH if palette else 0)
        # A key is drawn " k Description " (Textual's padding).
        widths = [(k[0].action, len(k[3]) + len(k[0].description) + 3) for k in keys]
        wide = sum(w for _, w in widths)
        left_out: set[str] = set()
        for action, w in reversed(widths):
            if wide <= room:
                break
            if action in spare:
                left_out.add(action)
                wide -= w
        return frozenset(left_out)

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
