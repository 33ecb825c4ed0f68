"""The table of endings (SPEC.md 4.4), row by row, over real processes: a real ``cuttle host
--bot`` against a scripted joiner (``hostile.py``) that ends the game one way or another.
Each row checks the host's exit status and result line, both records' ``Result`` and
``Ending``, and ``cuttle verify`` on them."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
import trio
from cuttle_client.cli import main as cuttle

from cuttle_net.records.record import parse_record

from . import hostile
from .test_host_join import finish, join, result_lines, start_host

pytestmark = pytest.mark.slow
FLAGS = ("--bot", "greedy", "--move-timeout", "2", "--reply-timeout", "4")


def verify(path: Path) -> int:
    """``cuttle verify PATH``'s exit status (run in this process: the same code path)."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return cuttle(["verify", str(path)])


def tags(path: Path) -> dict[str, str]:
    return parse_record(path.read_text()).tags


def moves(path: Path) -> list[str]:
    return [f"{seat} {text}" for seat, text, _ in parse_record(path.read_text()).moves]


class Row:
    """One game: the host process's side and the scripted joiner's."""

    def __init__(self, tmp: Path, mode: str, *flags: str) -> None:
        host, port = start_host(tmp, *FLAGS, "--reconnect-window", "1", *flags)
        try:
            self.seen = trio.run(hostile.run, port, mode, tmp / "m")
        finally:
            self.exit, out, err = finish(host)
        assert "Traceback" not in err, err
        (self.line,) = result_lines(out)
        (self.record,) = (tmp / "a" / "games").glob("*.cuttle")
        self.tags = tags(self.record)
        self.seat = 1 - self.seen["seat"]  # the host's seat
        self.mallory = self.seen["seat"]

    def forfeit(self, kind: str, verified: int = 3) -> None:
        """The scripted joiner broke the game as ``kind``: it forfeits, the host wins."""
        assert self.exit == 1
        assert self.tags["Result"] == str(self.seat)
        assert self.tags["Ending"].startswith(f"fault {kind} by seat {self.mallory}: ")
        assert f"mallory (seat {self.mallory}) forfeits, {kind}: " in self.line
        assert self.line.startswith("result: game 1:") and "alice wins: " in self.line
        assert verify(self.record) == verified  # 3: unaudited, the unseen cards unproven


def test_two_honest_processes_end_by_the_rules(tmp_path: Path) -> None:
    host, port = start_host(tmp_path, "--bot", "greedy")
    joined = join(tmp_path, port, "--bot", "random")
    code, out, _ = finish(host)
    assert code == joined.returncode == 0
    assert result_lines(out) == result_lines(joined.stdout)
    records = [next((tmp_path / s / "games").glob("*.cuttle")) for s in "ab"]
    a, b = (tags(r) for r in records)
    assert a["Ending"] == b["Ending"] in ("goal", "passes", "agreed")
    assert a["Result"] == b["Result"] and a["Audit"] == b["Audit"] != "none"
    assert moves(records[0]) == moves(records[1])
    assert [verify(r) for r in records] == [0, 0]
    assert result_lines(out)[0].endswith("; audit passed")


def test_an_agreed_draw_is_audited_and_both_records_agree(tmp_path: Path) -> None:
    # The scripted joiner offers a draw at each of its turns and otherwise only draws; the
    # host's random bot accepts an offer half the time, so now and then it refuses until it
    # reaches its goal (52 games in 2,000 played in-process: two refusals can be enough).
    # Such a game is an ordinary win, checked as one; then another is played (up to three).
    for attempt in range(3):
        row = Row(tmp_path / f"game{attempt}", "offer-draw", "--bot", "random")
        if row.tags["Ending"] != "goal":
            break
        assert row.exit == 0 and verify(row.record) == 0, row.line
    ours = row.seen["record"]
    assert row.exit == 0, (row.line, row.tags)
    for path in (row.record, ours):
        t = tags(path)
        assert (t["Result"], t["Ending"]) == ("draw", "agreed") and t["Audit"] != "none"
        assert verify(path) == 0
    assert moves(row.record) == moves(ours)
    assert "drawn (agreed); audit passed" in row.line


