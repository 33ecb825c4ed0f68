"""A match at a table (SPEC 3.15 *Another game*, 4.1), in this process over loopback: game
after game with the same seats, the deal passing left, every game its own verified record,
and the same match totals at every seat."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from cuttle_client.progress import game_line, match_end_words, totals_line
from cuttle_protocol.play import TableMatch, play_match_at_table
from cuttle_protocol.shells import TableTimeouts
from cuttle_protocol.table import Rematch, Started, TableEnded

from cuttle_net.records.record import parse_record
from cuttle_net.records.verify import Verdict, verify_text

from .test_tablegame import table_of


def _verified(match: TableMatch) -> list[dict[str, str]]:
    tags = []
    for game in match.games:
        assert game.record is not None
        text = game.record.read_text()
        assert verify_text(text).verdict == Verdict.VALID, game.record
        tags.append(parse_record(text).tags)
    return tags


@pytest.mark.trio
async def test_a_three_seat_unisson_table_plays_a_match_with_the_deal_passing_left(
    tmp_path: Path,
) -> None:
    seen: list[object] = []
    hooks = {0: {"games": 3}, 1: {"games": 3, "watch": seen.append}, 2: {"games": None}}
    matches = await table_of(tmp_path, hooks, play=play_match_at_table)
    for seat, match in matches.items():
        assert len(match.games) == 3 and match.clean, (seat, match)
        assert all(g.record.stem.endswith(f"-game{n}") for n, g in enumerate(match.games, 1))
        assert match_end_words(match.end) == (
            "no more games" if seat == 0 else "p0 (seat 0) left: no more games"
        )
    for n in range(3):  # every seat: the same line for game n + 1
        lines = {game_line(m.games[n]) for m in matches.values()}
        assert len(lines) == 1 and lines.pop().startswith(f"result: game {n + 1}: "), lines
    totals = {totals_line(m.totals) for m in matches.values()}
    assert len(totals) == 1, totals
    line = totals.pop()
    assert line.startswith("match after 3 games: p0 (seat 0) ") and "points" in line
    first = matches[0].totals
    assert sum(first.wins) >= 3 and first.points is not None
    # The points add up each game's scores, player by player.
    for seat in range(3):
        scores = [m.session.outcome.scores[seat] for m in matches[0].games]
        assert first.points[seat] == sum(scores)
    tags = _verified(matches[1])
    assert [t["Number"] for t in tags] == ["1", "2", "3"]
    dealers = [int(t["Dealer"]) for t in tags]
    assert [(d - dealers[0]) % 3 for d in dealers] == [0, 1, 2]  # the deal passes left
    starts = [x for x in seen if isinstance(x, Started)]
    assert [s.number for s in starts] == [1, 2, 3]
    agreed = [x.seat for x in seen if isinstance(x, Rematch)]  # the host first, each time
    assert agreed[0] == agreed[3] == 0 and sorted(agreed) == [0, 0, 1, 1, 2, 2], agreed


@pytest.mark.trio
async def test_cuttle_at_the_two_seat_table_turns_its_seats_as_the_deal_passes(
    tmp_path: Path,
) -> None:
    """The dealer alternates: each game seats the table turned so the dealer is game
    seat 1 (SPEC 4.1), and both records of both games verify."""
    hooks = {0: {"games": 2}, 1: {"games": 2}}
    matches = await table_of(
        tmp_path, hooks, game="cuttle", token="classic", play=play_match_at_table
    )
    for match in matches.values():
        assert len(match.games) == 2 and match.clean, match
        one, two = _verified(match)
        assert one["Dealer"] == two["Dealer"] == "1"  # Cuttle's dealer: always game seat 1
        assert one["Seat1"] != two["Seat1"]  # but the other player each game
        assert (one["Number"], two["Number"]) == ("1", "2")
        assert one["Connection"] == two["Connection"] and one["Session"] != two["Session"]
    host_seats = [m.session.seat for m in matches[0].games]
    assert sorted(host_seats) == [0, 1]
    assert totals_line(matches[0].totals) == totals_line(matches[1].totals)
    assert sum(matches[0].totals.wins) <= 2 and matches[0].totals.points is None


@pytest.mark.trio
async def test_a_conceded_game_is_followed_by_the_next_one(tmp_path: Path) -> None:
    """A concession ends a game as its players may (no audit: nothing left to prove): the
    match goes on to the next game, as after a game played out."""
    from cuttle_net.games.cuttle.moves import CONCEDE

    hooks = {0: {"games": 2, "choose": lambda view: CONCEDE}, 1: {"games": 2}}
    matches = await table_of(
        tmp_path, hooks, game="cuttle", token="classic", play=play_match_at_table
    )
    for match in matches.values():
        assert len(match.games) == 2, match
        end = match_end_words(match.end)
        assert end == "no more games" or "left: no more games" in end, match
        for game in match.games:  # each conceded, its record saved as such
            assert game.session.conceded is not None and game.record is not None
            assert verify_text(game.record.read_text()).verdict == Verdict.UNAUDITED
    assert totals_line(matches[1].totals) == totals_line(matches[0].totals)
    assert "p1 (seat 1) 2" in totals_line(matches[0].totals)  # p0 conceded both


@pytest.mark.trio
async def test_a_joiner_that_wants_no_more_leaves_and_the_others_are_told(
    tmp_path: Path,
) -> None:
    """Seat 2 plays one game only: when the host proposes the second it leaves; every
    other seat's match ends after one game, saying who left."""
    asked: list[int] = []

    async def no_more(played: int) -> bool:
        asked.append(played)
        await trio.sleep(0.01)
        return False

    seen: list[object] = []
    hooks = {
        0: {"games": 3},
        1: {"games": 3, "watch": seen.append},
        2: {"games": None, "again": no_more},
    }
    matches = await table_of(tmp_path, hooks, play=play_match_at_table)
    assert asked == [1]
    for seat, match in matches.items():
        assert len(match.games) == 1 and match.clean, (seat, match)
        assert match.totals.games == 1
    assert (
        match_end_words(matches[0].end)
        == match_end_words(matches[1].end)
        == "p2 (seat 2) left: no more games for me"
    )
    assert match_end_words(matches[2].end) == "no more games"
    (end,) = [x for x in seen if isinstance(x, TableEnded)]
    assert (end.culprit, end.kind) == (2, "left")


