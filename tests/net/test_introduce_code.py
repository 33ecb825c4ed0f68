"""What a new connection says about its code (SPEC 3.15, *One code*): at a table only the
table's code is ever shown, so a connection's own handshake code never appears beside it."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from cuttle_client.progress import progress_lines
from cuttle_protocol.play import host_met
from cuttle_protocol.store import KnownPeers, Trust

SAS = "314159"


def said_on_meeting(
    tmp_path, caps: tuple[str, ...], *, verified: bool, trust: Trust | None = None
) -> list[str]:
    info = SimpleNamespace(
        sas=SAS, peer_name="alice", peer_fingerprint="ab:cd", caps=caps, peer_identity=b"k" * 32
    )
    peer = SimpleNamespace(info=info, trust=trust, remote="", verified=verified)
    return progress_lines(host_met(peer, KnownPeers(tmp_path)))  # type: ignore[arg-type]


@pytest.mark.parametrize("verified", [True, False])
def test_a_table_joiner_never_shows_its_connections_code(tmp_path, verified: bool) -> None:
    said = said_on_meeting(tmp_path, ("table",), verified=verified)
    assert said and not any(SAS in line for line in said), said


def test_what_the_hosts_key_proves_is_told_in_one_line_after_who_answered(tmp_path) -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    old, key = (Ed25519PrivateKey.generate().public_key().public_bytes_raw() for _ in "ab")
    known = KnownPeers(tmp_path)
    known.remember("alice", old)  # alice had another key
    known.remember("al", key)  # this key was al's
    info = SimpleNamespace(peer_name="alice", peer_fingerprint="ab:cd", peer_identity=key)

    def lines(trust: Trust | None, verified: bool = False, remote: str = "") -> list[str]:
        peer = SimpleNamespace(info=info, trust=trust, remote=remote, verified=verified)
        return progress_lines(host_met(peer, known))  # type: ignore[arg-type]

    assert lines(None, remote="192.0.2.1:4454") == [
        "connected to alice at 192.0.2.1:4454 (key ab:cd)"
    ]
    assert lines(Trust.NEW, verified=True) == [
        "connected to alice (key ab:cd, new)",
        "verified: the host proved the key named by the invitation (no need to compare codes)",
    ]
    changed = lines(Trust.CHANGED)
    assert len(changed) == 2 and changed[1].startswith("WARNING: alice's identity key CHANGED")
    assert f"(it was {known.fingerprint_of('alice')})" in changed[1]
    assert lines(Trust.RENAMED)[1] == (
        "note: this is the key of the player you know as al, now calling themselves alice"
    )
