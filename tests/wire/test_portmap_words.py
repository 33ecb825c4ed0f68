"""What the port mapping says when no router answers."""

from __future__ import annotations

import sys
import types

import pytest
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
