"""``cuttle host`` and ``cuttle join`` as two real processes on loopback."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cuttle_protocol.wire import Close, FrameDecoder, message_from_wire, unpack

from cuttle_net.games.cuttle.rules import VARIANTS
from cuttle_net.records.record import parse_record
from cuttle_net.records.verify import Verdict, verify_text
from tests.inprocess import run_cuttle
from tests.records.saved import records_in_play_order

WAIT = 300  # seconds: the bound on every process here (only a failure waits it out)


def host_args(tmp: Path, *extra: str) -> list[str]:
    """``cuttle host`` arguments for a test: alice on a free loopback port, her files in
    ``tmp/a``."""
    files = str(tmp / "a")
    return [
        *("host", "--port", "0", "--bind", "127.0.0.1", "--name", "alice"),
        *("--config-dir", files, "--data-dir", files),
        *extra,
    ]


def join_args(tmp: Path, port: int, *extra: str, who: str = "b") -> list[str]:
    """``cuttle join`` arguments for a test: bob dialling ``port`` on loopback, his files in
    ``tmp/<who>``."""
    files = str(tmp / who)
    return [
        *("join", f"127.0.0.1:{port}", "--name", "bob"),
        *("--config-dir", files, "--data-dir", files),
        *extra,
    ]


def start_host(tmp: Path, *extra: str) -> tuple[subprocess.Popen[str], int]:
    host = subprocess.Popen(
        [sys.executable, "-m", "cuttle_client", *host_args(tmp, *extra)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert host.stdout is not None
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        line = host.stdout.readline()
        found = re.search(r"\(port (\d+)\)", line)
        if found:
            return host, int(found[1])
    host.kill()
    raise AssertionError("the host never said its port")


def join(tmp: Path, port: int, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cuttle_client", *join_args(tmp, port, *extra)],
        capture_output=True,
        text=True,
        timeout=WAIT,
    )


def finish(host: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = host.communicate(timeout=WAIT)
    return host.returncode, out, err


def result_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("result:")]


# Both rule sets and every variant, in two games (each rule set and variant alone is played
# in-process: tests/session/test_session.py's whole games).
@pytest.mark.parametrize(
    "rules",
    [
        [
            "--rules",
            "standard",
            *(a for v in VARIANTS if v != "nine-frozen" for a in ("--variant", v)),
        ],
        ["--rules", "classic", "--variant", "nine-frozen", "--variant", "random-fours"],
    ],
    ids=["standard+all-but-nine-frozen", "classic+nine-frozen+random-fours"],
)
def test_two_processes_play_a_whole_game_at_a_two_seat_table_and_agree(
    tmp_path: Path, rules: list[str]
) -> None:
    # Cuttle is hosted at a 2-seat table, the rule set and variants its options (a match
    # of several games at a table comes with the table's rematch).
    host, port = start_host(tmp_path, "--bot", "greedy", *rules)
    joined = join(tmp_path, port, "--bot", "random")
    code, out, err = finish(host)
    assert joined.returncode == 0 and code == 0, joined.stdout + joined.stderr + out + err
    assert "at the table (Cuttle, 2 seats)" in out
    assert len(result_lines(out)) == 1
    assert result_lines(out) == result_lines(joined.stdout)  # the same verdict on both sides
    assert all("audit passed" in line for line in result_lines(out))
    # The table's dealer sits at Cuttle's seat 1 (SPEC 4.1).
    dealer = re.search(r"game 1: you are seat (\d); seat (\d) deals", out)
    assert dealer is not None and dealer[2] == "1", out
    records = records_in_play_order(tmp_path / "a" / "games")
    theirs = records_in_play_order(tmp_path / "b" / "games")
    assert len(records) == len(theirs) == 1
    for mine, other in zip(records, theirs, strict=True):
        a, b = parse_record(mine.read_text()), parse_record(other.read_text())
        assert a.moves == b.moves and a.transcript == b.transcript  # the same game
        assert a.tags["Signer"] != b.tags["Signer"]  # each side signs its own copy
        # Ended by the rules, the same way and audited in both (SPEC 4.4's first rows).
        assert a.tags["Ending"] == b.tags["Ending"] in ("goal", "passes", "agreed")
        assert a.tags["Result"] == b.tags["Result"]
        assert a.tags["Audit"] == b.tags["Audit"] != "none"
        for path in (mine, other):  # (`cuttle verify` as a process: tests/records/test_verify.py)
            report = verify_text(path.read_text())
            assert report.verdict == Verdict.VALID, report.problem


def test_host_with_port_zero_prints_the_port_it_chose(tmp_path: Path) -> None:
    host, port = start_host(tmp_path, "--bot", "random")
    try:
        assert 0 < port < 65536
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass  # really listening there
    finally:
        host.kill()
        host.communicate()


def test_a_silent_connection_is_told_timeout_and_the_host_waits_on(tmp_path: Path) -> None:
    host, port = start_host(tmp_path, "--bot", "random", "--reply-timeout", "1")
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            received = b""
            while data := s.recv(4096):  # until the host hangs up
                received += data
        # A plaintext close saying why (no keys: the peer never sent its commitment, so the
        # host never showed its hello).
        decoder = FrameDecoder()
        decoder.feed(received)
        frames = [message_from_wire(unpack(body)) for _, body in iter(decoder.next_frame, None)]
        assert [type(m) for m in frames] == [Close]
        assert frames[0].code == "timeout" and "within 1 s" in frames[0].reason
        time.sleep(0.5)
        assert host.poll() is None  # still waiting for its player
    finally:
        host.kill()
    _, out, err = finish(host)
    assert "no handshake: no complete handshake within 1 s (timeout)" in out
    assert "Traceback" not in err


# The command-line refusals run `cuttle join` in this process (tests/inprocess.py): no
# game is played, so a process start-up apiece bought nothing.
def test_join_with_nobody_there_says_so(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        free = s.getsockname()[1]
    joined = run_cuttle(*join_args(tmp_path, free, "--bot", "random"))
    assert joined.returncode == 1 and "could not connect" in joined.stdout
    assert "Traceback" not in joined.stderr


def test_unknown_bot_is_refused(tmp_path: Path) -> None:
    joined = run_cuttle(*join_args(tmp_path, 4454, "--bot", "deep-blue"))
    assert joined.returncode == 2 and "no bot called 'deep-blue'" in joined.stderr


def test_a_mistyped_invitation_or_address_is_refused_before_connecting(tmp_path: Path) -> None:
    for typo, says in (("cuttle:aebagbaf1", "mistyped"), ("[::1:4454", "[IPv6]:PORT")):
        done = run_cuttle("join", typo, "--bot", "random", "--config-dir", str(tmp_path))
        assert done.returncode == 2 and says in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
