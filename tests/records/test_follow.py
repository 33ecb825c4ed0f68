"""A game followed live as a third party (a table's watcher, SPEC 3.15 *Watchers*)."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cuttle_net.records.follow import WatchedGame
from cuttle_net.records.verify import Verdict, verify_text
from tests.session.table import Table

WATCHER_KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))


def followed(table: Table) -> tuple[WatchedGame, list]:
    names = tuple(f"P{s}" for s in range(table.seats))
    game = WatchedGame(table.header, names)
    played = []
    for seat, body in table.log:
        played += game.receive(seat, body)
    return game, played


@pytest.mark.parametrize(
    ("game", "rules", "seats", "dealer"),
    [("cuttle", "standard", 2, 1), ("unisson", "one-deck", 4, 2)],
)
def test_a_watched_game_is_checked_and_its_copy_verifies(game, rules, seats, dealer) -> None:
    table = Table(game, rules, seats, dealer=dealer, seed=3)
    table.play()
    watched, played = followed(table)
    assert not watched.problem and watched.over
    session = table.sessions[0]
    module = session.module
    assert played == [(s, module.move_text(m)) for s, m in session.played]
    report = verify_text(watched.record("2026-11-28T00:00:00Z", WATCHER_KEY))
    assert report.verdict is Verdict.VALID, report.problem
    assert "watcher" in report.lines[0]
    assert watched.verdict(WATCHER_KEY).verdict is Verdict.VALID


def test_a_changed_move_is_caught_as_it_arrives() -> None:
    table = Table("unisson", "one-deck", 3, seed=5)
    table.play()
    names = ("a", "b", "c")
    watched = WatchedGame(table.header, names)

    for seat, body in table.log:
        if body["t"] == "move":
            body = {**body, "sig": bytes(64)}
        watched.receive(seat, body)
        if watched.problem:
            break
    assert "signature" in watched.problem
    report = verify_text(watched.record("2026-11-28T00:00:00Z", WATCHER_KEY))
    # Its copy says the game is unfinished, which is all a watcher can vouch for.
    assert report.verdict is Verdict.UNAUDITED, report.problem


@pytest.mark.parametrize("crossed", [1, 2])
def test_a_concession_that_crossed_moves_voids_them_for_the_watcher_too(crossed: int) -> None:
    table = Table("unisson", "one-deck", 3, seed=7)
    table.start()
    conceder = None
    for _ in range(crossed):  # moves the conceder has not read when it concedes
        (mover,) = [s for s in table.sessions if s.my_turn]
        conceder = conceder or table.sessions[(mover.seat + 1) % 3]
        table.post(mover.seat, mover.play(table.bot(mover.view, table.rng)))
        for s in table.sessions:
            if s is not conceder:
                while table.deliver_one(s.seat):
                    pass
    assert conceder is not None
    table.post(conceder.seat, conceder.concede())
    table.pump()
    watched, _ = followed(table)
    assert not watched.problem, watched.problem
    assert watched.public.stop.kind == "conceded"
    session = table.sessions[0]
    assert [r.text for r in watched.moves] == [r.text for r in session.records]
    report = verify_text(watched.record("2026-11-28T00:00:00Z", WATCHER_KEY))
    assert report.verdict is Verdict.UNAUDITED and report.moves == [
        (s, session.module.move_text(m) if m != "concede" else m) for s, m in session.played
    ]
