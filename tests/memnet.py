"""An in-memory network for the trio shells, so that their timing rules run on trio's mock
clock (`autojump_clock`): real sockets wait on the kernel, which a mock clock cannot see,
so it would jump past every timeout while bytes are still in flight.

The `memory_net` fixture swaps the two places where `shells.peer` meets TCP (`dial`, which
connects, and `_listening_sockets`, which listens), and trio's own `open_tcp_listeners`
and `open_tcp_stream` (a test's proxies), for this network: `open_listener`, `connect`,
`host_table` and `join_table` then run unchanged over memory streams. Streams
buffer without bound (`trio.testing.memory_stream_pair`): a test of back-pressure (a peer
that stops reading) stays on loopback TCP.

    async def test_x(memory_net: MemoryNet, autojump_clock) -> None:
        async with open_listener(0, "127.0.0.1") as listener: ...      # a memory listener
        stream = await memory_net.open_stream(*listener.address, source="127.0.0.2")

`autojump_clock` must be an argument of the test itself: pytest-trio takes the clock only
from those, not from `usefixtures`. A test whose code waits on a thread (a two-player bot
thinks in `trio.to_thread`) cannot use it: the clock would jump while the thread works.
Nor can a test poll for a point mid-game with `trio.sleep`: the clock does not move while
the game runs on, so the poll wakes only once it is over (`count_game.on_log_length`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import pytest
import trio
import trio.testing
from cuttle_protocol.shells import Attempt, Unreachable
from cuttle_protocol.shells import peer as trio_peer
from cuttle_protocol.shells.dial import REFUSED
from cuttle_protocol.wire import format_address


@dataclass(frozen=True)
class _Name:
    """What the shells and tests ask a socket: the address at either end (`getsockname`,
    `getpeername`), and `close` at once, without a checkpoint (a process that vanishes)."""

    address: tuple[str, int]
    stream: trio.StapledStream | None = None

    def getsockname(self) -> tuple[str, int]:
        return self.address

    def getpeername(self) -> tuple[str, int]:
        return self.address

    def write_now(self, data: bytes) -> None:
        """Queue `data` without a checkpoint (`os.write` on a real socket); it reaches the
        other end at our next send or `close`."""
        assert self.stream is not None
        self.stream.send_stream._outgoing.put(data)  # no public way without a checkpoint

    def close(self) -> None:
        assert self.stream is not None
        self.stream.send_stream.close()
        self.stream.receive_stream.close()


class MemoryListener(trio.abc.Listener[trio.abc.Stream]):
    """A listening "socket" at (host, port): `accept` gives the server end of each stream
    a client opened to it."""

    def __init__(self, net: MemoryNet, address: tuple[str, int]) -> None:
        self._net = net
        self.socket = _Name(address)
        self._in, self._out = trio.open_memory_channel[trio.abc.Stream](64)

    async def accept(self) -> trio.abc.Stream:
        return await self._out.receive()

    async def aclose(self) -> None:
        self._net._listeners.pop(self.socket.address, None)
        self._in.close()
        self._out.close()
        await trio.lowlevel.checkpoint()


class MemoryNet:
    """Hosts and ports in a dict: a connection to an address nobody listens on is refused."""

    def __init__(self) -> None:
        self._listeners: dict[tuple[str, int], MemoryListener] = {}
        self._ports = itertools.count(40_000)

    async def listening_sockets(self, port: int, host: str) -> list[MemoryListener]:
        host = "127.0.0.1" if host in ("0.0.0.0", "::") else host
        address = (host, port or next(self._ports))
        if address in self._listeners:
            raise OSError(98, f"address already in use: {format_address(*address)}")
        listener = MemoryListener(self, address)
        self._listeners[address] = listener
        await trio.lowlevel.checkpoint()
        return [listener]

    async def open_stream(
        self, host: str, port: int, *, source: str = "127.0.0.1"
    ) -> trio.abc.Stream:
        """A client's stream to (host, port) from `source`; ConnectionRefusedError if
        nobody listens there."""
        await trio.lowlevel.checkpoint()
        listener = self._listeners.get((host, port))
        if listener is None:
            raise ConnectionRefusedError(111, "connection refused")
        client, server = trio.testing.memory_stream_pair()
        client.socket = _Name((host, port), client)  # type: ignore[attr-defined]
        server.socket = _Name((source, next(self._ports)), server)  # type: ignore[attr-defined]
        listener._in.send_nowait(server)
        return client

    async def open_tcp_listeners(self, port: int, *, host: str = "0.0.0.0", **_) -> list:
        """`trio.open_tcp_listeners` on this network (a test's own proxy listens so)."""
        return await self.listening_sockets(port, host)

    async def open_tcp_stream(self, host: str, port: int, **_) -> trio.abc.Stream:
        """`trio.open_tcp_stream` on this network."""
        return await self.open_stream(host, port)

    async def dial(
        self, targets: Sequence[tuple[str, int]], timeout: float
    ) -> tuple[trio.abc.Stream, str]:
        """`dial.dial` on this network: the first target listened on, else refused."""
        attempts = []
        for host, port in targets:
            try:
                return await self.open_stream(host, port), format_address(host, port)
            except ConnectionRefusedError:
                attempts.append(Attempt(format_address(host, port), REFUSED))
        raise Unreachable(attempts)


@pytest.fixture
def memory_net(monkeypatch: pytest.MonkeyPatch) -> Iterator[MemoryNet]:
    """`open_listener` and `connect` (and so the table shells) on an in-memory network."""
    net = MemoryNet()
    monkeypatch.setattr(trio_peer, "_listening_sockets", net.listening_sockets)
    monkeypatch.setattr(trio_peer, "dial", net.dial)
    # A test's own proxies and raw clients (trio.serve_listeners takes any listener).
    monkeypatch.setattr(trio, "open_tcp_listeners", net.open_tcp_listeners)
    monkeypatch.setattr(trio, "open_tcp_stream", net.open_tcp_stream)
    yield net
