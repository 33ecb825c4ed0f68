"""The verdict rule at a table of three (SPEC 3.15, 4.4), in memory: every way a game ends,
with the culprit (or the accused) at every seat, leaves every honest seat's record verifying
(exit 0 or 3, never 1); a seat's bare word convicts nobody but costs its author, as a
two-player claim does; a table's own fault kinds never read as the deck's."""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest

from cuttle_net.deck import CHEAT_KINDS
from cuttle_net.records.ending import TABLE_PREFIX, WIRE_PREFIX, table_fault_kind
from cuttle_net.records.record import build_record, parse_record
from cuttle_net.records.verify import Verdict, verify_text
from cuttle_net.session import SendMove

from .table import Table, body

DATE = "2026-11-22T00:00:00Z"
SEATS = 3
HONEST = (Verdict.VALID, Verdict.UNAUDITED)


@pytest.fixture(scope="module")
def dealt() -> Table:
    t = Table("unisson", "one-deck", SEATS, dealer=1, seed=3)
    t.start()
    return t


def fresh(dealt: Table) -> Table:
    return copy.deepcopy(dealt)


def record(t: Table, seat: int) -> tuple[dict[str, str], Verdict, str]:
    names = tuple(f"player {s}" for s in range(t.seats))
    text = build_record(t.sessions[seat], names, DATE)
    report = verify_text(text)
    return parse_record(text).tags, report.verdict, report.problem


def until_to_act(t: Table, seat: int) -> None:
    """Let the bots play until `seat` is to decide."""
    for _ in range(200):
        if t.sessions[0].to_act == seat:
            return
        s = next(s for s in t.sessions if s.my_turn)
        t.post(s.seat, s.play(t.bot(s.view, t.rng)))
        t.pump()
    raise AssertionError(f"seat {seat} never came to act")


def told(
    t: Table,
    finder: int,
    culprit: int,
    kind: str,
    detail: str = "what it saw",
    *,
    proven: bool = False,
    overdue: bool = True,
    skip: tuple[int, ...] = (),
) -> None:
    """The table's verdict reaches every seat: `finder`'s own finding, every other seat's
    from its entry, each judged there by the verdict rule."""
    for s in range(t.seats):
        if s in skip:
            continue
        reporter = None if s == finder else finder
        out = t.sessions[s].table_verdict(
            culprit, kind, detail, reporter=reporter, proven=proven, overdue=overdue
        )
        t.post(s, out)


def out_of_turn(t: Table, cheat: int) -> None:
    """`cheat` signs a move of the seat to act and sends it: every seat finds it."""
    until_to_act(t, (cheat + 1) % SEATS)
    actor = t.sessions[0].to_act
    move = t.sessions[actor].view.legal_moves()[0]
    s = t.sessions[cheat]
    signed = s._sign(s.module.move_text(move))
    t.log.append((cheat, body(SendMove(signed.text, signed.signature))))
    t.pump()


def replayed_deck_message(t: Table, cheat: int) -> None:
    """`cheat` posts another seat's deck message as its own: a deck cheat every seat finds."""
    other = next(author for author, item in t.log if author != cheat and item["t"] == "deck")
    until_to_act(t, cheat)
    s = t.sessions[cheat]
    t.post(cheat, s.play(t.bot(s.view, t.rng)))
    first = next(item for author, item in t.log if author == other and item["t"] == "deck")
    t.log.append((cheat, first))
    t.pump()


def stalls(t: Table, culprit: int) -> None:
    """`culprit` owes a move and says nothing: the host names it (a joiner, for the host)."""
    until_to_act(t, culprit)
    finder = 1 if culprit == 0 else 0
    told(t, finder, culprit, "timeout", "no move in 600 s")


def breaks_down(t: Table, culprit: int) -> None:
    """`culprit`'s own program fails: it names itself, and the others hear its word."""
    t.post(culprit, t.sessions[culprit].broke_down("a bug"))
    told(t, culprit, culprit, "internal_error", "a bug", skip=(culprit,))


def host_refuses_a_post(t: Table, culprit: int) -> None:
    """The host caught a post its author's signature does not fit (a replay): not a signed
    entry anyone else could check, so the host drops the connection, and says so."""
    if culprit == 0:
        pytest.skip("the host relays its own posts")
    why = "the host closed its connection: a post its signature does not fit"
    told(t, 0, culprit, "left", why, skip=(culprit,))


def bad_entry(t: Table, culprit: int) -> None:
    """`culprit` signed an entry the table does not allow: relayed, every seat finds it."""
    for s in range(SEATS):
        if s != culprit:
            t.post(s, t.sessions[s].table_verdict(culprit, "bad-entry", "commit: not expected"))


