"""The key bindings' line at the foot of each screen (cuttle_client.footer)."""

from __future__ import annotations

from cuttle_client.app import Settings, make_app
from cuttle_client.footer import Footer
from textual.pilot import Pilot
from textual.widgets._footer import FooterKey

from tests.client.helpers import keys, run, screen_text, until


def test_the_footer_is_redrawn_only_when_the_keys_it_shows_change() -> None:
    """Tab across the lobby: from button to list to button the keys stay the same, and so
    do their widgets (Textual's footer made all of them again at every focus move); in a
    field (the Host row's port) only ctrl+q and Esc (out of it) are shown, and out of it every key
    again, wide as before."""
    app = make_app(Settings(bot_delay=0, lan=False, name="Ann"))

    async def body(pilot: Pilot) -> None:
        footer = app.screen.query_one(Footer)
        every = " g Game  p Practice  e Learn  h Host  j Join  l LAN  r Played  ? Rules  ^q Quit"
        assert screen_text(app).splitlines()[-1].rstrip() == every
        drawn = list(footer.children)
        assert drawn and not any(k.compact for k in footer.query(FooterKey))
        seen = set()
        while app.focused is None or app.focused.id not in ("port", "address"):  # a field
            seen.add(type(app.focused).__name__)
            assert list(footer.children) == drawn, app.focused
            await keys(pilot, "tab")
        assert {"Button", "Select"} <= seen, seen
        field_keys = "^q Quit  esc Leave field"
        await until(pilot, lambda: screen_text(app).splitlines()[-1].strip() == field_keys)
        await keys(pilot, "tab")
        await until(pilot, lambda: screen_text(app).splitlines()[-1].rstrip() == every)
        assert not any(k.compact for k in footer.query(FooterKey))

    run(app, body)
