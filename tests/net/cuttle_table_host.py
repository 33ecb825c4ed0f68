"""Host two-player Cuttle at a 2-seat table with a bot, headless, as ``cuttle host`` would
(it still sends Cuttle over the two-party connection):

    python -m tests.net.cuttle_table_host DIR PORT [BOT_DELAY]

DIR is the config and data folder; PORT 0 re-opens the latest unfinished table (SPEC 4.6).
Joiners use ``cuttle join``, which sits at a table that names Cuttle."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import trio
from cuttle_client.cli_net import _say
from cuttle_client.cli_table import Hosting, _bot_at_table, bot_for


def main() -> int:
    files, port, delay = (
        Path(sys.argv[1]),
        int(sys.argv[2]),
        float((sys.argv[3:4] and sys.argv[3]) or 0),
    )
    args = argparse.Namespace(
        config_dir=files,
        data_dir=files,
        reply_timeout=30.0,
        move_timeout=600.0,
        reconnect_window=60.0,
        bot_delay=delay,
        games=1,
    )
    where = Hosting("cuttle", 2, "classic", port, "127.0.0.1", announce=False)
    return trio.run(_bot_at_table, args, "p0", where, bot_for("cuttle", "greedy"), _say)


if __name__ == "__main__":
    sys.exit(main())
