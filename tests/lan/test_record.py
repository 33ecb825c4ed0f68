"""The LAN announcement record: its contents, round trip, and every hostile variation."""

from __future__ import annotations

import subprocess
import sys

import pytest
from cuttle_protocol.wire import (
    SERVICE_TYPE,
    Announcement,
    IncompatibleVersion,
    RecordError,
    display_text,
    seats_text,
)
from cuttle_protocol.wire.announcement import (
    MAX_KEYS,
    MAX_NAME_CHARS,
    MAX_RECORD_BYTES,
    PROTOCOL_VERSION,
    decode,
    encode,
)

from cuttle_net.games.cuttle.rules import Rules
from cuttle_net.games.interface import game_module

UNISSON = game_module("unisson")

GOOD = {b"v": b"1", b"name": b"Alice", b"rules": b"classic+joker", b"seat": b"free"}
TABLE = {**GOOD, b"rules": b"one-deck", b"game": b"unisson", b"seats": b"4", b"taken": b"2"}
ONE_DECK = UNISSON.parse_rules("one-deck", 4)
TWO_DECKS = UNISSON.parse_rules("two-decks", 6)


def with_(**changes: bytes | None) -> dict[bytes, bytes | None]:
    props: dict[bytes, bytes | None] = dict(GOOD)
    for key, value in changes.items():
        props[key.encode()] = value
    return props


def test_service_type() -> None:
    assert SERVICE_TYPE == "_cuttle._tcp.local."


def test_contents_of_an_announcement() -> None:
    a = Announcement("Alice", 4000, Rules.parse("standard+joker"), taken=2)
    assert encode(a) == {
        b"v": str(PROTOCOL_VERSION).encode(),
        b"name": b"Alice",
        b"rules": b"standard+joker",
        b"seat": b"taken",
    }


@pytest.mark.parametrize(
    "announcement",
    [
        Announcement("Alice", 4000, Rules()),
        Announcement("Zoë Ünïcode ♠", 1, Rules.parse("standard+joker+nine-frozen"), 2),
        Announcement("x" * MAX_NAME_CHARS, 65535, Rules()),
        Announcement("Ann", 4454, ONE_DECK, 1, game="unisson", seats=3),
        Announcement("Ann", 4454, TWO_DECKS, 5, game="unisson", seats=6),
        Announcement("Ann", 4454, TWO_DECKS, 6, game="unisson", seats=6),
    ],
)
def test_round_trip(announcement: Announcement) -> None:
    assert decode(encode(announcement), announcement.port) == announcement


def test_decode_reads_a_good_record_and_ignores_unknown_keys() -> None:
    a = decode({**GOOD, b"future": b"whatever"}, 4000)
    assert (a.name, a.port, a.rules.name, a.seat_free, a.version) == (
        "Alice",
        4000,
        "classic+joker",
        True,
        1,
    )


@pytest.mark.parametrize("port", [None, 0, -1, 65536, 10**9])
def test_bad_ports_are_refused(port: int | None) -> None:
    with pytest.raises(RecordError, match="port"):
        decode(GOOD, port)


@pytest.mark.parametrize("version", [b"2", b"999", b"0"])
def test_other_versions_are_incompatible(version: bytes) -> None:
    if version == b"0":  # not a version number at all
        with pytest.raises(RecordError, match="not a number"):
            decode(with_(v=version), 4000)
        return
    with pytest.raises(IncompatibleVersion, match="this program speaks version 1") as e:
        decode(with_(v=version), 4000)
    assert e.value.version == int(version)


def test_an_incompatible_version_is_reported_before_the_rest_is_read() -> None:
    # A future version may change every other key; only the version is read.
    with pytest.raises(IncompatibleVersion):
        decode({b"v": b"7", b"seat": b"maybe"}, None)


@pytest.mark.parametrize(
    ("props", "reason"),
    [
        (with_(v=b"one"), "not a number"),
        (with_(v=b"01"), "not a number"),
        (with_(v=b"1" * 50), "longer than"),
        (with_(v=None), "missing"),
        ({k: v for k, v in GOOD.items() if k != b"name"}, "missing"),
        ({k: v for k, v in GOOD.items() if k != b"rules"}, "missing"),
        ({k: v for k, v in GOOD.items() if k != b"seat"}, "missing"),
        ({}, "missing"),
        (with_(name=b""), "empty"),
        (with_(name=b"   "), "empty"),
        (with_(name=b"x" * (MAX_NAME_CHARS + 1)), "longer than"),
        (with_(name="é".encode() * 60), "longer than"),
        (with_(name=b"x" * 200), "longer than"),
        (with_(name=b"\xff\xfeAlice"), "not UTF-8"),
        (with_(name=b"\xc3"), "not UTF-8"),
        (with_(rules=b"chess"), "bad rules: unknown rule set"),
        (with_(rules=b"classic+flying-aces"), "unknown variant"),
        (with_(rules=b"classic+joker+joker"), "named twice"),
        (with_(rules=b"classic+nine-frozen+nine-to-deck"), "cannot be combined"),
        (with_(rules=b"classic+"), "bad rules"),
        (with_(rules=b"classic+joker" * 20), "longer than"),
        (with_(rules=b"\x1b[2J"), "bad rules"),
        (with_(seat=b"maybe"), "not free or taken"),
        (with_(seat=b"FREE"), "not free or taken"),
        (with_(seat=b"\x1b[31m"), r"'\?\[31m', not free or taken"),
        (with_(seat=b"taken!"), "longer than"),
        ({**GOOD, **{f"k{i}".encode(): b"" for i in range(MAX_KEYS)}}, "keys"),
        ({**GOOD, b"pad": b"x" * MAX_RECORD_BYTES}, "larger than"),
    ],
)
def test_malformed_records_fail_with_a_record_error(
    props: dict[bytes, bytes | None], reason: str
) -> None:
    with pytest.raises(RecordError, match=reason):
        decode(props, 4000)


