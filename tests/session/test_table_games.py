"""Whole games at tables of N seats in memory, through the game-module interface: Cuttle
(N = 2) and L'Unisson (N = 3…5; 6: see GAMES).  Honest games end alike at every seat with
records that verify and agree; a seat that cheats, stalls or leaves is named alike by every
honest seat, whose records all verify (SPEC 4.4, 5.3)."""

from __future__ import annotations

import copy
from itertools import pairwise

import pytest

from cuttle_net.deck import RevealFromHand
from cuttle_net.deck.encoding import DOMAIN, canon
from cuttle_net.games.cuttle.bots import make_bot
from cuttle_net.games.interface import NOBODY
from cuttle_net.records.positions import positions
from cuttle_net.records.record import build_record, parse_record
from cuttle_net.records.verify import Verdict, verify_text
from cuttle_net.session import Fault, SendDeck, SendMove, message_bodies
from tests import thirdparty as tp

from .table import Table, body

DATE = "2026-11-22T00:00:00Z"
# Six seats (two decks) play whole games through the one driver in memory beside a watcher
# (tests/net/test_table_watch.py) and as processes whose six records each verify
# (tests/net/test_table_headless.py): a third 6-seat game here cost 6 s of CPU.
GAMES = [
    ("cuttle", "classic", 2),
    ("unisson", "one-deck", 3),
    ("unisson", "one-deck", 4),
    ("unisson", "two-decks", 5),
]


def table(game: str, rules: str, seats: int, seed: int = 1) -> Table:
    if game == "cuttle":
        greedy = make_bot("greedy")
        return Table(game, rules, seats, dealer=1, seed=seed, bot=greedy.choose)
    return Table(game, rules, seats, dealer=seed % seats, seed=seed)


def records(t: Table, seats: list[int] | None = None) -> list[str]:
    names = tuple(f"player {s}" for s in range(t.seats))
    return [build_record(t.sessions[s], names, DATE) for s in (seats or range(t.seats))]


def honest(t: Table, culprit: int) -> list[int]:
    return [s for s in range(t.seats) if s != culprit]


def assert_named_alike(t: Table, culprit: int, kind: str, verdict: Verdict) -> None:
    """Every honest seat stopped with the same fault; its record verifies and says so."""
    seats = honest(t, culprit)
    for s in seats:
        fault = t.sessions[s].fault
        assert fault is not None and (fault.kind, fault.culprit) == (kind, culprit), fault
    texts = records(t, seats)
    tags = [parse_record(text).tags for text in texts]
    assert len({(tag["Result"], tag["Ending"].split(":")[0]) for tag in tags}) == 1
    assert tags[0]["Ending"].startswith(f"fault {kind} by seat {culprit}:")
    assert tags[0]["Result"] == ",".join(str(s) for s in seats)
    for text in texts:
        report = verify_text(text)
        assert report.verdict == verdict, report.problem


@pytest.mark.parametrize(("game", "rules", "seats"), GAMES)
def test_an_honest_game_ends_alike_at_every_seat_and_every_record_verifies(
    game: str, rules: str, seats: int
) -> None:
    t = table(game, rules, seats, seed=seats)
    t.play()
    sessions = t.sessions
    assert all(s.fault is None and s.finished and s.audit is not None for s in sessions)
    assert len({s.audit for s in sessions}) == 1
    assert len({s.outcome for s in sessions}) == 1
    assert len({tuple((r.seat, r.text) for r in s.records) for s in sessions}) == 1
    texts = records(t)
    moves = {tuple(parse_record(text).moves) for text in texts}
    assert len(moves) == 1  # the same moves and the same seen notes in every record
    for text in texts:
        report = verify_text(text)
        assert report.verdict == Verdict.VALID, report.problem
        assert report.outcome == sessions[0].outcome
    assert parse_record(texts[0]).tags["Players"] == str(seats)
    # The deck steps a mover owed as its move's operations started went in the move's own
    # entry (SPEC 4.2): never an entry of their own right after it (but what follows the
    # move's operations at once: the final operation, the audit).
    assert any(b["t"] == "move" and "deck" in b for _, b in t.log)
    for (author, entry), (after, then) in pairwise(t.log):
        if entry["t"] == "move" and then["t"] == "deck" and author == after:
            assert then["msg"]["op"][0] in ("expose_hands", "audit"), then["msg"]["op"]


