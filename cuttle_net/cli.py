"""The ``cuttle`` command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import cli_rules


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cuttle", description="Cuttle, played peer to peer in the terminal."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    cli_rules.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        if args.command == "rules":
            return cli_rules.run(args)
    except BrokenPipeError:  # output piped into a reader that stopped early (head)
        sys.stdout = None  # type: ignore[assignment]  # nothing more can be written
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
