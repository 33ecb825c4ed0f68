"""Identity keys on disk, the known-peers store, addresses, and import hygiene."""

from __future__ import annotations

import stat
import subprocess
import sys
from pathlib import Path

import pytest
from cuttle_protocol import (
    DEFAULT_PORT,
    KnownPeers,
    Trust,
    default_config_dir,
    load_or_create_identity,
    parse_address,
)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_identity_created_once_and_private(tmp_path: Path) -> None:
    config = tmp_path / "cuttle-net"
    key = load_or_create_identity(config)
    (pem,) = config.iterdir()
    assert mode(pem) == 0o600 and mode(config) == 0o700
    again = load_or_create_identity(config)
    assert again.public_key().public_bytes_raw() == key.public_key().public_bytes_raw()


def test_identity_file_of_another_kind_is_refused(tmp_path: Path) -> None:
    (tmp_path / "identity.pem").write_text("not a key")
    with pytest.raises(ValueError):
        load_or_create_identity(tmp_path)


def test_config_dir_follows_xdg() -> None:
    assert default_config_dir({"XDG_CONFIG_HOME": "/x"}) == Path("/x/cuttle-net")
    assert default_config_dir({}) == Path.home() / ".config" / "cuttle-net"


def test_trust_on_first_use(tmp_path: Path) -> None:
    pins = KnownPeers(tmp_path)
    first, second = b"\x01" * 32, b"\x02" * 32
    assert pins.check("bob", first) is Trust.NEW
    assert pins.check("bob", first) is Trust.KNOWN
    assert pins.check("bob", second) is Trust.CHANGED
    assert pins.check("bob", second) is Trust.CHANGED  # not silently replaced
    pins.remember("bob", second)
    assert KnownPeers(tmp_path).check("bob", second) is Trust.KNOWN
    assert mode(pins.path) == 0o600


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("example.org", ("example.org", DEFAULT_PORT)),
        ("10.0.0.2:5000", ("10.0.0.2", 5000)),
        ("[::1]:7", ("::1", 7)),
        ("[fe80::1]", ("fe80::1", DEFAULT_PORT)),
        ("fe80::1", ("fe80::1", DEFAULT_PORT)),
    ],
)
def test_parse_address(text: str, expected: tuple[str, int]) -> None:
    assert parse_address(text) == expected


@pytest.mark.parametrize("text", ["", ":80", "host:0", "host:99999", "host:http", "[::1"])
def test_parse_address_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        parse_address(text)


# The I/O shell around the sans-I/O core: the only modules that may load trio.
SHELL = (
    "cuttle_protocol.trio_peer",
    "cuttle_protocol.netgame",
    "cuttle_protocol.netplay",
    "cuttle_protocol.lan",
)


def test_core_does_not_import_trio() -> None:
    code = (
        "import sys, pkgutil, importlib, cuttle_protocol\n"
        "for m in pkgutil.walk_packages(cuttle_protocol.__path__, 'cuttle_protocol.'):\n"
        f"    if m.name not in {SHELL!r}:\n"
        "        importlib.import_module(m.name)\n"
        "print(' '.join(sorted(n for n in sys.modules if n.split('.')[0] in"
        " ('trio', 'textual', 'asyncio', 'socket'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
