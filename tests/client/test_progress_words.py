"""The one place that words a seat's progress (`cuttle_client.progress`), for the headless
``cuttle host``/``join`` and the terminal client alike: the lines they print and show."""

from __future__ import annotations

from pathlib import Path

import pytest
from cuttle_client.progress import (
    game_line,
    match_end_words,
    progress_lines,
    result_line,
    seat_words,
    totals_line,
)
from cuttle_protocol.play import (
    CodeToCompare,
    Dialling,
    GameBegins,
    GameResult,
    GameStopped,
    GameUnsettled,
    MatchTotals,
    NoMoreGames,
    SeatKey,
    TableClosed,
    TableGame,
)
from cuttle_protocol.shells import CannotAccept, Flooded, NotSeated, TurnedAway
from cuttle_protocol.store import Trust
from cuttle_protocol.table import Lobby, SeatInfo, TableEnded, TableSettings, Watching

from cuttle_net.records.ending import Ending

KEY = bytes(32)


def test_each_event_has_its_line() -> None:
    settings = TableSettings("unisson", ("one-deck",), 4)
    lobby = Lobby(settings, (SeatInfo(0, "Hal", KEY), SeatInfo(1, "Ann", KEY)), 1)
    assert progress_lines(lobby) == [
        "at the table (L'Unisson, 4 seats): Hal, Ann; waiting for 2 more players"
    ]
    full = Lobby(settings, tuple(SeatInfo(i, f"p{i}", KEY) for i in range(4)), 0)
    assert progress_lines(full)[0].endswith("; every seat is taken")
    assert progress_lines(Watching(())) == ["watching: nobody"]
    assert progress_lines(Watching((("w0", KEY), ("w1", KEY)))) == ["watching: w0, w1"]
    assert progress_lines(CodeToCompare("123 456")) == [
        "compare this code with every other player's: 123 456"
    ]
    assert progress_lines(CodeToCompare("123 456", verified=True)) == [
        "verified: the host proved the invitation's key (code 123 456)"
    ]
    assert progress_lines(GameBegins(2, 1, 0)) == ["game 2: you are seat 1; seat 0 deals"]
    assert progress_lines(Dialling("host.example", 10.0)) == [
        "connecting to host.example… (giving up after 10 s)"
    ]
    left = GameResult(1, ("A", "B"), Ending("unfinished", text="you left the table"))
    assert progress_lines(GameStopped(left)) == [
        "result: game 1: A (seat 0), B (seat 1): unfinished: you left the table"
    ]
    assert progress_lines(GameStopped(left, Path("/r/g.cuttle")))[1:] == [
        "record saved: /r/g.cuttle"
    ]


NOT_AUDITED = "not audited: the cards never shown stay unproven"
TWO = ("ann", "bob")


@pytest.mark.parametrize(
    ("result", "rest"),
    [  # each row of SPEC 4.5's table, and a table's (4.6)
        (
            GameResult(1, TWO, Ending("goal"), (1,), (), True, "cuttle"),
            "bob wins (reached the goal)",
        ),
        (GameResult(1, TWO, Ending("passes"), (), (), True, "cuttle"), "drawn (passes)"),
        (GameResult(1, TWO, Ending("agreed"), (), (), True, "cuttle"), "drawn (agreed)"),
        (GameResult(1, TWO, Ending("concede", 0), (1,)), "bob wins: ann (seat 0) conceded"),
        (
            GameResult(1, TWO, Ending("fault", 1, "bad-proof", "x"), (0,)),
            "ann wins: bob (seat 1) forfeits, bad-proof: x",
        ),
        (
            GameResult(1, TWO, Ending("closed", 1, "left", "bye"), (0,)),
            "ann wins: bob (seat 1) left the table: bye",
        ),
        (
            GameResult(1, TWO, Ending("closed", 1, "left"), (0,)),
            "ann wins: bob (seat 1) left the table",
        ),
        (
            GameResult(1, TWO, Ending("closed", 0, "fault", "no"), (1,)),
            'bob wins: ann (seat 0) left, closing with fault "no"',
        ),
    ],
)
def test_a_result_line_says_the_ending_as_spec_4_5_does(result: GameResult, rest: str) -> None:
    audit = "audit passed" if result.audited else NOT_AUDITED
    assert result_line(result) == f"result: game 1: ann (seat 0), bob (seat 1): {rest}; {audit}"
    assert result.clean == (result.audited and result.ending.by_rules)


