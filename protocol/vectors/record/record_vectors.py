"""Example records (SPEC.md part 5), made deterministically from fixed keys and seeds:
an audited classic game, and a standard game that seat 1 concedes (never audited).

    python protocol/vectors/record/record_vectors.py          # rewrite the files
    python protocol/vectors/record/record_vectors.py --check  # compare (the test suite)
"""

from __future__ import annotations

import hashlib
import random
import sys
from collections import deque
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cuttle_net.games.cuttle.bots import make_bot
from cuttle_net.games.cuttle.rules import Rules
from cuttle_net.records.header import GameHeader
from cuttle_net.records.record import build_record
from cuttle_net.session import GameSession, SendMove

HERE = Path(__file__).resolve().parent
DATE = "2026-11-21T12:00:00Z"


def rng_for(seed: bytes):
    """Call i (from 1) returns SHAKE-256(seed || i as 8 bytes big-endian), n bytes."""
    calls = 0

    def rng(n: int) -> bytes:
        nonlocal calls
        calls += 1
        return hashlib.shake_256(seed + calls.to_bytes(8, "big")).digest(n)

    return rng


def play(rules: Rules, seed: int, concede_after: int | None = None) -> str:
    keys = [
        Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"record identity %d" % s).digest())
        for s in (0, 1)
    ]
    raw = (keys[0].public_key().public_bytes_raw(), keys[1].public_key().public_bytes_raw())
    connection = hashlib.sha256(b"record vector connection").digest()
    header = GameHeader(connection, 1, rules, raw)
    sessions = [
        GameSession(s, header, keys[s], rng=rng_for(b"record rng %d %d" % (seed, s)))
        for s in (0, 1)
    ]
    bots, choices = [make_bot("greedy"), make_bot("random")], random.Random(seed)
    inbox: list[deque] = [deque(), deque()]

    def post(sender: int, out) -> None:
        inbox[1 - sender].extend(out.sends)

    def pump() -> None:
        while inbox[0] or inbox[1]:
            for seat in (0, 1):
                if inbox[seat]:
                    item = inbox[seat].popleft()
                    s = sessions[seat]
                    if isinstance(item, SendMove):
                        post(seat, s.receive_move(item.text, item.signature))
                    else:
                        post(seat, s.receive_deck(item.data))

    for s in sessions:
        post(s.seat, s.start())
    pump()
    while not all(s.finished for s in sessions):
        if concede_after is not None and len(sessions[0].played) >= concede_after:
            post(1, sessions[1].concede())
            pump()
            break
        mover = next(s for s in sessions if s.my_turn)
        post(mover.seat, mover.play(bots[mover.seat].choose(mover.view, choices)))
        pump()
    return build_record(sessions[0], ("ann", "bob"), DATE)


FILES = {
    "example.cuttle": lambda: play(Rules(), 1),
    "example-conceded.cuttle": lambda: play(Rules(standard=True), 2, concede_after=9),
}


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for name, make in FILES.items():
        text, path = make(), HERE / name
        if check:
            if not path.exists() or path.read_text() != text:
                stale.append(name)
        else:
            path.write_text(text)
    if stale:
        print("stale vectors:", ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
