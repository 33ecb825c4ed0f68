"""``cuttle replay``: stepping through a verified record of either game, every card face up
or as one seat saw it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from cuttle_client.replay import ReplayApp, load
from cuttle_client.tablewidgets import sentence
from textual.pilot import Pilot

from cuttle_net.games.cuttle.cards import card_display
from cuttle_net.games.cuttle.rules import Rules
from cuttle_net.games.unisson.cards import face_display
from cuttle_net.records.record import build_record
from tests.client.helpers import keys, run, screen_text
from tests.session.link import Link


@pytest.fixture(scope="module")
def record_text() -> str:
    link = Link(Rules.parse("classic"), 4, bots=("greedy", "random"))
    link.play()
    return build_record(link.sessions[1], ("ann", "bob"), "2026-11-21T12:00:00Z")


def test_stepping_forward_back_and_jumping(record_text: str) -> None:
    replay = load(record_text)
    app = ReplayApp(replay)
    n = len(replay)

    async def body(pilot: Pilot) -> None:
        app = pilot.app
        assert f"move 0 of {n}" in screen_text(app)
        # Both hands of the deal are shown: seat 1's (above) and seat 0's (below).
        first = replay.states[0]
        for card in (*first.hands[0], *first.hands[1]):
            assert card_display(card) in screen_text(app)
        await keys(pilot, "right", "right")
        assert f"move 2 of {n}" in screen_text(app)
        last = sentence(app.screen._logs[None][1][0].words, ascii=False)
        assert f"Last: {last}"[:40] in screen_text(app)  # the last move, in words
        await keys(pilot, "left")
        assert f"move 1 of {n}" in screen_text(app)
        await keys(pilot, "end")
        assert f"move {n} of {n}" in screen_text(app)
        # The end names the players, as the table does (issue 26, defect 10: "seat 1 wins").
        o = replay.outcome
        said = f"{('ann', 'bob')[o.winners[0]]} wins" if o.winners else "Drawn"
        assert said in screen_text(app) and "seat " not in screen_text(app)
        before = screen_text(app)
        await keys(pilot, "g")
        # The board stays while the move number is typed (it was blanked).
        assert "go to move number" in screen_text(app)
        for line in before.splitlines()[1:8]:
            assert line[:50] in screen_text(app)
        await keys(pilot, "3", "enter")
        assert f"move 3 of {n}" in screen_text(app)
        await keys(pilot, "home")
        assert f"move 0 of {n}" in screen_text(app)

    run(app, body, size=(100, 30))
    run(ReplayApp(replay), body)  # 80×24 too


def test_a_title_too_long_for_its_line_ends_in_an_ellipsis() -> None:
    """The title line is one row: a long one wrapped at a word and lost the rest, leaving
    "… · one-deck ·" with the date gone and nothing to say it was cut."""
    link = Link(Rules.parse("classic"), 4, bots=("greedy", "random"))
    link.play()
    names = ("Annabelle Marchetti", "Bartholomew Okonkwo")
    app = ReplayApp(load(build_record(link.sessions[1], names, "2026-11-21T12:00:00Z")))

    async def body(pilot: Pilot) -> None:
        title = screen_text(pilot.app).splitlines()[0].rstrip()
        assert title.startswith(" replay · Cuttle · Annabelle Marchetti vs Bartholomew")
        assert title.endswith("…")

    run(app, body)


def test_an_unaudited_game_is_replayed_as_far_as_it_is_known() -> None:
    root = Path(__file__).resolve().parents[2]
    text = (root / "protocol" / "vectors" / "record" / "example-conceded.cuttle").read_text()
    replay = load(text)
    assert not replay.full and replay.ending == "concede"
    app = ReplayApp(replay)
    n = len(replay)

    async def body(pilot: Pilot) -> None:
        assert f"move 0 of {n}" in screen_text(app)
        assert "never audited: the cards never shown stay hidden" in screen_text(app)
        assert "▒▒ ▒▒ ▒▒ ▒▒ ▒▒" in screen_text(app)  # ann's hand and bob's, face down
        await keys(pilot, "s")  # no seat's view to pick: nothing more is known
        assert "never audited" in screen_text(app)
        await keys(pilot, "end")
        assert f"move {n} of {n}" in screen_text(app) and "conceded" in screen_text(app)

    run(app, body, size=(100, 30))


def test_a_tampered_record_is_not_replayed(record_text: str, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="does not verify"):
        load(record_text.replace('[Seat0 "ann"]', '[Seat0 "eve"]'))
    with pytest.raises(ValueError, match="not a game record"):
        load("hello")
    bad = tmp_path / "bad.cuttle"
    bad.write_text(record_text.replace("2. ", "2.  ", 1))
    r = subprocess.run(
        [sys.executable, "-m", "cuttle_client", "replay", str(bad)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (
        r.returncode == 1 and r.stderr.startswith("cuttle replay:") and "Traceback" not in r.stderr
    )


def test_each_seat_sees_its_own_hand_and_only_what_it_was_shown(record_text: str) -> None:
    replay = load(record_text)
    app = ReplayApp(replay)
    first = replay.states[0]

    async def body(pilot: Pilot) -> None:
        assert "every card face up" in screen_text(app)
        await keys(pilot, "s")  # ann's chair: her hand, bob's face down
        shown = screen_text(app)
        assert "as ann saw it" in shown and "▒▒" in shown
        assert all(card_display(c) in shown for c in first.hands[0])
        assert not any(card_display(c) in shown for c in first.hands[1])
        # Her side is "You", as at her table and as the moves say ("You play…"): it read
        # "ann" beside a log that said "You".
        assert "╭─ You ─" in shown and "╭─ bob ─" in shown and "╭─ ann ─" not in shown
        await keys(pilot, "home", "s")  # bob's chair: the other way round
        shown = screen_text(app)
        assert "as bob saw it" in shown
        assert "╭─ You ─" in shown and "╭─ ann ─" in shown and "╭─ bob ─" not in shown
        assert all(card_display(c) in shown for c in first.hands[1])
        assert not any(card_display(c) in shown for c in first.hands[0])
        await keys(pilot, "s")
        assert "every card face up" in screen_text(app)

    run(app, body)


def test_a_lunisson_game_is_replayed_on_its_table_not_as_positions() -> None:
    """Issue 26, defect 3: L'Unisson's replay printed engine positions."""
    root = Path(__file__).resolve().parents[2]
    text = (root / "protocol" / "vectors" / "record" / "example-unisson.cuttle").read_text()
    replay = load(text)
    app = ReplayApp(replay)
    n = len(replay)
    deal = replay.states[0]

    async def body(pilot: Pilot) -> None:
        shown = screen_text(app)
        assert f"move 0 of {n}" in shown and "L'Unisson" in shown
        assert "unisson 3" not in shown and "seat " not in shown  # no position text
        for s, name in enumerate(("ann", "bob", "cleo")):  # every hand, face up, named
            line = next(x for x in shown.splitlines()[1:] if f" {name} " in x)
            assert all(face_display(f) in line for f in deal.hand(s)), (line, deal.hand(s))
        assert "Range " in shown
        await keys(pilot, "right", "right")
        assert f"move 2 of {n}" in screen_text(app) and "ann takes" in screen_text(app)
        await keys(pilot, "s", "s")  # bob's chair: his hand below, the others' sizes
        shown = screen_text(app)
        assert "as bob saw it" in shown and "Your turn" in shown and "Hand 1:9♣" in shown
        # His line is "You", as the moves name him ("You take…"): it read "bob".
        rows = [row.split() for row in shown.splitlines()[1:4]]
        names = sorted(r[1] if r[0] == "▶" else r[0] for r in rows)
        assert names == ["You", "ann", "cleo"]
        await keys(pilot, "g")
        await keys(pilot, "1", "0", "enter")
        assert f"move 10 of {n}" in screen_text(app)
        await keys(pilot, "end")
        shown = screen_text(app)
        assert f"move {n} of {n} · ann wins" in shown

    run(app, body)


def test_an_unaudited_lunisson_game_is_replayed_as_a_third_party_saw_it() -> None:
    from tests.session.table import Table

    t = Table("unisson", "one-deck", 3, dealer=1, seed=3)
    t.start()
    played = 0
    while played < 8 or t.sessions[0].to_act != 2:  # some moves, then seat 2 is silent
        s = next(s for s in t.sessions if s.my_turn)
        t.post(s.seat, s.play(t.bot(s.view, t.rng)))
        t.pump()
        played += 1
    for s in (1, 2):  # the host reports the timeout (SPEC 3.15)
        t.post(s, t.sessions[s].table_verdict(2, "timeout", "no move", reporter=0))
    text = build_record(t.sessions[1], ("ann", "bob", "cleo"), "2026-11-22T00:00:00Z")
    replay = load(text)
    assert not replay.full and len(replay) == played
    app = ReplayApp(replay)

    async def body(pilot: Pilot) -> None:
        shown = screen_text(app)
        assert "never audited" in shown and " 4 cards" in shown  # hands as counts, not faces
        await keys(pilot, "end")
        shown = screen_text(app)
        assert f"move {played} of {played} · cleo forfeits (timeout: no move)" in shown
        assert "Moves" in shown and "ann " in shown

    run(app, body)
