"""The one place that words a seat's progress (`cuttle_client.progress`), for the headless
``cuttle host``/``join`` and the terminal client alike: the lines they print and show."""

from __future__ import annotations

from pathlib import Path

from cuttle_client.progress import progress_lines, seat_words
from cuttle_protocol.play import CodeToCompare, Dialling, GameBegins, GameStopped, SeatKey
from cuttle_protocol.store import Trust
from cuttle_protocol.table import Lobby, SeatInfo, TableSettings, Watching

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
    assert progress_lines(GameStopped("result: game 1: …")) == ["result: game 1: …"]
    assert progress_lines(GameStopped("result: x", Path("/r/g.cuttle"))) == [
        "result: x",
        "record saved: /r/g.cuttle",
    ]


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
