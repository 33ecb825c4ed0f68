"""Bot games with every link delayed: seconds and round trips of each phase.

Run from the repository root: python -m benchmarks.bench_latency [--games N] [--delay MS]

Every seat plays in this one process (so on one core: the 0 ms row is the compute, every
seat's together); each joiner dials the host through a proxy that delays every chunk by
the one-way delay, each way (25 ms: a 50 ms round trip), in order, the delays of
successive chunks running at the same time. The proxy runs in a thread of its own, so it
forwards on time while the seats compute. Two seats play Cuttle at the 2-seat table; four
and six play L'Unisson (``play.game``), each with greedy bots (Cuttle's random bot, whose
games are longer and draw more).

Phases, from the seats' own calls (``GameSession`` and its ``DeckPeer``, watched by
wrapping their methods here; the product code is unchanged):
- seating: from the joiners' dial to the last seat starting its session (handshakes,
  lobby, the table's commitments, reveals and confirmations);
- deal: from the first seat starting its session to the last seat dealt;
- private draw: a ``Draw`` to one hand, at the drawer, from its start to its end there;
- move: from the mover's decision to the move applied at the last seat (its deck
  operations included); a simple move waits for no other seat's deck step (its cards
  shown or taken by the mover: no draw, no card turned from the pile);
- end: from the first seat that applied the last move to the last seat done (L'Unisson's
  hands shown, the audit);
- game: from the dial to the last seat done (the audit passed);
- where a game's round trips go: what each deck operation added, from the end of the one
  before it at the last seat to its own end there (the moves' relays count in the
  operations they asked for); they add up to the game after the seating. Per game, at the
  delay.

Round trips two ways: "RTT (time)" is the phase's seconds with delay minus at 0 ms, over
the round trip; "RTT (hops)" counts the one-way hops of the longest chain of messages
through the host, halved: the proxy keeps a Lamport clock per seat (a chunk a seat sends
is one hop more than the most any chunk it had received had; a host→joiner or
joiner→host message is one hop, joiner→joiner through the host two). Seats that
receive concurrent messages may be given a hop too many, so it is an upper bound (the
messages of one deck round cross: every seat sends its own at once, SPEC 2.7). The TCP
handshake of the dial is not delayed (add one round trip to seating and game).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import math
import os
import statistics
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import trio
from cuttle_client.progress import game_line

from cuttle_net.deck import Draw, OperationComplete, RandomPick, RevealFromDeck, SwapHands
from cuttle_net.deck.state import DeckState
from cuttle_net.games.cuttle.bots import make_bot as cuttle_bot
from cuttle_net.games.unisson.bots import make_bot as unisson_bot
from cuttle_net.session import Dealt, GameSession, MovePlayed

from .common import Player, cuttle_game, machine_line, table_game

HOST = "host"


class DelayProxy:
    """Loopback proxies in front of the host, one for each joiner (named), in a thread of
    their own: every chunk is forwarded `delay` seconds after it was read, in order. Keeps
    `clock[name]`: the hops of the longest chain of chunks that reached that seat."""

    def __init__(self, delay: float, target: int, joiners: list[str]) -> None:
        self.delay, self.target = delay, target
        self.clock: dict[str, int] = defaultdict(int)
        self.ports: dict[str, int] = {}
        self._started = threading.Event()
        self._token: trio.lowlevel.TrioToken | None = None
        self._scope: trio.CancelScope | None = None
        self._thread = threading.Thread(target=trio.run, args=(self._main, joiners), daemon=True)
        self._thread.start()
        self._started.wait()

    def close(self) -> None:
        assert self._token is not None and self._scope is not None
        with contextlib.suppress(trio.RunFinishedError):
            trio.from_thread.run_sync(self._scope.cancel, trio_token=self._token)
        self._thread.join()

    async def _main(self, joiners: list[str]) -> None:
        self._token = trio.lowlevel.current_trio_token()
        async with trio.open_nursery() as nursery:
            self._scope = nursery.cancel_scope
            for name in joiners:
                (listener,) = await trio.open_tcp_listeners(0, host="127.0.0.1")
                self.ports[name] = listener.socket.getsockname()[1]
                handle = functools.partial(self._handle, name)
                nursery.start_soon(trio.serve_listeners, handle, [listener])
            self._started.set()

    async def _handle(self, name: str, client: trio.SocketStream) -> None:
        server = await trio.open_tcp_stream("127.0.0.1", self.target)
        async with client, server, trio.open_nursery() as nursery:
            nursery.start_soon(self._pump, client, server, name, HOST, nursery.cancel_scope)
            nursery.start_soon(self._pump, server, client, HOST, name, nursery.cancel_scope)

    async def _pump(
        self, src: trio.SocketStream, dst: trio.SocketStream, sender: str, receiver: str,
        scope: trio.CancelScope,
    ) -> None:  # fmt: skip
        send, receive = trio.open_memory_channel[Any](math.inf)

        async def read() -> None:
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                while data := await src.receive_some(1 << 16):
                    hop = self.clock[sender] + 1
                    send.send_nowait((trio.current_time() + self.delay, data, hop))
            send.send_nowait(None)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(read)
            try:
                async for item in receive:
                    if item is None:
                        await dst.send_eof()
                        return
                    due, data, hop = item
                    await trio.sleep_until(due)  # chunks read later wait at the same time
                    # Before the write: the seat may act on the data before we run again.
                    self.clock[receiver] = max(self.clock[receiver], hop)
                    await dst.send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                scope.cancel()  # one side is gone: so is the link


@dataclass
class Mark:
    """Something a seat did, when (monotonic seconds) and at which hop of its clock."""

    seat: str
    number: int  # its seat number at the table
    what: str
    at: float
    hop: int
    detail: Any = None


@dataclass
class Probe:
    """Wraps the methods of `GameSession` and `DeckState` for the run, to mark each seat's
    start, decisions, moves applied, deck operations begun and ended, and the end."""

    names: dict[bytes, str] = field(default_factory=dict)  # identity key -> seat name
    proxy: DelayProxy | None = None
    marks: list[Mark] = field(default_factory=list)
    moves: dict[int, list[int]] = field(default_factory=dict)  # session id -> [moves applied]

    def mark(self, identity: bytes, number: int, what: str, detail: Any = None) -> None:
        name = self.names[identity]
        hop = self.proxy.clock[name] if self.proxy is not None else 0
        self.marks.append(Mark(name, number, what, time.monotonic(), hop, detail))

    @contextlib.contextmanager
    def installed(self) -> Iterator[Probe]:
        probe = self
        originals = {
            (GameSession, n): getattr(GameSession, n)
            for n in ("start", "play", "receive_move", "receive_deck")
        }
        originals |= {(DeckState, n): getattr(DeckState, n) for n in ("begin", "receive")}

        def session_call(name: str) -> Callable[..., Any]:
            inner = originals[(GameSession, name)]

            def call(self: GameSession, *args: Any) -> Any:
                me = self.header.keys[self.seat]
                moves = probe.moves.setdefault(id(self), [0])  # moves applied so far
                if name == "start":
                    probe.mark(me, self.seat, "start")
                elif name == "play":
                    probe.mark(me, self.seat, "decide", moves[0])
                out = inner(self, *args)
                for event in out.events:
                    if isinstance(event, Dealt):
                        probe.mark(me, self.seat, "dealt")
                    elif isinstance(event, MovePlayed):
                        probe.mark(me, self.seat, "moved", moves[0])
                        moves[0] += 1
                if self.finished and not getattr(self, "_probe_done", False):
                    self._probe_done = True  # type: ignore[attr-defined]
                    probe.mark(me, self.seat, "done")
                return out

            return call

        def deck_call(name: str) -> Callable[..., Any]:
            inner = originals[(DeckState, name)]

            def call(self: DeckState, *args: Any, **kwargs: Any) -> Any:
                me = self.public_keys[self.me].public_bytes_raw() if self.me is not None else b""
                if name == "begin" and me:
                    probe.mark(me, self.me, "op", args[0])
                out = inner(self, *args, **kwargs)
                for event in out.events if me else ():
                    if isinstance(event, OperationComplete):
                        probe.mark(me, self.me, "op done", event.op)
                return out

            return call

        for (cls, name), _ in originals.items():
            wrap = session_call if cls is GameSession else deck_call
            setattr(cls, name, wrap(name))
        try:
            yield self
        finally:
            for (cls, name), method in originals.items():
                setattr(cls, name, method)


ASKING = (Draw, RevealFromDeck, RandomPick, SwapHands)
"""Deck operations that wait for a step of another seat than the mover (shares, salts)."""


def asking_moves(marks: list[Mark]) -> set[int]:
    """The moves (their numbers) whose deck operations wait for another seat's step."""
    asking, played = set(), {}  # played: seat -> moves it has applied so far
    for m in marks:
        if m.what == "moved":
            played[m.seat] = m.detail + 1
        elif m.what == "op" and isinstance(m.detail, ASKING):
            asking.add(played.get(m.seat, 0))
    return asking