def test_a_tables_result_line_lists_every_seat_winner_and_score() -> None:
    names = ("a", "b", "c", "d")
    won = GameResult(3, names, Ending("octave"), (0, 2, 3), (5, -2, 5, 5), True, "unisson")
    seats = "a (seat 0), b (seat 1), c (seat 2), d (seat 3)"
    assert result_line(won) == (
        f"result: game 3: {seats}: a, c and d win (an octave); scores 5, -2, 5, 5; audit passed"
    )
    cut = GameResult(2, names[:3], Ending("unfinished", text="the table stopped"))
    assert result_line(cut).endswith("c (seat 2): unfinished: the table stopped")
    assert not cut.clean


def test_no_game_says_why() -> None:
    assert game_line(TableGame(None)) == "result: no game: the table never started"
    ended = TableEnded(1, "code-mismatch", "the codes differ")
    assert game_line(TableGame(None, ended=ended)).endswith(": code-mismatch: the codes differ")
    failed = TableGame(None, note="our program failed (x)", ended=ended)
    assert game_line(failed) == "result: no game: our program failed (x)"


def test_the_match_totals_and_its_end_in_words() -> None:
    seats = (SeatInfo(0, "Hal", KEY), SeatInfo(1, "Ann", KEY))
    totals = MatchTotals(seats, [2, 1], games=3)
    assert totals_line(totals) == "match after 3 games: Hal (seat 0) 2 wins; Ann (seat 1) 1 win"
    totals = MatchTotals(seats, [1, 0], [57, 30], games=1)
    assert totals_line(totals) == (
        "match after 1 game: Hal (seat 0) 1 win, 57 points; Ann (seat 1) 0 wins, 30 points"
    )
    assert match_end_words(NoMoreGames()) == "no more games"
    assert match_end_words(GameUnsettled()) == "the game did not end by the rules"
    assert match_end_words(GameUnsettled("you left the table")) == "you left the table"
    left = TableEnded(1, "left", "no more games for me")
    assert match_end_words(TableClosed(left, seats[1])) == "Ann (seat 1) left: no more games for me"
    assert (
        match_end_words(TableClosed(left, seats[1], ours=True)) == "you left: no more games for me"
    )
    cheat = TableEnded(1, "bad-entry", "two logs")
    assert match_end_words(TableClosed(cheat, seats[1])) == "Ann (seat 1) bad-entry: two logs"
    taken = TableEnded(None, "left", "another connection took over")
    assert match_end_words(TableClosed(taken)) == "another connection took over"


def test_a_seat_is_worded_with_what_trust_on_first_use_says() -> None:
    fp = "ab12 cd34"
    assert progress_lines(SeatKey(2, "Bob", fp)) == [f"seat 2: Bob (key {fp})"]
    assert seat_words(SeatKey(2, "Bob", fp, Trust.NEW)) == f"Bob (key {fp}, new)"
    changed = seat_words(SeatKey(2, "Bob", fp, Trust.CHANGED))
    assert (
        changed
        == f"Bob (key {fp}, changed: WARNING, this name had another key before: an impostor?)"
    )
    renamed = seat_words(SeatKey(2, "Robert", fp, Trust.RENAMED, known_as="Bob"))
    assert renamed == f"Robert (key {fp}, renamed: known to you as Bob)"


def test_a_seats_story_keeps_only_the_latest_lobby() -> None:
    """The connect screen's story: who sits at the table now, in place of who sat before
    (the seat knows a lobby by its event, not by reading its own words back)."""
    from cuttle_client.unisson.network import NetworkTable

    seat = NetworkTable("Ann")
    settings = TableSettings("unisson", ("one-deck",), 3)
    hal, ann = SeatInfo(0, "Hal", KEY), SeatInfo(1, "Ann", KEY)
    seat._say("hosting")
    seat._tell(Lobby(settings, (hal,), 0))
    seat._say("at the table (a line of the player's own words)")
    seat._tell(Lobby(settings, (hal, ann), 1))
    seat._tell(CodeToCompare("1 2"))
    assert seat.status == [
        "hosting",
        "at the table (a line of the player's own words)",
        "at the table (L'Unisson, 3 seats): Hal, Ann; waiting for 1 more player",
        "compare this code with every other player's: 1 2",
    ]


