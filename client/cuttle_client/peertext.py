"""Text that someone else chose, shown as it is written: a peer's name, a reason, an
ending's words, a record's tags, a LAN announcement.

Textual reads a ``str`` given to a widget (a Static or Label, an option, a border title, a
notification) as markup: ``[/b]`` raises ``MarkupError`` and kills the screen, and
``[@click=app.quit]`` makes a link that runs an action.  A Rich ``Text`` is never parsed, so
every widget that shows such text is given ``plain(text)``.  A control character (ESC that
starts a terminal sequence, a bidi override, DEL...) is shown as ``?`` rather than sent to
the terminal; the protocol already cleans what comes off the wire, and this catches what
comes from anywhere else (a record, a journal, an announcement).
"""

from __future__ import annotations

from cuttle_protocol.wire import display_text
from rich.text import Text


def visible(text: str) -> str:
    """``text`` with every control or formatting character but the line break made ``?``
    (for a ``str`` sink, such as a notification shown with ``markup=False``)."""
    return "\n".join(display_text(line) for line in text.split("\n"))


def plain(text: str, style: str = "") -> Text:
    """``text`` for a widget: never read as markup, every control character visible."""
    return Text(visible(text), style=style)