_STARTED: dict[tuple[str, str, int, int], Table] = {}


def started(game: str, rules: str, seats: int, seed: int = 3) -> Table:
    """A dealt table. The deal, most of a fault test's time, is made once per game and
    copied (as test_table_verdicts' `fresh` does)."""
    key = (game, rules, seats, seed)
    if key not in _STARTED:
        _STARTED[key] = table(game, rules, seats, seed)
        _STARTED[key].start()
    return copy.deepcopy(_STARTED[key])


# Faults need a dealt table, the costly part: one table of each game.
FAULT_GAMES = [("cuttle", "classic", 2), ("unisson", "one-deck", 3)]


@pytest.mark.parametrize(("game", "rules", "seats"), FAULT_GAMES)
def test_a_move_out_of_turn_is_named_by_every_seat(game: str, rules: str, seats: int) -> None:
    t = started(game, rules, seats)
    actor = t.sessions[0].to_act
    cheat = (actor + 1) % seats
    # A move that is legal for the seat to act, signed by another seat past its own check.
    move = t.sessions[actor].view.legal_moves()[0]
    record = t.sessions[cheat]._sign(t.sessions[cheat].module.move_text(move))
    t.log.append((cheat, body(SendMove(record.text, record.signature))))
    t.pump()
    assert_named_alike(t, cheat, "illegal_move", Verdict.UNAUDITED)


@pytest.mark.parametrize(("game", "rules", "seats"), FAULT_GAMES)
def test_a_bad_move_signature_is_named_by_every_seat(game: str, rules: str, seats: int) -> None:
    t = started(game, rules, seats)
    actor = t.sessions[0].to_act
    s = t.sessions[actor]
    out = s.play(s.view.legal_moves()[0])
    sent = next(item for item in out.sends if isinstance(item, SendMove))
    forged = SendMove(sent.text, bytes([sent.signature[0] ^ 1]) + sent.signature[1:])
    out.sends[out.sends.index(sent)] = forged
    t.post(actor, out)
    t.pump()
    for seat in honest(t, actor):
        fault = t.sessions[seat].fault
        assert fault is not None and (fault.kind, fault.culprit) == ("bad_move_signature", actor)
    for text in records(t, honest(t, actor)):
        assert verify_text(text).verdict == Verdict.UNAUDITED


@pytest.mark.parametrize(("game", "rules", "seats"), FAULT_GAMES)
def test_a_stalling_seat_is_timed_out_alike(game: str, rules: str, seats: int) -> None:
    t = started(game, rules, seats)
    actor = t.sessions[0].to_act
    for seat in honest(t, actor):
        assert t.sessions[seat].waiting_for == (actor, "move")
        t.post(seat, t.sessions[seat].timed_out())
    assert_named_alike(t, actor, "timeout", Verdict.UNAUDITED)
    # The silent seat's own record, told of its timeout, verifies too and agrees.
    t.post(actor, t.sessions[actor].table_verdict(actor, "timeout", "no move in time"))
    (own,) = records(t, [actor])
    assert verify_text(own).verdict == Verdict.UNAUDITED
    assert parse_record(own).tags["Ending"].startswith(f"fault timeout by seat {actor}:")


