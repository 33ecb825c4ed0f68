"""Benchmark of the deck protocol at tables of N parties (one core).

    python benchmarks/bench_deck_n.py [--repeat N]

All parties run in one process, one after the other; each party's own compute (its calls to
``begin`` and ``receive``) is timed separately, so "per player" is what one player's machine
spends, and "all" the total. Medians over ``--repeat`` tables of:

* the deal: key set-up, every party's shuffle with its argument made and checked by every
  other party, the hands dealt and the face-up cards shown;
* a private draw (every other party's share with its proof; the drawer decrypts);
* a public reveal of a card from a hand (the holder's share, proof and claim, checked);
* the audit.

Tables: 2 players and 52 cards (Cuttle), 3 players and 32 cards, 6 players and 64 cards
(two identical 32-card decks: 64 card ids), as L'Unisson deals them (4 each, 4 face up).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cuttle_net.deck import Audit, Deal, DeckPeer, Draw, RevealFromHand

TABLES = [(2, 52, Deal((5, 6))), (3, 32, Deal((4, 4, 4), 4)), (6, 64, Deal((4,) * 6, 4))]


class Table:
    def __init__(self, seats: int, deck_size: int):
        keys = [Ed25519PrivateKey.generate() for _ in range(seats)]
        public = [k.public_key() for k in keys]
        sid = os.urandom(16)
        self.peers = [DeckPeer(s, sid, keys[s], public, deck_size) for s in range(seats)]

    def run(self, op) -> list[float]:
        """Run ``op``; the CPU seconds each party spent."""
        spent = [0.0] * len(self.peers)
        queue = []
        for s, peer in enumerate(self.peers):
            start = time.process_time()
            queue += [(s, m) for m in peer.begin(op).messages]
            spent[s] += time.process_time() - start
        while queue:
            sender, msg = queue.pop(0)
            for s, peer in enumerate(self.peers):
                if s != sender:
                    start = time.process_time()
                    queue += [(s, m) for m in peer.receive(msg).messages]
                    spent[s] += time.process_time() - start
        return spent


def measure(seats: int, deck_size: int, deal: Deal) -> dict[str, tuple[float, float]]:
    """(max per player, all players) CPU seconds of each operation."""
    t = Table(seats, deck_size)
    out = {"deal": t.run(deal)}
    drawer = seats - 1
    out["private draw"] = t.run(Draw(drawer))
    card = t.peers[drawer].my_hand()[0]
    out["public reveal"] = t.run(RevealFromHand(drawer, (card,)))
    out["audit"] = t.run(Audit())
    return {k: (max(v), sum(v)) for k, v in out.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    for seats, deck_size, deal in TABLES:
        runs = [measure(seats, deck_size, deal) for _ in range(args.repeat)]
        print(f"\n{seats} players, {deck_size} cards, {args.repeat} tables (medians, CPU ms)")
        print(f"  {'operation':<16} {'per player (max)':>17} {'all players':>12}")
        for op in runs[0]:
            per = statistics.median(r[op][0] for r in runs) * 1000
            total = statistics.median(r[op][1] for r in runs) * 1000
            print(f"  {op:<16} {per:17.2f} {total:12.2f}")
    print(f"\nload average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
