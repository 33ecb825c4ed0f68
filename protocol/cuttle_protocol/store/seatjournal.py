"""The crash journal of one seat at a table, the host's included (SPEC 4.6, *Tables*).

A seat is deterministic given its randomness and its inputs: the table core (`table.core`)
draws its code value (and, at the host, the table id) from `random_bytes`, the game session
its deck secrets from `rng`, and both sign with Ed25519 (deterministic). So the journal keeps
neither the log nor the session, but what rebuilds both, byte for byte:

- a header: the seat's role, name, game, options and rules token, where to meet again (the
  host's address, or the address and port the host listens on), the host's identity key
  (a joiner redials only it), and the **seed** all of the seat's randomness comes from;
- the inputs, in the order the seat took them: every message its connections delivered to
  the table core (the host: each joiner's, with its key; a joiner: the host's), the host's
  seating of each joiner, the seat's own confirmation of the code, its leaving or verdict,
  each move its player chose, each line its player said to the table (`say`), the time
  the core read for the chat's rate (`at`, before the input that read it: the one decision
  of the core that hangs on the clock, SPEC 3.15, is taken again on the same time), the
  host's watchers coming and going (`watch`, `unwatch`) and their lines (`hear`, where the
  table takes them: relayed in an entry of the host's, or counted to a flood), and each
  time the seat's driver handed the game session one of the table's events (`began`: game
  N started; `fed`: the game message at log index I), the verdict rule's reading of our
  clock (`verdict`: the step due was overdue, or not, as the table ended naming another
  seat) and each game's record saved (`saved`: game N's) or not (`unsaved`).

The last two are what makes the rebuild exact. A live driver takes the table's events some
time after the core made them (through the shell's event channel), and more messages may
arrive meanwhile: the posts the session then makes are signed over a longer log. The rebuild
hands the session each event where the journal says the live driver did, never sooner, so
the seat's own posts come out at the same places in the log (else a restarted host signs
another log than its joiners hold: an honest host taken for an equivocator).

Replaying them into a fresh core and session (`rebuild`) gives the same log (every entry and
every host signature, the same at the host as the joiners hold), the same posts, the same
session, and the counts the `resume` exchange needs. Inputs are written (and fsynced) before
the shell sends anything the core handed over (`before_send`): a peer never holds a message
that the journal cannot reproduce. Inputs that make the seat send nothing wait for its next
message out (or the table's end, or `close`). Before the table is seated nothing is written
(a table that never seated has nothing to resume).

The file is `store.journal`'s: its record framing, its folder
(``<data dir>/journal/``, 0700, the file 0600: the seed is secret), its claim (one live
process per seat) and its handling of a torn last record. It is removed once the game's
record is saved: one whose record could not be saved is kept, and the next start of the
seat saves the record from it (`store.records`), the games whose `saved` it lacks.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cuttle_net.drbg import new_seed, seeded_rng
from cuttle_net.identity_key import check_identity_key
from cuttle_net.session import Fault, GameSession, Output, message_bodies

from ..errors import ErrorCode
from ..table.core import (
    Chat,
    CodeShown,
    Delivered,
    Muted,
    Rematch,
    Stage,
    Started,
    TableEnded,
    TableGuest,
    TableHost,
    TableSettings,
)
from ..table.seats import end_note, end_verdict
from ..wire.address import parse_address
from ..wire.connection import LocalPlayer
from ..wire.invitation import Invitation, is_invitation
from ..wire.messages import message_from_wire
from .identity import private_dir
from .journal import (
    JournalDamaged,
    _fsync_dir,
    _record,
    _safe,
    claim,
    in_use,
    journal_dir,
    read_records,
    release,
)

FORMAT = "cuttle-table-journal/3"
NOTES_SAVED = ("cuttle-table-journal/2",)
"""Journals resumed as before, whose older writer noted no `saved` (nor `verdict`): each
game's record was saved as it ended, so none is saved from them again, but one a later
cuttle, taking the seat on, noted `unsaved`."""
OLD_FORMATS = ("cuttle-table-journal/1",)
"""Journals that did not note when the session took each event: a rebuild could not give
the log the others hold, so they are refused (the table cannot be resumed)."""

StartSession = Callable[..., tuple[Any, tuple[str, ...], GameSession]]
"""`play.game.game_session`: (settings, started, rules token, identity, our table seat, rng)
to (seat order, names, session). Passed in, as the trio driver sits above this module."""


@dataclass(frozen=True)
class TableHeader:
    """The table a journal belongs to, and our place at it."""

    role: str  # "host" or "joiner"
    name: str  # ours
    game: str
    options: tuple[str, ...]
    seats: int  # the host's choice; a joiner learns it from the host (0)
    token: str  # the rules token the game is played with
    address: str  # joiner: the host's HOST:PORT (or invitation) to dial again
    bind: str  # host: the address and port it listens on
    port: int
    host_identity: bytes  # the host's identity key (the host: ours)
    seed: bytes  # all of this seat's randomness (secret)
    format: str = FORMAT  # the journal's (an older one is still resumed: `NOTES_SAVED`)

    def rng(self, label: bytes) -> Callable[[int], bytes]:
        """One of the seat's random streams: the table core's (`b"table"`), the session's."""
        return seeded_rng(hashlib.sha256(b"cuttle seat stream\x00" + label + self.seed).digest())


