"""Hostile connections and a link-cutting proxy on loopback, for a real ``cuttle host``
(shared by test_hostile_host and benchmarks/bench_host.py)."""

from __future__ import annotations

import contextlib
import os
import time

import trio
from cuttle_protocol.wire import FrameDecoder, message_from_wire, unpack

KINDS = ("zeros", "http", "garbage", "endless", "hang-up", "silent")


async def hostile(port: int, source: str, kind: str, release: trio.Event, net=None) -> list[object]:
    """One hostile connection of ``kind`` from ``source`` (over loopback, or the in-memory
    network ``net`` of tests/memnet.py); the plaintext messages the host sent back.  A
    ``silent`` one says nothing until ``release`` is set."""
    if net is not None:
        stream = await net.open_stream("127.0.0.1", port, source=source)
    else:
        sock = trio.socket.socket()
        await sock.bind((source, 0))
        await sock.connect(("127.0.0.1", port))
        stream = trio.SocketStream(sock)
    received: list[object] = []
    payload = {
        "zeros": b"\0\0\0\0",
        "http": b"GET / HTTP/1.1\r\nHost: cuttle\r\n\r\n",
        "garbage": os.urandom(64),
        # A frame within the 1 MiB limit whose body keeps coming (2 MiB of it).
        "endless": (2**20).to_bytes(4, "big") + bytes(2 * 2**20),
        "silent": b"",
        "hang-up": b"",
    }[kind]

    async def push(cancel: trio.CancelScope) -> None:
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            await stream.send_all(payload)
        if kind == "silent":
            await release.wait()  # silent until the whole flood has arrived
            cancel.cancel()

    async def read(cancel: trio.CancelScope) -> None:
        decoder = FrameDecoder()
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            while data := await stream.receive_some(65536):
                decoder.feed(data)
                while (frame := decoder.next_frame()) is not None:
                    received.append(message_from_wire(unpack(frame[1])))
        cancel.cancel()

    if kind != "hang-up":
        async with trio.open_nursery() as nursery:
            nursery.start_soon(push, nursery.cancel_scope)
            nursery.start_soon(read, nursery.cancel_scope)
    await trio.aclose_forcefully(stream)
    return received


async def cutting_proxy(target: int, state: dict, task_status=trio.TASK_STATUS_IGNORED) -> None:
    """Forward loopback connections to port ``target``; cut the first one once more than
    ``state["cut_after"]`` bytes came back from the target (``state["cut"]``: when).  While
    ``state["open"]`` is false, connections are hung up on at once; ``state["close_on_cut"]``
    makes the cut set it false."""
    (listener,) = await trio.open_tcp_listeners(0, host="127.0.0.1")
    task_status.started(listener.socket.getsockname()[1])

    async def handle(client: trio.SocketStream) -> None:
        if not state.get("open", True):
            await trio.aclose_forcefully(client)
            return
        first = "cut" not in state
        server = await trio.open_tcp_stream("127.0.0.1", target)
        async with trio.open_nursery() as nursery:

            async def pump(src: trio.SocketStream, dst: trio.SocketStream, count: bool) -> None:
                try:
                    while data := await src.receive_some(4096):
                        await dst.send_all(data)
                        if count and first:
                            state["back"] = state.get("back", 0) + len(data)
                            if state["back"] > state["cut_after"]:
                                state["cut"] = time.monotonic()
                                if state.get("close_on_cut"):
                                    state["open"] = False
                                break
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    pass
                nursery.cancel_scope.cancel()

            nursery.start_soon(pump, client, server, False)
            nursery.start_soon(pump, server, client, True)
        await trio.aclose_forcefully(client)
        await trio.aclose_forcefully(server)

    await trio.serve_listeners(handle, [listener])