def relay_fault(kind: str, proven: bool) -> Callable[[Table, int], None]:
    def act(t: Table, culprit: int) -> None:
        if culprit != 0:
            pytest.skip("only the host relays")
        for s in (1, 2):  # every joiner finds it from the log the host sent it
            told(t, s, 0, kind, "what it saw", proven=proven, skip=(0, 3 - s))
        t.post(0, t.sessions[0].table_verdict(0, kind, "x", reporter=1, proven=proven))

    return act


def leaves(t: Table, culprit: int) -> None:
    told(t, culprit, culprit, "left", "bored", skip=(culprit,))


def goes_away(t: Table, culprit: int) -> None:
    """`culprit`'s connection is lost and not back: the host says so (a joiner, for it)."""
    if culprit == 0:  # nothing relays a word: each joiner finds it on its own
        for s in (1, 2):
            t.post(s, t.sessions[s].table_verdict(0, "left", "the host went"))
        return
    told(t, 0, culprit, "left", "connection lost and not back within 60 s", skip=(culprit,))


def bad_move_signature(t: Table, culprit: int) -> None:
    """`culprit`'s move, its signature broken: every seat finds it."""
    until_to_act(t, culprit)
    s = t.sessions[culprit]
    out = s.play(s.view.legal_moves()[0])
    i, sent = next((i, x) for i, x in enumerate(out.sends) if isinstance(x, SendMove))
    out.sends[i] = SendMove(sent.text, bytes([sent.signature[0] ^ 1]) + sent.signature[1:])
    t.post(culprit, out)
    t.pump()


def wire_fault(t: Table, culprit: int) -> set[int] | None:
    """`culprit`'s connection breaks the wire protocol: the host ends a joiner's connection
    and says that it left; a joiner's link to the host is its own finding, which the other
    joiner cannot check (its word: the host loses at the finder's seat only)."""
    if culprit != 0:
        told(t, 0, culprit, "left", "wire_decrypt_failed: a replayed frame", skip=(culprit,))
        return None
    told(t, 1, 0, "wire_decrypt_failed", "a replayed frame")
    return {1}


def quits_the_audit(t: Table, culprit: int) -> None:
    """The game ends by the rules; `culprit` sends nothing more once it sees the end (the
    last hands shown, or the audit) and is timed out."""
    post = t.post

    def muted_once_over(seat: int, out) -> None:
        if t.sessions[culprit]._over is not None:
            t.muted.add(culprit)
        post(seat, out)

    t.post = muted_once_over  # type: ignore[method-assign]
    t.play_on()
    assert all(s.audit is None for s in t.sessions)
    for s in range(SEATS):
        if s != culprit:
            assert t.sessions[s].owes == culprit
    told(t, 1 if culprit == 0 else 0, culprit, "timeout", "no audit message in 20 s")
    assert all(t.sessions[s].fault is not None for s in range(SEATS) if s != culprit)


def concedes(t: Table, culprit: int) -> None:
    t.post(culprit, t.sessions[culprit].concede())
    t.pump()


# How each way of ending treats `culprit`: "cheat" (its record is not ours to check) or
# "forfeit" (its record verifies too). Each loses at every other seat, unless its way of
# ending says at which seats.
ENDINGS: dict[str, tuple[Callable[[Table, int], set[int] | None], str]] = {
    "concede": (concedes, "forfeit"),
    "timeout": (stalls, "forfeit"),
    "illegal_move": (out_of_turn, "cheat"),
    "deck_cheat": (replayed_deck_message, "cheat"),
    "bad_move_signature": (bad_move_signature, "cheat"),
    "wire_fault": (wire_fault, "cheat"),
    "audit_timeout": (quits_the_audit, "forfeit"),
    "internal_error": (breaks_down, "forfeit"),
    "left": (leaves, "forfeit"),
    "lost": (goes_away, "forfeit"),
    "host_refuses_a_post": (host_refuses_a_post, "cheat"),
    "table_bad_entry": (bad_entry, "cheat"),
    "table_bad_relay": (relay_fault("bad-relay", False), "cheat"),
    "table_equivocation": (relay_fault("equivocation", True), "cheat"),
}