def table(**changes: bytes | None) -> dict[bytes, bytes | None]:
    props: dict[bytes, bytes | None] = dict(TABLE)
    for key, value in changes.items():
        props[key.encode()] = value
    return props


def test_contents_of_a_table_announcement() -> None:
    a = Announcement("Alice", 4454, ONE_DECK, 2, game="unisson", seats=4)
    assert encode(a) == TABLE
    assert a.table and a.seat_free and seats_text(a) == "2 of 4 seats taken"
    cuttle = Announcement("Alice", 4000, Rules())
    assert not cuttle.table and seats_text(cuttle) == "seat free"
    assert seats_text(Announcement("Alice", 4000, Rules(), 2)) == "seat taken"


def test_a_table_record_is_read_with_its_game_and_seats() -> None:
    a = decode({**TABLE, b"future": b"x"}, 4454)
    assert (a.name, a.game, a.rules, a.seats, a.taken, a.seat_free) == (
        "Alice",
        "unisson",
        ONE_DECK,
        4,
        2,
        True,
    )
    full = decode(table(seat=b"taken", taken=b"4"), 4454)
    assert not full.seat_free


def test_a_cuttle_record_may_name_its_game_and_seats() -> None:
    a = decode(with_(game=b"cuttle", seats=b"2", taken=b"1"), 4000)
    assert (a.game, a.seats, a.taken, a.seat_free) == ("cuttle", 2, 1, True)
    assert decode(with_(seat=b"taken"), 4000).taken == 2


def test_a_record_without_game_is_cuttles_original_record() -> None:
    """No `game`, no seat counts: the two-player Cuttle record (SPEC 3.13), as a Cuttle
    host sends it; read the same as one that names its game and seats."""
    assert encode(decode(GOOD, 4000)) == GOOD  # what a Cuttle host sends, unchanged
    plain, named = decode(GOOD, 4000), decode(with_(game=b"cuttle", seats=b"2", taken=b"1"), 4000)
    assert plain == named and (plain.game, plain.seats, plain.taken) == ("cuttle", 2, 1)


def test_an_old_client_rejects_every_table_record() -> None:
    """A client of before tables reads `rules` as a Cuttle rule set and ignores `game`,
    `seats` and `taken` (SPEC 3.13 step 4). Every table's rules token must therefore fail
    Cuttle's rules parser, or an old client would list a table as a two-player game."""
    for seats in UNISSON.seats:
        for token in ("one-deck", "two-decks"):
            try:
                UNISSON.parse_rules(token, seats)
            except ValueError:
                continue  # not a table anyone announces
            with pytest.raises(ValueError, match="unknown rule set"):
                Rules.parse(token)


