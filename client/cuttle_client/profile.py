"""The player's settings kept between runs: ``client.json`` in the config folder.

For now it holds the player's name, asked on the lobby's first run and changed there or by
``--name``.  An unreadable or edited-to-garbage file is ignored, never fatal: the player is
asked again.
"""

from __future__ import annotations

import contextlib
import getpass
import json
from pathlib import Path

from cuttle_protocol.store import dirs

SETTINGS_FILE = "client.json"


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a player's name (the wire's rule), or None if it can."""
    from cuttle_protocol.wire import MAX_NAME_LEN, display_safe

    if not 1 <= len(name) <= MAX_NAME_LEN or display_safe(name) != name:
        return (
            f"a name is 1 to {MAX_NAME_LEN} printable characters, without leading, trailing "
            "or repeated spaces"
        )
    return None


def login_name() -> str:
    """The login name, made a valid player name (the default offered on first run)."""
    try:
        name = " ".join(getpass.getuser().split())[:32].strip()
    except (OSError, KeyError):  # no login name in this environment
        name = ""
    return name if name and name_problem(name) is None else "player"


def _path(config_dir: Path | None) -> Path:
    return (config_dir or dirs.config_dir()) / SETTINGS_FILE


def saved_name(config_dir: Path | None = None) -> str | None:
    """The name kept in the config, or None (first run, or a file that makes no sense)."""
    try:
        name = json.loads(_path(config_dir).read_text(encoding="utf-8")).get("name")
    except (OSError, ValueError, AttributeError):
        return None
    return name if isinstance(name, str) and name_problem(name) is None else None


def save_name(name: str, config_dir: Path | None = None) -> str | None:
    """Keep ``name`` (already checked with ``name_problem``) for the next runs: None once
    kept, else why not (the name still serves this run). A config folder or ``client.json``
    in the way (a file, a directory, another user's) is said, never a traceback."""
    from cuttle_protocol.store import ConfigError, write_private

    path = _path(config_dir)
    settings: dict = {}
    with contextlib.suppress(OSError, ValueError):
        loaded = json.loads(path.read_text(encoding="utf-8"))
        settings = loaded if isinstance(loaded, dict) else {}
    settings["name"] = name
    try:
        write_private(path, (json.dumps(settings, indent=2) + "\n").encode())
    except (OSError, ConfigError) as e:
        return f"{path} cannot be written: {getattr(e, 'strerror', None) or e}"
    return None


def player_name(given: str | None, config_dir: Path | None = None) -> str:
    """``--name`` if given, else the kept name, else the login name."""
    return given or saved_name(config_dir) or login_name()
