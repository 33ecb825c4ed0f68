"""A host that lost its journal (a fresh table on the same port) meets a joiner whose
journal says it sits at a table there (SPEC 4.6): the host refuses it at once (`no-table`)
instead of seating it at its new table and then waiting its reconnect window for it; the
joiner says why and keeps its journal. On trio's mock clock, over memory streams."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from cuttle_client.cli_table import Rejoin, sit_at_table
from cuttle_protocol.errors import ErrorCode
from cuttle_protocol.play import game_session
from cuttle_protocol.shells import (
    ConnectionEnded,
    TableTimeouts,
    host_table,
    join_table,
    open_listener,
)
from cuttle_protocol.store import open_journal, read_table_journal, rebuild
from cuttle_protocol.store.journal import _record
from cuttle_protocol.store.seatjournal import _header_wire
from cuttle_protocol.table import Stage, TableSettings
from cuttle_protocol.wire import LocalPlayer

from tests.memnet import MemoryNet
from tests.net.test_seatjournal import journaled_table
from tests.worded import worded

# A window far longer than the refusal may take: waiting it out would show.
TIMEOUTS = TableTimeouts(reply=5.0, move=30.0, window=60.0)


async def _joiner_mid_game(tmp: Path, seats: int, game: str, token: str) -> tuple:
    """Seat 1's journal of a game of `seats`, cut after its first move (its process killed
    there); the keys; the host's address."""
    _, journals, keys = await journaled_table(tmp, seats, game, token)
    journal = journals[1]
    journal.close()
    header, inputs = read_table_journal(journal.path)
    cut = next(i for i, e in enumerate(inputs) if e[0] == "play") + 1
    journal.path.write_bytes(b"".join(_record(x) for x in [_header_wire(header), *inputs[:cut]]))
    return journal.path, keys, header.address


@pytest.mark.trio
@pytest.mark.parametrize(
    ("seats", "game", "token"), [(2, "cuttle", "classic"), (3, "unisson", "one-deck")]
)
async def test_a_host_without_the_table_refuses_a_resume_at_once(
    tmp_path: Path, memory_net: MemoryNet, autojump_clock, seats: int, game: str, token: str
) -> None:
    path, keys, address = await _joiner_mid_game(tmp_path, seats, game, token)
    kept = path.read_bytes()
    port = int(address.rsplit(":", 1)[1])
    host_log: list[str] = []
    settings = TableSettings(game, tuple(token.split("+")), seats)
    async with (
        open_listener(port, "127.0.0.1", log=worded(host_log)) as listener,
        host_table(listener, LocalPlayer("p0", keys[0]), settings, timeouts=TIMEOUTS) as table,
    ):
        journal = open_journal(path)
        seat = rebuild(journal, keys[1], game_session)
        start = trio.current_time()
        with pytest.raises(ConnectionEnded) as refused:
            async with join_table(
                address, LocalPlayer("p1", keys[1]), timeouts=TIMEOUTS, core=seat.core
            ):
                pytest.fail("seated at a table the host does not have")
        took = trio.current_time() - start
        journal.close()
        # Its new table seated nobody: the host still waits in its lobby, for newcomers.
        assert table.core.stage is Stage.LOBBY and len(table.core.players) == 1
    assert took < TIMEOUTS.reply, took  # at once: no window, no timeout
    assert refused.value.code == ErrorCode.NO_TABLE
    assert "this host has no unfinished table of yours to resume" in refused.value.message
    assert any("refused p1" in line and "no-table" in line for line in host_log), host_log
    assert path.read_bytes() == kept  # the joiner's journal, untouched


@pytest.mark.trio
async def test_the_joiner_says_its_journal_is_kept_and_where(
    tmp_path: Path, memory_net: MemoryNet, autojump_clock
) -> None:
    """`cuttle join` taking back a seat its journal keeps (`Rejoin`): the host's words, and
    that the journal is kept, naming it; no game is played or recorded."""
    path, keys, address = await _joiner_mid_game(tmp_path, 2, "cuttle", "classic")
    port = int(address.rsplit(":", 1)[1])
    records = set((tmp_path / "p1").glob("games/*"))  # the game played to make the journal
    said: list[str] = []
    settings = TableSettings("cuttle", ("classic",), 2)
    async with (
        open_listener(port, "127.0.0.1") as listener,
        host_table(listener, LocalPlayer("p0", keys[0]), settings, timeouts=TIMEOUTS),
    ):
        with pytest.raises(ConnectionEnded) as refused:
            await sit_at_table(
                "p1",
                Rejoin(keys[1]),
                address=address,
                config_dir=tmp_path / "c1",
                timeouts=TIMEOUTS,
                say=said.append,
                data_dir=tmp_path / "p1",
                choose=lambda view: pytest.fail("no game to play"),
            )
    message = refused.value.message
    assert message.startswith("the host says: this host has no unfinished table"), message
    assert f"our journal of the table is kept as {path}" in message
    assert any("resuming the unfinished table of Cuttle" in line for line in said), said
    assert set((tmp_path / "p1").glob("games/*")) == records  # no game, so no record
    assert rebuild(open_journal(path), keys[1], game_session).core.stage is Stage.GAME
