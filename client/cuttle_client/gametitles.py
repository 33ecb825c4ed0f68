"""Each game's name for people, by its module name (the record's ``Game`` tag): the
registry's titles (``games.GAMES``), kept apart from it so that the headless commands,
which load no Textual, say them too."""

from __future__ import annotations

TITLES: dict[str, str] = {"cuttle": "Cuttle", "unisson": "L'Unisson"}


def game_title(name: str) -> str:
    """``unisson`` → ``L'Unisson``; a game the client does not know keeps its name."""
    return TITLES.get(name, name)


__all__ = ["TITLES", "game_title"]