def test_a_host_that_stops_relaying_is_named_by_a_joiner_whose_record_verifies() -> None:
    # The joiner cannot tell a seat that owes a move from a host that withholds it: it names
    # the host, seat 0, the relay (SPEC 3.15), though another seat owes the next step.
    t = started("unisson", "one-deck", 4, seed=1)
    actor = t.sessions[0].to_act
    joiner = next(s for s in range(1, 4) if s != actor)
    assert actor != 0, "this deal must leave the next move to a joiner"
    t.post(joiner, t.sessions[joiner].table_verdict(0, "timeout", "the host relayed nothing"))
    (text,) = records(t, [joiner])
    assert parse_record(text).tags["Ending"].startswith("fault timeout by seat 0:")
    report = verify_text(text)
    assert report.verdict == Verdict.UNAUDITED, report.problem
    assert any(
        f"the host's (seat 0) silence as the relay is seat {joiner}'s claim" in line
        for line in report.lines
    )
    # Only the host relays: a joiner that owes nothing cannot be timed out so.
    other = next(s for s in range(1, 4) if s not in (actor, joiner))
    forged = text.replace("fault timeout by seat 0:", f"fault timeout by seat {other}:")
    assert verify_text(forged).verdict == Verdict.INVALID


@pytest.mark.parametrize(
    ("game", "rules", "seats", "stalled"),
    [(*g, s) for g in [*FAULT_GAMES, ("unisson", "one-deck", 4)] for s in (0, g[2] - 1)],
)
def test_a_seat_that_stalls_the_deal_is_named(
    game: str, rules: str, seats: int, stalled: int
) -> None:
    t = table(game, rules, seats)
    t.muted.add(stalled)
    t.start()
    for seat in honest(t, stalled):
        assert t.sessions[seat].waiting_for == (stalled, "deck")
        t.post(seat, t.sessions[seat].timed_out())
    assert_named_alike(t, stalled, "timeout", Verdict.UNAUDITED)


@pytest.mark.parametrize(("game", "rules", "seats"), FAULT_GAMES)
def test_a_seat_that_leaves_is_named_and_forfeits(game: str, rules: str, seats: int) -> None:
    t = started(game, rules, seats)
    leaver = 1
    for seat in honest(t, leaver):
        t.post(seat, t.sessions[seat].table_verdict(leaver, "left", "closed the connection"))
    texts = records(t, honest(t, leaver))
    for text in texts:
        tags = parse_record(text).tags
        assert tags["Ending"] == f'closed by seat {leaver}: left "closed the connection"'
        assert tags["Result"] == ",".join(str(s) for s in honest(t, leaver))
        assert verify_text(text).verdict == Verdict.UNAUDITED


@pytest.mark.parametrize(("game", "rules", "seats"), FAULT_GAMES)
def test_a_deck_cheat_is_proven_and_named_by_every_seat(game: str, rules: str, seats: int) -> None:
    t = started(game, rules, seats)
    actor = t.sessions[0].to_act
    s = t.sessions[actor]
    # A move that shows a card from the hand: its holder proves it with a signed message.
    move = next(
        m
        for m in s.view.legal_moves()
        if any(isinstance(op, RevealFromHand) for op in s.module.deck_ops(s.view, m))
    )
    out = s.play(move)
    i, item = next((i, x) for i, x in enumerate(out.sends) if isinstance(x, SendDeck))
    forged = copy.deepcopy(item.data)
    entry = forged["body"]["reveal"][0]
    entry[-1] = bytes([entry[-1][0] ^ 1]) + entry[-1][1:]  # a wrong proof ...
    del forged["sig"]
    forged["sig"] = t.keys[actor].sign(DOMAIN + b"message\0" + canon(forged))  # ... signed
    out.sends[i] = SendDeck(forged)
    t.post(actor, out)
    t.pump()
    faults = {(t.sessions[x].fault.kind, t.sessions[x].fault.culprit) for x in honest(t, actor)}
    ((kind, culprit),) = faults
    assert culprit == actor
    assert_named_alike(t, actor, kind, Verdict.UNAUDITED)
    for text in records(t, honest(t, actor)):  # the transcript proves it: no claim
        assert not any("claim" in line for line in verify_text(text).lines)


