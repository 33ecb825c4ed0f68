"""A game followed live as a third party (a watcher at a table, SPEC 3.15 *Watchers*).

    game = WatchedGame(header, names)
    for seat, body in the game's messages in the table's order:    # game seats
        for seat, text in game.receive(seat, body): print(seat, text)   # moves applied
    report = game.verdict()            # the audit's verdict, as `cuttle verify` gives it
    text = game.record(date, key)      # a copy of the record, signed by the watcher

Every deck message, proof, share and move signature is checked as it arrives, by the same
code that checks a record (`verify.PublicGame`): the watcher holds no secret, so the game
it follows is the spectator's view (every hand hidden but what was shown). At the end its
copy of the record goes through `verify_text` whole, which gives the audit's verdict.
"""

from __future__ import annotations

from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cuttle_net.deck.encoding import hash256
from cuttle_net.session import CONCEDE, NO_DECK_HEAD, MoveRecord

from .ending import Ending, fault_ending, unfinished_ending
from .header import GameHeader
from .record import WATCHER, signed_record
from .verify import Invalid, PublicGame, Report, verify_text


class WatchedGame:
    """One game at a table, as a watcher follows it: `view` is the spectator's view."""

    def __init__(self, header: GameHeader, names: tuple[str, ...]) -> None:
        self.header = header
        self.names = names
        self.public = PublicGame(header)
        self.moves: list[MoveRecord] = []  # every signed move, where it was made
        self.problem = ""  # the first check that failed: the game is over for the watcher
        self._applied = 0
        self._inputs: list[tuple[int, Any]] = []  # every message taken, to void moves
        self._heads: list[bytes] = [self.public.head]  # the move chain's head before move n
        self._drain()

    @property
    def view(self) -> Any:
        """The spectator's view of the game (None until the deal is complete)."""
        return self.public.view

    @property
    def over(self) -> bool:
        """Nothing more can happen: audited, conceded, a fault proven, or a check failed."""
        return self.problem != "" or self.public.stop is not None

    def receive(self, seat: int, body: Any) -> list[tuple[int | None, str]]:
        """Game seat `seat`'s game message (as `session.message_bodies` makes it): check it,
        and return the moves it made the game apply (seat or None for chance, notation)."""
        if self.over:
            return []
        try:
            if _is_move(body) and body["text"] == CONCEDE:
                self._concede(seat, body)
            else:
                self._take(seat, body)
        except Invalid as exc:
            self.problem = str(exc)
        game = self.public
        applied, self._applied = game.played[self._applied :], len(game.played)
        return applied

    def _take(self, seat: int, body: Any) -> None:
        game = self.public
        if _is_move(body):
            carried = body.get("deck", [])
            if type(carried) is not list or ("deck" in body and not carried):
                raise Invalid(f"seat {seat}'s move carries no list of deck messages")
            if carried and body["text"] == CONCEDE:
                raise Invalid(f"seat {seat}'s concession carries deck messages")
            at = len(game.deck.log)
            game.take("move", None, seat, body["sig"], body["text"])
            self.moves.append(MoveRecord(seat, body["text"], body["sig"], at))
            self._heads.append(game.head)
            for msg in carried:  # the steps its mover owed at once, as if entries of their own
                self._drain()
                if game.stop is not None:
                    break
                game.take("msg", msg)
        elif _is(body, "deck", "msg"):
            game.take("msg", body["msg"])
        else:
            raise Invalid(f"seat {seat} sent a game message that is neither a move nor deck")
        self._inputs.append((seat, body))
        self._drain()

    def _concede(self, seat: int, body: Any) -> None:
        """A concession is signed at the point of the move chain its author had reached: the
        moves after it crossed it and are void (SPEC 4.2), as every seat finds."""
        if self.public.over is not None:
            return  # the game ended by the rules first: a concession is void (SPEC 4.2)
        since = len(self.moves)
        while since and self.moves[since - 1].seat != seat:
            since -= 1
        key = self.public.keys[seat]
        for n in range(len(self.moves), since - 1, -1):
            digest = hash256(
                "move", self.header.session_id, n, self._heads[n], NO_DECK_HEAD, seat, CONCEDE
            )
            try:
                key.verify(body["sig"], digest)
            except (InvalidSignature, TypeError, ValueError):
                continue
            if n < len(self.moves):  # replay the game without the crossed moves
                first = self.moves[n]
                kept = self._inputs[: self._input_of_move(n)]
                self.public, self.moves, self._inputs = PublicGame(self.header), [], []
                self._heads, self._applied = [self.public.head], 0
                self._drain()
                for s, b in kept:
                    self._take(s, b)
                assert len(self.moves) == n and first not in self.moves
            self._take(seat, body)
            return
        raise Invalid(f"seat {seat}'s concession: its signature checks at no point of the moves")

    def _input_of_move(self, n: int) -> int:
        """Where move `n` is among the messages taken."""
        count = 0
        for i, (_, b) in enumerate(self._inputs):
            if _is_move(b):
                if count == n:
                    return i
                count += 1
        return len(self._inputs)

    def _drain(self) -> None:
        # Each seat begins the operations a move requires at once, without a message: so
        # does the watcher.
        while (op := self.public.next_op()) is not None and self.public.stop is None:
            self.public.take("op", op.to_wire())

    def ending(self, note: str) -> Ending:
        """What this copy's `Ending` states: only what the transcript proves, else
        `unfinished` with `note` (why the table stopped)."""
        stop = self.public.stop
        if self.problem:
            return unfinished_ending(f"the watcher's check failed: {self.problem}")
        if stop is None:
            return unfinished_ending(note or "the table stopped")
        if stop.kind == "audited":
            assert self.public.over is not None
            return Ending(self.public.over.reason)
        if stop.kind == "conceded":
            return Ending("concede", stop.seat)
        if stop.kind == "illegal" and stop.seat is not None:
            return fault_ending("illegal_move", stop.seat, stop.what)
        if stop.kind == "cheat" and stop.signed and stop.seat is not None:
            return fault_ending(stop.fault, stop.seat, stop.what)
        return unfinished_ending(note or "the table stopped")

    def record(self, date: str, key: Ed25519PrivateKey, note: str = "") -> str:
        """The watcher's copy of the game's record, signed by its own key (SPEC 5.2)."""
        game, header = self.public, self.header
        ending = self.ending(note)
        outcome = game.over if ending.by_rules else None
        winners = None
        if outcome is not None:
            winners = outcome.winners
        elif ending.form == "concede":
            winners = tuple(s for s in range(header.seats) if s != ending.seat)
        audited = game.stop is not None and game.stop.kind == "audited"
        return signed_record(
            header,
            self.names,
            date,
            result=ending.result(winners, header.seats),
            ending=str(ending),
            audit=game.deck.verdict_digest if audited else None,
            signer=WATCHER,
            played=game.played,
            deck=game.deck,
            deck_cut=None,
            moves=self.moves,
            sign=key.sign,
            signer_key=key.public_key().public_bytes_raw(),
        )

    def verdict(self, key: Ed25519PrivateKey, note: str = "") -> Report:
        """The verdict on the game so far, as `cuttle verify` gives it for this copy."""
        return verify_text(self.record("2000-01-01T00:00:00Z", key, note))


def _is(body: Any, kind: str, *fields: str) -> bool:
    return type(body) is dict and set(body) == {"t", *fields} and body["t"] == kind


def _is_move(body: Any) -> bool:
    """A move's body, with or without the deck messages it carries (SPEC 4.2)."""
    return type(body) is dict and body.get("t") == "move" and set(body) - {"deck"} == _MOVE


_MOVE = {"t", "text", "sig"}
