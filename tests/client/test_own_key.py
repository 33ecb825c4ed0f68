"""The terminal client's handshake troubles: a headless peer with its own identity key (one
account on both sides) is refused at the handshake, said in one line, and nothing hangs; tries
at the host's code from many addresses warn its player."""

from __future__ import annotations

import asyncio
import re
import socket
from pathlib import Path

from cuttle_client.network import ConnectScreen
from textual.pilot import Pilot

from tests.client.helpers import run, screen_text, until
from tests.client.test_network_game import (
    headless_host,
    headless_joiner,
    host_app,
    join_app,
)
from tests.net.test_own_key import HOW, line_with

OWN_KEY = "shows your own identity key: you cannot play yourself"


def words(app) -> str:
    """The screen's text as one line of words (the status wraps long lines)."""
    return " ".join(screen_text(app).split())


def test_the_client_joining_its_own_host_says_why_and_how(tmp_path: Path) -> None:
    host, port = headless_host(tmp_path / "ann")  # the client's own folders
    app = join_app(tmp_path, port)
    shown: list[str] = []

    async def body(pilot: Pilot) -> None:
        await until(pilot, lambda: f"host {OWN_KEY}" in words(app))
        shown.append(words(app))
        assert isinstance(app.screen, ConnectScreen)  # no table, no game: told, and stopped

    try:
        run(app, body)
        said = line_with(host, f"joiner {OWN_KEY}")
    finally:
        host.kill()
        host.communicate(timeout=60)
    text = shown[0]
    assert "The connection ended: the host shows your own identity key" in text
    assert HOW in text and "compare this code" not in text
    assert "(bad-key)" in said


def test_the_client_hosting_tells_its_player_when_it_joined_itself(tmp_path: Path) -> None:
    app = host_app(tmp_path)
    joiner = []

    async def body(pilot: Pilot) -> None:
        await until(pilot, lambda: "waiting for 1 more player" in screen_text(app))
        port = int(re.search(r"\(port (\d+)\)", screen_text(app))[1])
        joiner.append(headless_joiner(tmp_path / "ann", port, games=1))  # the same folders
        await until(pilot, lambda: f"joiner {OWN_KEY}" in words(app))
        assert isinstance(app.screen, ConnectScreen)  # still waiting for a player
        assert "compare this code" not in screen_text(app)

    try:
        run(app, body)
    finally:
        out, err = joiner[0].communicate(timeout=60) if joiner else ("", "")
    assert joiner[0].returncode == 1
    assert f"host {OWN_KEY}" in out and HOW in out
    assert "Traceback" not in err, err


def tries_from_many_addresses(port: int, count: int) -> list[bytes]:
    """``count`` connections at once, each from its own loopback address, each committing
    to a hello; the first bytes each got back (a hello, or a close: both plaintext)."""
    from concurrent.futures import ThreadPoolExecutor

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cuttle_protocol.wire import Connection, LocalPlayer, Role

    def one(n: int) -> bytes:
        rogue = LocalPlayer("rogue", Ed25519PrivateKey.generate())
        with socket.create_connection(("127.0.0.1", port), 10, (f"127.0.0.{n}", 0)) as s:
            s.sendall(Connection(Role.JOINER, rogue).data_to_send())
            return s.recv(65536)

    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(one, range(2, 2 + count)))


def test_the_hosting_player_is_warned_when_tries_at_the_code_pile_up(tmp_path: Path) -> None:
    app = host_app(tmp_path)

    async def body(pilot: Pilot) -> None:
        await until(pilot, lambda: "waiting for 1 more player" in screen_text(app))
        port = int(re.search(r"\(port (\d+)\)", screen_text(app))[1])
        await asyncio.to_thread(tries_from_many_addresses, port, 12)
        warned = "more than 6 connections tried this game's code"
        await until(pilot, lambda: any(warned in n.message for n in app._notifications))
        # In the story too (the screen may show only its start once it has grown past it:
        # the notification is what the player cannot miss).
        assert any(warned in line for line in app.screen.controller.status)
        assert isinstance(app.screen, ConnectScreen)  # still waiting for its player

    run(app, body)