@pytest.mark.parametrize(("game", "rules", "seats"), FAULT_GAMES)
def test_a_concession_ends_the_game_for_everyone(game: str, rules: str, seats: int) -> None:
    t = started(game, rules, seats)
    conceder = seats - 1
    t.post(conceder, t.sessions[conceder].concede())
    t.pump()
    winners = tuple(s for s in range(seats) if s != conceder)
    for s in t.sessions:
        assert s.finished and s.outcome is not None and s.outcome.winners == winners
    for text in records(t):
        tags = parse_record(text).tags
        assert (tags["Ending"], tags["Result"]) == ("concede", ",".join(map(str, winners)))
        assert verify_text(text).verdict == Verdict.UNAUDITED


@pytest.mark.parametrize(("game", "rules", "seats"), FAULT_GAMES)
def test_a_concession_crossing_a_move_voids_it_at_every_seat(
    game: str, rules: str, seats: int
) -> None:
    t = started(game, rules, seats)
    actor = t.sessions[0].to_act
    conceder = (actor + 1) % seats
    s = t.sessions[actor]
    t.post(actor, s.play(s.view.legal_moves()[0]))  # in the log, not yet read by the conceder
    t.post(conceder, t.sessions[conceder].concede())
    t.pump()
    chains = {tuple((r.seat, r.text) for r in x.records) for x in t.sessions}
    assert chains == {((conceder, "concede"),)}  # the crossed move is void everywhere
    for text in records(t):
        assert verify_text(text).verdict == Verdict.UNAUDITED


def test_a_malformed_table_message_is_its_authors_fault() -> None:
    t = started("unisson", "one-deck", 3)
    (fault,) = t.sessions[0].receive(2, {"t": "move", "text": "draw"}).events
    assert isinstance(fault, Fault) and (fault.kind, fault.culprit) == (
        "wire_malformed_message",
        2,
    )


def test_a_seat_that_posts_another_seats_old_deck_message_is_the_culprit() -> None:
    t = table("unisson", "one-deck", 3)
    for s in t.sessions:
        t.post(s.seat, s.start())
    # Seat 2 posts seat 0's first deck message again, as if its own: seat 0 signed it, but
    # seat 2 is the author the table names, so the fault is seat 2's at every seat.
    first = next(item for author, item in t.log if author == 0 and item["t"] == "deck")
    t.log.append((2, first))
    t.pump()
    for seat in (0, 1):
        fault = t.sessions[seat].fault
        assert fault is not None and fault.culprit == 2, fault


@pytest.mark.parametrize(("game", "rules", "seats"), FAULT_GAMES)
def test_each_seat_replays_its_views_around_every_move(game: str, rules: str, seats: int) -> None:
    """`views` (a seat rebuilt from its journal logs from them): each seat's views before
    and after each move are the audited record's positions as that seat saw them."""
    t = table(game, rules, seats, seed=seats)
    t.play()
    for s, text in zip(t.sessions, records(t), strict=True):
        whole, text_of = positions(text), s.module.position_text
        views = s.views()
        assert [(seat, m) for seat, m, _, _ in views] == s.played and len(views) > 4
        for k, (_, _, before, after) in enumerate(views):
            assert text_of(before) == text_of(whole.view(k, s.seat))
            assert text_of(after) == text_of(whole.view(k + 1, s.seat))


@pytest.mark.parametrize(("game", "rules", "seats"), FAULT_GAMES)
def test_a_concession_is_replayed_among_the_views(game: str, rules: str, seats: int) -> None:
    t = started(game, rules, seats)
    actor = t.sessions[0].to_act
    s = t.sessions[actor]
    t.post(actor, s.play(s.view.legal_moves()[0]))
    t.pump()
    t.post(actor, t.sessions[actor].concede())
    t.pump()
    for x in t.sessions:
        views = x.views()
        assert [(seat, m) for seat, m, _, _ in views] == x.played
        assert views[-1][0] == actor and x.module.to_act(views[-1][2]) != NOBODY
        text_of = x.module.position_text  # each move's view before is the last one's after
        assert all(text_of(a[3]) == text_of(b[2]) for a, b in pairwise(views))


