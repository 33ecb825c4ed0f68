"""Invitations (SPEC 3.14): what goes in comes out, and a typo is caught, never misread."""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import json
import re
import struct
import zlib
from pathlib import Path

import pytest
from cuttle_protocol.wire import Invitation, InvitationError, fingerprint, fingerprint_text
from cuttle_protocol.wire.invitation import MAX_ADDRESSES, PREFIX

KEY = bytes(range(32))
ADDRESSES = (("203.0.113.5", 4454), ("2001:db8::1", 4454), ("192.168.1.20", 50000))
ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"


def sample() -> Invitation:
    return Invitation.for_key(KEY, ADDRESSES)


def test_round_trip_and_size() -> None:
    text = sample().encode()
    assert text.startswith(PREFIX) and set(text[len(PREFIX) :]) <= set(ALPHABET)
    assert Invitation.decode(text) == sample()
    assert len(text) < 100  # one line in a chat message, with an IPv6 address in it
    # Its fingerprint is the one players see for the key.
    assert fingerprint_text(sample().fingerprint) == fingerprint(KEY)
    assert sample().matches(KEY) and not sample().matches(bytes(32))
    assert sample().where() == ["203.0.113.5:4454", "[2001:db8::1]:4454", "192.168.1.20:50000"]


def test_what_chat_programs_do_to_it_is_undone() -> None:
    text = sample().encode()
    wrapped = "  " + text[:40].upper() + "\n" + text[40:70] + "-" + text[70:] + " \n"
    assert Invitation.decode(wrapped) == sample()


def test_every_single_character_typo_is_caught() -> None:
    text = sample().encode()
    for i in range(len(PREFIX), len(text)):
        for letter in ALPHABET:
            if letter != text[i]:
                typo = text[:i] + letter + text[i + 1 :]
                with pytest.raises(InvitationError):
                    Invitation.decode(typo)


def test_swapped_neighbours_and_cuts_are_caught() -> None:
    text = sample().encode()
    for i in range(len(PREFIX), len(text) - 1):
        if text[i] != text[i + 1]:
            swapped = text[:i] + text[i + 1] + text[i] + text[i + 2 :]
            with pytest.raises(InvitationError):
                Invitation.decode(swapped)
    for cut in range(len(PREFIX), len(text)):
        with pytest.raises(InvitationError):
            Invitation.decode(text[:cut])


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("192.168.1.20:4454", "starts with"),
        (PREFIX + "abc1def", "digits 2-7"),
        (PREFIX + "a", "cut"),
    ],
)
def test_what_is_wrong_is_said(text: str, says: str) -> None:
    with pytest.raises(InvitationError, match=says):
        Invitation.decode(text)


def _encode_raw(body: bytes) -> str:
    body += struct.pack(">I", zlib.crc32(body))
    return PREFIX + base64.b32encode(body).decode().rstrip("=").lower()


def test_a_newer_version_or_unknown_address_kind_is_named() -> None:
    fp = sample().fingerprint
    with pytest.raises(InvitationError, match="version 2"):
        Invitation.decode(_encode_raw(bytes([2]) + fp + bytes([4, 1, 2, 3, 4, 0, 80])))
    with pytest.raises(InvitationError, match="unknown kind"):
        Invitation.decode(_encode_raw(bytes([1]) + fp + bytes([9, 1, 2, 3, 4, 0, 80])))
    with pytest.raises(InvitationError, match="1 to"):
        Invitation.decode(_encode_raw(bytes([1]) + fp))  # no address at all
    with pytest.raises(InvitationError, match="port"):
        Invitation.decode(_encode_raw(bytes([1]) + fp + bytes([4, 1, 2, 3, 4, 0, 0])))


def test_limits() -> None:
    many = [(f"10.0.0.{i}", 4454) for i in range(MAX_ADDRESSES + 3)]
    assert len(Invitation.for_key(KEY, many).addresses) == MAX_ADDRESSES
    with pytest.raises(ValueError):
        Invitation.for_key(KEY, [("example.org", 4454)])  # addresses only, never names


@pytest.mark.parametrize(
    ("ip", "says"),
    [
        ("0.0.0.0", "unspecified"),
        ("0.1.2.3", "unspecified"),
        ("255.255.255.255", "broadcast"),
        ("224.0.0.1", "multicast"),
        ("239.255.255.250", "multicast"),
        ("::", "unspecified"),
        ("::ffff:0.0.0.0", "unspecified"),
        ("ff02::1", "multicast"),
        ("fe80::1", "link-local"),
    ],
)
def test_an_address_no_joiner_can_dial_is_refused_reading_and_making(ip: str, says: str) -> None:
    packed = ipaddress.ip_address(ip).packed
    kind = bytes([4 if len(packed) == 4 else 6])
    text = _encode_raw(bytes([1]) + sample().fingerprint + kind + packed + struct.pack(">H", 80))
    with pytest.raises(InvitationError, match=f"no joiner can dial it: .*{says}"):
        Invitation.decode(text)
    with pytest.raises(InvitationError, match=says):
        Invitation.for_key(KEY, [("203.0.113.5", 4454), (ip, 4454)])


def test_usable_neighbours_of_the_refused_addresses_still_read() -> None:
    for ip in ("1.0.0.1", "255.255.255.254", "169.254.1.2", "fec0::1", "::1", "127.0.0.1"):
        invitation = Invitation.for_key(KEY, [(ip, 4454)])
        assert Invitation.decode(invitation.encode()) == invitation


def test_a_host_leaves_out_a_routers_unusable_external_address() -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cuttle_protocol.play import invitation_for
    from cuttle_protocol.shells import HostAddress

    reachable = [HostAddress("192.168.1.20", "eth0", False)]
    text = invitation_for(Ed25519PrivateKey.generate(), reachable, 4454, ("0.0.0.0", 4454))
    assert Invitation.decode(text).addresses == (("192.168.1.20", 4454),)


def test_the_spec_example_decodes_by_the_spec_alone() -> None:
    """SPEC 3.14's example, read as a third party would: base32 without padding, version 1,
    the key's fingerprint, two addresses, the CRC-32 of the rest; and the maker writes it."""
    spec = (Path(__file__).resolve().parents[2] / "SPEC.md").read_text()
    (text,) = re.findall(r"`(cuttle:[a-z2-7]+)`", spec)
    vectors = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "wire"
    key = bytes.fromhex(
        json.loads((vectors / "handshake.json").read_text())["derived"]["host_identity_public"]
    )
    data = text.removeprefix("cuttle:").upper()
    raw = base64.b32decode(data + "=" * (-len(data) % 8))
    body, crc = raw[:-4], raw[-4:]
    assert zlib.crc32(body).to_bytes(4, "big") == crc
    assert body[0] == 1 and body[1:17] == hashlib.sha256(key).digest()[:16]
    v4, v6 = body[17:24], body[24:]
    assert v4 == b"\x04" + ipaddress.ip_address("203.0.113.7").packed + (4454).to_bytes(2, "big")
    assert v6 == b"\x06" + ipaddress.ip_address("2001:db8::7").packed + (4454).to_bytes(2, "big")
    made = Invitation.for_key(key, [("203.0.113.7", 4454), ("2001:db8::7", 4454)])
    assert made.encode() == text