_HEADER: dict[str, type] = {
    "role": str,
    "name": str,
    "game": str,
    "options": list,
    "seats": int,
    "token": str,
    "address": str,
    "bind": str,
    "port": int,
    "host_identity": bytes,
    "seed": bytes,
}

# Each input's kind and its fields' types (see the module docstring).
_INPUTS: dict[str, tuple[type, ...]] = {
    "join": (str, bytes),  # host: a joiner took its place in the lobby
    "gone": (bytes, str, str),  # host: a joiner's connection ended for good
    "recv": (bytes, dict),  # a message from a connection (the host: whose key; joiner: b"")
    "confirm": (),
    "rematch": (),  # host: our proposal of the next game; joiner: our agreement
    "leave": (str, str),
    "unrelayed": (),  # our leaving, with the host out of reach
    "fault": (int, str, str),
    "play": (str,),  # our player's move
    "say": (str,),  # our player's line to the table, as typed (the core cleans it)
    "at": (float,),  # the time the next input's chat rate is judged on
    "watch": (str, bytes),  # host: a watcher was let in (name, identity)
    "unwatch": (bytes,),  # host: a watcher's connection ended
    "hear": (bytes, dict),  # host taking watchers' lines: a watcher's post (whose key; wire)
    "began": (int,),  # our driver started game N's session (on the table's `Started`)
    "fed": (int,),  # our driver handed the session the game message at log index I
    "verdict": (bool,),  # the table ended naming another seat: was its step overdue here
    "saved": (int,),  # game N's record is on disk (or not wanted): nothing to save again
    "unsaved": (int,),  # game N's record could not be written: the journal is kept for it
}


def host_table_path(data_dir: Path, port: int) -> Path:
    return journal_dir(data_dir) / f"table-host-{port}.journal"


def join_table_path(data_dir: Path, address: str) -> Path:
    """Where the journal of a seat taken at the table hosted at `address` lives."""
    if is_invitation(address):
        key = Invitation.decode(address).fingerprint.hex()
        return journal_dir(data_dir) / f"table-join-{key}.journal"
    host, port = parse_address(address)
    return journal_dir(data_dir) / f"table-join-{_safe(host)}-{port}.journal"


def find_host_table(data_dir: Path, port: int) -> Path | None:
    """The journal of a table we hosted on `port` (0: on any port, the latest that no live
    process plays: another ``cuttle host --port 0`` on the same data folder hosts its own)."""
    if port:
        path = host_table_path(data_dir, port)
        return path if path.exists() else None
    found = sorted(
        journal_dir(data_dir).glob("table-host-*.journal"), key=lambda p: p.stat().st_mtime
    )
    return next((path for path in reversed(found) if not in_use(path)), None)


def unfinished_tables(data_dir: Path) -> list[TableHeader]:
    """The headers of the seats left unfinished under `data_dir` (a process killed, or a
    player who left to come back), that no live process plays; damaged journals are left
    for the command that resumes them to report."""
    found = []
    for path in sorted(journal_dir(data_dir).glob("table-*.journal")):
        if in_use(path):
            continue
        try:
            found.append(read_table_journal(path)[0])
        except JournalDamaged:
            continue
    return found


