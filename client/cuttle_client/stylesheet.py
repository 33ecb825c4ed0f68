"""Parsed CSS shared by every app of the process.

Textual parses each CSS source (the app's file, every widget's ``DEFAULT_CSS``) again for
each app it starts: its parse cache belongs to one app's stylesheet.  A process that starts
many apps (the tests start hundreds) spent about 5% of each start parsing the same text.
"""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.cache import LRUCache
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet

# The rules parsed from one source, by its text, location and options and the variables
# it was parsed with (a variable's value is substituted while parsing).  Rules are not
# changed once parsed: applying them copies their values into each node's styles, and one
# app's stylesheet already reuses them on every screen.
_PARSED: LRUCache[tuple, list[RuleSet]] = LRUCache(1024)


class SharedStylesheet(Stylesheet):
    """A stylesheet that takes the rules another app parsed from the same source."""

    def _parse_rules(self, css: str, read_from: Any, *args: Any, **kwargs: Any) -> list[RuleSet]:
        variables = tuple(sorted(self._variables.items()))
        key = (css, read_from, args, tuple(sorted(kwargs.items())), variables)
        rules = _PARSED.get(key)
        if rules is None:  # (CSS that fails to parse raises, and is parsed again next time)
            rules = super()._parse_rules(css, read_from, *args, **kwargs)
            _PARSED[key] = rules
        return rules


def share_parsed_css(app: App[Any]) -> None:
    """Give ``app``, just made, a stylesheet that shares parsed rules (before it runs:
    Textual reads the sources into it as the app starts)."""
    app.stylesheet = SharedStylesheet(variables=app.get_css_variables())
