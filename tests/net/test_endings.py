"""The table of endings (SPEC.md 4.4), row by row, at a 2-seat Cuttle table on the wire: an
honest table host (`HostShell` and `play_at_table`, a greedy bot) against a scripted joiner
(``hostile.py``) that ends the game one way or another, in this process over memory streams
on trio's mock clock. Each row checks the culprit, the host's result line and its record's
``Result``, ``Ending`` and ``Audit``, and that the honest record verifies. A few rows run
against a real ``cuttle host`` process too (exit status, result line, ``cuttle verify``);
two honest processes ending by the rules: test_host_join.py.

tests/session/test_table_verdicts.py holds every ending at every seat in memory at the
session level; here the same endings come from bytes on a connection."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cuttle_client.cli_table import bot_for
from cuttle_client.progress import game_line, told
from cuttle_protocol.play import TableGame, play_at_table
from cuttle_protocol.shells import TableTimeouts, host_table, join_table, open_listener
from cuttle_protocol.table import TableSettings
from cuttle_protocol.wire import LocalPlayer

from cuttle_net.records.record import parse_record
from cuttle_net.records.verify import Verdict, verify_text

from . import hostile
from .crash import verify
from .test_host_join import finish, result_lines, start_host

TIMEOUTS = TableTimeouts(reply=4, move=2, window=1)  # on the mock clock
REAL = TableTimeouts(reply=20, move=60, window=1)  # on the real clock: no row waits on them
WAIT = 3600  # mock seconds: a hang is still caught
NOT_AUDITED = "not audited: the cards never shown stay unproven"


def tags(path: Path) -> dict[str, str]:
    return parse_record(path.read_text()).tags


def moves(path: Path) -> list[str]:
    return [f"{seat} {text}" for seat, text, _ in parse_record(path.read_text()).moves]


def verdict(path: Path) -> Verdict:
    return verify_text(path.read_text()).verdict


@dataclass
class Row:
    """One game: the honest host's side (``game``, its ``log``) and the scripted joiner's."""

    game: TableGame
    theirs: TableGame
    log: list[str]

    @property
    def mallory(self) -> int:
        """The scripted joiner's game seat (Cuttle's dealer sits at seat 1, SPEC 4.1)."""
        assert self.theirs.session is not None
        return self.theirs.session.seat

    @property
    def tags(self) -> dict[str, str]:
        assert self.game.record is not None
        return tags(self.game.record)

    def lost(self) -> None:
        """The joiner lost: the host's seat wins, unaudited, and the honest record verifies
        as far as it goes (the cards never shown stay unproven)."""
        assert self.tags["Result"] == str(1 - self.mallory), self.tags
        assert self.tags["Audit"] == "none"
        line = game_line(self.game)
        assert line.startswith("result: game 1: ") and "alice wins: " in line
        assert line.endswith(NOT_AUDITED), line
        assert verdict(self.game.record) == Verdict.UNAUDITED
        assert not any("Traceback" in line for line in self.log), self.log

    def forfeit(self, kind: str) -> None:
        """The joiner's own message broke the game as ``kind``, found by the host's session."""
        self.lost()
        assert self.tags["Ending"].startswith(f"fault {kind} by seat {self.mallory}: "), self.tags
        assert f"mallory (seat {self.mallory}) forfeits, {kind}: " in game_line(self.game)
        # The honest record holds everything up to the fault (the deal at least).
        transcript = parse_record(self.game.record.read_text()).transcript
        assert any(entry.kind == "op" for entry in transcript)

    def left(self, words: str) -> None:
        """The joiner left the table (or the host saw its connection go) with ``words``."""
        self.lost()
        ending = f'closed by seat {self.mallory}: left "{words}'
        assert self.tags["Ending"].startswith(ending), self.tags
        assert f"mallory (seat {self.mallory}) left the table: {words}" in game_line(self.game)


async def play(tmp: Path, mode: str, hostile_host: bool = False, bot: str = "greedy") -> Row:
    """A table of two in this process: an honest ``bot`` and ``hostile`` in ``mode`` (the
    joiner, or with ``hostile_host`` the host)."""
    log: list[str] = []
    games: dict[str, tuple[hostile.Hostile | None, TableGame]] = {}
    key = Ed25519PrivateKey.generate()
    me = LocalPlayer("alice", key)
    async with open_listener(0, "127.0.0.1") as listener:
        address = f"127.0.0.1:{listener.address[1]}"

        async def sit(table) -> None:
            player, rng = bot_for("cuttle", bot), random.Random(1)
            game = await play_at_table(
                table,
                key,
                hostile.TOKEN,
                choose=lambda view: player.choose(view, rng),
                tell=lambda event: log.append(repr(event)),
                data_dir=tmp / "a",
            )
            games["honest"] = (None, game)

        async def honest_host() -> None:
            settings = TableSettings("cuttle", (hostile.TOKEN,), 2)
            async with host_table(
                listener, me, settings, timeouts=TIMEOUTS, log=told(log.append)
            ) as table:
                await sit(table)

        async def honest_joiner() -> None:
            async with join_table(address, me, timeouts=TIMEOUTS, log=told(log.append)) as table:
                await sit(table)

        async def mallory() -> None:
            if hostile_host:
                games["hostile"] = await hostile.host(listener, mode, tmp / "m", timeouts=TIMEOUTS)
            else:
                games["hostile"] = await hostile.run(address, mode, tmp / "m", timeouts=TIMEOUTS)

        with trio.fail_after(WAIT):
            async with trio.open_nursery() as nursery:
                if hostile_host:
                    nursery.start_soon(mallory)
                    nursery.start_soon(honest_joiner)
                else:
                    nursery.start_soon(honest_host)
                    nursery.start_soon(mallory)
    return Row(games["honest"][1], games["hostile"][1], log)


@pytest.mark.trio
async def test_an_agreed_draw_is_audited_and_both_records_agree(
    tmp_path: Path, memory_net, autojump_clock
) -> None:
    # The scripted joiner offers a draw at each of its turns and otherwise only draws; the
    # host's random bot accepts an offer half the time, so now and then it refuses until it
    # reaches its goal: such a game is an ordinary win, checked as one; then another is
    # played (up to three).
    for attempt in range(3):
        row = await play(tmp_path / f"game{attempt}", "offer-draw", bot="random")
        if row.tags["Ending"] != "goal":
            break
        assert row.game.clean and verdict(row.game.record) == Verdict.VALID, game_line(row.game)
    for path in (row.game.record, row.theirs.record):
        t = tags(path)
        assert (t["Result"], t["Ending"]) == ("draw", "agreed") and t["Audit"] != "none"
        assert verdict(path) == Verdict.VALID
    assert moves(row.game.record) == moves(row.theirs.record)
    assert game_line(row.game).endswith("drawn (agreed); audit passed")


@pytest.mark.parametrize("mode", ["concede-deal", "concede", "concede-crossing"])
@pytest.mark.trio
async def test_a_concession_at_any_moment(
    tmp_path: Path, mode: str, memory_net, autojump_clock
) -> None:
    row = await play(tmp_path, mode)
    for path in (row.game.record, row.theirs.record):
        t = tags(path)
        assert (t["Result"], t["Ending"], t["Audit"]) == (str(1 - row.mallory), "concede", "none")
        assert verdict(path) == Verdict.UNAUDITED
    # The table's one log orders a move crossing the concession: the same on both sides.
    assert moves(row.game.record) == moves(row.theirs.record)
    assert moves(row.game.record)[-1] == f"{row.mallory} concede"
    assert f"alice wins: mallory (seat {row.mallory}) conceded; not audited" in game_line(row.game)


@pytest.mark.trio
async def test_silence_is_a_timeout_and_both_records_say_so(
    tmp_path: Path, memory_net, autojump_clock
) -> None:
    row = await play(tmp_path, "silent")
    row.forfeit("timeout")
    assert f"no move in {TIMEOUTS.move:g} s" in row.tags["Ending"]
    ours = tags(row.theirs.record)  # the deadline passed on its own clock too: one verdict
    assert ours["Result"] == row.tags["Result"]
    assert ours["Ending"].startswith(f"fault timeout by seat {row.mallory}: ")


@pytest.mark.parametrize("mode", ["vanish", "vanish-deal"])
@pytest.mark.trio
async def test_walking_away_is_a_forfeit(
    tmp_path: Path, mode: str, memory_net, autojump_clock
) -> None:
    row = await play(tmp_path, mode)
    row.left(f"connection lost and not back within {TIMEOUTS.window:g} s")
    assert any("lost the connection to mallory" in line for line in row.log), row.log


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
        # The retired two-party messages (SPEC 3.7): before, the host took one for a lost
        # connection and waited the reconnect window for the joiner to come back.
        ("rematch", "wire_unexpected_message"),
        ("move", "wire_unexpected_message"),
        ("deck", "wire_unexpected_message"),
        ("rematch-answer", "wire_unexpected_message"),
    ],
)
@pytest.mark.trio
async def test_a_wire_fault_is_the_senders(
    tmp_path: Path, mode: str, kind: str, memory_net, autojump_clock
) -> None:
    """Only the host sees the connection: it names the joiner as having left, with the wire
    fault as its words (SPEC 3.15), at once (no reconnect window)."""
    row = await play(tmp_path, mode)
    row.left(f"{kind}: ")
    assert not any("lost the connection" in line for line in row.log), row.log


@pytest.mark.trio
async def test_a_deck_fault_is_the_cheaters(tmp_path: Path, memory_net, autojump_clock) -> None:
    # A signed entry whose deck message's own signature is broken: every session finds it.
    row = await play(tmp_path, "deck-signature")
    row.forfeit("bad_signature")


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
@pytest.mark.trio
async def test_a_rules_fault_is_the_movers(
    tmp_path: Path, mode: str, kind: str, memory_net, autojump_clock
) -> None:
    (await play(tmp_path, mode)).forfeit(kind)


@pytest.mark.parametrize(("mode", "words"), [("quit", "closed with peer-quit"), ("claim", "bad_")])
@pytest.mark.trio
async def test_leaving_mid_game_is_a_forfeit_and_the_words_are_a_claim(
    tmp_path: Path, mode: str, words: str, memory_net, autojump_clock
) -> None:
    """A joiner that leaves calling the host a cheat only left: its words are shown, made
    safe (no escape sequence reaches a screen or a record), and convict nobody."""
    row = await play(tmp_path, mode)
    row.left(words)
    ending = row.tags["Ending"]
    for text in (ending, game_line(row.game)):
        assert "\x1b" not in text and "\x07" not in text
    assert len(ending) < 260
    assert row.theirs.note == "you left the table"  # its own record: unfinished, not a win
    assert tags(row.theirs.record)["Result"] == "*"


@pytest.mark.parametrize(
    ("mode", "ending"),
    [
        ("audit-silent", f"fault timeout by seat {{}}: no message in {TIMEOUTS.reply:g} s"),
        ("audit-vanish", 'closed by seat {}: left "connection lost and not back'),
        ("audit-quit", 'closed by seat {}: left "closed with peer-quit'),
    ],
)
@pytest.mark.trio
async def test_leaving_during_the_audit_forfeits(
    tmp_path: Path, mode: str, ending: str, memory_net, autojump_clock
) -> None:
    row = await play(tmp_path, mode)
    row.lost()
    assert row.tags["Ending"].startswith(ending.format(row.mallory)), row.tags
    if mode == "audit-silent":
        assert "in the audit after" in row.tags["Ending"] and "unproven" in row.tags["Ending"]


# -- a hostile host: the honest joiner names it --------------------------------------------


@pytest.mark.parametrize(
    ("mode", "ending"),
    [
        ("bad-frame", "fault wire_malformed_frame by seat {}: "),
        ("bit-flip", "fault wire_decrypt_failed by seat {}: "),
        ("rematch", "fault wire_unexpected_message by seat {}: "),
        ("move", "fault wire_unexpected_message by seat {}: "),
        ("deck", "fault wire_unexpected_message by seat {}: "),
        ("rematch-answer", "fault wire_unexpected_message by seat {}: "),
        ("illegal", "fault illegal_move by seat {}: "),
        ("deck-signature", "fault bad_signature by seat {}: "),
        ("silent", "fault timeout by seat {}: "),
        ("quit", 'closed by seat {}: left "'),
        ("claim", 'closed by seat {}: left "bad_shuffle_proof: you cheated'),
    ],
)
@pytest.mark.trio
async def test_a_hostile_host_is_named_by_the_joiner(
    tmp_path: Path, mode: str, ending: str, memory_net, autojump_clock
) -> None:
    row = await play(tmp_path, mode, hostile_host=True)
    row.lost()
    assert row.tags["Ending"].startswith(ending.format(row.mallory)), row.tags


# -- real processes: a few rows against `cuttle host` ----------------------------------------


def cuttle_verify(path: Path) -> int:
    """``cuttle verify PATH``'s exit status."""
    return verify(path).returncode