class SeatJournal:
    """Keeps one seat's journal at `path`: inputs are noted as the core takes them, and
    written (fsynced) before what the core hands over is sent (`sync`), once it is seated."""

    def __init__(self, path: Path, header: TableHeader) -> None:
        self.path = path
        self.header = header
        self._pending: list[list[Any]] = []
        self._file: Any = None
        self.replaying = False  # a rebuild feeds the core: nothing is noted again
        self.resumed: Resumed | None = None  # set by `rebuild`
        self.core: TableHost | TableGuest | None = None  # the core that notes here
        self.live_clock: Callable[[], float] = time.monotonic  # what `clock` reads, live
        self._at: float | None = None  # replaying: the time journaled for the next read
        self._done = False  # closed or removed: nothing is noted or written again
        self.unsaved: list[int] = []  # games whose record could not be saved: kept here
        claim(path)

    @classmethod
    def new(
        cls,
        path: Path,
        *,
        role: str,
        name: str,
        settings: TableSettings,
        token: str,
        host_identity: bytes,
        address: str = "",
        bind: str = "",
        port: int = 0,
    ) -> SeatJournal:
        """A journal for a new seat (fresh seed); written once the table is seated. A
        joiner's `settings` are what its handshake agreed (the seats come from the host)."""
        seats = settings.seats if role == "host" else 0
        header = TableHeader(
            role, name, settings.game, tuple(settings.options), seats, token, address, bind,
            port, host_identity, new_seed(),
        )  # fmt: skip
        return cls(path, header)

    @property
    def over(self) -> bool:
        """Nothing to resume: the table ended, or it was never seated (nothing written)."""
        return self._file is None or self.core is None or self.core.stage is Stage.ENDED

    def note(self, entry: list[Any]) -> None:
        if not self.replaying and not self._done:
            self._pending.append(entry)

    def played(self, move: str) -> None:
        """Our player's move, noted before anything it makes us post."""
        self.note(["play", move])

    def began(self, number: int) -> None:
        """Our driver starts game `number`'s session (the table's `Started`), before
        anything the session's start makes us post."""
        self.note(["began", number])

    def fed(self, index: int) -> None:
        """Our driver hands the session the game message at log index `index` (a
        `Delivered`), before anything the session's answer makes us post."""
        self.note(["fed", index])

    def clock(self) -> float:
        """The journaled core's clock (it reads it for the chat's rate alone): live, the
        time, noted (`at`) before the input that reads it; replaying, the time noted then.
        So a rebuilt host drops the same flooded lines and relays the same others: its log
        is the one the joiners hold (a different one would convict it of equivocation)."""
        if not self.replaying:
            now = float(self.live_clock())
            self.note(["at", now])
            return now
        at, self._at = self._at, None  # each time is read once, by the input after it
        if at is None:
            raise ValueError("the core read the time, and no time was journaled before")
        return at

    def saved(self, number: int) -> None:
        """Game `number`'s record is on disk (or not wanted): written at once, so that a
        restart never saves it again. A journal that cannot take it (a full disk) is
        left as it is: a restart would then save a second copy, never none."""
        self.note(["saved", number])
        with contextlib.suppress(OSError):
            self.sync(True)

    def not_saved(self, number: int) -> None:
        """Game `number`'s record could not be saved: the journal is kept for it, with
        everything noted written now (the table's end, our verdict on it)."""
        self.unsaved.append(number)
        self.note(["unsaved", number])  # (what tells it in a journal of the older format)
        with contextlib.suppress(OSError):
            self.sync(True)

    @property
    def keeps_game(self) -> bool:
        """The journal is still needed: the table goes on (`over` is False), or a game's
        record could not be saved (the next start saves it from here)."""
        return not self.over or bool(self.unsaved)

    @property
    def unwritten(self) -> bool:
        """Inputs noted and not yet written."""
        return bool(self._pending) and not self.replaying

    def sync(self, seated: bool) -> None:
        """Write what was noted, before the core's next messages leave (nothing before the
        table is seated)."""
        if self.replaying or self._done or not self._pending:
            return
        if not (seated or self._file is not None):
            return
        data = b"".join(_record(entry) for entry in self._pending)
        self._pending = []
        if self._file is None:
            self._create(_record(_header_wire(self.header)) + data)
        else:
            self._file.write(data)
            self._file.flush()
            os.fsync(self._file.fileno())

    def _create(self, data: bytes) -> None:
        private_dir(self.path.parent, "the journal directory")
        temporary = self.path.with_suffix(".tmp")
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()  # a crash's leftover: never write through what is there
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, self.path)
        _fsync_dir(self.path.parent)
        self._append()

    def _append(self) -> None:
        self._file = open(self.path, "ab")  # noqa: SIM115 (kept open for the game)

    def close(self) -> None:
        """This process lets the seat go; the journal (if any) stays for a restart, with
        every input taken (those that made us send nothing were not written yet). What the
        core does after (its connections closing) is not noted: a later write would make
        the file anew, with those inputs alone."""
        self.sync(False)
        self._done, self._pending = True, []
        if self._file is not None:
            self._file.close()
            self._file = None
        release(self.path)

    def remove(self) -> None:
        """The game is over and its record saved (or it never started): no journal, and
        none made again by what the core notes after (a joiner's connection closing)."""
        self._done, self._pending = True, []
        if self._file is not None:
            self._file.close()
            self._file = None
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        release(self.path)