@pytest.mark.parametrize("mode", ["concede-deal", "concede", "concede-crossing"])
def test_a_concession_at_any_moment(tmp_path: Path, mode: str) -> None:
    row = Row(tmp_path, mode)
    assert row.exit == 1
    ours = row.seen["record"]
    for path in (row.record, ours):
        t = tags(path)
        assert (t["Result"], t["Ending"], t["Audit"]) == (str(row.seat), "concede", "none")
        assert verify(path) == 3
    assert moves(row.record) == moves(ours)  # a crossed move is void on both sides
    assert moves(ours)[-1] == f"{row.mallory} concede"
    assert f"alice wins: mallory (seat {row.mallory}) conceded; not audited" in row.line


def test_silence_is_a_timeout_and_both_records_say_so(tmp_path: Path) -> None:
    row = Row(tmp_path, "silent")
    row.forfeit("timeout")
    assert "no move in time" in row.tags["Ending"]
    ours = tags(row.seen["record"])  # told, and it did owe the move: the same verdict
    assert ours["Result"] == row.tags["Result"]
    assert ours["Ending"].startswith(f"fault timeout by seat {row.mallory}: ")


@pytest.mark.parametrize("mode", ["vanish", "vanish-deal"])
def test_walking_away_is_a_forfeit(tmp_path: Path, mode: str) -> None:
    row = Row(tmp_path, mode)
    row.forfeit("timeout")
    assert "did not come back" in row.tags["Ending"] or "nobody connected" in row.tags["Ending"]


@pytest.mark.parametrize(
    ("mode", "kind"),
    [
        ("bad-frame", "wire_malformed_frame"),
        ("plaintext", "wire_decrypt_failed"),
        ("bit-flip", "wire_decrypt_failed"),
        ("replay", "wire_decrypt_failed"),
        ("reorder", "wire_decrypt_failed"),
        ("unknown", "wire_unknown_message"),
        ("hello-again", "wire_unexpected_message"),
        ("rematch", "wire_unexpected_message"),
    ],
)
def test_a_wire_fault_is_the_senders(tmp_path: Path, mode: str, kind: str) -> None:
    Row(tmp_path, mode).forfeit(kind)


def test_a_deck_fault_is_the_cheaters(tmp_path: Path) -> None:
    # The broken message is in the transcript; being unsigned, it is the host's claim.
    Row(tmp_path, "deck-signature").forfeit("bad_signature")


@pytest.mark.parametrize(
    ("mode", "kind"),
    [
        ("illegal", "illegal_move"),
        ("move-in-deal", "illegal_move"),
        ("out-of-turn", "illegal_move"),
        ("malformed-move", "malformed_move"),
        ("bad-move-signature", "bad_move_signature"),
    ],
)
def test_a_rules_fault_is_the_movers(tmp_path: Path, mode: str, kind: str) -> None:
    row = Row(tmp_path, mode)
    row.forfeit(kind)
    assert row.seen["ended"].code == ("cheat-detected" if "signature" in mode else "illegal-move")


@pytest.mark.parametrize(
    ("mode", "code", "said"), [("quit", "peer-quit", ""), ("claim", "cheat-detected", "bad_")]
)
def test_leaving_mid_game_is_a_forfeit_and_the_words_are_a_claim(
    tmp_path: Path, mode: str, code: str, said: str
) -> None:
    row = Row(tmp_path, mode)
    assert row.exit == 1 and row.tags["Result"] == str(row.seat)
    ending = row.tags["Ending"]
    assert ending.startswith(f'closed by seat {row.mallory}: {code} "{said}')
    assert "\x1b" not in ending and "\x07" not in ending and len(ending) < 260
    assert f"mallory (seat {row.mallory}) left, closing with {code}" in row.line
    assert verify(row.record) == 3


@pytest.mark.parametrize("mode", ["audit-silent", "audit-vanish", "audit-quit"])
def test_leaving_during_the_audit_forfeits(tmp_path: Path, mode: str) -> None:
    row = Row(tmp_path, mode)
    assert row.exit == 1 and row.tags["Result"] == str(row.seat) and row.tags["Audit"] == "none"
    if mode == "audit-quit":
        assert row.tags["Ending"].startswith(f'closed by seat {row.mallory}: peer-quit ""')
    else:
        assert row.tags["Ending"].startswith(f"fault timeout by seat {row.mallory}: ")
        assert "in the audit after" in row.tags["Ending"] and "unproven" in row.tags["Ending"]
    assert "not audited: the cards never shown stay unproven" in row.line
    assert verify(row.record) == 3
