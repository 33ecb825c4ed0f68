"""Parsed CSS shared by the apps of one process (cuttle_client.stylesheet)."""

from __future__ import annotations

import pytest
import textual.css.stylesheet
from cuttle_client.app import Settings, make_app
from cuttle_client.stylesheet import SharedStylesheet
from textual.pilot import Pilot
from textual.widgets import Static

from tests.client.helpers import run, screen_text


def test_a_second_app_parses_no_css_and_looks_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    screens: list[str] = []

    async def look(pilot: Pilot) -> None:
        screens.append(screen_text(pilot.app))

    run(make_app(Settings(bot_delay=0, lan=False)), look)
    parsed: list[object] = []
    parse = textual.css.stylesheet.parse

    def counted(*args: object, **kwargs: object) -> object:
        parsed.append(args[2])  # where the CSS was read from
        return parse(*args, **kwargs)

    monkeypatch.setattr(textual.css.stylesheet, "parse", counted)
    run(make_app(Settings(bot_delay=0, lan=False)), look)
    assert parsed == []
    assert screens[0] == screens[1]


def test_rules_parsed_with_other_variables_are_not_taken() -> None:
    """A variable's value is put in while parsing: the same text under another theme's
    variables is parsed again, not taken from the first."""
    css = "Static { color: $accent; }"

    def color(accent: str) -> str:
        sheet = SharedStylesheet(variables={"accent": accent})
        sheet.add_source(css, read_from=("test", "css"))
        widget = Static()
        sheet.apply(widget)
        return widget.styles.color.hex

    assert color("#ff0000") == "#FF0000"
    assert color("#0000ff") == "#0000FF"
    assert color("#ff0000") == "#FF0000"
