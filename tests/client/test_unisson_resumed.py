"""A table seat rebuilt from its journal in the terminal client (SPEC 4.6): the table screen
opens at once on the game as it stands, with the moves so far and the same table code."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import trio
from cuttle_client.unisson.network import NetworkTable
from cuttle_protocol.play import Step, game_session
from cuttle_protocol.store import open_journal, read_table_journal, rebuild
from cuttle_protocol.store.journal import _record
from cuttle_protocol.store.seatjournal import _header_wire

from cuttle_net.session import Dealt, Output
from tests.net.test_seatjournal import journaled_table


def test_a_rebuilt_seat_opens_its_table_at_once_with_the_moves_and_the_code(
    tmp_path: Path,
) -> None:
    _, journals, keys = trio.run(journaled_table, tmp_path, 3)
    journal = journals[1]
    journal.close()
    header, inputs = read_table_journal(journal.path)
    plays = [i for i, e in enumerate(inputs) if e[0] == "play"]
    cut = plays[1] + 1  # killed after its second move
    journal.path.write_bytes(b"".join(_record(x) for x in [_header_wire(header), *inputs[:cut]]))
    seat = rebuild(open_journal(journal.path), keys[1], game_session)
    assert seat.session is not None and seat.session.view is not None

    table = NetworkTable("p1", data_dir=tmp_path / "p1")
    opened: list[bool] = []
    table._on_ready = lambda: opened.append(True)  # the connect screen opens the table
    table._seated(SimpleNamespace(core=seat.core, move_clock=lambda ours: None))
    table._watch(Step(seat.session, Output()))
    assert opened == [True]
    assert table.view is not None and table.seat == seat.session.seat == 1
    assert table.names == ("p0", "You", "p2")
    assert table.label == f"table · code {seat.core.code}"
    played = [(s, m) for s, m in seat.session.played if s is not None]
    # one entry a move at least (a note may follow); their words: test_resumed_log
    assert len(table.log) >= len(played) and table.log[-1].seat == played[-1][0]
    assert any(s == 1 for s, _ in played)  # ours too (the last may still await its deck steps)


def test_a_seat_rebuilt_right_after_the_deal_shows_the_tables_code(tmp_path: Path) -> None:
    """Killed just after the deal, a seat's first step after the rebuild carries the deal
    (`Dealt`): the table showed it without the code the other screens show."""
    _, journals, keys = trio.run(journaled_table, tmp_path, 3)
    journal = journals[1]
    journal.close()
    seat = rebuild(open_journal(journal.path), keys[1], game_session)
    table = NetworkTable("p1", data_dir=tmp_path / "p1")
    table._on_ready = lambda: None
    table._seated(SimpleNamespace(core=seat.core, move_clock=lambda ours: None))
    assert seat.session is not None and seat.core.code
    table._watch(Step(seat.session, Output(events=[Dealt()])))
    assert table.view is not None
    assert table.label == f"table · code {seat.core.code}"
