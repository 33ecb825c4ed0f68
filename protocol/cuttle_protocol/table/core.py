"""The N-player table without I/O (SPEC.md 3.15).

One player hosts (seat 0); each other player joins it over its own two-party connection
(the handshake of 3.6). The host relays every message: each is an entry of one log, signed
by its author over the log head it had seen, and the host signs the head after each entry.
So every player sees the same messages in the same order, or holds the proof that the host
showed it a log that another player did not see.

    host = TableHost(me, TableSettings("unisson", (), seats=3))
    host.add_joiner(name, identity)          # after each joiner's handshake
    host.receive(identity, message)          # a message from that joiner's connection
    for identity, message in host.take_outgoing(): ...   # send on that joiner's connection
    host.before_send()                       # before any of it leaves (a journal writes)
    for event in host.take_events(): ...     # Lobby, CodeShown, Started, Delivered, TableEnded

`TableGuest` is the joiner's side, over its one connection to the host. Both sides run the
same table: the seating (entry 0, by the host), a commitment and then a reveal from every
seat (the code that covers every key, and the first dealer), every seat's confirmation that
its player compared the code, then the game's messages, which `Delivered` hands to the
session in the log's order, each with its author's seat.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any, NoReturn

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from cuttle_net.identity_key import BadIdentityKey, identity_public_key, sign

from ..errors import ErrorCode, LocalProtocolError, RemoteProtocolError
from ..wire import codec
from ..wire.connection import LocalPlayer
from ..wire.crypto import fingerprint, format_sas
from ..wire.messages import (
    KEY_SIZE,
    MAX_ENTRY_BODY,
    MAX_LIST_LEN,
    MAX_NAME_LEN,
    MAX_SEATS,
    MAX_TEXT_LEN,
    SIGNATURE_SIZE,
    TOKEN,
    Entry,
    Message,
    Post,
    Resume,
    TableStatus,
    display_safe,
)
from .log import (
    Equivocation,
    LogEntry,
    RelayLog,
    _hash,
    _u32,
    genesis,
    next_head,
    relay_statement,
    verify,
    watcher_digest,
)

FAULT_KIND = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
"""A fault's kind: the table's own (`bad-relay`...) or a game session's (`illegal_move`...)."""
TABLE_KINDS = frozenset(
    {
        "seats",
        "commit",
        "reveal",
        "ready",
        "fault",
        "leave",
        "rematch",
        "watch",
        "chat",
        "muted",
        "watcher-chat",
    }
)
"""Entry bodies the table itself uses; every other `"t"` is a game message."""
MAX_CHAT_LEN = MAX_TEXT_LEN
"""A chat line's length in characters (SPEC 3.15, a word to the table)."""
CHAT_EVERY = 2.0
"""A seat's chat: one line per this many seconds on average..."""
CHAT_BURST = 3
"""...with this many at once: a seat keeps to it before posting (`say` returns False)."""
CHAT_HOST_BURST = 6
"""The host allows this many at once, so that lines bunched up by the network still pass;
beyond it the host drops the line (never relayed: the game is not touched)."""
CHAT_FLOOD = 10
"""Lines the host dropped from one seat before it names the seat (`muted`) and drops the
rest of its chat."""


class ChatRate:
    """A token bucket: `burst` lines at once, then one per `every` seconds."""

    def __init__(self, burst: int, every: float = CHAT_EVERY) -> None:
        self.burst, self.every = burst, every
        self._tokens = float(burst)
        self._last: float | None = None

    def allow(self, now: float) -> bool:
        if self._last is not None:
            # A clock that went back (a seat rebuilt from its journal in a new process,
            # reading another clock) gives nothing back, and takes nothing either.
            elapsed = max(0.0, now - self._last)
            self._tokens = min(self.burst, self._tokens + elapsed / self.every)
        self._last = now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True


@dataclass(frozen=True)
class TableSettings:
    """What the host chose: the game (a registry name), its options, and the seats."""

    game: str
    options: tuple[str, ...] = ()
    seats: int = 3

    def __post_init__(self) -> None:
        object.__setattr__(self, "options", tuple(self.options))
        names = (self.game, *self.options)
        if not all(type(n) is str and TOKEN.fullmatch(n) for n in names):
            raise ValueError("the game and its options are lower-case tokens")
        if len(set(self.options)) != len(self.options) or len(self.options) > MAX_LIST_LEN:
            raise ValueError(f"at most {MAX_LIST_LEN} distinct options")
        if type(self.seats) is not int or not 2 <= self.seats <= MAX_SEATS:
            raise ValueError(f"a table has 2..{MAX_SEATS} seats")


@dataclass(frozen=True)
class SeatInfo:
    seat: int
    name: str  # display-safe
    identity: bytes

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.identity)


# --- events ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Lobby:
    """Who sits at the table so far (seat order, host first); `you` is our place."""

    settings: TableSettings
    players: tuple[SeatInfo, ...]
    you: int


@dataclass(frozen=True)
class CodeShown:
    """Every seat revealed: show `code` and call `confirm()` once the players compared it."""

    code: str
    dealer: int


@dataclass(frozen=True)
class Started:
    """Every seat confirmed the code (game 1), or agreed to play again (a rematch): game
    `number` begins, `dealer` dealing (the deal passes left each game, SPEC 4.1)."""

    seats: tuple[SeatInfo, ...]
    dealer: int
    session_id: bytes
    number: int = 1


@dataclass(frozen=True)
class Rematch:
    """`seat` wants to play game `number` with the same seats: the host's proposal (seat 0),
    then each other seat's acceptance. A seat that does not want to play leaves."""

    seat: int
    number: int


@dataclass(frozen=True)
class Delivered:
    """Entry `index` of the log: a game message by `seat` (ours too), in the table's order.
    Its author had seen `seen` entries when it signed it."""

    seat: int
    body: dict[str, Any]
    index: int
    seen: int


@dataclass(frozen=True)
class TableEnded:
    """The table stopped: `culprit` (a seat, or None) and why. `reporter` is the seat whose
    finding this is (None: our own); `evidence` proves a host's equivocation."""

    culprit: int | None
    kind: str
    detail: str
    reporter: int | None = None
    evidence: Equivocation | None = None

    @property
    def proven(self) -> bool:
        """The report carries a proof this seat checked: the host (seat 0) signed two logs.
        Any other seat's report is a claim unless the game checks it (SPEC 3.15)."""
        return self.evidence is not None and (self.culprit, self.kind) == (0, "equivocation")