@dataclass
class Phase:
    seconds: float
    hops: int


def phases(marks: list[Mark], began: float) -> dict[str, list[Phase]]:
    """Each phase's seconds and hops from the seats' marks (`began`: the dial)."""

    def of(what: str) -> list[Mark]:
        return [m for m in marks if m.what == what]

    out: dict[str, list[Phase]] = defaultdict(list)
    starts, dealt, done = of("start"), of("dealt"), of("done")
    last_start = max(starts, key=lambda m: m.at)
    out["seating"].append(Phase(last_start.at - began, max(m.hop for m in starts)))
    if dealt:
        first = min(starts, key=lambda m: m.at)
        last = max(dealt, key=lambda m: m.at)
        out["deal"].append(Phase(last.at - first.at, max(m.hop for m in dealt) - first.hop))
    # A move: from its decision to the last seat that applied it (the n-th move everywhere).
    moved: dict[int, list[Mark]] = defaultdict(list)
    for m in of("moved"):
        moved[m.detail].append(m)
    asking = asking_moves(marks)
    for d in of("decide"):
        applied = moved.get(d.detail, [])
        if applied:
            last = max(applied, key=lambda m: m.at)
            phase = Phase(last.at - d.at, max(m.hop for m in applied) - d.hop)
            out["move"].append(phase)
            if d.detail not in asking:
                out["simple move"].append(phase)
    # A private draw, at the drawer: its deck operation from begin to end there.
    begun: dict[str, Mark] = {}
    for m in marks:
        if m.what == "op":
            begun[m.seat] = m
        elif m.what == "op done" and isinstance(m.detail, Draw) and not m.detail.public:
            b = begun.get(m.seat)
            if b is not None and b.detail == m.detail and m.number == m.detail.to_seat:
                out["private draw"].append(Phase(m.at - b.at, m.hop - b.hop))
    if done and moved:
        # The end: from the first seat that applied the last move to the last seat done
        # (the game's final deck operations, L'Unisson's hands shown, then the audit).
        applied = moved[max(moved)]
        start = min(applied, key=lambda m: m.at)
        end = max(done, key=lambda m: m.at)
        hops = max(m.hop for m in done) - min(m.hop for m in applied)
        out["end"].append(Phase(end.at - start.at, hops))
    if done:
        out["game"].append(Phase(max(m.at for m in done) - began, max(m.hop for m in done)))
    out["moves a game"].append(Phase(len(of("decide")), 0))
    for kind, spans in deck_operations(marks).items():
        out[f"op {kind}"].extend(spans)
    return out


