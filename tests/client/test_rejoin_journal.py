"""The lobby's Join (and ``cuttle join``) to a host whose table we left unfinished takes the
seat back from its journal (SPEC 4.6): the journal names the game, and a journal that cannot
be read is said so, and moved aside, before any connection."""

from __future__ import annotations

from pathlib import Path

import trio
from cuttle_client.network import Joining
from cuttle_protocol.play import NetPlan
from cuttle_protocol.store import join_table_path


def test_a_damaged_journal_is_said_and_kept_aside_before_dialling(tmp_path: Path) -> None:
    address = "127.0.0.1:9"  # nothing listens: a dial would say the connection failed
    path = join_table_path(tmp_path / "data", address)
    path.parent.mkdir(parents=True, mode=0o700)
    path.write_bytes(b"\x00\x00\x01\x00garbage")
    joining = Joining(
        NetPlan("join", "ann", address=address, config_dir=tmp_path / "config"),
        data_dir=tmp_path / "data",
    )
    trio.run(joining._main)
    assert joining.failed.startswith("The unfinished table cannot be resumed: ")
    assert "damaged length" in joining.failed and joining.failed.endswith(".")
    assert not path.exists() and path.with_suffix(".damaged").exists()
    assert joining.table is None  # no game's seat was taken to say it
