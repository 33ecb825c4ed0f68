"""What a new connection says about its code (SPEC 3.15, *One code*): at a table only the
table's code is ever shown, so a connection's own handshake code never appears beside it."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from cuttle_protocol.play.meet import _introduce
from cuttle_protocol.store import KnownPeers

SAS = "314159"


def said_on_meeting(tmp_path, caps: tuple[str, ...], *, verified: bool) -> list[str]:
    info = SimpleNamespace(
        sas=SAS, peer_name="alice", peer_fingerprint="ab:cd", caps=caps, peer_identity=b"k" * 32
    )
    peer = SimpleNamespace(info=info, trust=None, remote="", verified=verified)
    said: list[str] = []
    _introduce(peer, KnownPeers(tmp_path), said.append)  # type: ignore[arg-type]
    return said


@pytest.mark.parametrize("verified", [True, False])
def test_a_table_joiner_never_shows_its_connections_code(tmp_path, verified: bool) -> None:
    said = said_on_meeting(tmp_path, ("table",), verified=verified)
    assert said and not any(SAS in line for line in said), said
