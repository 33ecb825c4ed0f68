"""A seat rebuilt from its journal mid-game (SPEC 4.6) logs the moves so far in the words of
a live log, not in notation: each from its seat's views around the move, checked here
against the same words written from the audited record's positions as that seat saw them."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
import trio
from cuttle_client.cuttle.controller import log_entry
from cuttle_client.cuttle.network import CuttleTable
from cuttle_client.unisson.controller import log_entries
from cuttle_client.unisson.network import NetworkTable
from cuttle_protocol.play import Step, game_session
from cuttle_protocol.store import open_journal, read_table_journal, rebuild
from cuttle_protocol.store.journal import _record
from cuttle_protocol.store.seatjournal import _header_wire

from cuttle_net.games.cuttle.engine import CHANCE
from cuttle_net.records.positions import positions
from cuttle_net.session import Output
from tests.net.test_seatjournal import journaled_table


@pytest.mark.parametrize(
    ("seats", "game", "token", "table_class"),
    [(3, "unisson", "one-deck", NetworkTable), (2, "cuttle", "classic", CuttleTable)],
)
def test_a_rebuilt_seat_logs_the_moves_so_far_in_words(
    tmp_path: Path, seats: int, game: str, token: str, table_class: type
) -> None:
    played, journals, keys = trio.run(journaled_table, tmp_path, seats, game, token)
    whole = positions(Path(played[1].record).read_text())  # audited: every card known
    assert whole.full
    journal = journals[1]
    journal.close()
    header, inputs = read_table_journal(journal.path)
    plays = [i for i, e in enumerate(inputs) if e[0] == "play"]
    cut = plays[min(2, len(plays) - 1)] + 1  # killed after its third move (the last may
    # still await the others' deck steps: two at least are played)
    journal.path.write_bytes(b"".join(_record(x) for x in [_header_wire(header), *inputs[:cut]]))
    seat = rebuild(open_journal(journal.path), keys[1], game_session)
    session = seat.session
    assert session is not None and session.view is not None

    table = table_class("p1", data_dir=tmp_path / "p1")
    table._on_ready = lambda: None  # (the connect screen opens the table)
    table._seated(SimpleNamespace(core=seat.core, move_clock=lambda ours: None))
    table._watch(Step(session, Output()))

    me, names, module = session.seat, table.names, whole.module
    expected: list[str] = []
    for k, (by, text) in enumerate(whole.moves[: len(session.played)]):
        move = module.parse_move(text)
        before, after = whole.view(k, me), whole.view(k + 1, me)
        if game == "cuttle":
            by = CHANCE if by is None else by
            expected.append(log_entry(by, move, before, after, names, me).words)
        else:
            expected += [e.words for e in log_entries(by, move, before, after, names, me)]
    words = [e.words for e in table.log]
    assert len(session.played) >= 2 and words == expected
    notation = {text for _, text in whole.moves}
    assert not any(w.split(": ", 1)[-1] in notation for w in words), words
    assert table.view is not None  # the table as it stands is kept, not the last replayed
    assert module.position_text(table.view) == module.position_text(session.view)
