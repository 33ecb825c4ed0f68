"""A match survives a resume (issue 26, defect 2): a seat rebuilt from its journal in game 2
counts game 1 as it did, from its own journal (every message checked and the audit run
again here, never a peer's word), on every seat, both games: the match totals of the
protocol and the score the table screen shows. A seat rebuilt between games shows game 1
over, who proposed game 2 and whether it agreed already, as before its restart."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
import trio
from cuttle_client.cuttle.controller import MatchScore
from cuttle_client.cuttle.network import CuttleTable
from cuttle_client.progress import totals_line
from cuttle_client.unisson.network import NetworkTable
from cuttle_protocol.play import MatchTotals, Step, TableMatch, game_session
from cuttle_protocol.play.match import _over_at_restart, _replayed
from cuttle_protocol.store import open_journal, read_table_journal, rebuild
from cuttle_protocol.store.journal import _record
from cuttle_protocol.store.seatjournal import _header_wire
from cuttle_protocol.table import CodeShown, Rematch

from cuttle_net.session import Output
from tests.net.test_seatjournal import journaled_table


def _cut(path: Path, header: object, inputs: list, at: int) -> None:
    """The seat's journal as a kill after its first `at` inputs leaves it."""
    path.write_bytes(b"".join(_record(x) for x in [_header_wire(header), *inputs[:at]]))


def _table(table_class: type, seat: int, tmp: Path, resumed: object) -> object:
    """The client's seat as the connect screen makes it, on the rebuilt table core."""
    table = table_class(f"p{seat}", data_dir=tmp / f"p{seat}")
    table._on_ready = lambda: None  # (the connect screen opens the table)
    shell = SimpleNamespace(core=resumed.core, move_clock=lambda ours: None, ended=trio.Event())
    table._seated(shell)
    return table


def _counted(table: object, me: int, game: str, after_one: MatchTotals) -> None:
    """The table's score is game 1's, as the live match counted it."""
    if game == "cuttle":
        mine, theirs = after_one.wins[me], after_one.wins[1 - me]
        assert table.score == MatchScore(mine, theirs, 1 - mine - theirs) != MatchScore()
    else:
        assert after_one.points is not None
        assert table.match == after_one.points and any(table.match)


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
        header, inputs = read_table_journal(journal.path)
        agreed = [e[0] for e in inputs].index("rematch")  # our proposal of game 2, or yes
        live = matches[seat]
        assert live.totals is not None
        after_one = MatchTotals(live.totals.seats)
        after_one.add(live.games[0])

        # Killed in game 2, after our first move of it.
        cut = next(i for i in range(agreed, len(inputs)) if inputs[i][0] == "play") + 1
        _cut(journal.path, header, inputs, cut)
        again = open_journal(journal.path)
        resumed = rebuild(again, keys[seat], game_session)
        session = resumed.session
        assert session is not None and session.header.number == 2 and not session.finished

        # The protocol's match: game 1 as it was played, and the totals after it.
        earlier = _replayed(again)
        assert [g.result for g in earlier] == [live.games[0].result] and earlier[0].clean
        totals = MatchTotals(resumed.core.seats)
        for g in earlier:
            totals.add(g)
        line = totals_line(totals)
        assert line == totals_line(after_one) and totals.games == 1, line
        lines.add(line)

        # The table screen: the score with game 1 counted, game 2 under way.
        table = _table(table_class, seat, tmp_path, resumed)
        table._hooks()["resumed"](earlier, totals)  # as `play_match_at_table` calls it
        table._watch(Step(session, Output()))
        assert table._number == 2
        _counted(table, resumed.core.me, game, after_one)
        again.close()

        # Killed between games: before our answer to game 2 (the host: its proposal), and
        # after it. Game 1 is reported (its record is not saved again), the code is not
        # asked again, and who proposed and who agreed show as before.
        for answered in (False, True):
            _cut(journal.path, header, inputs, agreed + answered)
            again = open_journal(journal.path)
            resumed = rebuild(again, keys[seat], game_session)
            core = resumed.core
            assert core.asked_next == answered and not _replayed(again)
            over = _over_at_restart(again)
            assert over is not None and over.record is None
            assert over.result == live.games[0].result  # as it ended, reported again
            assert again.resumed is None  # the next game is played anew
            events = core.take_events()
            assert not any(isinstance(e, CodeShown) for e in events), events
            proposals = [(e.seat, e.number) for e in events if isinstance(e, Rematch)]
            # (a joiner's own yes shows once the host relays it, after the restart)
            assert ((0, 2) in proposals) == (seat != 0 or answered), proposals

            table = _table(table_class, seat, tmp_path, resumed)
            assert over.session is not None
            table._watch(Step(over.session, Output()))  # as `play_match_at_table` does
            table._report(over)
            for event in events:
                table._watch(event)
            _counted(table, core.me, game, after_one)
            if seat == 0:
                want = "You want game 2: waiting for every other player to agree"
                assert (want in table.between) == answered, table.between
            else:
                said = "you agreed." if answered else "r to play it, l to leave."
                assert table.between.startswith(f"p0 proposes game 2: {said}"), table.between
            assert table.can_rematch != answered
            again.close()
    assert len(lines) == 1, lines  # every seat: the same totals