@dataclass(frozen=True)
class Chat:
    """Entry `index`: `seat` says `text` to the table (display-safe, at most MAX_CHAT_LEN
    characters). It never touches the game: no session or record sees it.
    `watcher`: a watcher's line (its name, display-safe), relayed by the host (`seat` 0)."""

    seat: int
    text: str
    index: int
    watcher: str = ""

    def who(self, name: Callable[[int], str]) -> str:
        """Its author for people: a seat's name (`name(seat)`), or "NAME (watching)"."""
        return f"{self.watcher} (watching)" if self.watcher else name(self.seat)


@dataclass(frozen=True)
class Muted:
    """The host dropped `seat`'s chat for flooding (its signed word) and drops the rest."""

    seat: int


@dataclass(frozen=True)
class Watching:
    """Who watches the table now (the host's `watch` entry): names (display-safe) and keys."""

    watchers: tuple[tuple[str, bytes], ...]


TableEvent = (
    Lobby | CodeShown | Started | Delivered | Rematch | TableEnded | Watching | Chat | Muted
)

MAX_WATCHERS = 16
"""The most watchers a host lets in (SPEC 3.15 *Watchers*); `--max-watchers` lowers it."""


class Stage(Enum):
    LOBBY = "lobby"
    COMMIT = "commit"
    REVEAL = "reveal"
    CONFIRM = "confirm"
    GAME = "game"
    BETWEEN = "between"  # the host proposed the next game: every seat agrees or leaves
    ENDED = "ended"


class _Culprit(Exception):
    def __init__(
        self, seat: int, kind: str, detail: str, evidence: Equivocation | None = None
    ) -> None:
        super().__init__(f"{kind} by seat {seat}: {detail}")
        self.seat, self.kind, self.detail, self.evidence = seat, kind, detail, evidence


def code_commitment(start: bytes, seat: int, value: bytes) -> bytes:
    """A seat's commitment to its code value, bound to the seating (the head after entry 0)."""
    return _hash(b"code commit", start, _u32(seat), value)


def table_secrets(settled: bytes, values: list[bytes]) -> tuple[str, int, bytes]:
    """(code, dealer, session id) from the head after the last commitment and every value."""
    joined = b"".join(values)
    code = format_sas(_hash(b"table code", settled, joined)[:8])
    dealer = int.from_bytes(_hash(b"dealer", settled, joined)[:8], "big") % len(values)
    return code, dealer, _hash(b"table session", settled, joined)


def _text(value: object, low: int, high: int) -> bool:
    return type(value) is str and low <= len(value) <= high


def _fields(body: dict[str, Any], *names: str) -> bool:
    return set(body) == {"t", *names}


def _one_value(body: dict[str, Any]) -> bool:
    """A `commit`'s or `reveal`'s body: its one field `value`, 32 bytes."""
    return (
        _fields(body, "value") and type(body["value"]) is bytes and len(body["value"]) == KEY_SIZE
    )