def test_a_tables_connection_news_is_worded_here() -> None:
    """The table shells tell their connections' news as data (`shells.ConnectionNews`)."""
    from cuttle_protocol.shells import (
        ConnectionLost,
        HostBack,
        HostBusy,
        HostLost,
        PlayerArrived,
        SeatTakenOver,
        WatcherClosed,
        WatchingAgain,
    )

    bob = SeatInfo(1, "Bob", KEY)
    told = {
        PlayerArrived("Bob", "ab12", "joined"): "Bob (key ab12) joined",
        PlayerArrived("Bob", "ab12", "back"): "Bob (key ab12) is back",
        PlayerArrived("Bob", "ab12", "replaced"): "Bob (key ab12) took its place over",
        PlayerArrived("Bob", "ab12", "takeover"): (
            "Bob (key ab12) is on a new connection: it takes its seat over if it resumes"
        ),
        PlayerArrived("Wes", "cd34", "watcher"): "Wes (key cd34) watches the table",
        SeatTakenOver(bob): "Bob (seat 1) took its seat over from its last connection",
        SeatTakenOver(None): "a player took its seat over from its last connection",
        WatcherClosed("it sent a move"): "closed a watcher's connection: it sent a move",
        ConnectionLost(bob, "reset", 60.0): (
            "lost the connection to Bob (seat 1) (reset): waiting 60 s for it"
        ),
        HostBusy("busy"): "the host is busy (busy): trying again",
        HostBusy(""): "the host is busy: trying again",
        HostLost("reset"): "lost the connection to the host (reset): dialling again",
        HostBack(): "the connection to the host is back",
        WatchingAgain(): "watching again",
    }
    for news, line in told.items():
        assert progress_lines(news) == [line], news


def test_each_game_words_its_own_endings_through_the_registry() -> None:
    # Each game's words sit with its entry in the client's registry, not in progress.py.
    from cuttle_client.games import GAMES as CLIENT_GAMES
    from cuttle_client.gametitles import WORDS, ending_words

    from cuttle_net.games import GAMES
    from cuttle_net.games.interface import game_module

    assert set(WORDS) == set(GAMES) == set(CLIENT_GAMES)
    for name, words in WORDS.items():
        assert set(words.endings) == set(game_module(name).endings), name
        assert CLIENT_GAMES[name].title == words.title
    assert ending_words("unisson", "octave") == "an octave"
    assert ending_words("cuttle", "octave") == "octave"  # not Cuttle's: said as it is
    assert ending_words("chess", "mate") == "mate"


@pytest.mark.parametrize(
    ("news", "line"),
    [  # what a host's listener tells, as `cuttle host` has always printed it
        (
            CannotAccept("Too many open files"),
            "cannot accept a connection for now: Too many open files",
        ),
        (
            Flooded("10.0.0.9:5000", "10.0.0.9"),
            "10.0.0.9:5000: too many connections from 10.0.0.9: refusing them for now",
        ),
        (
            TurnedAway("10.0.0.9:5000", "busy", "a game is in progress here"),
            "10.0.0.9:5000: refused (busy: a game is in progress here)",
        ),
        (
            TurnedAway("[::1]:7", "busy", "full", "eve", "ab12"),
            "[::1]:7: refused eve (key ab12) (busy: full)",
        ),
        (
            NotSeated("1.2.3.4:5", "no hello within 1 s", "timeout"),
            "1.2.3.4:5: no handshake: no hello within 1 s (timeout)",
        ),
        (
            NotSeated("1.2.3.4:5", "bye", "peer-quit", "eve", "ab12", (3, 100)),
            "1.2.3.4:5: eve (key ab12) left before taking the seat: bye (peer-quit); "
            "it saw our hello: try 3 of 100 at this game's code",
        ),
    ],
)
def test_a_listeners_news_in_words(news: object, line: str) -> None:
    assert progress_lines(news) == [line]  # type: ignore[arg-type]
