"""A proxy for the reconnection tests: it forwards loopback TCP and cuts the first
connection on demand, so that a seat sees its connection to the host lost mid-game."""

from __future__ import annotations

import trio


async def cutting_proxy(
    target: int,
    cut_after: int | None,
    cut_now: trio.Event,
    let_back: trio.Event | None = None,
    task_status=trio.TASK_STATUS_IGNORED,
) -> None:
    """Forward loopback TCP to ``target``.  The first connection is cut, both ways, once
    ``cut_after`` bytes came back from the target (mid-frame, most likely) or when
    ``cut_now`` is set; later connections are left alone, but forwarded only once
    ``let_back`` is set (if given): until then they hang, as if the network were down."""
    (listener,) = await trio.open_tcp_listeners(0, host="127.0.0.1")
    task_status.started(listener.socket.getsockname()[1])
    connections = 0

    async def handle(client: trio.SocketStream) -> None:
        nonlocal connections
        connections += 1
        first = connections == 1
        if not first and let_back is not None:
            await let_back.wait()
        server = await trio.open_tcp_stream("127.0.0.1", target)
        async with trio.open_nursery() as nursery:

            async def pump(src: trio.SocketStream, dst: trio.SocketStream, limit: int | None):
                sent = 0
                try:
                    while data := await src.receive_some(4096):
                        if limit is not None and sent + len(data) > limit:
                            await dst.send_all(data[: limit - sent])
                            break  # the cut
                        sent += len(data)
                        await dst.send_all(data)
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    pass
                nursery.cancel_scope.cancel()

            async def cut_on_signal() -> None:
                await cut_now.wait()
                nursery.cancel_scope.cancel()

            nursery.start_soon(pump, client, server, None)
            nursery.start_soon(pump, server, client, cut_after if first else None)
            if first:
                nursery.start_soon(cut_on_signal)
        await trio.aclose_forcefully(client)
        await trio.aclose_forcefully(server)

    await trio.serve_listeners(handle, [listener])