# One row against a real process (its exit status, result line, saved record and `cuttle
# verify`): the words of every row are the same code's and checked in memory above (a
# concession and a wire fault against a process were two more rows here).
@pytest.mark.slow
@pytest.mark.parametrize(
    ("mode", "said"), [("claim", "left the table: bad_shuffle_proof: you cheated")]
)
def test_a_real_cuttle_host_ends_the_row_and_its_record_verifies(
    tmp_path: Path, mode: str, said: str
) -> None:
    flags = ("--move-timeout", f"{REAL.move:g}", "--reply-timeout", f"{REAL.reply:g}")
    host, port = start_host(tmp_path, "--bot", "greedy", *flags)
    try:
        _, theirs = trio.run(
            lambda: hostile.run(f"127.0.0.1:{port}", mode, tmp_path / "m", timeouts=REAL)
        )
    finally:
        code, out, err = finish(host)
    assert "Traceback" not in err, err
    assert code == 1, out + err
    (line,) = result_lines(out)
    mallory = theirs.session.seat
    assert line.startswith("result: game 1:") and "alice wins: " in line, line
    assert f"mallory (seat {mallory}) {said}" in line, line
    assert "\x1b" not in out + err
    (record,) = (tmp_path / "a" / "games").glob("*.cuttle")
    assert tags(record)["Result"] == str(1 - mallory)
    assert cuttle_verify(record) == 3  # unaudited: the unseen cards unproven