def reveal_move(t: Table) -> tuple[int, dict]:
    """The seat to act plays a card from its hand: the body of its move, which carries the
    deck message that shows the card (its own step, owed at once)."""
    actor = t.sessions[0].to_act
    s = t.sessions[actor]
    move = next(
        m
        for m in s.view.legal_moves()
        if any(isinstance(op, RevealFromHand) for op in s.module.deck_ops(s.view, m))
    )
    (entry,) = message_bodies(s.play(move).sends)
    assert entry["t"] == "move" and len(entry["deck"]) >= 1
    return actor, entry


@pytest.mark.parametrize(("game", "rules", "seats"), FAULT_GAMES)
def test_another_seats_deck_message_in_a_move_entry_is_the_movers_fault(
    game: str, rules: str, seats: int
) -> None:
    t = started(game, rules, seats)
    actor, entry = reveal_move(t)
    # A deck message another seat signed (its first of the deal), carried as if the mover's.
    other = next(m for a, b in t.log if a != actor and b["t"] == "deck" for m in [b["msg"]])
    t.log.append((actor, {**entry, "deck": [other, *entry["deck"][1:]]}))
    t.pump()
    faults = {(t.sessions[x].fault.kind, t.sessions[x].fault.culprit) for x in honest(t, actor)}
    # The deck checked the message it carried, and charged its author, the mover.
    assert faults == {("bad_signature", actor)}
    assert_named_alike(t, actor, "bad_signature", Verdict.UNAUDITED)


@pytest.mark.parametrize(
    "carried",
    [[], "not a list", [b"not a map"], None],
    ids=["empty", "not-a-list", "not-maps", "on-a-concession"],
)
def test_a_move_entry_whose_deck_field_is_malformed_is_its_authors_fault(carried) -> None:
    t = started("unisson", "one-deck", 3)
    actor, entry = reveal_move(t)
    if carried is None:  # a concession starts no operation: it carries nothing
        conceded = message_bodies(t.sessions[actor].concede().sends)[0]
        entry = {**conceded, "deck": entry["deck"]}
    else:
        entry = {**entry, "deck": carried}
    t.log.append((actor, entry))
    t.pump()
    assert_named_alike(t, actor, "wire_malformed_message", Verdict.UNAUDITED)


@pytest.mark.parametrize(("game", "rules", "seats"), FAULT_GAMES)
def test_a_third_party_checks_the_logs_move_entries_from_the_spec_alone(
    game: str, rules: str, seats: int
) -> None:
    """SPEC 4.2 read by a third party (tests/thirdparty.py, no code of the product): a move
    entry's `deck` messages are its author's signed messages (2.7), chained as if each were
    an entry of its own right after the move, and the move signs the deck chain's head from
    before them."""
    t = table(game, rules, seats, seed=seats)
    t.play()
    sid, keys = t.header.session_id, t.header.keys
    chain, prev, n, carried = tp.Chain(sid), tp.h256("moves", sid), 0, 0
    for author, entry in t.log:
        if entry["t"] == "move":
            head = bytes(32) if entry["text"] == "concede" else chain.complete_head()
            digest = tp.move_digest(sid, n, prev, head, author, entry["text"])
            assert tp.verify_ed25519(keys[author], entry["sig"], digest)
            prev, n = digest, n + 1
            messages = entry.get("deck", [])
            carried += len(messages)
        else:
            messages = [entry["msg"]]
        for message in messages:
            assert message["from"] == author
            assert tp.verify_ed25519(keys[author], message["sig"], tp.message_signed_bytes(message))
            chain.add(message)
    assert carried > 0 and n == len(t.sessions[0].records)
