"""Set-up the benchmarks share: the machine line, and bot games in this one process over
real loopback TCP (two-player Cuttle over the two-party connection, and a table of seats).

Run the benchmarks that use it as modules from the repository root
(``python -m benchmarks.bench_net``).
"""

from __future__ import annotations

import os
import platform
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cuttle_protocol.connection import LocalPlayer, Rules
from cuttle_protocol.netgame import play_match
from cuttle_protocol.state import Role
from cuttle_protocol.table import TableSettings
from cuttle_protocol.tablegame import TableGame, play_at_table
from cuttle_protocol.trio_peer import Listener, open_listener, open_peer
from cuttle_protocol.trio_table import host_table, join_table


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


async def two_party_game(
    host: Player,
    joiner: Player,
    *,
    rules: str = "classic",
    dial: Dial = tcp_dial,
    listening: Callable[[Listener], None] = lambda listener: None,
    connected: Callable[[], None] = lambda: None,
) -> None:
    """One game of Cuttle between two bots over loopback TCP (``netgame.play_match``):
    ``listening`` is told the host's listener before the joiner dials it with ``dial``;
    ``connected`` is called once the joiner's handshake is done."""

    async def serve(listener: Listener) -> None:
        async with listener.accept(LocalPlayer(host.name, host.key), Rules(rules)) as peer:
            await play_match(peer, host.key, bot=host.bot, on_event=host.on_event)

    async with open_listener(0, "127.0.0.1") as listener, trio.open_nursery() as nursery:
        nursery.start_soon(serve, listener)
        listening(listener)
        stream = await dial(listener.address)
        async with open_peer(stream, Role.JOINER, LocalPlayer(joiner.name, joiner.key)) as peer:
            connected()
            await play_match(peer, joiner.key, bot=joiner.bot, on_event=joiner.on_event)


async def table_game(
    players: list[Player],
    game: str,
    rules: str,
    *,
    address_of: Callable[[Player, tuple[str, int]], str] = lambda p, at: f"{at[0]}:{at[1]}",
    listening: Callable[[Listener], None] = lambda listener: None,
) -> list[TableGame]:
    """One game at a table of ``players`` in this process, ``players[0]`` hosting and the
    others joining at once (``tablegame.play_at_table``, no record saved); each seat's
    ``TableGame``, in the order of ``players``. ``address_of`` gives the address a joiner
    dials, from the host's listening address (a proxy's in front of it, say)."""
    results: dict[int, TableGame] = {}
    settings = TableSettings(game, (rules,), len(players))

    async def sit(i: int, table: Any) -> None:
        p = players[i]
        results[i] = await play_at_table(
            table, p.key, rules, choose=lambda view: p.bot.choose(view, p.rng),
            watch=p.on_event, save=False,
        )  # fmt: skip

    async def host(listener: Listener) -> None:
        me = LocalPlayer(players[0].name, players[0].key)
        async with host_table(listener, me, settings) as table:
            await sit(0, table)

    async def join(i: int, at: tuple[str, int]) -> None:
        me = LocalPlayer(players[i].name, players[i].key)
        async with join_table(address_of(players[i], at), me) as table:
            await sit(i, table)

    async with open_listener(0, "127.0.0.1") as listener, trio.open_nursery() as nursery:
        nursery.start_soon(host, listener)
        listening(listener)
        for i in range(1, len(players)):
            nursery.start_soon(join, i, listener.address)
    return [results[i] for i in range(len(players))]