def op_kind(op: Any) -> str:
    name = op.to_wire()[0]
    return f"{name} ({'public' if op.public else 'private'})" if isinstance(op, Draw) else name


def deck_operations(marks: list[Mark]) -> dict[str, list[Phase]]:
    """What each deck operation of the game added: from the last seat's end of the one
    before it (the deal: from the first seat's begin) to its last seat's end. Every seat
    runs the same operations in the same order, so these add up to the game after the
    seating; a move's relay and its mover's thinking count in the operation it asked for."""
    runs: dict[str, list[tuple[Mark, Mark]]] = defaultdict(list)
    begun: dict[str, Mark] = {}
    for m in marks:
        if m.what == "op":
            begun[m.seat] = m
        elif m.what == "op done" and m.seat in begun:
            runs[m.seat].append((begun.pop(m.seat), m))
    out: dict[str, list[Phase]] = defaultdict(list)
    since: tuple[float, int] | None = None  # when and at which hop the one before ended
    for spans in zip(*runs.values(), strict=False):
        if since is None:
            first = min((b for b, _ in spans), key=lambda m: m.at)
            since = first.at, min(b.hop for b, _ in spans)
        last = max((d for _, d in spans), key=lambda m: m.at)
        hop = max(d.hop for _, d in spans)
        out[op_kind(spans[0][0].detail)].append(Phase(last.at - since[0], hop - since[1]))
        since = last.at, hop
    return out


