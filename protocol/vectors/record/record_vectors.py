"""Example records (SPEC.md part 5), made deterministically from fixed keys and seeds:
an audited classic game, a standard game that seat 1 concedes (never audited), an
audited three-player game of L'Unisson, the same game as a watcher's copy (SPEC 5.2), and a
practice game of L'Unisson (SPEC 5.5).

    python protocol/vectors/record/record_vectors.py          # rewrite the files
    python protocol/vectors/record/record_vectors.py --check  # compare (the test suite)
"""

from __future__ import annotations

import hashlib
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cuttle_net.games.cuttle.bots import make_bot
from cuttle_net.games.interface import game_module
from cuttle_net.records.follow import WatchedGame
from cuttle_net.records.header import GameHeader
from cuttle_net.records.record import build_practice_record, build_record
from cuttle_net.session import GameSession, message_bodies

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # protocol/vectors/
from vectorfiles import shake_rng, write_or_check

HERE = Path(__file__).resolve().parent
DATE = "2026-11-21T12:00:00Z"


def play(
    game: str,
    rules: str,
    seats: int,
    dealer: int,
    seed: int,
    bots: list[Callable[[Any, random.Random], Any]],
    concede_after: int | None = None,
    watched: bool = False,
) -> str:
    """One game at a table of ``seats``, every message delivered in one order (the star of
    part 3); the record seat 0 saves (``watched``: the copy a watcher saves)."""
    keys = [
        Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"record identity %d" % s).digest())
        for s in range(seats)
    ]
    raw = tuple(k.public_key().public_bytes_raw() for k in keys)
    connection = hashlib.sha256(b"record vector connection").digest()
    module = game_module(game)
    header = GameHeader(connection, 1, game, module.parse_rules(rules, seats), dealer, raw)
    sessions = [
        GameSession(s, header, keys[s], rng=shake_rng(b"record rng %d %d" % (seed, s)))
        for s in range(seats)
    ]
    choices = random.Random(seed)
    log: list[tuple[int, Any]] = []
    read = [0] * seats

    def post(sender: int, out) -> None:
        log.extend((sender, body) for body in message_bodies(out.sends))

    def pump() -> None:
        progress = True
        while progress:
            progress = False
            for seat, s in enumerate(sessions):
                while read[seat] < len(log):
                    author, body = log[read[seat]]
                    read[seat] += 1
                    if author == seat:
                        continue
                    post(seat, s.receive(author, body))
                    progress = True

    for s in sessions:
        post(s.seat, s.start())
    pump()
    while not all(s.finished for s in sessions):
        if concede_after is not None and len(sessions[0].played) >= concede_after:
            post(1, sessions[1].concede())
            pump()
            break
        mover = next(s for s in sessions if s.my_turn)
        post(mover.seat, mover.play(bots[mover.seat](mover.view, choices)))
        pump()
    if watched:
        watcher = WatchedGame(header, tuple(NAMES[:seats]))
        for sender, body in log:
            watcher.receive(sender, body)
        key = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"record watcher").digest())
        return watcher.record(DATE, key)
    return build_record(sessions[0], tuple(NAMES[:seats]), DATE)


def practice(game: str, rules: str, seats: int, dealer: int, seed: int) -> str:
    """A practice game on one machine (SPEC 5.5): a seeded deal, seeded random moves."""
    module = game_module(game)
    table = module.parse_rules(rules, seats)
    order = list(range(table.deck_size))
    random.Random(seed).shuffle(order)
    state, choices = module.new_full(table, seats, dealer, order), random.Random(seed)
    moves: list[tuple[int | None, str]] = []
    while (seat := module.to_act(state)) >= 0:
        move = any_move(state, choices)
        moves.append((seat, module.move_text(move)))
        module.play_full(state, move, seat)
    names = ("You", *(f"Random {s}" for s in range(1, seats)))
    return build_practice_record(module, table, dealer, order, moves, names, "random", DATE)


NAMES = ("ann", "bob", "cleo")
GREEDY, RANDOM = make_bot("greedy").choose, make_bot("random").choose


def any_move(view: Any, rng: random.Random) -> Any:
    return rng.choice(view.legal_moves())


FILES = {
    "example.cuttle": lambda: play("cuttle", "classic", 2, 1, 1, [GREEDY, RANDOM]),
    "example-conceded.cuttle": lambda: play(
        "cuttle", "standard", 2, 1, 2, [GREEDY, RANDOM], concede_after=9
    ),
    "example-unisson.cuttle": lambda: play("unisson", "one-deck", 3, 2, 3, [any_move] * 3),
    "example-watcher.cuttle": lambda: play(
        "unisson", "one-deck", 3, 2, 3, [any_move] * 3, watched=True
    ),
    "example-practice.cuttle": lambda: practice("unisson", "one-deck", 3, 1, 4),
}


def main(argv: list[str]) -> int:
    return write_or_check(HERE, FILES, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
