"""``cuttle replay``: stepping through a verified record, every card face up."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from cuttle_client.replay import Replay, ReplayApp
from cuttle_client.widgets import sentence
from textual.pilot import Pilot

from cuttle_net.games.cuttle.cards import card_display
from cuttle_net.games.cuttle.rules import Rules
from cuttle_net.records.record import build_record
from tests.client.helpers import keys, run, screen_text
from tests.session.link import Link


@pytest.fixture(scope="module")
def record_text() -> str:
    link = Link(Rules.parse("classic"), 4, bots=("greedy", "random"))
    link.play()
    return build_record(link.sessions[1], ("ann", "bob"), "2026-11-21T12:00:00Z")


def test_stepping_forward_back_and_jumping(record_text: str) -> None:
    replay = Replay(record_text)
    app = ReplayApp(replay)
    n = len(replay.log)

    async def body(pilot: Pilot) -> None:
        app = pilot.app
        assert f"move 0 of {n}" in screen_text(app)
        # Both hands of the deal are shown: seat 1's (above) and seat 0's (below).
        first = replay.states[0]
        for card in (*first.hands[0], *first.hands[1]):
            assert card_display(card) in screen_text(app)
        await keys(pilot, "right", "right")
        assert f"move 2 of {n}" in screen_text(app)
        last = sentence(replay.log[1].words, ascii=False)
        assert f"Last: {last}"[:40] in screen_text(app)  # the last move, in words
        await keys(pilot, "left")
        assert f"move 1 of {n}" in screen_text(app)
        await keys(pilot, "end")
        assert f"move {n} of {n}" in screen_text(app)
        # The end names the players, as the table does (issue 26, defect 10: "seat 1 wins").
        o = replay.outcome
        said = "Drawn" if o.winner is None else f"{('ann', 'bob')[o.winner]} wins"
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


def test_an_unaudited_game_is_replayed_as_far_as_it_is_known() -> None:
    root = Path(__file__).resolve().parents[2]
    text = (root / "protocol" / "vectors" / "record" / "example-conceded.cuttle").read_text()
    replay = Replay(text)
    assert not replay.face_up and replay.outcome is not None
    app = ReplayApp(replay)
    n = len(replay.log)
    hidden = replay.states[0].hidden

    async def body(pilot: Pilot) -> None:
        assert f"move 0 of {n}" in screen_text(app)
        assert f"never audited: cards never shown stay hidden (ann: {hidden[0]}" in screen_text(app)
        await keys(pilot, "end")
        assert f"move {n} of {n}" in screen_text(app) and "conceded" in screen_text(app)

    run(app, body, size=(100, 30))


def test_a_tampered_record_is_not_replayed(record_text: str, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="does not verify"):
        Replay(record_text.replace('[Seat0 "ann"]', '[Seat0 "eve"]'))
    with pytest.raises(ValueError, match="not a game record"):
        Replay("hello")
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