@pytest.mark.parametrize("culprit", range(SEATS))
@pytest.mark.parametrize("ending", sorted(ENDINGS))
def test_every_ending_at_every_seat_leaves_every_honest_record_verifying(
    dealt: Table, ending: str, culprit: int
) -> None:
    t = fresh(dealt)
    act, how = ENDINGS[ending]
    losing = act(t, culprit) or set(range(SEATS)) - {culprit}  # where the culprit loses
    checked = [s for s in range(SEATS) if not (how == "cheat" and s == culprit)]
    for s in checked:
        tags, verdict, problem = record(t, s)
        assert verdict in HONEST, (s, tags["Ending"], problem)
        if s in losing:
            assert str(culprit) not in tags["Result"].split(","), (s, tags["Ending"])


def test_a_game_by_the_rules_verifies_at_every_seat(dealt: Table) -> None:
    t = fresh(dealt)
    t.play_on()
    assert {record(t, s)[1] for s in range(SEATS)} == {Verdict.VALID}


ACCUSATIONS = [
    "illegal_move",
    "bad_move_signature",
    "bad_signature",  # a deck cheat kind
    "equivocation",  # without a proof
    "left",
    "timeout",  # the accused owes nothing here
]


@pytest.mark.parametrize("kind", ACCUSATIONS)
@pytest.mark.parametrize(("accuser", "accused"), [(2, 1), (2, 0), (1, 2), (0, 2)])
def test_a_bare_accusation_convicts_nobody_and_costs_its_author(
    dealt: Table, kind: str, accuser: int, accused: int
) -> None:
    if (accuser, kind) == (0, "left"):
        pytest.skip("the host's word that a seat's connection went is how a seat leaves")
    t = fresh(dealt)
    until_to_act(t, 3 - accuser - accused)  # the third seat owes the next step
    others = [s for s in range(SEATS) if s != accuser]
    for s in others:
        t.post(s, t.sessions[s].table_verdict(accused, kind, "it cheated", reporter=accuser))
    for s in others:
        tags, verdict, problem = record(t, s)
        assert verdict == Verdict.UNAUDITED, (s, problem)
        said = f'fault "{kind} by seat {accused}: it cheated"'
        assert tags["Ending"] == f"closed by seat {accuser}: {said}"
        assert tags["Result"] == ",".join(str(x) for x in others)


def test_a_timeout_convicts_only_the_seat_that_owes_past_its_deadline(dealt: Table) -> None:
    t = fresh(dealt)
    until_to_act(t, 2)
    early = copy.deepcopy(t)
    # Too soon on this seat's clock: the reporter's word, not a verdict.
    soon = early.sessions[1].table_verdict(2, "timeout", "no move", reporter=0, overdue=False)
    early.post(1, soon)
    assert early.sessions[1].closed is not None and early.sessions[1].closed.seat == 0
    # Due and past its deadline: convicted, at the accused's seat too.
    for s in (1, 2):
        t.post(s, t.sessions[s].table_verdict(2, "timeout", "no move", reporter=0))
        assert t.sessions[s].fault is not None and t.sessions[s].fault.culprit == 2
        assert record(t, s)[1] == Verdict.UNAUDITED


def test_a_table_kind_never_reads_as_a_deck_cheat() -> None:
    for kind in ("bad-signature", "equivocation", "bad-relay", "bad-entry", "bad-reveal"):
        assert table_fault_kind(kind).startswith(TABLE_PREFIX)
        assert table_fault_kind(kind) not in CHEAT_KINDS
    assert table_fault_kind("timeout") == "timeout"
    assert table_fault_kind("wire_decrypt_failed") == "wire_decrypt_failed"
    assert not any(k.startswith((TABLE_PREFIX, WIRE_PREFIX)) for k in CHEAT_KINDS)


def test_a_timeout_may_name_any_seat_that_owes_a_message_of_the_round(dealt: Table) -> None:
    # Seats 1 and 2 both go silent once the game is over: seat 0 waits for both in one round
    # (SPEC 2.7), the lowest is the one it would name itself, yet the host's word that seat 2
    # timed out is a verdict (seat 2 owes), and every honest record still verifies.
    t = fresh(dealt)
    post = t.post

    def muted_once_over(seat: int, out) -> None:
        if t.sessions[1]._over is not None:
            t.muted.update({1, 2})
        post(seat, out)

    t.post = muted_once_over  # type: ignore[method-assign]
    t.play_on()
    assert t.sessions[0].owing == [1, 2] and t.sessions[0].owes == 1
    assert t.sessions[1].owing == [2]
    told(t, 0, 2, "timeout", "no message in 20 s", skip=(2,))
    for s in (0, 1):
        fault = t.sessions[s].fault
        assert fault is not None and (fault.kind, fault.culprit) == ("timeout", 2)
        assert record(t, s)[1] in HONEST, record(t, s)
