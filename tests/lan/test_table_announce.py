"""A table's host announces it while a seat is free: a real table of bots on loopback, with
zeroconf's sockets replaced by a recorder (tests never multicast; test_netns.py does it for
real where network namespaces can be made)."""

from __future__ import annotations

import contextlib
import random
from pathlib import Path

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cuttle_client.cli_table import Hosting, sit_at_table
from cuttle_protocol.play import play_at_table
from cuttle_protocol.shells import TableTimeouts, join_table
from cuttle_protocol.shells import mdns as lan
from cuttle_protocol.wire import LocalPlayer

from cuttle_net.games.unisson.bots import make_bot
from tests.lan.test_browser import RecordingZeroconf

FAST = TableTimeouts(reply=10.0, move=30.0, window=5.0)


def random_bot(seed: int):
    bot, rng = make_bot("random"), random.Random(seed)
    return lambda view: bot.choose(view, rng)


def seats_taken(zc: RecordingZeroconf) -> list[tuple[str, bytes | None]]:
    return [(c, info.properties[b"taken"] if info else None) for c, info in zc.calls]


@pytest.mark.trio
@pytest.mark.parametrize("watchers", [0, None])
async def test_the_announcement_follows_the_lobby_and_ends_when_the_table_is_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, watchers: int | None
) -> None:
    """A table without watchers is withdrawn once full; one that takes watchers (None: the
    default) stays announced, full, while it plays, for those who come to watch, and is
    withdrawn when it ends."""
    made: list[RecordingZeroconf] = []
    tables: list = []
    stage_at_close: list[str] = []

    class Recorder(RecordingZeroconf):
        def close(self) -> None:
            super().close()
            stage_at_close.append(tables[0].core.stage.value)  # read from zeroconf's thread

    def open_zeroconf(**kwargs: object) -> RecordingZeroconf:
        made.append(Recorder(**kwargs))
        return made[-1]

    monkeypatch.setattr(lan, "Zeroconf", open_zeroconf)
    # Listening on loopback, a host does not announce: pretend it is on a LAN (and that
    # the suite's CUTTLE_NO_LAN=1 is not set: zeroconf is the recorder).
    monkeypatch.setattr(lan, "announce_interfaces", lambda host: ["192.0.2.9"])
    monkeypatch.delenv("CUTTLE_NO_LAN")
    said: list[str] = []
    port: list[int] = []

    async def host() -> None:
        where = Hosting("unisson", 3, "one-deck", 0, "127.0.0.1", max_watchers=watchers)
        await sit_at_table(
            "Ann",
            where,
            config_dir=tmp_path / "ann",
            timeouts=FAST,
            say=said.append,
            seated=lambda table: (tables.append(table), port.append(table._listener.address[1])),
            choose=random_bot(0),
            data_dir=tmp_path / "ann",
        )

    async def joiner(name: str) -> None:
        key = Ed25519PrivateKey.generate()
        address = f"127.0.0.1:{port[0]}"
        async with join_table(address, LocalPlayer(name, key), timeouts=FAST) as table:
            await play_at_table(table, key, "one-deck", choose=random_bot(len(name)), save=False)

    async def until(done) -> None:
        while not done():
            await trio.sleep(0.01)

    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(host)
            await until(lambda: made and made[0].calls and port)
            nursery.start_soon(joiner, "Bob")
            await until(lambda: len(made[0].calls) == 2)
            nursery.start_soon(joiner, "Cy")
    (zc,) = made
    info = zc.calls[0][1]
    if watchers == 0:
        assert seats_taken(zc) == [("register", b"1"), ("update", b"2"), ("close", None)]
        assert (
            len(stage_at_close) == 1 and stage_at_close[0] != "ended"
        )  # withdrawn once full, not when the game was over
        assert info is not None and b"watch" not in info.properties
    else:
        taken = [("register", b"1"), ("update", b"2"), ("update", b"3"), ("close", None)]
        assert seats_taken(zc) == taken
        assert stage_at_close == ["ended"]  # announced while it played, withdrawn at the end
        full = zc.calls[2][1]
        assert full is not None and full.properties[b"seat"] == b"taken"
        assert full.properties[b"watch"] == b"yes"
    assert info is not None and info.port == port[0]
    assert info.properties[b"game"] == b"unisson" and info.properties[b"seats"] == b"3"
    assert any(line.startswith("announced on the LAN while a seat is free") for line in said)


@pytest.mark.trio
async def test_nothing_is_announced_with_cuttle_no_lan(monkeypatch: pytest.MonkeyPatch) -> None:
    """CUTTLE_NO_LAN=1 (the suite sets it) keeps a host off the LAN as it keeps the lobby
    from browsing: `cuttle host` in a test multicast its table on the real network."""
    made: list[object] = []
    monkeypatch.setattr(lan, "Zeroconf", lambda **kwargs: made.append(kwargs))
    monkeypatch.setattr(lan, "announce_interfaces", lambda host: ["192.0.2.9"])
    told: list[object] = []

    def first() -> lan.Announcement:
        raise AssertionError("no announcement is made")

    monkeypatch.setenv("CUTTLE_NO_LAN", "1")
    async with contextlib.AsyncExitStack() as stack:
        assert await lan.keep_announced(stack, "0.0.0.0", first, told.append) is None
    assert made == [] and told == []
