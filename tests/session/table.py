"""N sessions at one table in memory, as the star of the N-peer network delivers: one log in
one order, every message to every seat but its author, each seat reading at its own pace."""

from __future__ import annotations

import hashlib
import os
import random
from collections.abc import Callable
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cuttle_net.drbg import seeded_rng
from cuttle_net.games.interface import game_module
from cuttle_net.records.header import GameHeader
from cuttle_net.session import GameSession, Output, SendDeck, SendMove, message_bodies

Bot = Callable[[Any, random.Random], Any]


def body(item: SendMove | SendDeck) -> dict[str, Any]:
    """One send as a game message's body of its own (a move carrying no deck message)."""
    (only,) = message_bodies([item])
    return only


def random_bot(view: Any, rng: random.Random) -> Any:
    return rng.choice(view.legal_moves())


class Table:
    def __init__(
        self,
        game: str,
        rules: str,
        seats: int,
        *,
        dealer: int = 0,
        seed: int = 0,
        bot: Bot = random_bot,
    ) -> None:
        rng = random.Random(seed)
        keys = [Ed25519PrivateKey.from_private_bytes(rng.randbytes(32)) for _ in range(seats)]
        raw = tuple(k.public_key().public_bytes_raw() for k in keys)
        module = game_module(game)
        self.header = GameHeader(
            os.urandom(32), 1, game, module.parse_rules(rules, seats), dealer, raw
        )
        self.keys = keys
        self.sessions = [
            GameSession(
                s,
                self.header,
                keys[s],
                rng=seeded_rng(hashlib.sha256(b"%d %d" % (seed, s)).digest()),
            )
            for s in range(seats)
        ]
        self.log: list[tuple[int, dict[str, Any]]] = []  # the host's one order: bodies
        self.read = [0] * seats  # how much of the log each seat has read
        self.events: list[list[Any]] = [[] for _ in range(seats)]
        self.bot, self.rng = bot, rng
        self.muted: set[int] = set()  # seats whose messages never reach the table

    @property
    def seats(self) -> int:
        return len(self.sessions)

    def post(self, seat: int, out: Output) -> None:
        self.events[seat].extend(out.events)
        if seat not in self.muted:
            self.log += [(seat, b) for b in message_bodies(out.sends)]

    def deliver_one(self, seat: int) -> bool:
        """Seat ``seat`` reads the next entry of the log by another seat; False if none."""
        while self.read[seat] < len(self.log):
            author, message = self.log[self.read[seat]]
            self.read[seat] += 1
            if author == seat:
                continue
            self.post(seat, self.sessions[seat].receive(author, message))
            return True
        return False

    def pump(self) -> None:
        while any([self.deliver_one(s) for s in range(self.seats)]):
            pass

    def start(self) -> None:
        for s in self.sessions:
            self.post(s.seat, s.start())
        self.pump()

    def play(self, max_moves: int = 5000) -> None:
        self.start()
        self.play_on(max_moves)

    def play_on(self, max_moves: int = 5000) -> None:
        """Let the bots play until every seat is finished (or nobody can move)."""
        self.pump()
        for _ in range(max_moves):
            movers = [s for s in self.sessions if s.my_turn]
            if not movers:
                return
            s = movers[0]
            self.post(s.seat, s.play(self.bot(s.view, self.rng)))
            self.pump()
        raise AssertionError("the game did not end")
