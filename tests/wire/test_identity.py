"""Identity keys on disk, the known-peers store, addresses, and import hygiene."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cuttle_protocol.store import (
    ConfigError,
    KnownPeers,
    Trust,
    default_config_dir,
    load_or_create_identity,
    write_private,
)
from cuttle_protocol.wire import DEFAULT_PORT, fingerprint, parse_address

from cuttle_net.identity_key import BadIdentityKey


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def key() -> bytes:
    return Ed25519PrivateKey.generate().public_key().public_bytes_raw()


def test_identity_created_once_and_private(tmp_path: Path) -> None:
    config = tmp_path / "cuttle-net"
    key = load_or_create_identity(config)
    (pem,) = config.iterdir()  # no temporary file left behind
    assert mode(pem) == 0o600 and mode(config) == 0o700
    again = load_or_create_identity(config)
    assert again.public_key().public_bytes_raw() == key.public_key().public_bytes_raw()


def test_identity_file_of_another_kind_is_refused(tmp_path: Path) -> None:
    (tmp_path / "identity.pem").write_text("not a key")
    with pytest.raises(ConfigError, match=r"identity\.pem"):
        load_or_create_identity(tmp_path)


def test_too_open_config_dir_and_files_are_tightened(tmp_path: Path) -> None:
    config = tmp_path / "cuttle-net"
    load_or_create_identity(config)
    KnownPeers(config).check("bob", key())
    config.chmod(0o777)
    (config / "identity.pem").chmod(0o666)
    (config / "known_peers.json").chmod(0o644)
    load_or_create_identity(config)
    KnownPeers(config).check("bob", key())
    assert mode(config) == 0o700
    assert {mode(f) for f in config.iterdir()} == {0o600}


def test_new_files_are_private_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        KnownPeers(tmp_path / "c").check("bob", key())
    finally:
        os.umask(old)
    assert mode(tmp_path / "c") == 0o700 and mode(tmp_path / "c" / "known_peers.json") == 0o600


def test_config_dir_of_another_user_is_refused(tmp_path: Path) -> None:
    if os.getuid() != 0:
        pytest.skip("needs root to give a directory to another user")
    config = tmp_path / "theirs"
    config.mkdir(mode=0o777)
    os.chown(config, 12345, 12345)
    with pytest.raises(ConfigError, match="another user"):
        load_or_create_identity(config)
    assert list(config.iterdir()) == []


def test_a_symlinked_key_file_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.pem"
    elsewhere.write_text("planted")
    config = tmp_path / "c"
    config.mkdir(mode=0o700)
    (config / "identity.pem").symlink_to(elsewhere)
    with pytest.raises(ConfigError, match="symlink"):
        load_or_create_identity(config)


def test_writing_never_follows_or_clobbers(tmp_path: Path) -> None:
    path = tmp_path / "file"
    assert write_private(path, b"first", replace=False)
    assert not write_private(path, b"second", replace=False)  # another process was first
    assert path.read_bytes() == b"first"
    assert write_private(path, b"third") and path.read_bytes() == b"third"
    assert [p.name for p in tmp_path.iterdir()] == ["file"]


def test_config_dir_follows_xdg(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", "/x")
    assert default_config_dir() == Path("/x/cuttle-net")
    monkeypatch.delenv("XDG_CONFIG_HOME")
    assert default_config_dir() == Path.home() / ".config" / "cuttle-net"


def test_trust_on_first_use(tmp_path: Path) -> None:
    pins = KnownPeers(tmp_path)
    first, second = key(), key()
    assert pins.check("bob", first) is Trust.NEW
    assert pins.check("bob", first) is Trust.KNOWN
    assert pins.check("bob", second) is Trust.CHANGED
    assert pins.check("bob", second) is Trust.CHANGED  # not silently replaced
    assert pins.fingerprint_of("bob") == fingerprint(first)
    pins.remember("bob", second)
    assert KnownPeers(tmp_path).check("bob", second) is Trust.KNOWN
    assert KnownPeers(tmp_path).check("bob", first) is Trust.CHANGED  # the name moved on
    assert mode(pins.path) == 0o600


def test_a_known_key_under_a_new_name_is_renamed(tmp_path: Path) -> None:
    pins = KnownPeers(tmp_path)
    bob, carol = key(), key()
    assert pins.check("bob", bob) is Trust.NEW
    assert pins.check("carol", carol) is Trust.NEW
    assert pins.check("robert", bob) is Trust.RENAMED
    assert pins.name_of(bob) == "bob"  # kept until the player accepts the new name
    # A known key claiming a name that belongs to another key: the name's key changed.
    assert pins.check("carol", bob) is Trust.CHANGED
    pins.remember("robert", bob)
    assert pins.check("robert", bob) is Trust.KNOWN
    assert pins.check("bob", bob) is Trust.RENAMED


def test_an_impostor_key_is_never_taken_for_a_known_player(tmp_path: Path) -> None:
    # By key: an impostor's key under a known name is CHANGED (even a key known as another
    # player's), and under another name it is a NEW player, never a known one.
    pins = KnownPeers(tmp_path)
    bob, carol, mallory = key(), key(), key()
    pins.check("bob", bob)
    pins.check("carol", carol)
    assert pins.check("bob", mallory) is Trust.CHANGED
    assert pins.check("bob", carol) is Trust.CHANGED  # carol's key posing as bob
    assert pins.check("bob2", mallory) is Trust.NEW
    assert pins.check("bob", bob) is Trust.KNOWN


def test_bad_keys_never_enter_the_store(tmp_path: Path) -> None:
    pins = KnownPeers(tmp_path)
    small_order = bytes([1]) + bytes(31)
    with pytest.raises(BadIdentityKey):
        pins.check("bob", small_order)
    with pytest.raises(BadIdentityKey):
        pins.remember("bob", small_order)
    assert not pins.path.exists()


def test_version_1_store_is_read_and_migrated(tmp_path: Path) -> None:
    bob = key()
    old = {
        "version": 1,
        "peers": {
            "bob": {"key": bob.hex(), "fingerprint": fingerprint(bob)},
            "evil": {"key": (bytes([1]) + bytes(31)).hex(), "fingerprint": "x"},
        },
    }
    (tmp_path / "known_peers.json").write_text(json.dumps(old))
    pins = KnownPeers(tmp_path)
    assert pins.check("bob", bob) is Trust.KNOWN
    assert pins.check("evil", key()) is Trust.NEW  # the small-order entry was dropped
    document = json.loads(pins.path.read_text())
    assert document["version"] == 2
    assert document["peers"][fingerprint(bob)] == {"key": bob.hex(), "name": "bob"}


@pytest.mark.parametrize("text", ["{", "[]", '{"version": 9, "peers": {}}', '{"peers": 1}'])
def test_a_broken_store_is_a_clear_error_and_is_kept(tmp_path: Path, text: str) -> None:
    (tmp_path / "known_peers.json").write_text(text)
    with pytest.raises(ConfigError, match=r"known_peers\.json"):
        KnownPeers(tmp_path).check("bob", key())
    assert (tmp_path / "known_peers.json").read_text() == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("example.org", ("example.org", DEFAULT_PORT)),
        ("10.0.0.2:5000", ("10.0.0.2", 5000)),
        ("[::1]:7", ("::1", 7)),
        ("[fe80::1]", ("fe80::1", DEFAULT_PORT)),
        ("fe80::1", ("fe80::1", DEFAULT_PORT)),
        ("alice-pc.local.", ("alice-pc.local.", DEFAULT_PORT)),
        ("192.168.1.20:4454", ("192.168.1.20", 4454)),
    ],
)
def test_parse_address(text: str, expected: tuple[str, int]) -> None:
    assert parse_address(text) == expected


@pytest.mark.parametrize("text", ["", ":80", "host:0", "host:99999", "host:http", "[::1"])
def test_parse_address_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        parse_address(text)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("http://127.0.0.1:4454", "without http:// or a path"),
        ("alice/pc:4454", "without http:// or a path"),
        ("300.1.1.1", "'300.1.1.1' is not an IPv4 address"),
        ("1.2.3:4454", "'1.2.3' is not an IPv4 address"),
        ("fe80::zz", "'fe80::zz' is not an IPv6 address"),
        ("[1.2.3.4]:5", "'1.2.3.4' is not an IPv6 address"),
        ("alice pc", "a host name has letters, digits and '-'"),
        ("-alice.local", "a host name has letters, digits and '-'"),
        ("alice..local", "a host name has letters, digits and '-'"),
    ],
)
def test_parse_address_refuses_what_cannot_be_a_host(text: str, why: str) -> None:
    """Checked before any lookup, as README says (issue 26, defect 9): a URL and
    ``300.1.1.1`` were looked up as names."""
    with pytest.raises(ValueError, match="bad address") as refused:
        parse_address(text)
    assert why in str(refused.value)