def _header_wire(h: TableHeader) -> dict[str, Any]:
    wire = asdict(h)
    wire["options"] = list(h.options)
    return wire


# --------------------------------------------------------------- journaled cores


class _Noting:
    """What both journaled cores note alike: a player's own acts, and the sync before what
    the core hands over is sent. (Mixed in before the core's class.)"""

    journal: SeatJournal
    log: Any

    def take_outgoing(self) -> list[Any]:
        if self.stage is Stage.ENDED:  # type: ignore[attr-defined]
            self.journal.sync(self.log is not None)  # the end is kept, sent or not
        return super().take_outgoing()  # type: ignore[misc]

    def before_send(self) -> None:
        # Written before anything leaves, not as it is taken: the seat's own game sees an
        # input first (an fsync takes milliseconds, a move about two). An input that makes
        # us send nothing (an entry received, our own coming back) waits for the next send,
        # or the end: a crash then loses only what no peer holds from us, and the `resume`
        # counts fetch it again (SPEC 4.6).
        self.journal.sync(self.log is not None)

    @property
    def unwritten(self) -> bool:
        return self.journal.unwritten

    def confirm(self) -> None:
        super().confirm()  # type: ignore[misc]
        self.journal.note(["confirm"])

    def rematch(self) -> None:
        super().rematch()  # type: ignore[misc]
        self.journal.note(["rematch"])

    def leave(self, code: str = ErrorCode.PEER_QUIT, reason: str = "") -> None:
        self.journal.note(["leave", str(code), reason])
        super().leave(code, reason)  # type: ignore[misc]

    def left_unrelayed(self) -> None:
        self.journal.note(["unrelayed"])
        super().left_unrelayed()  # type: ignore[misc]

    def fault(self, culprit: int, kind: str, detail: str) -> None:
        self.journal.note(["fault", culprit, kind, detail])
        super().fault(culprit, kind, detail)  # type: ignore[misc]

    def say(self, text: str) -> bool:
        # Noted whether it was sent or not: replayed, it reads the same times in turn.
        said = super().say(text)  # type: ignore[misc]
        self.journal.note(["say", text])
        return said


