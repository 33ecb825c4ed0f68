"""Two sessions linked in memory, as two peers over a perfect network."""

from __future__ import annotations

import os
import random
from collections import deque
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cuttle_net.games.cuttle.bots import make_bot
from cuttle_net.games.cuttle.rules import Rules
from cuttle_net.records.header import GameHeader
from cuttle_net.session import GameSession, Output, SendDeck, SendMove


def cuttle_header(rules: Rules, keys: list[Ed25519PrivateKey], number: int = 1) -> GameHeader:
    raw = tuple(k.public_key().public_bytes_raw() for k in keys)
    return GameHeader(os.urandom(32), number, "cuttle", rules, 1, raw)


class Link:
    def __init__(
        self,
        rules: Rules,
        seed: int = 0,
        bots=("random", "random"),
    ) -> None:
        keys = [Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()]
        self.header = cuttle_header(rules, keys)
        self.sessions = [GameSession(s, self.header, keys[s]) for s in (0, 1)]
        self.inbox: list[deque[Any]] = [deque(), deque()]
        self.events: list[list[Any]] = [[], []]
        self.bots = [make_bot(b) for b in bots]
        self.rng = random.Random(seed)
        self.bytes_sent = 0

    def post(self, sender: int, out: Output) -> None:
        self.events[sender].extend(out.events)
        for item in out.sends:
            self.inbox[1 - sender].append(item)

    def deliver_one(self, seat: int) -> None:
        item = self.inbox[seat].popleft()
        s = self.sessions[seat]
        if isinstance(item, SendMove):
            self.post(seat, s.receive_move(1 - seat, item.text, item.signature))
        else:
            assert isinstance(item, SendDeck)
            self.post(seat, s.receive_deck(1 - seat, item.data))

    def pump(self) -> None:
        while self.inbox[0] or self.inbox[1]:
            for seat in (0, 1):
                if self.inbox[seat]:
                    self.deliver_one(seat)

    def play(self, max_moves: int = 2000) -> None:
        for s in (0, 1):
            self.post(s, self.sessions[s].start())
        self.play_on(max_moves)

    def play_on(self, max_moves: int = 2000) -> None:
        """Deliver what is in flight, and let the bots play until both sides finish."""
        self.pump()
        for _ in range(max_moves):
            if all(s.finished for s in self.sessions):
                return
            movers = [s for s in self.sessions if s.my_turn]
            if not movers:
                self.pump()
                if not any(s.my_turn for s in self.sessions):
                    return
                continue
            s = movers[0]
            m = self.bots[s.seat].choose(s.view, self.rng)
            self.post(s.seat, s.play(m))
            self.pump()
        raise AssertionError("the game did not end")
