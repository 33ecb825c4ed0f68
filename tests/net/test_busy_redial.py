"""A joiner dials again after `busy` only if it came instead of the host's hello (SPEC 3.11):
after a hello, each new connection would give a man in the middle another code to match."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cuttle_protocol.errors import ErrorCode
from cuttle_protocol.play import NetPlan, open_game_peer
from cuttle_protocol.shells import ConnectionEnded
from cuttle_protocol.shells.peer import _refusal_frame
from cuttle_protocol.wire import Connection, LocalPlayer, Role, Rules


async def hello_then_busy(stream: trio.SocketStream, dials: list[int]) -> None:
    """A host (or someone in the middle) that shows its hello, reads the joiner's, and says
    `busy`: the joiner could compute a code by then."""
    dials.append(1)
    me = LocalPlayer("host", Ed25519PrivateKey.generate())
    conn = Connection(Role.HOST, me, rules=Rules("classic"))
    async with stream:
        while not (hello := conn.data_to_send()):
            conn.receive_data(await stream.receive_some(65536))
            conn.next_event()
        await stream.send_all(hello)
        await stream.receive_some(65536)  # the joiner's hello
        await stream.send_all(_refusal_frame(ErrorCode.BUSY, "try again"))
        await stream.send_eof()
        while await stream.receive_some(65536):
            pass


@pytest.mark.trio
async def test_a_busy_after_the_hosts_hello_is_not_dialled_again(
    tmp_path: Path, memory_net, autojump_clock
) -> None:
    dials: list[int] = []
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            (listener,) = await trio.open_tcp_listeners(0, host="127.0.0.1")
            port = listener.socket.getsockname()[1]
            nursery.start_soon(
                trio.serve_listeners, lambda s: hello_then_busy(s, dials), [listener]
            )
            # `tables`: the joiner that dials again after a busy refusal (a table's limits).
            plan = NetPlan("join", "bob", address=f"127.0.0.1:{port}", config_dir=tmp_path)
            with pytest.raises(ConnectionEnded) as ended:
                async with open_game_peer(plan, lambda line: None):
                    pass
            nursery.cancel_scope.cancel()
    assert (ended.value.code, ended.value.code_attempt) == (ErrorCode.BUSY, True)
    assert len(dials) == 1