class JournaledHost(_Noting, TableHost):
    """The host's table, noting every input in `journal`."""

    def __init__(
        self,
        journal: SeatJournal,
        player: LocalPlayer,
        settings: TableSettings,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.journal = journal
        journal.core = self
        journal.live_clock = clock
        super().__init__(
            player, settings, random_bytes=journal.header.rng(b"table"), clock=journal.clock
        )

    # An input is noted once the core took it: one it refuses (a joiner's message that is
    # not a post, say, which closes that connection) changes nothing and is not replayed.
    # Whatever the core does meanwhile is its own (no public method is called back).

    def add_joiner(self, name: str, identity: bytes) -> int | None:
        place = super().add_joiner(name, identity)
        self.journal.note(["join", name, identity])
        return place

    def remove_joiner(self, identity: bytes, why: str, kind: str = "left") -> None:
        self.journal.note(["gone", identity, why, kind])
        super().remove_joiner(identity, why, kind)

    def receive(self, identity: bytes, message: Any) -> None:  # type: ignore[override]
        super().receive(identity, message)
        self.journal.note(["recv", identity, message.to_wire()])

    def add_watcher(self, name: str, identity: bytes) -> str | None:
        # A watcher let in puts a `watch` entry in the log: the rebuild must post it too.
        why = super().add_watcher(name, identity)
        if why is None:
            self.journal.note(["watch", name, identity])
        return why

    def hear_watcher(self, identity: bytes, post: Any) -> str | None:
        # A line relayed is a `watcher-chat` entry of ours, one dropped counts to a flood:
        # the rebuild hears it again, on the time noted with it.
        why = super().hear_watcher(identity, post)
        if self.watcher_chat:
            self.journal.note(["hear", identity, post.to_wire()])
        return why

    def remove_watcher(self, identity: bytes) -> None:
        if identity in self._watching:
            self.journal.note(["unwatch", identity])
        super().remove_watcher(identity)


class JournaledGuest(_Noting, TableGuest):
    """A joiner's table, noting every input in `journal`."""

    def __init__(
        self,
        journal: SeatJournal,
        player: LocalPlayer,
        host_identity: bytes,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.journal = journal
        journal.core = self
        journal.live_clock = clock
        h = journal.header
        super().__init__(
            player,
            host_identity,
            game=h.game,
            options=h.options,
            random_bytes=h.rng(b"table"),
            clock=journal.clock,
        )

    def receive(self, message: Any) -> None:  # type: ignore[override]
        super().receive(message)
        self.journal.note(["recv", b"", message.to_wire()])


# ------------------------------------------------------------------- reading


def read_table_journal(path: Path) -> tuple[TableHeader, list[list[Any]]]:
    """The header and inputs of the table journal at `path` (a torn last record, written as
    the process died, is dropped: nothing it caused was sent). Raises `JournalDamaged`."""
    records, _torn = read_records(path)
    header = _parse_header(records[0], path)
    for n, value in enumerate(records[1:]):
        _check_input(value, n, path)
    return header, records[1:]


def _parse_header(value: Any, path: Path) -> TableHeader:
    if isinstance(value, dict) and value.get("format") in OLD_FORMATS:
        raise JournalDamaged(
            path,
            f"written by an older cuttle ({value['format']}), whose rebuild could order the "
            "log otherwise than the other seats hold it",
        )
    if not isinstance(value, dict) or value.get("format") not in (FORMAT, *NOTES_SAVED):
        raise JournalDamaged(path, f"not a {FORMAT} journal")
    fields = {k: v for k, v in value.items() if k != "format"}
    if set(fields) != set(_HEADER):
        raise JournalDamaged(path, "the header does not have the fields of a table journal")
    for name, kind in _HEADER.items():
        if type(fields[name]) is not kind:
            raise JournalDamaged(path, f"the header's {name} is not a {kind.__name__}")
    fields["options"], fields["format"] = tuple(fields["options"]), value["format"]
    header = TableHeader(**fields)
    checks = [
        (header.role in ("host", "joiner"), "role"),
        (len(header.seed) == 32, "seed"),
        (0 <= header.port < 65_536, "port"),
        (all(type(o) is str for o in header.options), "options"),
    ]
    for ok, name in checks:
        if not ok:
            raise JournalDamaged(path, f"the header's {name} is not valid")
    try:
        check_identity_key(header.host_identity)
        TableSettings(header.game, header.options, header.seats or 2)
    except ValueError as e:
        raise JournalDamaged(path, f"the header: {e}") from None
    return header


def _check_input(value: Any, n: int, path: Path) -> None:
    if type(value) is not list or not value or type(value[0]) is not str:
        raise JournalDamaged(path, f"input {n} is not a list with a kind: {value!r:.60}")
    kind, *fields = value
    shape = _INPUTS.get(kind)
    if shape is None:
        raise JournalDamaged(path, f"input {n} is of no known kind: {kind!r:.40}")
    if len(fields) != len(shape) or any(
        type(f) is not t for f, t in zip(fields, shape, strict=True)
    ):
        want = ", ".join(t.__name__ for t in shape) or "nothing"
        raise JournalDamaged(path, f"input {n} ({kind!r}) does not hold {want}: {value!r:.60}")


# ------------------------------------------------------------------- rebuilding


@dataclass
class Resumed:
    """A seat rebuilt from its journal: the table core, and the game if it had started."""

    core: TableHost | TableGuest
    order: Any = None  # `table.seats.SeatOrder`
    names: tuple[str, ...] = ()
    session: GameSession | None = None
    ended: TableEnded | None = None
    code: CodeShown | None = None  # the table code, once every seat revealed
    lost: list[bytes] = field(default_factory=list)  # host: the joiners to wait for again
    # The match's games before `session`, each with its players' names in game seats: the
    # journal replays them too, so the totals a rebuilt seat shows are its own (SPEC 4.6).
    earlier: list[tuple[GameSession, tuple[str, ...]]] = field(default_factory=list)
    saved: set[int] = field(default_factory=set)  # the games whose record was saved
    unsaved: set[int] = field(default_factory=set)  # the games noted `unsaved`

    @property
    def note(self) -> str:
        """Why the last game stopped unfinished, for its record, as the live driver says it
        (`play_at_table`)."""
        if self.ended is None:
            return ""
        return end_note(self.ended, self.core.me) or "the table stopped"


def open_journal(path: Path) -> SeatJournal:
    """Claim the journal at `path` (`JournalInUse` if a live process plays it) and read its
    header (`JournalDamaged`)."""
    header, _ = read_table_journal(path)
    return SeatJournal(path, header)


def rebuild(
    journal: SeatJournal, identity: Ed25519PrivateKey, start_session: StartSession
) -> Resumed:
    """Replay the journal into a fresh core and session (set as `journal.resumed`); what it
    would send is dropped (the `resume` exchange sends what each peer lacks). Raises
    `JournalDamaged` if an input cannot be replayed, naming it."""
    header, inputs = read_table_journal(journal.path)
    player = LocalPlayer(header.name, identity)
    mine = identity.public_key().public_bytes_raw()
    if (header.role == "host") != (header.host_identity == mine):
        raise JournalDamaged(journal.path, "it was written with another identity key")
    journal.replaying = True
    core: TableHost | TableGuest
    if header.role == "host":
        settings = TableSettings(header.game, header.options, header.seats)
        core = JournaledHost(journal, player, settings)
    else:
        core = JournaledGuest(journal, player, header.host_identity)
    seat = Resumed(core)
    said: list[Chat | Muted] = []  # the table's chat, shown again once rebuilt
    asked: list[Rematch] = []  # the next game's proposal and agreements, shown again
    # The table's events for the session (`Started`, another seat's `Delivered`), in order,
    # handed to it only where the journal says the live driver did (`began`, `fed`).
    pending: list[Started | Delivered] = []

    def carry(out: Output) -> None:
        # As the live driver does (`play_at_table`): post every send, report our findings.
        for body in message_bodies(out.sends):
            core.post(body)
        for event in out.events:
            if isinstance(event, Fault):
                core.fault(seat.order.table(event.culprit), event.kind, event.message)

    def take(wanted: Callable[[Started | Delivered], bool], what: str) -> Any:
        # The live driver takes events in order: those it passed over (its session was
        # over, or not yet started) are dropped on the way.
        while pending:
            event = pending.pop(0)
            if wanted(event):
                return event
        raise ValueError(f"the table made no {what} for the session to take")

    def begin(number: int) -> None:
        event = take(lambda e: isinstance(e, Started) and e.number == number, f"game {number}")
        assert core.settings is not None
        if seat.session is not None:  # the last game is over: the next one
            seat.earlier.append((seat.session, seat.names))
        seat.order, seat.names, seat.session = start_session(
            core.settings,
            event,
            header.token,
            identity,
            core.me,
            header.rng(b"session %d" % event.number),
        )
        carry(seat.session.start())

    def feed(index: int) -> None:
        event = take(lambda e: isinstance(e, Delivered) and e.index == index, f"entry {index}")
        if seat.session is None:
            raise ValueError(f"entry {index} was handed to a game that had not started")
        carry(seat.session.receive(seat.order.game(event.seat), event.body))

    def follow() -> None:
        while events := core.take_events():
            for event in events:
                if isinstance(event, Started):
                    asked.clear()
                    pending.append(event)
                elif isinstance(event, Delivered) and event.seat != core.me:
                    pending.append(event)
                elif isinstance(event, TableEnded):
                    seat.ended = event
                elif isinstance(event, CodeShown):
                    seat.code = event
                elif isinstance(event, Chat | Muted):
                    said.append(event)
                elif isinstance(event, Rematch):
                    asked.append(event)

    def replay(entry: list[Any]) -> None:
        kind, *fields = entry
        if kind == "recv":
            message = message_from_wire(fields[1])
            if isinstance(core, TableHost):
                core.receive(fields[0], message)
            else:
                core.receive(message)
        elif kind == "join" and isinstance(core, TableHost):
            core.add_joiner(*fields)
        elif kind == "gone" and isinstance(core, TableHost):
            core.remove_joiner(*fields)
        elif kind == "confirm":
            core.confirm()
        elif kind == "rematch":
            core.rematch()
        elif kind == "leave":
            core.leave(*fields)
        elif kind == "unrelayed":
            core.left_unrelayed()
        elif kind == "fault":
            core.fault(*fields)
        elif kind == "play" and seat.session is not None:
            carry(seat.session.play(fields[0]))
        elif kind == "say":
            core.say(fields[0])
        elif kind == "at":
            journal._at = fields[0]
        elif kind == "began":
            begin(fields[0])
        elif kind == "fed":
            feed(fields[0])
        elif kind == "verdict":
            # The live driver's verdict on the table's end: the same, on its clock's reading.
            ended = seat.ended
            if seat.session is None or ended is None or ended.culprit is None:
                raise ValueError("a verdict with no game stopped by another seat")
            end_verdict(seat.session, seat.order, ended, core.me, fields[0])
        elif kind == "saved":
            # Counted once the game is over (the table ended, or the game finished): the
            # record of a game left to resume is saved again when it ends.
            s = seat.session
            over = s is not None and (s.finished or seat.ended is not None)
            if over and s is not None and s.header.number == fields[0]:
                seat.saved.add(fields[0])
        elif kind == "unsaved":
            seat.unsaved.add(fields[0])
        elif kind == "watch" and isinstance(core, TableHost):
            if core.add_watcher(*fields) is not None:
                raise ValueError("the watcher is not let in again")
        elif kind == "unwatch" and isinstance(core, TableHost):
            core.remove_watcher(fields[0])
        elif kind == "hear" and isinstance(core, TableHost):
            core.watcher_chat = True  # noted only while the table took watchers' lines
            core.hear_watcher(fields[0], message_from_wire(fields[1]))
        else:
            raise ValueError(f"not an input of this {header.role} now")

    for n, entry in enumerate(inputs):
        try:
            replay(entry)
            follow()
        except Exception as e:  # whatever an input breaks, the journal is damaged
            why = f"input {n} ({entry[0]!r}) cannot be replayed: {type(e).__name__}: {e}"
            raise JournalDamaged(journal.path, why) from None
    core.take_outgoing()  # sent before the crash, or sent again on `resume`
    core._events.extend(said)  # what was said at the table stays on the screen
    # What the live driver had not yet taken: the resumed driver takes it (and notes it).
    core._events.extend(pending)
    if seat.code is not None and core.stage is Stage.CONFIRM and core.me in core.waiting_for():
        # Killed before our player confirmed the code: it is shown (asked) again.
        core._events.append(seat.code)
    if core.stage is Stage.BETWEEN:
        # Killed between games: who proposed the next one and who agreed, as before.
        core._events.extend(asked)
    journal.replaying, journal._at = False, None
    if header.format in NOTES_SAVED:  # every game's record was saved as it ended, but...
        games = {s.header.number for s, _ in seat.earlier}
        games |= {seat.session.header.number} if seat.session is not None else set()
        seat.saved |= games - seat.unsaved  # ...those a later cuttle could not save
    if journal.path.exists():
        journal._append()
    if isinstance(core, TableHost) and core.stage is not Stage.LOBBY:
        seat.lost = [s.identity for s in core.seats[1:]]
    if isinstance(core, TableHost):
        for watcher in list(core._watching):  # their connections died with the process
            core.remove_watcher(watcher)  # (noted: a new input of this process)
    journal.resumed = seat
    return seat


__all__ = [
    "FORMAT",
    "JournaledGuest",
    "JournaledHost",
    "Resumed",
    "SeatJournal",
    "TableHeader",
    "find_host_table",
    "host_table_path",
    "join_table_path",
    "open_journal",
    "read_table_journal",
    "rebuild",
    "unfinished_tables",
]