@pytest.mark.parametrize(
    ("props", "reason"),
    [
        (table(game=b"poker"), "unknown game 'poker'"),
        (table(game=b"Unisson"), "not a lower-case token"),
        (table(game=b"\x1b[2J"), r"'\?\[2J' is not a lower-case token"),
        (table(game=b""), "not a lower-case token"),
        (table(game=None), "missing"),
        (table(game=b"u" * 33), "longer than"),
        (table(game=b"\xff"), "not UTF-8"),
        (table(seats=None), "missing"),
        ({k: v for k, v in TABLE.items() if k != b"seats"}, "'seats' is missing"),
        # Without `game` only Cuttle's original record (no seat counts) is read as Cuttle.
        ({k: v for k, v in TABLE.items() if k != b"game"}, "'game' is missing"),
        (with_(seats=b"2", taken=b"1"), "'game' is missing"),
        (with_(taken=b"2", seat=b"taken"), "'game' is missing"),
        ({k: v for k, v in TABLE.items() if k != b"taken"}, "'taken' is missing"),
        (table(seats=b"7"), "played by 3 to 6 players, not 7"),
        (table(seats=b"2"), "played by 3 to 6 players, not 2"),
        (table(seats=b"0"), "not a number"),
        (table(seats=b"04"), "longer than"),
        (table(seats=b"-4"), "longer than"),
        (table(seats=b"x"), "not a number"),
        (table(taken=b"0"), "not a number"),
        (table(taken=b"5"), "5 of 4 seats taken"),
        (table(taken=b"4"), "4 of 4 seats taken, and seat is free"),
        (table(seat=b"taken"), "2 of 4 seats taken, and seat is taken"),
        (table(rules=b"classic"), "bad rules: L'Unisson's rules are one-deck or two-decks"),
        (table(rules=b"one-deck", seats=b"5", taken=b"1"), "bad rules: .*two decks"),
        (table(rules=b"\x1b]0;x\x07"), "bad rules"),
        (with_(game=b"cuttle", seats=b"3"), "cuttle is played by 2 to 2 players, not 3"),
        (with_(game=b"cuttle", taken=b"2"), "2 of 2 seats taken, and seat is free"),
        (with_(game=b"cuttle", rules=b"one-deck"), "bad rules: unknown rule set"),
    ],
)
def test_malformed_table_records_fail_with_a_record_error(
    props: dict[bytes, bytes | None], reason: str
) -> None:
    with pytest.raises(RecordError, match=reason) as e:
        decode(props, 4454)
    assert "\x1b" not in str(e.value) and "\x07" not in str(e.value)


@pytest.mark.parametrize(("taken", "seats"), [(0, 4), (5, 4)])
def test_a_host_cannot_announce_impossible_seats(taken: int, seats: int) -> None:
    with pytest.raises(RecordError, match="seats taken"):
        Announcement("Ann", 4454, ONE_DECK, taken, game="unisson", seats=seats)


def test_error_messages_never_carry_control_characters() -> None:
    with pytest.raises(RecordError) as e:
        decode(with_(rules=b"classic+\x1b]0;owned\x07"), 4000)
    assert "\x1b" not in str(e.value) and "\x07" not in str(e.value)


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("Al\x1b[31mice", "Al?[31mice"),  # terminal escape
        ("Bob\u202eevil", "Bob?evil"),  # right-to-left override
        ("Carol\u2028Dave", "Carol?Dave"),  # line separator
        ("Eve\x00\x07\t", "Eve???"),
        ("\x9bmallory", "?mallory"),  # C1 control sequence introducer
    ],
)
def test_names_are_made_displayable(raw: str, shown: str) -> None:
    assert decode(with_(name=raw.encode()), 4000).name == shown
    assert display_text(raw) == shown


def test_a_name_of_control_characters_shows_as_question_marks() -> None:
    assert decode(with_(name=b"\x1b"), 4000).name == "?"


@pytest.mark.parametrize("name", ["", " Alice", "Al\nice", "x" * 33, "\x1b[2J"])
def test_a_host_cannot_announce_a_bad_name(name: str) -> None:
    with pytest.raises(RecordError):
        Announcement(name, 4000, Rules())


@pytest.mark.parametrize("port", [0, 65536])
def test_a_host_cannot_announce_a_bad_port(port: int) -> None:
    with pytest.raises(RecordError, match="port"):
        Announcement("Alice", port, Rules())


def test_record_errors_are_value_errors() -> None:
    assert issubclass(RecordError, ValueError)
    assert issubclass(IncompatibleVersion, RecordError)


def test_the_record_module_is_pure() -> None:
    code = (
        "import sys, cuttle_protocol.wire.announcement\n"
        "print(' '.join(sorted(n for n in sys.modules if n.split('.')[0] in "
        "('zeroconf', 'trio', 'socket', 'asyncio'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_a_table_that_takes_watchers_says_so() -> None:
    a = Announcement("Alice", 4454, ONE_DECK, 2, game="unisson", seats=4, watchers=True)
    assert encode(a) == {**TABLE, b"watch": b"yes"}
    assert decode(encode(a), 4454) == a
    assert seats_text(a) == "2 of 4 seats taken, watchers welcome"
    assert not decode(TABLE, 4454).watchers
    with pytest.raises(RecordError, match="watch"):
        decode({**TABLE, b"watch": b"\x1b[2J"}, 4454)


def test_a_cuttle_game_that_takes_watchers_says_so_and_a_full_table_stays_open_to_them() -> None:
    a = Announcement("Alice", 4454, Rules.parse("classic"), 2, watchers=True)
    assert encode(a)[b"watch"] == b"yes" and b"game" not in encode(a)
    assert decode(encode(a), 4454) == a
    assert seats_text(a) == "seat taken, watchers welcome"
    full = Announcement("Alice", 4454, ONE_DECK, 4, game="unisson", seats=4, watchers=True)
    assert decode(encode(full), 4454) == full
    assert seats_text(full) == "4 of 4 seats taken, watchers welcome"
