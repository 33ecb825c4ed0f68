"""What the headless commands, which load no Textual, say of each game, by its module name
(the record's ``Game`` tag): its name for people (the registry's titles, ``games.GAMES``)
and its ends by the rules (``GameModule.endings``) as SPEC 4.5's result line says them.
Kept apart from the registry so that they are said without loading Textual."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GameWords:
    title: str  # "L'Unisson"
    endings: dict[str, str]  # an ending by the rules (the record's ``Ending``) in words


WORDS: dict[str, GameWords] = {
    "cuttle": GameWords(
        "Cuttle", {"goal": "reached the goal", "passes": "passes", "agreed": "agreed"}
    ),
    "unisson": GameWords(
        "L'Unisson", {"octave": "an octave", "last-round": "the last round", "passes": "passes"}
    ),
}
TITLES: dict[str, str] = {name: words.title for name, words in WORDS.items()}


def game_title(name: str) -> str:
    """``unisson`` → ``L'Unisson``; a game the client does not know keeps its name."""
    return TITLES.get(name, name)


def ending_words(game: str, form: str) -> str:
    """How the result line says that ``game`` ended by its rules in ``form``: ``octave`` →
    ``an octave``; a game or an ending the client does not know keeps its name."""
    words = WORDS.get(game)
    return words.endings.get(form, form) if words is not None else form


__all__ = ["TITLES", "WORDS", "GameWords", "ending_words", "game_title"]