@pytest.mark.trio
async def test_a_host_proposing_the_next_game_before_this_one_is_over_is_named(
    tmp_path: Path,
) -> None:
    """The proposal is the host's signed entry: every joiner checks it against its own game,
    still under way, and names the host (bad-entry); the game's records keep it."""
    from cuttle_protocol.play import Step

    def early(table):
        def watch(item: object) -> None:
            if isinstance(item, Step) and item.session.view is not None and not proposed:
                proposed.append(True)
                table.rematch()  # the game has only just been dealt

        return {"watch": watch, "games": 2}

    proposed: list[bool] = []
    matches = await table_of(tmp_path, {0: early, 1: {}, 2: {}}, play=play_match_at_table)
    for seat in (1, 2):
        (game,) = matches[seat].games
        assert not game.clean
        tags = parse_record(game.record.read_text()).tags
        ending = "fault table_bad_entry by seat 0: game 2 proposed before 1 was over"
        assert tags["Ending"].startswith(ending), tags
        assert matches[seat].totals.games == 0  # a game stopped on a fault counts for no one


@pytest.mark.trio
async def test_a_seat_whose_game_sees_the_early_proposal_after_the_table_ended_still_names_the_host(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table core may take the entries of one read before the seat's game sees their
    events: seat 1's game is shown the host's early proposal only once seat 2's report of
    it has ended the table. The proposal came first in the log: seat 1 still names the
    host on its own finding, not on seat 2's word."""
    from cuttle_protocol.play import Step
    from cuttle_protocol.shells import TableShell

    each_event = TableShell.each_event

    async def late(table: TableShell):
        async for event in each_event(table):
            if isinstance(event, Rematch) and table.core.me == 1:
                await table.ended.wait()  # seat 2's report relayed, and taken by the core
            yield event

    monkeypatch.setattr(TableShell, "each_event", late)

    def early(table):
        def watch(item: object) -> None:
            if isinstance(item, Step) and item.session.view is not None and not proposed:
                proposed.append(True)
                table.rematch()

        return {"watch": watch, "games": 2}

    proposed: list[bool] = []
    matches = await table_of(tmp_path, {0: early, 1: {}, 2: {}}, play=play_match_at_table)
    (game,) = matches[1].games
    tags = parse_record(game.record.read_text()).tags
    ending = "fault table_bad_entry by seat 0: game 2 proposed before 1 was over"
    assert tags["Ending"].startswith(ending), tags


@pytest.mark.trio
async def test_a_table_that_ended_while_the_last_game_was_being_saved_is_still_seen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The host plays one game and leaves at once; a joiner still saving its record hears
    of it only from the table's events, which no loop reads any more: its `watch` (the
    screen's "the match is over: p0 left: no more games") must still see the `TableEnded`.
    The joiners here finish the game only once the table has ended, as a slow disk makes
    them."""
    import cuttle_protocol.play.match as tablematch

    real = tablematch.play_at_table

    async def slow_to_save(table, *args, **kwargs):
        game = await real(table, *args, **kwargs)
        if table.core.me != 0:
            await table.ended.wait()
        return game

    monkeypatch.setattr(tablematch, "play_at_table", slow_to_save)
    seen: dict[int, list[object]] = {1: [], 2: []}
    hooks = {0: {"games": 1}, 1: {"watch": seen[1].append}, 2: {"watch": seen[2].append}}
    matches = await table_of(tmp_path, hooks, play=play_match_at_table)
    for seat in (1, 2):
        assert match_end_words(matches[seat].end) == "p0 (seat 0) left: no more games"
        (end,) = [x for x in seen[seat] if isinstance(x, TableEnded)]
        assert (end.culprit, end.kind) == (0, "left")


class _Stopped(Exception):
    """Stands for Ctrl+C (or SIGTERM) while the player is asked for another game."""


@pytest.mark.trio
async def test_a_joiner_stopped_between_games_leaves_at_once(
    tmp_path: Path, memory_net, autojump_clock
) -> None:
    """Stopped at "another game?", a joiner leaves as a player's `l` does, at once: it used
    to wait the whole reply timeout for the host to close the table (a stopped `cuttle join`
    lived on 20 s, and the host's screen said nothing meanwhile)."""

    async def stopped(played: int) -> bool:
        raise _Stopped

    async def play(table, key, token, **how):
        try:
            return await play_match_at_table(table, key, token, **how)
        except* _Stopped:  # (from the task asking, in a nursery)
            pass

    start = trio.current_time()
    hooks = {0: {"games": 3}, 1: {"games": None, "again": stopped}}
    matches = await table_of(tmp_path, hooks, game="cuttle", token="classic", play=play)
    assert matches[1] is None
    assert len(matches[0].games) == 1
    assert match_end_words(matches[0].end).startswith("p1 (seat 1) left")
    assert trio.current_time() - start < TableTimeouts().reply
