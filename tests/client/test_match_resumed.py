"""A match survives a resume (issue 26, defect 2): a seat rebuilt from its journal in game 2
counts game 1 as it did, from its own journal (every message checked and the audit run
again here, never a peer's word), on every seat, both games: the match totals of the
protocol and the score the table screen shows."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
import trio
from cuttle_client.controller import MatchScore
from cuttle_client.cuttle_seat import CuttleTable
from cuttle_client.unisson.network import NetworkTable
from cuttle_protocol.journal import _record
from cuttle_protocol.seatjournal import _header_wire, open_journal, read_table_journal, rebuild
from cuttle_protocol.tablegame import Step, game_session
from cuttle_protocol.tablematch import MatchTotals, TableMatch, _replayed

from cuttle_net.session import Output
from tests.net.test_seatjournal import journaled_table


def _cut_in_game_two(path: Path) -> None:
    """The seat's journal as a kill after its first move of game 2 leaves it."""
    header, inputs = read_table_journal(path)
    again = [e[0] for e in inputs].index("rematch")
    cut = next(i for i in range(again, len(inputs)) if inputs[i][0] == "play") + 1
    path.write_bytes(b"".join(_record(x) for x in [_header_wire(header), *inputs[:cut]]))


@pytest.mark.parametrize(
    ("seats", "game", "token", "table_class"),
    [(2, "cuttle", "classic", CuttleTable), (3, "unisson", "one-deck", NetworkTable)],
)
def test_every_seat_rebuilt_in_game_two_counts_game_one_as_it_did(
    tmp_path: Path, seats: int, game: str, token: str, table_class: type
) -> None:
    matches: dict[int, TableMatch] = {}
    _, journals, keys = trio.run(journaled_table, tmp_path, seats, game, token, 2, matches)
    assert all(len(m.games) == 2 and m.clean for m in matches.values()), matches
    lines: set[str] = set()
    for seat, journal in journals.items():
        journal.close()
        _cut_in_game_two(journal.path)
        again = open_journal(journal.path)
        resumed = rebuild(again, keys[seat], game_session)
        session = resumed.session
        assert session is not None and session.header.number == 2 and not session.finished

        # The protocol's match: game 1 as it was played, and the totals after it.
        live = matches[seat]
        assert live.totals is not None
        earlier = _replayed(again)
        assert [g.line for g in earlier] == [live.games[0].line] and earlier[0].clean
        totals = MatchTotals(resumed.core.seats)
        for g in earlier:
            totals.add(g)
        after_one = MatchTotals(live.totals.seats)
        after_one.add(live.games[0])
        assert totals.line() == after_one.line() and totals.games == 1, totals.line()
        lines.add(totals.line())

        # The table screen: the score with game 1 counted, game 2 under way.
        table = table_class(f"p{seat}", data_dir=tmp_path / f"p{seat}")
        table._on_ready = lambda: None  # (the connect screen opens the table)
        table._seated(SimpleNamespace(core=resumed.core, move_clock=lambda ours: None))
        table._hooks()["resumed"](earlier, totals)  # as `play_match_at_table` calls it
        table._watch(Step(session, Output()))
        assert table._number == 2
        me = resumed.core.me
        if game == "cuttle":
            mine, theirs = after_one.wins[me], after_one.wins[1 - me]
            assert table.score == MatchScore(mine, theirs, 1 - mine - theirs) != MatchScore()
        else:
            assert after_one.points is not None
            assert table.match == after_one.points and any(table.match)
        again.close()
    assert len(lines) == 1, lines  # every seat: the same totals
