"""What the port mapping says when no router answers."""

from __future__ import annotations

import sys
import types

import pytest
import trio
from cuttle_protocol.shells import portmap


class _Probe:
    """The discovery probe's socket: the multicast route is there."""

    def __init__(self, *_: object) -> None:
        pass

    def __enter__(self) -> _Probe:
        return self

    def __exit__(self, *_: object) -> None:
        pass

    def connect(self, _: object) -> None:
        pass


@pytest.mark.parametrize(("error", "said"), [("Success", ""), ("Timeout", ": Timeout")])
def test_no_router_is_said_without_the_library_s_success(
    error: str, said: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """miniupnpc raises Exception('Success') when discovery found nothing: 'UPnP: no router
    found: Success' told the player nothing (issue 26, defect 8)."""

    class UPnP:
        discoverdelay = 0

        def discover(self) -> int:
            raise Exception(error)  # what miniupnpc raises

    monkeypatch.setitem(sys.modules, "miniupnpc", types.SimpleNamespace(UPnP=UPnP))
    monkeypatch.setattr(portmap.socket, "socket", _Probe)
    with pytest.raises(portmap.NoMapping) as refused:
        portmap._router()
    assert str(refused.value) == f"no router found{said}"


@pytest.mark.trio
async def test_a_mapping_is_told_as_data_and_worded_by_the_client(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`map_port` tells what the router did as events (`play.events`); only the client's
    `progress` says them: the outside address and the invitation with it, then the removal."""
    import contextlib

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cuttle_client.progress import progress_lines
    from cuttle_protocol.play import PortMapped, map_port
    from cuttle_protocol.shells import HostAddress, MappingRemoved, NotMapped

    async def add(port: int) -> portmap.Mapping:
        return portmap.Mapping("203.0.113.7", port, "192.168.1.2", port, "UPnP")

    async def remove(*_: object) -> None:
        pass

    monkeypatch.setattr(portmap, "_add", add)
    monkeypatch.setattr(portmap, "_remove", remove)
    monkeypatch.delenv("CUTTLE_NO_LAN", raising=False)
    key = Ed25519PrivateKey.generate()
    told: list[object] = []
    here = [HostAddress("192.168.1.2", "eth0", False)]
    async with contextlib.AsyncExitStack() as stack:
        await map_port(stack, key, here, "::", 4454, told.append, None)
        while not told:
            await trio.sleep(0)
    mapped, removed = told
    assert isinstance(mapped, PortMapped) and mapped.address == "203.0.113.7:4454"
    assert mapped.method == "UPnP" and mapped.invitation.startswith("cuttle:")
    assert removed == MappingRemoved(4454, "UPnP")
    assert progress_lines(mapped) == [
        "port mapped by the router (UPnP): from the internet, cuttle join 203.0.113.7:4454",
        "or the invitation with that address:",
        f"  cuttle join {mapped.invitation}",
    ]
    assert progress_lines(removed) == ["port mapping of 4454 removed from the router (UPnP)"]

    async def refuse(port: int) -> portmap.Mapping:
        raise portmap.NoMapping("no router found")

    monkeypatch.setattr(portmap, "_add", refuse)
    told.clear()
    async with contextlib.AsyncExitStack() as stack:
        await map_port(stack, key, here, "::", 4454, told.append, None)
        while not told:
            await trio.sleep(0)
    assert told == [NotMapped(4454, "no router found")]
    (line,) = progress_lines(told[0])
    assert line.startswith("no port mapping (no router found): from outside your network")
