"""Where cuttle-net keeps its files, by each system's conventions (``platformdirs``).

- config: the identity key, known peers and the client's settings
  (Linux ``$XDG_CONFIG_HOME/cuttle-net``, else ``~/.config/cuttle-net``; macOS
  ``~/Library/Application Support/cuttle-net``; Windows ``%APPDATA%\\cuttle-net``);
- data: game records, under ``games/`` (Linux ``$XDG_DATA_HOME/cuttle-net``, else
  ``~/.local/share/cuttle-net``; macOS as config; Windows ``%LOCALAPPDATA%\\cuttle-net``).

Commands take ``--config-dir`` / ``--data-dir`` to use others (tests, several profiles).
"""

from __future__ import annotations

from pathlib import Path

import platformdirs

APP = "cuttle-net"


def config_dir() -> Path:
    """The identity key, known peers and the client's settings."""
    return platformdirs.user_config_path(APP, appauthor=False, roaming=True)


def data_dir() -> Path:
    """Where game records are kept (in ``games/``)."""
    return platformdirs.user_data_path(APP, appauthor=False)


def games_dir(data: Path | None = None) -> Path:
    """The saved games: ``games/`` in ``data`` (default: the user's data folder)."""
    return (data or data_dir()) / "games"
