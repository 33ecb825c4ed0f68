"""Benchmark of the deck protocol (one core), against a naive SRA baseline.

    python benchmarks/bench_deck.py [--repeat N]

Reports medians of the CPU time of BOTH peers together (the two run in one process, one
after the other, so the figure is the total CPU a game costs, not a latency):
the deal (both key set-ups, both shuffles, both shuffle arguments made and checked, 11
cards dealt), a private draw, a public reveal from a hand, the audit; the bytes on the wire
(msgpack) of a whole game; and textbook SRA (Python ``pow`` over the 2048-bit safe prime of
RFC 3526 group 14, no proofs) for the same deal, draw and reveal, with the ratio.
"""

from __future__ import annotations

import argparse
import os
import platform
import secrets
import statistics
import time

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cuttle_net.deck import (
    Audit,
    Deal,
    DeckPeer,
    Draw,
    ExposeHand,
    RevealFromDeck,
    RevealFromHand,
)

# RFC 3526, 2048-bit MODP group 14: p is a safe prime.
P2048 = int(
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E"
    "3404DDEF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF"
    "5CB6F406B7EDEE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D3"
    "9A69163FA8FD24CF5F83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08"
    "CA18217C32905E462E36CE3BE39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF69558171839"
    "95497CEA956AE515D2261898FA051015728E5A8AACAA68FFFFFFFFFFFFFFFF",
    16,
)


class Game:
    """Two peers in one process, with the bytes they exchange counted."""

    def __init__(self):
        keys = [Ed25519PrivateKey.generate() for _ in (0, 1)]
        sid = os.urandom(16)
        public = [k.public_key() for k in keys]
        self.peers = [DeckPeer(s, sid, keys[s], public, 52) for s in (0, 1)]
        self.bytes = 0

    def run(self, op) -> float:
        start = time.process_time()
        queue = []
        for s in (0, 1):
            queue += [(s, m) for m in self.peers[s].begin(op).messages]
        while queue:
            sender, msg = queue.pop(0)
            self.bytes += len(msgpack.packb(msg))
            queue += [(1 - sender, m) for m in self.peers[1 - sender].receive(msg).messages]
        return time.process_time() - start


def whole_game() -> tuple[Game, dict[str, list[float]]]:
    """A long game: the deal, every card of the pile drawn or turned by a 7, most of them
    played, one hand exposed by glasses, then the audit."""
    g = Game()
    times: dict[str, list[float]] = {"deal": [], "draw": [], "reveal": [], "audit": []}
    times["deal"].append(g.run(Deal((5, 6))))
    turn = 0
    while len(g.peers[0].pile) > 2:
        times["draw"].append(g.run(Draw(turn)))
        hand = g.peers[turn].my_hand()
        if len(hand) > 3:
            times["reveal"].append(g.run(RevealFromHand(turn, (hand[0],))))
        turn = 1 - turn
    g.run(ExposeHand(0))
    g.run(RevealFromDeck(2))
    times["audit"].append(g.run(Audit()))
    return g, times


def sra_baseline(repeat: int) -> dict[str, float]:
    """Textbook SRA: each player encrypts and shuffles the deck with its exponent; a card is
    dealt by both players removing their layers (no proofs)."""
    p = P2048

    def keypair():
        while True:
            e = secrets.randbelow(p - 3) + 2
            try:
                return e, pow(e, -1, p - 1)
            except ValueError:
                continue

    deals, draws, reveals = [], [], []
    for _ in range(repeat):
        (e0, d0), (e1, d1) = keypair(), keypair()
        start = time.process_time()
        deck = [pow(m + 2, e0, p) for m in range(52)]
        secrets.SystemRandom().shuffle(deck)
        deck = [pow(c, e1, p) for c in deck]
        secrets.SystemRandom().shuffle(deck)
        for i in range(11):  # the other removes its layer, then the holder removes its own
            pow(pow(deck[i], d1 if i < 5 else d0, p), d0 if i < 5 else d1, p)
        deals.append(time.process_time() - start)
        start = time.process_time()
        pow(pow(deck[11], d1, p), d0, p)
        draws.append(time.process_time() - start)
        start = time.process_time()
        pow(pow(deck[12], d1, p), d0, p)  # the holder's layer off, shown, and re-checked
        pow(deck[12], 1, p)
        reveals.append(time.process_time() - start)
    return {
        "deal": statistics.median(deals),
        "draw": statistics.median(draws),
        "reveal": statistics.median(reveals),
    }


def machine() -> str:
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as info:
            model = next(
                (ln.split(":", 1)[1].strip() for ln in info if ln.startswith("model name")), model
            )
    except OSError:
        pass
    return f"{model}, nproc {os.cpu_count()}, Python {platform.python_version()}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="whole games to time")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    runs = [whole_game() for _ in range(args.repeat)]
    samples: dict[str, list[float]] = {"deal": [], "draw": [], "reveal": [], "audit": []}
    for _, times in runs:
        for k, v in times.items():
            samples[k] += v
    ours = {k: statistics.median(v) for k, v in samples.items()}
    wire = statistics.median(g.bytes for g, _ in runs)
    base = sra_baseline(max(3, args.repeat // 2))
    print(f"machine: {machine()}")
    print(f"deck protocol, medians over {args.repeat} whole games (both peers' compute):")
    print(
        f"  deal (2 shuffles + 2 shuffle arguments, 11 cards):   {ours['deal'] * 1e3:8.1f} ms"
        "   target <= 1000 ms, stretch <= 250 ms"
    )
    print(
        f"  private draw:                                 {ours['draw'] * 1e3:8.2f} ms"
        "   target <= 2 ms"
    )
    print(
        f"  public reveal from a hand:                    {ours['reveal'] * 1e3:8.2f} ms"
        "   target <= 2 ms"
    )
    print(f"  audit:                                        {ours['audit'] * 1e3:8.1f} ms")
    print(
        f"  bytes on the wire, whole game (msgpack):      {wire / 1024:8.1f} KiB"
        "   target <= 256 KiB"
    )
    print("naive baseline: textbook SRA, 2048-bit safe prime, Python pow, no proofs:")
    for k in ("deal", "draw", "reveal"):
        print(f"  {k:7s} {base[k] * 1e3:9.2f} ms   ours / baseline = {ours[k] / base[k]:.3f}")


if __name__ == "__main__":
    main()
