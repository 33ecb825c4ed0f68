"""The ``cuttle`` command: each subcommand lives in its own module.

A subcommand module names its commands in ``COMMANDS``, adds their parsers in
``add_parser(subparsers)`` and runs them in ``run(args) -> int``; list it in ``MODULES``.
With no command, ``cuttle`` opens the terminal client's lobby.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import (
    cli_arena,
    cli_lan,
    cli_learn,
    cli_net,
    cli_play,
    cli_record,
    cli_rules,
    cli_watch,
    stopping,
)

MODULES = (cli_play, cli_learn, cli_net, cli_watch, cli_lan, cli_record, cli_rules, cli_arena)
SUBCOMMANDS = {name: module for module in MODULES for name in module.COMMANDS}
WRITES_FOLDERS = {None, "host", "join", "watch"}
"""The commands (None: the lobby) whose seat or watcher writes a journal and records."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cuttle",
        description="Cuttle (two players) and L'Unisson (3 to 6 players), played peer to "
        "peer in the terminal. With no command: the lobby, to practise, host or join.",
    )
    parser.add_argument("--version", action="version", version=f"cuttle {_version()}")
    cli_play.add_display_options(parser)
    cli_play.add_name_option(parser)
    cli_play.add_dir_options(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in MODULES:
        module.add_parser(sub)
    return parser


def _version() -> str:
    """The installed package's version (one source: pyproject.toml)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("cuttle-net")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "(not installed)"


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command in WRITES_FOLDERS:
        from cuttle_protocol.store import ConfigError, check_folders

        try:
            check_folders(args.config_dir, args.data_dir)
        except ConfigError as e:
            print(f"cuttle: {e}", file=sys.stderr)
            return 2
    try:
        with stopping.installed():  # SIGTERM and SIGHUP stop a command as Ctrl+C does
            if args.command is None:
                status = cli_play.run_lobby(args)
            else:
                status = SUBCOMMANDS[args.command].run(args)
    except BrokenPipeError:  # output piped into a reader that stopped early (head)
        sys.stdout = None  # type: ignore[assignment]  # nothing more can be written
        return 1
    except BaseException as exc:  # Ctrl+C, SIGTERM, SIGHUP: everything was cleaned up on the way
        if stopping.interrupted(exc):
            return stopping.status()
        raise
    # The terminal client handles the signals itself, and ends as after ctrl+q.
    return stopping.status() if stopping.stopped() else status


if __name__ == "__main__":
    sys.exit(main())
