"""Only the registries know the games (docs/adding-a-game.md): the modules that serve every
game name none of them (the parts each game must have: tests/client/test_games_registry.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from cuttle_net.games import GAMES

ROOT = Path(__file__).resolve().parent.parent

# Modules that serve every game: they reach a game through a registry only. (The rest still
# name a game: docs/adding-a-game.md lists them.)
GAME_FREE = [
    "cuttle_net/session.py",
    "cuttle_net/records/header.py",
    "cuttle_net/records/positions.py",
    "cuttle_net/records/replay.py",
    "cuttle_net/records/ending.py",
    "cuttle_net/records/verify.py",
    "protocol/cuttle_protocol/store/journal.py",
    "protocol/cuttle_protocol/store/seatjournal.py",
    "protocol/cuttle_protocol/table/core.py",
    "protocol/cuttle_protocol/play/game.py",
    "protocol/cuttle_protocol/play/match.py",
    "protocol/cuttle_protocol/play/events.py",
    "client/cuttle_client/learn.py",
    "client/cuttle_client/lobby.py",
    "client/cuttle_client/network.py",
    "client/cuttle_client/played.py",
    "client/cuttle_client/replay.py",
    "client/cuttle_client/recordtext.py",
    "client/cuttle_client/seat.py",
    "client/cuttle_client/tablebots.py",
    "client/cuttle_client/progress.py",
    "client/cuttle_client/cli_games.py",
    "client/cuttle_client/cli_play.py",
    "client/cuttle_client/cli_arena.py",
    "client/cuttle_client/cli_rules.py",
    "client/cuttle_client/cli_net.py",
    "client/cuttle_client/cli_table.py",
]


def names_a_game(path: Path) -> list[str]:
    """Where the module names a game: a string that is a game's name (docstrings aside), or
    an import of a game's package (the core's, or a game's client module)."""
    tree = ast.parse(path.read_text(), str(path))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and node.value in GAMES and id(node) not in docstrings:
            found.append(f"{path.name}:{node.lineno} the string {node.value!r}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if any(p in GAMES for p in alias.name.split(".")):
                    found.append(f"{path.name}:{node.lineno} imports {alias.name}")
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if any(p in GAMES for p in module.split(".")) or any(
                a.name in GAMES or a.name.startswith("cuttle_") for a in node.names
            ):
                found.append(f"{path.name}:{node.lineno} imports from {'.' * node.level}{module}")
    return found


@pytest.mark.parametrize("module", GAME_FREE)
def test_a_module_for_every_game_names_none(module: str) -> None:
    assert not names_a_game(ROOT / module)


def test_the_scan_sees_a_game_named() -> None:
    # Guards the test itself: these name the games on purpose.
    assert names_a_game(ROOT / "client/cuttle_client/games.py")
    assert names_a_game(ROOT / "client/cuttle_client/cuttle/lesson.py")
