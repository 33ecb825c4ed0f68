"""Set-up the benchmarks share: the machine line, and bot games at a table of seats in this
one process over real loopback TCP (two-player Cuttle is the 2-seat table).

Run the benchmarks that use it as modules from the repository root
(``python -m benchmarks.bench_net``).
"""

from __future__ import annotations

import contextlib
import os
import platform
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cuttle_protocol.play import TableGame, bot_decision, play_at_table
from cuttle_protocol.shells import (
    TABLE_CAPS,
    Listener,
    host_table,
    join_table,
    open_listener,
    open_peer,
)
from cuttle_protocol.store import (
    JournaledGuest,
    JournaledHost,
    SeatJournal,
    host_table_path,
    join_table_path,
)
from cuttle_protocol.table import TableSettings
from cuttle_protocol.wire import LocalPlayer, Role


def machine_line() -> str:
    """The processor, cores, Python and the load average now: say it with every figure."""
    return (
        f"machine: {platform.processor() or platform.machine()}, nproc {os.cpu_count()}, "
        f"Python {platform.python_version()}, load {os.getloadavg()[0]:.1f}"
    )


@dataclass
class Player:
    """One seat of a benchmark game: its name, key, bot and event hook."""

    name: str
    bot: Any
    on_event: Callable[[object], None] = lambda event: None
    key: Ed25519PrivateKey = field(default_factory=Ed25519PrivateKey.generate)
    rng: random.Random = field(default_factory=random.Random)

    @property
    def identity(self) -> bytes:
        return self.key.public_key().public_bytes_raw()


Dial = Callable[[tuple[str, int]], Awaitable[trio.abc.Stream]]
"""Opens the joiner's stream to the host's (address, port): the plain TCP dial by default,
a benchmark's wrapper (counting bytes, a delaying proxy) otherwise."""


async def tcp_dial(address: tuple[str, int]) -> trio.abc.Stream:
    return await trio.open_tcp_stream(*address)


async def table_game(
    players: list[Player],
    game: str,
    rules: str,
    *,
    address_of: Callable[[Player, tuple[str, int]], str] = lambda p, at: f"{at[0]}:{at[1]}",
    listening: Callable[[Listener], None] = lambda listener: None,
    dial: Dial | None = None,
    connected: Callable[[], None] = lambda: None,
    journals: Path | None = None,
) -> list[TableGame]:
    """One game at a table of ``players`` in this process, ``players[0]`` hosting and the
    others joining at once (``play.play_at_table``, no record saved); each seat's
    ``TableGame``, in the order of ``players``. ``address_of`` gives the address a joiner
    dials, from the host's listening address (a proxy's in front of it, say); or ``dial``
    opens its first stream (the others join through it: two seats), and ``connected`` is
    called once the handshake is done. ``journals``: every seat keeps its crash journal
    (SPEC 4.6) in a folder of its own there, as ``cuttle host`` and ``cuttle join`` do (each
    removed after the game)."""
    results: dict[int, TableGame] = {}
    settings = TableSettings(game, (rules,), len(players))
    kept: dict[int, SeatJournal] = {}

    def journal(i: int, path: Callable[[Path], Path], **how: Any) -> SeatJournal | None:
        if journals is None:
            return None
        kept[i] = SeatJournal.new(
            path(journals / f"seat{i}"), role="host" if i == 0 else "joiner",
            name=players[i].name, settings=settings, token=rules,
            host_identity=players[0].identity, **how,
        )  # fmt: skip
        return kept[i]

    async def sit(i: int, table: Any) -> None:
        # The bots decide in a worker thread, as `cuttle`'s headless bots do: decided on the
        # loop, the two seats of one process keep it busy from the deal to the end (a message
        # is always ready on loopback), and on a loaded machine the kernel then slices it
        # like any CPU hog: the move latency measured tripled (benchmarks/README.md, bench_net).
        p = players[i]
        results[i] = await play_at_table(
            table, p.key, rules, choose=lambda view: bot_decision(p.bot, view, p.rng),
            watch=p.on_event, save=False, journal=kept.get(i),
        )  # fmt: skip

    async def host(listener: Listener) -> None:
        me = LocalPlayer(players[0].name, players[0].key)
        port = listener.address[1]
        kept_ = journal(0, lambda d: host_table_path(d, port), port=port)
        core = None if kept_ is None else JournaledHost(kept_, me, settings)
        async with host_table(listener, me, settings, core=core) as table:
            await sit(0, table)

    async def join(i: int, at: tuple[str, int]) -> None:
        me = LocalPlayer(players[i].name, players[i].key)
        peer = None
        async with contextlib.AsyncExitStack() as stack:
            if dial is not None:
                stream = await dial(at)
                peer = await stack.enter_async_context(
                    open_peer(stream, Role.JOINER, me, caps=TABLE_CAPS)
                )
                connected()
            address = address_of(players[i], at)
            kept_ = journal(i, lambda d: join_table_path(d, address), address=address)
            new_core = None
            if kept_ is not None:
                new_core = lambda info: JournaledGuest(kept_, me, info.peer_identity)  # noqa: E731
            async with join_table(address, me, peer=peer, new_core=new_core) as table:
                await sit(i, table)

    async with open_listener(0, "127.0.0.1") as listener, trio.open_nursery() as nursery:
        nursery.start_soon(host, listener)
        listening(listener)
        for i in range(1, len(players)):
            nursery.start_soon(join, i, listener.address)
    for each in kept.values():
        each.remove()
    return [results[i] for i in range(len(players))]


async def cuttle_game(host: Player, joiner: Player, *, rules: str = "classic", **how: Any) -> None:
    """One game of Cuttle between two bots at the 2-seat table (`table_game`'s options)."""
    await table_game([host, joiner], "cuttle", rules, **how)