def play(seats: int, delay: float) -> dict[str, list[Phase]]:
    """One game at `seats` seats, every joiner `delay` seconds away each way."""
    names = [HOST] + [f"joiner{i}" for i in range(1, seats)]
    if seats == 2:
        players = [Player(n, cuttle_bot("random")) for n in names]
    else:
        players = [Player(n, unisson_bot("greedy")) for n in names]
    probe = Probe({p.identity: p.name for p in players})
    began = 0.0

    def listening(listener: Any) -> None:
        nonlocal began
        probe.proxy = DelayProxy(delay, listener.address[1], names[1:])
        began = time.monotonic()

    def address_of(player: Player, at: tuple[str, int]) -> str:
        assert probe.proxy is not None
        return f"127.0.0.1:{probe.proxy.ports[player.name]}"

    async def dial(at: tuple[str, int]) -> trio.abc.Stream:
        assert probe.proxy is not None
        return await trio.open_tcp_stream("127.0.0.1", probe.proxy.ports[names[1]])

    with probe.installed():
        try:
            if seats == 2:
                trio.run(functools.partial(
                    cuttle_game, *players, dial=dial, listening=listening))  # fmt: skip
            else:
                rules = "one-deck" if seats <= 4 else "two-decks"
                games = trio.run(functools.partial(
                    table_game, players, "unisson", rules, address_of=address_of,
                    listening=listening))  # fmt: skip
                bad = [game_line(g) for g in games if not g.clean]
                if bad:
                    raise RuntimeError(f"a game did not end cleanly: {bad}")
        finally:
            if probe.proxy is not None:
                probe.proxy.close()
    return phases(probe.marks, began)


ROWS = ("seating", "deal", "private draw", "move", "simple move", "end", "game")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--delay", type=float, default=25.0, help="one-way delay, ms")
    parser.add_argument("--seats", type=int, nargs="+", default=[2, 4, 6])
    args = parser.parse_args()
    sys.setswitchinterval(0.001)  # the proxy's thread gets the interpreter within 1 ms
    rtt = 2 * args.delay / 1000
    print(machine_line())
    print(f"{args.games} games at each size and delay; one-way delay {args.delay:g} ms "
          f"(RTT {rtt * 1000:g} ms) against 0 ms; medians")  # fmt: skip
    for seats in args.seats:
        runs: dict[float, dict[str, list[Phase]]] = {0.0: defaultdict(list), rtt: defaultdict(list)}
        for _ in range(args.games):  # the two delays alternate: the same load for both
            for r in runs:
                for row, found in play(seats, r / 2).items():
                    runs[r][row].extend(found)
        game = (
            "Cuttle at the 2-seat table, random bots"
            if seats == 2
            else "L'Unisson table, greedy bots"
        )
        moves = statistics.median(p.seconds for p in runs[rtt]["moves a game"])
        print(f"\n{seats} seats ({game}, about {moves:.0f} moves a game), "
              f"load {os.getloadavg()[0]:.1f}")  # fmt: skip
        print(f"  {'phase':<13} {'0 ms: s':>9} {'RTT: s':>9} {'over, s':>9} "
              f"{'RTT (time)':>10} {'RTT (hops)':>10} {'n':>5}")  # fmt: skip
        for row in ROWS:
            fast, slow = runs[0.0][row], runs[rtt][row]
            if not fast or not slow:
                continue
            a = statistics.median(p.seconds for p in fast)
            b = statistics.median(p.seconds for p in slow)
            hops = statistics.median(p.hops for p in slow)
            print(f"  {row:<13} {a:9.3f} {b:9.3f} {b - a:9.3f} {(b - a) / rtt:10.1f} "
                  f"{hops / 2:10.1f} {len(slow):5}")  # fmt: skip
        print(f"  where a game's round trips go after the seating, at {rtt * 1000:g} ms "
              "(hops / 2), a game:")  # fmt: skip
        kinds = sorted(k for k in runs[rtt] if k.startswith("op "))
        for kind in kinds:
            spans = runs[rtt][kind]
            each = statistics.median(p.hops for p in spans) / 2
            total = sum(p.hops for p in spans) / 2 / args.games
            count = len(spans) / args.games
            print(f"    {kind[3:]:<22} {count:5.1f} x {each:4.1f} RTT = {total:6.1f} RTT")


if __name__ == "__main__":
    main()