class _Table:
    """What host and guest share: the log, the stages, the code, and the events."""

    watching = False  # a watcher's table (`table.watch.TableWatcher`): it sits at no seat

    def __init__(
        self,
        player: LocalPlayer,
        random_bytes: Callable[[int], bytes],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._player = player
        self._clock = clock  # for the chat's rate (trio's clock in the shells)
        self._chat_rate = ChatRate(CHAT_BURST)
        self.muted: set[int] = set()  # seats whose chat the host drops for flooding
        self._chat_entries = 0  # chat, muted and watcher-chat entries in the log
        self._asides: set[bytes] = set()  # the watcher-chat lines' digests (no line twice)
        self._said = 0  # our chat lines so far
        self.identity = player.identity.public_key().public_bytes_raw()
        self._random = random_bytes
        self._value = random_bytes(KEY_SIZE)  # our contribution to the code and the dealer
        self.settings: TableSettings | None = None
        self.seats: tuple[SeatInfo, ...] = ()
        self._keys: list[Ed25519PublicKey] = []
        self.me = -1
        self.stage = Stage.LOBBY
        self.log: RelayLog | None = None
        self._digests: set[bytes] = set()
        self._commits: dict[int, bytes] = {}
        self._reveals: dict[int, bytes] = {}
        self._ready: set[int] = set()
        self._settled = b""  # the head after the last commitment
        self.code = ""
        self.dealer = -1
        self.session_id = b""
        self.game = 0  # the number of the game under way (or just over), from 1
        self._start = 0  # the log's length when that game started
        self._proposal = -1  # the host's `rematch` entry, between games
        self._again: set[int] = set()  # the seats that agreed to the next game
        self._asked = 0  # the game we last proposed or agreed to
        self.ended: TableEnded | None = None
        self.leaving: str | None = None
        """The code of the `leave` we posted (the table ends once the host relays it)."""
        self._events: list[TableEvent] = []
        self.watchers: tuple[tuple[str, bytes], ...] = ()  # who watches (the last `watch`)
        self._watch_entries = 0  # `watch` entries in the log: no step of the game

    # --- the caller's side ---------------------------------------------------------------

    def take_events(self) -> list[TableEvent]:
        events, self._events = self._events, []
        return events

    def before_send(self) -> None:
        """The shell calls this before anything `take_outgoing` gave leaves: a journaled
        core writes down the inputs it took first (`store.seatjournal`), after the seat's
        own game has seen them."""

    @property
    def unwritten(self) -> bool:
        """A journaled core holds inputs `before_send` will write (an fsync)."""
        return False

    def confirm(self) -> None:
        """Our player compared the code with the others: sign that we are ready."""
        if self.stage is Stage.ENDED:
            return  # the table ended while the code was shown: the end is already an event
        if self.stage is not Stage.CONFIRM or self.me in self._ready:
            raise LocalProtocolError(ErrorCode.UNEXPECTED_MESSAGE, "no code to confirm now")
        self._post({"t": "ready"})

    def post(self, body: dict[str, Any]) -> None:
        """Send a game message to the whole table (it comes back as `Delivered`).
        After the table ended it is dropped: a player answering an event that came before the
        end (a seat left meanwhile) is no error, and `TableEnded` is already on its way."""
        if self.stage in (Stage.ENDED, Stage.BETWEEN):
            return  # between games: a leftover of the game just over (its session is done)
        if self.stage is not Stage.GAME:
            raise LocalProtocolError(ErrorCode.UNEXPECTED_MESSAGE, "the game has not started")
        if type(body) is not dict or type(body.get("t")) is not str or body["t"] in TABLE_KINDS:
            raise ValueError('a game message is a map whose "t" is not a table kind')
        self._post(body)

    def say(self, text: str) -> bool:
        """Post a chat line (made display-safe and cut to MAX_CHAT_LEN): it comes back as
        `Chat` once relayed. False (nothing sent): no table to talk to, nothing to say, or
        we talk faster than CHAT_BURST lines, then one per CHAT_EVERY seconds."""
        text = display_safe(text)[:MAX_CHAT_LEN].strip()
        if not text or self.log is None or self.stage in (Stage.LOBBY, Stage.ENDED):
            return False
        if self.me in self.muted or not self._chat_rate.allow(self._clock()):
            return False
        # `n` counts our lines: the same words twice over the same log are two entries
        # (a signature is deterministic; the host refuses a post it has seen).
        self._post({"t": "chat", "n": self._said, "text": text})
        self._said += 1
        return True

    def rematch(self) -> None:
        """Host: propose the next game, once the game under way is over (the caller knows:
        the table does not follow the game). Joiner: agree to the proposed game."""
        if self.stage is Stage.ENDED:
            return  # the table ended meanwhile: the end is already an event
        due = Stage.GAME if self.me == 0 else Stage.BETWEEN
        if self.stage is not due or self._asked > self.game:
            raise LocalProtocolError(ErrorCode.UNEXPECTED_MESSAGE, "no rematch to answer now")
        self._asked = self.game + 1  # (our entry may not be back from the host yet)
        self._post({"t": "rematch", "game": self._asked})

    @property
    def asked_next(self) -> bool:
        """We proposed (host) or agreed to (joiner) the game after the one under way."""
        return self._asked > self.game

    @property
    def game_dealer(self) -> int:
        """The dealer of the game under way: the first dealer, then the next seat each game."""
        return (self.dealer + max(self.game - 1, 0)) % max(len(self.seats), 1)

    def leave(self, code: str = ErrorCode.PEER_QUIT, reason: str = "") -> None:
        """Our player leaves: say so in the log (signed), and stop."""
        code = str(code) if TOKEN.fullmatch(str(code)) else ErrorCode.PEER_QUIT
        self.leaving = code
        if self.stage is Stage.ENDED or self.log is None:
            self.left_unrelayed()
            return
        self._post({"t": "leave", "code": code, "reason": reason[:MAX_TEXT_LEN]})

    def left_unrelayed(self) -> None:
        """We left, and our `leave` may never reach the others (the connection to the host
        is gone): the table ends here, as our own choice."""
        self._end(TableEnded(self.me, "left", f"closed with {self.leaving}"))

    def replaced(self, detail: str) -> None:
        """Another connection with our identity key took our seat (SPEC 4.6): the table
        goes on there, and ends here, blaming no one."""
        self._end(TableEnded(None, "replaced", detail))

    def fault(self, culprit: int, kind: str, detail: str) -> None:
        """Our session found a fault (`culprit`'s): tell the table and stop."""
        if not FAULT_KIND.fullmatch(kind):
            kind = re.sub(r"[^a-z0-9_-]", "_", kind.lower())[:64].lstrip("_-") or "fault"
        if not 0 <= culprit < max(len(self.seats), 1):
            raise ValueError(f"no seat {culprit} at this table")
        self._fail(_Culprit(culprit, kind, detail))

    @property
    def steps(self) -> int:
        """Entries that moved the table or its game on: the log's length but the `watch`,
        `chat` and `muted` entries (a watcher coming or a word said restarts no seat's
        clock)."""
        logged = len(self.log) if self.log is not None else 0
        return logged - self._watch_entries - self._chat_entries

    def waiting_for(self) -> list[int]:
        """The seats whose commitment, reveal or confirmation the table waits for."""
        done = {
            Stage.COMMIT: self._commits,
            Stage.REVEAL: self._reveals,
            Stage.CONFIRM: self._ready,
            Stage.BETWEEN: self._again,
        }
        if self.stage not in done:
            return []
        return [s.seat for s in self.seats if s.seat not in done[self.stage]]

    # --- internals -----------------------------------------------------------------------

    def _post(self, body: dict[str, Any], force: bool = False) -> None:
        """Sign `body` as our next entry and send it (the host: append and relay it)."""
        raise NotImplementedError

    def _sign(self, seen: int, body: bytes) -> bytes:
        assert self.log is not None
        digest = self.log.digest(LogEntry(self.me, seen, self.log.heads[seen], b"", body, b""))
        return sign(self._player.identity, digest)

    def _encode(self, body: dict[str, Any]) -> bytes:
        data = codec.pack(body)
        codec.check_value(body)
        if len(data) > MAX_ENTRY_BODY:
            raise ValueError(f"an entry's body is at most {MAX_ENTRY_BODY} bytes")
        return data

    def _end(self, ended: TableEnded) -> None:
        if self.stage is Stage.ENDED:
            return
        self.stage = Stage.ENDED
        self.ended = ended
        self._events.append(ended)

    def _fail(self, culprit: _Culprit) -> None:
        """End the table on our own finding, and tell the others through the log."""
        if self.stage is Stage.ENDED:
            return
        if self.log is not None and self.seats:
            body: dict[str, Any] = {
                "t": "fault",
                "seat": culprit.seat,
                "kind": culprit.kind,
                "detail": culprit.detail[:MAX_TEXT_LEN],
            }
            if culprit.evidence is not None:
                e = culprit.evidence
                body["proof"] = [e.length, e.head, e.signature, e.other_head, e.other_signature]
            self._post(body, force=True)
        self._end(TableEnded(culprit.seat, culprit.kind, culprit.detail, None, culprit.evidence))

    def _body(self, entry: LogEntry) -> dict[str, Any]:
        try:
            body = codec.unpack(entry.body)
        except RemoteProtocolError as exc:
            raise _Culprit(entry.seat, "bad-entry", f"not strict msgpack: {exc.message}") from None
        if type(body) is not dict or type(body.get("t")) is not str:
            raise _Culprit(entry.seat, "bad-entry", 'an entry is a map with a str "t"')
        return body

    def _check(self, entry: LogEntry, body: dict[str, Any]) -> None:
        """Raise `_Culprit` (the author's fault) unless the entry is allowed here and now.

        Nothing is changed: `_apply` does that once the entry is in the log."""
        assert self.log is not None
        kind, seat = body["t"], entry.seat
        seats = len(self.seats)

        def refuse(detail: str) -> NoReturn:
            raise _Culprit(seat, "bad-entry", f"{kind}: {detail}")

        if kind == "seats":
            refuse("the seating is entry 0 only")
        if kind == "watch":
            if seat != 0 or self.stage not in (Stage.GAME, Stage.BETWEEN):
                refuse("only the host, once a game started")
            if not (_fields(body, "watchers") and _watchers(body["watchers"]) is not None):
                refuse("malformed")
            return
        if kind == "chat":  # at any stage once seated: it never touches the game
            if not _chat_line(body):
                refuse("malformed (1..200 display-safe characters)")
            return
        if kind == "watcher-chat":
            if seat != 0:  # a seat's own copy would skip the host's rate and watcher list
                refuse("only the host relays a watcher's line")
            self._check_aside(body, refuse)
            return
        if kind == "muted":
            if seat != 0:
                refuse("only the host mutes a seat")
            target = body.get("seat")
            if not (_fields(body, "seat") and type(target) is int and 0 < target < seats):
                refuse("malformed")
            return
        if kind == "leave":
            if not (
                _fields(body, "code", "reason")
                and type(body["code"]) is str
                and TOKEN.fullmatch(body["code"])
                and _text(body["reason"], 0, MAX_TEXT_LEN)
            ):
                refuse("malformed")
            return
        if kind == "fault":
            proof = body.get("proof")
            if not (
                set(body) - {"proof"} == {"t", "seat", "kind", "detail"}
                and type(body["seat"]) is int
                and 0 <= body["seat"] < seats
                and type(body["kind"]) is str
                and FAULT_KIND.fullmatch(body["kind"])
                and _text(body["detail"], 0, MAX_TEXT_LEN)
                and (proof is None or _proof(proof) is not None)
            ):
                refuse("malformed")
            return
        if kind == "commit":
            if self.stage is not Stage.COMMIT or seat in self._commits:
                refuse("not expected now")
            if not _one_value(body):
                refuse("malformed")
        elif kind == "reveal":
            if self.stage is not Stage.REVEAL or seat in self._reveals:
                refuse("not expected now")
            if entry.seen < seats + 1:
                refuse("revealed before seeing every commitment")
            if not _one_value(body):
                refuse("malformed")
            if code_commitment(self.log.heads[1], seat, body["value"]) != self._commits[seat]:
                raise _Culprit(seat, "bad-reveal", "the value does not open its commitment")
        elif kind == "ready":
            if self.stage is not Stage.CONFIRM or seat in self._ready:
                refuse("not expected now")
            if entry.seen < 2 * seats + 1 or not _fields(body):
                refuse("confirmed before seeing every reveal" if _fields(body) else "malformed")
        elif kind == "rematch":
            if not (_fields(body, "game") and type(body["game"]) is int):
                refuse("malformed")
            if body["game"] != self.game + 1:
                refuse(f"game {body['game']} is not the next game ({self.game + 1})")
            if seat == 0:  # the proposal: during a game (the others check it is over)
                if self.stage is not Stage.GAME or entry.seen < self._start:
                    refuse("not expected now")
            elif self.stage is not Stage.BETWEEN or seat in self._again:
                refuse("not expected now" if seat not in self._again else "agreed twice")
            elif entry.seen <= self._proposal:
                refuse("agreed before seeing the proposal")
        else:
            if self.stage is Stage.BETWEEN:
                if entry.seen <= self._proposal:
                    return  # a leftover of the game just over (a move crossing its end)
                refuse("a game message between games")
            if self.stage is not Stage.GAME:
                refuse("a game message before the game started")
            if entry.seen < self._start:
                refuse("signed before the game started")

    def _aside(self, body: dict[str, Any]) -> tuple[bytes, dict[str, Any]]:
        """A `watcher-chat` entry's line: the digest its watcher signed, and the line."""
        assert self.log is not None
        head = self.log.heads[body["seen"]]
        digest = watcher_digest(self.log.table_id, body["key"], body["seen"], head, body["body"])
        return digest, codec.unpack(body["body"])

    def _check_aside(self, body: dict[str, Any], refuse: Callable[[str], NoReturn]) -> None:
        """A watcher's chat line, relayed by the host (SPEC 3.15 *Watchers*): the host's
        entry, carrying what its watcher signed, which every receiver checks itself."""
        assert self.log is not None
        key, seen, said, sig = (body.get(f) for f in ("key", "seen", "body", "sig"))
        if not (
            _fields(body, "key", "seen", "body", "sig")
            and type(key) is bytes
            and type(seen) is int
            and type(said) is bytes
            and type(sig) is bytes
            and len(sig) == SIGNATURE_SIZE
        ):
            refuse("malformed")
        if all(k != key for _, k in self.watchers):
            refuse("the line of no watcher the log names")
        if not 0 <= seen <= len(self.log):
            refuse(f"signed over a log of {seen} entries")
        try:
            digest, line = self._aside(body)
        except RemoteProtocolError:
            line = None
        if type(line) is not dict or line.get("t") != "chat" or not _chat_line(line):
            refuse("its line is no chat line (1..200 display-safe characters)")
        try:
            signed = verify(identity_public_key(key), sig, digest)
        except BadIdentityKey:
            signed = False
        if not signed:
            refuse("its watcher did not sign it")
        if digest in self._asides:
            refuse("the same line twice")

    def _apply(self, entry: LogEntry, body: dict[str, Any], index: int) -> None:
        """The entry is in the log: move the table on."""
        kind, seat, seats = body["t"], entry.seat, len(self.seats)
        if kind == "watch":
            self._watch_entries += 1
            self.watchers = tuple((display_safe(n), k) for n, k in _watchers(body["watchers"]))
            self._events.append(Watching(self.watchers))
        elif kind == "watcher-chat":
            self._chat_entries += 1
            digest, line = self._aside(body)
            self._asides.add(digest)
            name = next(n for n, k in self.watchers if k == body["key"])
            self._events.append(Chat(seat, line["text"], index, name))
        elif kind in ("chat", "muted"):
            self._chat_entries += 1
            if kind == "chat" and seat not in self.muted:  # (a muted seat's: never shown)
                self._events.append(Chat(seat, body["text"], index))
            elif kind == "muted" and body["seat"] not in self.muted:
                self.muted.add(body["seat"])
                self._events.append(Muted(body["seat"]))
        elif kind == "leave":
            reason = display_safe(body["reason"])
            self._end(TableEnded(seat, "left", reason or f"closed with {body['code']}", seat))
        elif kind == "fault":
            proof = _proof(body["proof"]) if "proof" in body else None
            culprit = body["seat"]
            if proof is not None and (culprit, body["kind"]) != (0, "equivocation"):
                proof = None  # a proof proves the host's equivocation, nothing else
            if proof is not None and not proof.proves(self._keys[0]):
                proof = None  # a claim without proof stays its author's word
            detail = display_safe(body["detail"])
            if seat not in (0, culprit) and proof is None:
                # Only the host sees who stalls or leaves; a joiner's word about another
                # joiner is shown as its word (anything provable, every seat sees too).
                detail = f"seat {seat} says: {detail}"
            self._end(TableEnded(culprit, body["kind"], detail, seat, proof))
        elif kind == "commit":
            self._commits[seat] = body["value"]
            if len(self._commits) == seats:
                assert self.log is not None
                self._settled = self.log.head
                self.stage = Stage.REVEAL
                self._post({"t": "reveal", "value": self._value})
        elif kind == "reveal":
            self._reveals[seat] = body["value"]
            if len(self._reveals) == seats:
                values = [self._reveals[s] for s in range(seats)]
                self.code, self.dealer, self.session_id = table_secrets(self._settled, values)
                self.stage = Stage.CONFIRM
                self._events.append(CodeShown(self.code, self.dealer))
        elif kind == "ready":
            self._ready.add(seat)
            if len(self._ready) == seats:
                self._begin(index)
        elif kind == "rematch":
            if seat == 0:
                self.stage, self._proposal, self._again = Stage.BETWEEN, index, set()
            self._again.add(seat)
            self._events.append(Rematch(seat, body["game"]))
            if len(self._again) == seats:
                self._begin(index)
        elif self.stage is Stage.GAME:  # (between games a leftover is dropped)
            self._events.append(Delivered(seat, body, index, entry.seen))

    def _begin(self, index: int) -> None:
        """Entry `index` made every seat ready for the next game: it starts."""
        self.game += 1
        self.stage, self._start = Stage.GAME, index + 1
        self._events.append(Started(self.seats, self.game_dealer, self.session_id, self.game))
        self._began()

    def _began(self) -> None:
        """A game began (the host says who watches, if that changed before)."""

    def _seat_everyone(self, players: list[tuple[str, bytes]]) -> None:
        """Entry 0 is in: the seats are fixed; commit to our code value."""
        assert self.log is not None
        self.seats = tuple(SeatInfo(i, display_safe(n), k) for i, (n, k) in enumerate(players))
        self._keys = [identity_public_key(k) for _, k in players]
        if self.watching:  # no seat, no code value: the watcher only follows
            self.stage = Stage.COMMIT
            return
        self.me = next(s.seat for s in self.seats if s.identity == self.identity)
        self.stage = Stage.COMMIT
        self._post({"t": "commit", "value": code_commitment(self.log.head, self.me, self._value)})


def _chat_line(body: dict[str, Any]) -> bool:
    """A chat line's fields (a seat's entry, or the line a watcher signed): exactly `n`
    (0..2**32-1) and `text` (1..MAX_CHAT_LEN characters, already display-safe)."""
    text, number = body.get("text"), body.get("n")
    return (
        _fields(body, "n", "text")
        and type(number) is int
        and 0 <= number < 2**32
        and _text(text, 1, MAX_CHAT_LEN)
        and display_safe(text) == text
    )


def _is_chat(body: bytes) -> bool:
    try:
        value = codec.unpack(body)
    except RemoteProtocolError:
        return False
    return type(value) is dict and value.get("t") == "chat"


def _refused(detail: str) -> NoReturn:
    raise _Culprit(0, "bad-entry", detail)


def _proof(value: object) -> Equivocation | None:
    if not (type(value) is list and len(value) == 5 and type(value[0]) is int):
        return None
    length, head, sig, other, other_sig = value
    sizes = (
        (head, KEY_SIZE),
        (sig, SIGNATURE_SIZE),
        (other, KEY_SIZE),
        (other_sig, SIGNATURE_SIZE),
    )
    if not all(type(v) is bytes and len(v) == size for v, size in sizes) or length < 0:
        return None
    return Equivocation(length, head, sig, other, other_sig)


def _watchers(value: object) -> list[tuple[str, bytes]] | None:
    """A `watch` entry's watchers, checked: 0..MAX_WATCHERS [name, identity] pairs."""
    if type(value) is not list or len(value) > MAX_WATCHERS:
        return None
    ok = all(
        type(item) is list
        and len(item) == 2
        and _text(item[0], 1, MAX_NAME_LEN)
        and type(item[1]) is bytes
        and len(item[1]) == KEY_SIZE
        for item in value
    )
    return [(n, k) for n, k in value] if ok else None


def _players(value: object) -> list[tuple[str, bytes]] | None:
    """The seating's players, checked: 2..6 [name, identity] pairs with distinct valid keys."""
    if type(value) is not list or not 2 <= len(value) <= MAX_SEATS:
        return None
    players = []
    for item in value:
        if not (
            type(item) is list
            and len(item) == 2
            and _text(item[0], 1, MAX_NAME_LEN)
            and type(item[1]) is bytes
            and len(item[1]) == KEY_SIZE
        ):
            return None
        try:
            identity_public_key(item[1])
        except BadIdentityKey:
            return None
        players.append((item[0], item[1]))
    if len({k for _, k in players}) != len(players):
        return None
    return players


class TableHost(_Table):
    """The host's table: seat 0, the lobby, and the relay of every entry."""

    def __init__(
        self,
        player: LocalPlayer,
        settings: TableSettings,
        *,
        random_bytes: Callable[[int], bytes] = os.urandom,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(player, random_bytes, clock)
        self.settings = settings
        # Each joiner's chat (by seat) and each watcher's (by key), as it reaches us.
        self._chat_rates: dict[int | bytes, ChatRate] = {}
        self._chat_dropped: dict[int | bytes, int] = {}
        self.table_id = random_bytes(KEY_SIZE)
        self._lobby: list[tuple[str, bytes]] = [(player.name, self.identity)]
        self._outgoing: list[tuple[bytes, Message]] = []
        self._posts_from: dict[bytes, int] = {}  # posts received from each joiner
        self.me = 0
        self._events.append(Lobby(settings, self.players, 0))  # the host sits alone at first
        self.max_watchers = MAX_WATCHERS  # 0: no watchers (`--no-watchers`)
        self.watcher_chat = False  # watchers may say a line (`--watcher-chat`)
        self._watching: dict[bytes, str] = {}  # identity -> name, in arrival order
        self._told: tuple[tuple[str, bytes], ...] = ()  # the watchers the log last named

    @property
    def players(self) -> tuple[SeatInfo, ...]:
        """Who sits at the table (the lobby so far, or the seating once full)."""
        if self.seats:
            return self.seats
        return tuple(SeatInfo(i, display_safe(n), k) for i, (n, k) in enumerate(self._lobby))

    def take_outgoing(self) -> list[tuple[bytes, Message]]:
        """(joiner's identity key, message) pairs to send on each joiner's connection."""
        out, self._outgoing = self._outgoing, []
        return out

    def add_joiner(self, name: str, identity: bytes) -> int | None:
        """A joiner completed its handshake: its place, or None (full, started, or seated)."""
        assert self.settings is not None
        if self.stage is not Stage.LOBBY or any(k == identity for _, k in self._lobby):
            return None
        self._lobby.append((display_safe(name)[:MAX_NAME_LEN] or "?", identity))
        self._show_lobby()
        place = len(self._lobby) - 1
        if len(self._lobby) == self.settings.seats:
            self._seat_table()
        return place

    def remove_joiner(self, identity: bytes, why: str, kind: str = "left") -> None:
        """A joiner's connection ended for good. In the lobby its place is freed; once the
        table is seated it is named (`kind`: `left`, or `timeout` when it never came back)
        and the table stops for everyone."""
        if self.stage is Stage.LOBBY:
            self._lobby = [p for p in self._lobby if p[1] != identity]
            self._show_lobby()
        elif self.stage is not Stage.ENDED:
            seat = next((s.seat for s in self.seats if s.identity == identity), None)
            if seat is not None:
                self._fail(_Culprit(seat, kind, why))

    def show_lobby(self) -> None:
        """Send the lobby status again (a joiner's new connection took over its place)."""
        if self.stage is Stage.LOBBY:
            self._show_lobby()

    def posts_received(self, identity: bytes) -> int:
        """How many posts that joiner's connections delivered (for `resume`, SPEC 4.6)."""
        return self._posts_from.get(identity, 0)

    def resend(self, identity: bytes, received: int) -> None:
        """A joiner reconnected having received `received` entries: queue the rest."""
        assert self.log is not None
        if not 0 <= received <= len(self.log):
            raise RemoteProtocolError(
                ErrorCode.UNEXPECTED_MESSAGE, f"resume: {received} entries were never sent"
            )
        for n in range(received, len(self.log)):
            self._outgoing.append((identity, self._entry_message(n)))

    def receive(self, identity: bytes, message: Message) -> None:
        """A message from the joiner with `identity`. A wire-level mistake (a message that
        is not a post, or a post before the table is seated) raises RemoteProtocolError:
        close that connection with its code and call `remove_joiner`."""
        if type(message) is Resume:  # a restarted seat, at a host that lost its table
            raise RemoteProtocolError(
                ErrorCode.UNEXPECTED_MESSAGE,
                "resume: this host has no unfinished table to resume (its table is a new one)",
            )
        if type(message) is not Post or self.log is None:
            raise RemoteProtocolError(
                ErrorCode.UNEXPECTED_MESSAGE, f"{message.TYPE} is not expected from a joiner now"
            )
        self._posts_from[identity] = self._posts_from.get(identity, 0) + 1
        if self.stage is Stage.ENDED:
            return
        seat = next(s.seat for s in self.seats if s.identity == identity)
        entry = LogEntry(seat, message.seen, message.head, message.vouch, message.body, message.sig)
        # Our signature over the head it saw: from an honest host that is our own log. (A
        # joiner reporting an equivocation signs over the log it was shown; the others then
        # hold the proof too.)
        statement = relay_statement(message.seen, message.head)
        digest = self.log.digest(entry)
        refused = (
            "signed over a log we never showed it"
            if not self.log.holds(message.seen, message.head, message.vouch)
            and not verify(self._keys[0], message.vouch, statement)
            else "a post its signature does not fit"
            if not verify(self._keys[seat], message.sig, digest)
            else "the same post twice"
            if digest in self._digests
            else ""
        )
        if refused:
            # Not the seat's signed entry: only we saw it come on its connection, so no
            # other seat could check a verdict. We end its connection, and say that much:
            # it left (SPEC 3.15, the verdict rule).
            self._fail(_Culprit(seat, "left", f"the host closed its connection: {refused}"))
            return
        try:
            body = self._body(entry)
            self._check(entry, body)
        except _Culprit as culprit:
            # The author signed it: relayed, every seat finds the fault itself (SPEC 3.15).
            self._relay(entry)
            self._fail(culprit)
            return
        if body["t"] == "chat" and not self._chat_passes(seat):
            return  # dropped, never relayed: no seat's game sees it
        self._append(entry, body)

    def _chat_passes(self, seat: int | bytes) -> bool:
        """Whether `seat`'s chat line is relayed: within its rate, and the seat not muted.
        After CHAT_FLOOD dropped lines the seat is named in a `muted` entry of ours (a
        watcher, named by its key, is closed instead: `hear_watcher`)."""
        rate = self._chat_rates.setdefault(seat, ChatRate(CHAT_HOST_BURST))
        if seat not in self.muted and rate.allow(self._clock()):
            return True
        self._chat_dropped[seat] = dropped = self._chat_dropped.get(seat, 0) + 1
        if dropped >= CHAT_FLOOD and type(seat) is int and seat not in self.muted:
            self._post({"t": "muted", "seat": seat})
        return False

    # --- internals -----------------------------------------------------------------------

    # --- watchers (SPEC 3.15 *Watchers*) -------------------------------------------------

    def add_watcher(self, name: str, identity: bytes) -> str | None:
        """A watcher completed its handshake: None once it watches (it is sent the log
        from entry 0, then every entry), else why not (the `busy` close reason)."""
        if self.stage is Stage.ENDED:
            return "this table has ended"
        if not self.max_watchers:
            return "this table takes no watchers"
        if identity in self._watching or any(k == identity for _, k in self._lobby):
            return "you are at this table already"
        if len(self._watching) >= self.max_watchers:
            return f"this table has its {self.max_watchers} watchers"
        self._watching[identity] = display_safe(name)[:MAX_NAME_LEN] or "?"
        for n in range(len(self.log) if self.log is not None else 0):
            self._outgoing.append((identity, self._entry_message(n)))
        self._tell_watchers()
        return None

    def hear_watcher(self, identity: bytes, post: Post) -> str | None:
        """A watcher's `post`: a chat line, relayed in our `watcher-chat` entry when this
        table takes its watchers' chat (SPEC 3.15 *Watchers*). None: relayed, or dropped
        (past its rate; or before the game names it in a `watch` entry); else why its
        connection closes (`unexpected-message`): never the game's fault."""
        if not self.watcher_chat:
            return "a watcher posts nothing here: this table takes chat from its seats only"
        if identity not in self._watching or self.stage is Stage.ENDED:
            return None  # gone, or over: nothing reaches the table
        if self.log is None or all(k != identity for _, k in self.watchers):
            # Named once the game starts: a line before is dropped, and counts to a flood.
            self._chat_dropped[identity] = self._chat_dropped.get(identity, 0) + 1
            return self._flooded(identity)
        log = self.log
        if not (0 <= post.seen <= len(log) and post.head == log.heads[post.seen]):
            return "a line signed over a log we never showed it"
        body = {"t": "watcher-chat", "key": identity, "seen": post.seen, "body": post.body}
        body["sig"] = post.sig
        try:
            self._check_aside(body, _refused)
        except _Culprit as why:
            return f"a watcher may post a chat line only: {why.detail}"
        if not self._chat_passes(identity):
            return self._flooded(identity)
        self._post(body)
        return None

    def _flooded(self, identity: bytes) -> str | None:
        if self._chat_dropped.get(identity, 0) >= CHAT_FLOOD:
            return "a watcher flooded the table's chat"
        return None

    def remove_watcher(self, identity: bytes) -> None:
        """A watcher's connection ended (or we closed it): it is sent nothing more."""
        if self._watching.pop(identity, None) is not None:
            self._tell_watchers()

    def _tell_watchers(self) -> None:
        """Say in the log who watches, once a game is under way (before, the entries of
        the table's start are counted: it waits for `_began`)."""
        now = tuple((n, k) for k, n in self._watching.items())
        if now != self._told and self.stage in (Stage.GAME, Stage.BETWEEN):
            self._told = now
            self._post({"t": "watch", "watchers": [[n, k] for n, k in now]})

    def _began(self) -> None:
        self._tell_watchers()

    def _show_lobby(self) -> None:
        assert self.settings is not None
        for place, (_, identity) in enumerate(self._lobby[1:], start=1):
            status = TableStatus(
                id=self.table_id,
                game=self.settings.game,
                options=self.settings.options,
                seats=self.settings.seats,
                you=place,
                players=tuple(self._lobby),
            )
            self._outgoing.append((identity, status))
        self._events.append(Lobby(self.settings, self.players, 0))

    def _relay_signature(self, length: int, head: bytes) -> bytes:
        return sign(self._player.identity, relay_statement(length, head))

    def _seat_table(self) -> None:
        assert self.settings is not None
        start = genesis(self.table_id)
        self.log = RelayLog(self.table_id, self._relay_signature(0, start))
        self._keys = [identity_public_key(k) for _, k in self._lobby]
        self.seats = tuple(SeatInfo(i, n, k) for i, (n, k) in enumerate(self._lobby))
        body = {
            "t": "seats",
            "table": self.table_id,
            "game": self.settings.game,
            "options": list(self.settings.options),
            "players": [[n, k] for n, k in self._lobby],
        }
        data = self._encode(body)
        entry = LogEntry(0, 0, start, self.log.relays[0], data, self._sign(0, data))
        self._relay(entry)
        self._seat_everyone(list(self._lobby))

    def _post(self, body: dict[str, Any], force: bool = False) -> None:
        assert self.log is not None
        data = self._encode(body)
        seen = len(self.log)
        entry = LogEntry(
            0, seen, self.log.head, self.log.relays[seen], data, self._sign(seen, data)
        )
        if force:  # our own fault report: it is relayed whatever the stage
            self._relay(entry)
            return
        self._check(entry, body)
        self._append(entry, body)

    def _append(self, entry: LogEntry, body: dict[str, Any]) -> None:
        index = self._relay(entry)
        self._apply(entry, body, index)

    def _relay(self, entry: LogEntry) -> int:
        assert self.log is not None
        index = len(self.log)
        self._digests.add(self.log.digest(entry))
        following = self.log.following(entry)
        self.log.append(entry, self._relay_signature(index + 1, following))
        message = self._entry_message(index)
        for seat in self.seats[1:]:
            self._outgoing.append((seat.identity, message))
        for identity in self._watching:  # every entry is public to the table (3.15)
            self._outgoing.append((identity, message))
        return index

    def _entry_message(self, n: int) -> Entry:
        assert self.log is not None
        e = self.log.entries[n]
        return Entry(n, e.seat, e.seen, e.head, e.vouch, e.body, e.sig, self.log.relays[n + 1])


class TableGuest(_Table):
    """A joiner's table, over its one connection to the host (whose key is `host_identity`).

    `game` and `options`, when given, are what the joiner agreed to in the handshake: a
    seating that says otherwise is the host's fault."""

    def __init__(
        self,
        player: LocalPlayer,
        host_identity: bytes,
        *,
        game: str | None = None,
        options: tuple[str, ...] | None = None,
        random_bytes: Callable[[int], bytes] = os.urandom,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(player, random_bytes, clock)
        self.host_identity = host_identity
        self._host_key = identity_public_key(host_identity)
        self._agreed = (game, tuple(options) if options is not None else None)
        self._outgoing: list[Message] = []
        self._posts: list[Post] = []  # every post we sent, for `resume`
        self._table_id = b""
        self._seating: list[tuple[str, bytes]] = []
        self._relayed = 0  # our posts that came back in the log
        self._chats = 0  # our chat posts, and those that came back: a host may drop chat
        self._chats_relayed = 0

    @property
    def unrelayed(self) -> int:
        """Our posts the host has not yet put in the log: if one stays out past the reply
        timeout, the host is withholding it (`fault(0, "timeout", ...)`). Chat lines do not
        count: the host drops those past its rate (SPEC 3.15)."""
        return (len(self._posts) - self._chats) - (self._relayed - self._chats_relayed)

    def take_outgoing(self) -> list[Message]:
        out, self._outgoing = self._outgoing, []
        return out

    @property
    def received(self) -> int:
        """Entries received (for `resume`, SPEC 4.6)."""
        return len(self.log) if self.log is not None else 0

    def resend(self, received: int) -> None:
        """We reconnected and the host had received `received` of our posts: send the rest."""
        if not 0 <= received <= len(self._posts):
            raise RemoteProtocolError(
                ErrorCode.UNEXPECTED_MESSAGE, f"resume: {received} posts were never sent"
            )
        self._outgoing.extend(self._posts[received:])

    def receive(self, message: Message) -> None:
        """A message from the host. Anything wrong is the host's fault (or an author's, for
        an entry its author signed); the table then ends (see `take_events`)."""
        if self.stage is Stage.ENDED:
            if type(message) is Entry and message.seat == self.me:
                self._relayed += 1  # our report (or leaving) came back: the others have it
                self._chats_relayed += _is_chat(message.body)
            return
        try:
            if type(message) is TableStatus:
                self._on_status(message)
            elif type(message) is Entry:
                self._on_entry(message)
            else:
                raise _Culprit(0, "wire_unexpected_message", f"{message.TYPE} from the host")
        except _Culprit as culprit:
            self._fail(culprit)

    # --- internals -----------------------------------------------------------------------

    def _on_status(self, status: TableStatus) -> None:
        if self.stage is not Stage.LOBBY:
            raise _Culprit(0, "wire_unexpected_message", "a lobby status after the seating")
        game, options = self._agreed
        if game is not None and (status.game, status.options) != (game, options):
            raise _Culprit(0, "bad-relay", "the lobby shows another game than was proposed")
        if (
            status.players[0][1] != self.host_identity
            or status.players[status.you][1] != self.identity
        ):
            raise _Culprit(0, "bad-relay", "the lobby does not seat the host first and us")
        self.settings = TableSettings(status.game, status.options, status.seats)
        self._table_id = status.id
        players = tuple(SeatInfo(i, display_safe(n), k) for i, (n, k) in enumerate(status.players))
        self._events.append(Lobby(self.settings, players, status.you))

    def _on_entry(self, message: Entry) -> None:
        if self.log is None:
            self._open_log(message)
        log = self.log
        assert log is not None
        n = message.n
        if n < len(log):
            self._entry_again(message)
        if n != len(log) or message.seat >= len(self._keys):
            raise _Culprit(0, "bad-relay", f"entry {n} where entry {len(log)} was due")
        entry = LogEntry(
            message.seat, message.seen, message.head, message.vouch, message.body, message.sig
        )
        digest = log.digest(entry)
        following = log.following(entry)
        if not self._ours(message) and not verify(self._keys[message.seat], message.sig, digest):
            raise _Culprit(0, "bad-relay", f"entry {n}: its author did not sign it")
        if digest in self._digests:
            raise _Culprit(0, "bad-relay", f"entry {n}: relayed twice")
        if message.seen > n:
            raise _Culprit(0, "bad-relay", f"entry {n} claims a log of {message.seen} entries")
        if not log.holds(message.seen, message.head, message.vouch) and not verify(
            self._host_key, message.vouch, relay_statement(message.seen, message.head)
        ):
            raise _Culprit(0, "bad-relay", f"entry {n}: the host's vouch does not fit")
        if message.head != log.heads[message.seen]:
            proof = Equivocation(
                message.seen,
                message.head,
                message.vouch,
                log.heads[message.seen],
                log.relays[message.seen],
            )
            raise _Culprit(
                0,
                "equivocation",
                f"seat {message.seat} saw another log than we did: {proof.describe()}",
                proof,
            )
        # Checked last: a log that differs is better shown by the proof above. This is only
        # our finding: one bad signature proves nothing to another seat (SPEC 3.15).
        if not verify(self._host_key, message.relay, relay_statement(n + 1, following)):
            raise _Culprit(
                0,
                "bad-relay",
                f"entry {n}: the host's signature does not fit the log we hold"
                " (a mismatch, no proof another seat can check)",
            )
        if n == 0:
            log.append(entry, message.relay)
            self._digests.add(digest)
            self._seat_everyone(self._seating)
            return
        body = self._body(entry)
        self._check(entry, body)
        log.append(entry, message.relay)
        self._digests.add(digest)
        if message.seat == self.me:
            self._relayed += 1
            self._chats_relayed += body["t"] == "chat"
        self._apply(entry, body, n)

    def _entry_again(self, message: Entry) -> None:
        """The host sent an entry for index `n` that we hold (a restarted host, say). If it
        is another entry, chained on the head we hold before it, under a host signature
        that fits, we hold two host signatures over two heads of length n + 1: the proof.
        (Anything else is a mismatch we cannot prove: `bad-relay`, by the caller.)"""
        log = self.log
        assert log is not None
        n = message.n
        entry = LogEntry(
            message.seat, message.seen, message.head, message.vouch, message.body, message.sig
        )
        head = next_head(log.heads[n], log.digest(entry))
        if head != log.heads[n + 1] and verify(
            self._host_key, message.relay, relay_statement(n + 1, head)
        ):
            proof = Equivocation(n + 1, head, message.relay, log.heads[n + 1], log.relays[n + 1])
            raise _Culprit(
                0, "equivocation", f"the host sent another entry {n}: {proof.describe()}", proof
            )

    def _ours(self, message: Entry) -> bool:
        """Is `message` our next post back from the host, byte for byte as we signed it?
        Then its signature needs no verify (the costliest step of taking an entry): the
        host relays our posts in the order we sent them."""
        if message.seat != self.me or self._relayed >= len(self._posts):
            return False
        post = self._posts[self._relayed]
        return (post.seen, post.head, post.body, post.sig) == (
            message.seen,
            message.head,
            message.body,
            message.sig,
        )

    def _open_log(self, message: Entry) -> None:
        """Entry 0: the host's seating, which starts the log."""
        if (message.n, message.seat, message.seen) != (0, 0, 0):
            raise _Culprit(0, "bad-relay", "the log must start with the host's seating")
        try:
            body = codec.unpack(message.body)
        except RemoteProtocolError as exc:
            raise _Culprit(0, "bad-relay", f"the seating: {exc.message}") from None
        players = _players(body.get("players")) if type(body) is dict else None
        if not (
            type(body) is dict
            and set(body) == {"t", "table", "game", "options", "players"}
            and body["t"] == "seats"
            and type(body["table"]) is bytes
            and len(body["table"]) == KEY_SIZE
            and type(body["options"]) is list
            and players is not None
        ):
            raise _Culprit(0, "bad-relay", "a malformed seating")
        try:
            settings = TableSettings(body["game"], tuple(body["options"]), len(players))
        except ValueError as exc:
            raise _Culprit(0, "bad-relay", f"the seating: {exc}") from None
        game, options = self._agreed
        if game is not None and (settings.game, settings.options) != (game, options):
            raise _Culprit(0, "bad-relay", "the seating is for another game than was proposed")
        if players[0][1] != self.host_identity:
            raise _Culprit(0, "bad-relay", "the seating does not put the host at seat 0")
        if all(k != self.identity for _, k in players) and not self.watching:
            raise _Culprit(0, "bad-relay", "the seating leaves us out")
        table_id = body["table"]
        if not verify(self._host_key, message.vouch, relay_statement(0, genesis(table_id))):
            raise _Culprit(0, "bad-relay", "the seating: the host's vouch does not fit")
        self.settings = settings
        self._seating = players
        self.log = RelayLog(table_id, message.vouch)
        self._keys = [identity_public_key(k) for _, k in players]

    def _post(self, body: dict[str, Any], force: bool = False) -> None:
        assert self.log is not None
        data = self._encode(body)
        seen = len(self.log)
        post = Post(seen, self.log.head, self.log.relays[seen], data, self._sign(seen, data))
        self._posts.append(post)
        self._chats += body["t"] == "chat"
        self._outgoing.append(post)
