"""The handshake between two linked sans-I/O connections: success, refusals, tampering, MITM."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cuttle_protocol.errors import ErrorCode, LocalProtocolError, RemoteProtocolError
from cuttle_protocol.wire import (
    MAX_FRAME_SIZE,
    Accept,
    Close,
    Connection,
    DeckPayload,
    Flip,
    HandshakeComplete,
    LocalPlayer,
    Move,
    Phase,
    Ping,
    Pong,
    RematchAnswer,
    RematchRequest,
    Role,
    RulesProposed,
    crypto,
    encode_frame,
    pack,
    unpack,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from wire_helpers import (
    CLASSIC,
    counter_random,
    deliver,
    drain,
    fixed_pair,
    handshake,
    make_pair,
    player,
    split_frames,
)

SIG = bytes(range(64))  # a move signature: the session checks it, not the wire


def expect_error(conn: Connection, data: bytes, code: ErrorCode) -> None:
    conn.receive_data(data)
    with pytest.raises(RemoteProtocolError) as info:
        drain(conn)
    assert info.value.code is code, info.value
    assert conn.phase is Phase.ERROR


def close_sent(conn: Connection) -> Close:
    """The Close a connection queued after an error, read back in plaintext or by its peer."""
    (frame,) = split_frames(conn.data_to_send())
    return Close.from_wire(unpack(frame[4:]))


def test_handshake_agrees_on_everything() -> None:
    host, joiner = make_pair()
    h, j = handshake(host, joiner)
    assert (h.role, j.role) == (Role.HOST, Role.JOINER)
    assert h.sas == j.sas and len(h.sas.split()) == 2
    assert all(len(group) == 3 and group.isdigit() for group in h.sas.split())
    assert h.session_id == j.session_id and len(h.session_id) == 32
    assert h.rules == j.rules == CLASSIC
    assert (h.peer_name, j.peer_name) == ("bob", "alice")
    assert h.version == j.version == 6
    assert host.phase is joiner.phase is Phase.GAME


def test_handshake_fed_byte_by_byte() -> None:
    host, joiner = fixed_pair()
    conns = {Role.HOST: host, Role.JOINER: joiner}
    completed = []
    for sender in (Role.JOINER, Role.HOST, Role.JOINER, Role.HOST, Role.JOINER):
        receiver = conns[sender.other]
        for byte in conns[sender].data_to_send():
            receiver.receive_data(bytes([byte]))
            for event in drain(receiver):
                if isinstance(event, RulesProposed):
                    receiver.accept_rules()
                    completed += drain(receiver)
                completed += [event] if isinstance(event, HandshakeComplete) else []
    assert [c.sas for c in completed] == [handshake(*fixed_pair())[0].sas] * 2


def test_trailing_partial_frame_waits_for_the_rest() -> None:
    host, joiner = make_pair()
    handshake(host, joiner)
    host.send(Move("draw", SIG))
    host.send(Move("pass", SIG))
    data = host.data_to_send()
    joiner.receive_data(data[:-5])
    assert drain(joiner) == [Move("draw", SIG)]
    joiner.receive_data(data[-5:])
    assert drain(joiner) == [Move("pass", SIG)]


def test_game_messages_flow_both_ways() -> None:
    host, joiner = make_pair()
    handshake(host, joiner)
    sent = [
        Move("draw", SIG),
        DeckPayload({"reveal": [1, 2]}),
        RematchRequest(),
        RematchAnswer(False),
    ]
    for message in sent:
        host.send(message)
    assert deliver(host, joiner) == sent
    joiner.send(Move("concede", SIG))
    assert deliver(joiner, host) == [Move("concede", SIG)]


def test_too_large_a_message_is_a_local_error() -> None:
    host, joiner = make_pair()
    handshake(host, joiner)
    with pytest.raises(LocalProtocolError) as info:
        host.send(DeckPayload({"blob": b"\x00" * MAX_FRAME_SIZE}))
    assert info.value.code is ErrorCode.FRAME_TOO_LARGE
    assert host.phase is Phase.ERROR
    assert deliver(host, joiner) == [Close("internal-error", info.value.message)]


def test_ping_is_answered_by_the_connection() -> None:
    host, joiner = make_pair()
    handshake(host, joiner)
    host.send(Ping(41))
    assert deliver(host, joiner) == []
    assert deliver(joiner, host) == [Pong(41)]


def test_capabilities_and_versions_negotiated() -> None:
    host = Connection(Role.HOST, player("a"), rules=CLASSIC, versions=(1, 2, 3), caps=("x", "y"))
    joiner = Connection(Role.JOINER, player("b"), versions=(1, 3, 9), caps=("y", "z"))
    h, j = handshake(host, joiner)
    assert h.version == j.version == 3
    assert h.caps == j.caps == frozenset({"y"})


def test_version_mismatch_closes_in_plaintext_on_both_sides() -> None:
    host = Connection(Role.HOST, player("a"), rules=CLASSIC, versions=(3,))
    joiner = Connection(Role.JOINER, player("b"), versions=(2,))
    deliver(joiner, host)  # the commitment
    expect_error(joiner, host.data_to_send(), ErrorCode.VERSION_MISMATCH)
    assert "versions [3]" in close_sent(joiner).reason


def test_a_version_5_peer_and_this_one_refuse_each_other_naming_the_versions() -> None:
    # Version 6 lets a move's entry carry its mover's deck messages (SPEC 4.2), which a
    # version 5 peer would take for a malformed move: the handshake refuses it, clearly.
    old_host = Connection(Role.HOST, player("a"), rules=CLASSIC, versions=(5,))
    joiner = Connection(Role.JOINER, player("b"))
    deliver(joiner, old_host)  # the commitment
    expect_error(joiner, old_host.data_to_send(), ErrorCode.VERSION_MISMATCH)
    assert close_sent(joiner).reason == "the peer speaks versions [5]; we speak [6]"
    host = Connection(Role.HOST, player("a"), rules=CLASSIC)
    old_joiner = Connection(Role.JOINER, player("b"), versions=(5,))
    deliver(old_joiner, host)
    expect_error(old_joiner, host.data_to_send(), ErrorCode.VERSION_MISMATCH)
    assert close_sent(old_joiner).reason == "the peer speaks versions [6]; we speak [5]"


def test_a_version_1_joiner_is_told_the_versions_differ() -> None:
    # Version 1 joiners open with their hello, not a commitment.
    old = Connection(Role.JOINER, player("b"), versions=(1,))
    version_1_hello = encode_frame(old._hello_body)
    host, _ = make_pair()
    expect_error(host, version_1_hello, ErrorCode.VERSION_MISMATCH)
    assert "versions [1]" in close_sent(host).reason


def test_peer_learns_why_its_hello_was_refused() -> None:
    host, joiner = make_pair()
    deliver(joiner, host)
    host_hello = host.data_to_send()
    joiner.receive_data(host_hello)
    assert drain(joiner) == []
    joiner_hello, *_ = split_frames(joiner.data_to_send())
    mangled = unpack(joiner_hello[4:]) | {"name": "x" * 40}
    expect_error(host, encode_frame(pack(mangled)), ErrorCode.MALFORMED_MESSAGE)
    # The host has no keys, so its Close is plaintext; the joiner already derived keys.
    joiner.receive_data(host.data_to_send())
    (close,) = drain(joiner)
    assert close.code == "malformed-message" and "name" in close.reason
    assert joiner.phase is Phase.CLOSED


def to_hellos(host: Connection, joiner: Connection) -> list[bytes]:
    """Commitment and host hello delivered; return the joiner's next frames (hello, auth,
    flip), not yet delivered."""
    assert deliver(joiner, host) == []
    assert deliver(host, joiner) == []
    return split_frames(joiner.data_to_send())


def test_two_hosts_wait_and_two_joiners_conflict() -> None:
    a = Connection(Role.HOST, player("a"), rules=CLASSIC)
    b = Connection(Role.HOST, player("b"), rules=CLASSIC)
    assert a.data_to_send() == b.data_to_send() == b""  # each waits for a commitment
    c, d = Connection(Role.JOINER, player("c")), Connection(Role.JOINER, player("d"))
    expect_error(c, d.data_to_send(), ErrorCode.ROLE_CONFLICT)


def test_hello_claiming_the_wrong_role_conflicts() -> None:
    host, joiner = make_pair()
    deliver(joiner, host)
    (hello,) = split_frames(host.data_to_send())
    tampered = encode_frame(pack(unpack(hello[4:]) | {"role": "joiner"}))
    expect_error(joiner, tampered, ErrorCode.ROLE_CONFLICT)


def test_both_sides_refuse_a_peer_with_their_own_key_before_anything_is_kept() -> None:
    # One account on both sides (cuttle host, then cuttle join from the same config).
    key = Ed25519PrivateKey.generate()
    host = Connection(Role.HOST, LocalPlayer("me", key), rules=CLASSIC)
    joiner = Connection(Role.JOINER, LocalPlayer("me", key))
    deliver(joiner, host)
    expect_error(joiner, host.data_to_send(), ErrorCode.BAD_KEY)
    assert "host shows your own identity key" in str(joiner.error)
    assert "--config-dir DIR --data-dir DIR" in str(joiner.error)
    # The joiner's hello went out before its close: the host finds the key by itself...
    hello, close = split_frames(joiner.data_to_send())
    expect_error(host, hello + close, ErrorCode.BAD_KEY)
    assert "joiner shows your own identity key" in str(host.error)


def test_joiner_refuses_the_rules() -> None:
    host, joiner = make_pair()
    deliver(joiner, host)
    deliver(host, joiner)
    deliver(joiner, host)
    (proposed,) = deliver(host, joiner)
    assert proposed == RulesProposed(CLASSIC)
    joiner.refuse_rules("I only play standard")
    assert joiner.phase is Phase.CLOSED
    assert deliver(joiner, host) == [Close("rules-refused", "I only play standard")]
    assert host.phase is Phase.CLOSED


def test_game_messages_refused_before_the_handshake_ends() -> None:
    host, _ = make_pair()
    with pytest.raises(LocalProtocolError) as info:
        host.send(Move("draw", SIG))
    assert info.value.code is ErrorCode.UNEXPECTED_MESSAGE
    assert host.phase is Phase.ERROR


def test_no_coin_flip_the_host_proposes_in_the_flight_of_its_auth() -> None:
    """Version 5 has no coin flip (a table draws its own dealer, SPEC 3.15): the joiner's
    hello and auth fly together, the host answers with its auth and its game at once, and
    a `flip` from an older joiner's habit is out of place."""
    host, joiner = make_pair()
    deliver(joiner, host)  # commit
    deliver(host, joiner)  # the host's hello
    flight = joiner.data_to_send()
    assert len(split_frames(flight)) == 2  # its hello and auth: no flip
    host.receive_data(flight)
    assert drain(host) == []
    answer = host.data_to_send()
    assert len(split_frames(answer)) == 2  # its auth and its game, at once
    joiner.receive_data(answer)
    assert drain(joiner) == [RulesProposed(CLASSIC)]
    joiner.accept_rules()
    (done,) = deliver(joiner, host)
    assert isinstance(done, HandshakeComplete) and host.phase is Phase.GAME
    host, joiner = make_pair()
    for _ in range(2):
        deliver(joiner, host)
        deliver(host, joiner)
    joiner._queue(Flip(b"\x00" * 32))  # as an older joiner would
    expect_error(host, joiner.data_to_send(), ErrorCode.UNEXPECTED_MESSAGE)


# --- tampering ------------------------------------------------------------------------------


HELLO_TAMPERING = {
    "versions": ([7], ErrorCode.VERSION_MISMATCH),
    "role": ("joiner", ErrorCode.ROLE_CONFLICT),
    "caps": (["extra"], None),
    "name": ("mallory", None),
    "identity": (Ed25519PrivateKey.generate().public_key().public_bytes_raw(), None),
    "ephemeral": (b"\x09" + b"\x00" * 31, None),
}


@pytest.mark.parametrize("field", HELLO_TAMPERING)
def test_tampered_host_hello_field_is_caught(field: str) -> None:
    value, code = HELLO_TAMPERING[field]
    host, joiner = make_pair()
    deliver(joiner, host)
    (hello,) = split_frames(host.data_to_send())
    tampered = encode_frame(pack(unpack(hello[4:]) | {field: value}))
    if code is not None:
        expect_error(joiner, tampered, code)
        return
    joiner.receive_data(tampered)
    assert drain(joiner) == []
    # The two sides hashed different transcripts, so their keys differ: the host cannot
    # decrypt the joiner's next frame (and the joiner could not decrypt the host's).
    expect_error(host, joiner.data_to_send(), ErrorCode.DECRYPT_FAILED)


@pytest.mark.parametrize("field", [*HELLO_TAMPERING, "future-field"])
def test_joiner_hello_changed_after_the_commitment_is_refused(field: str) -> None:
    # A man in the middle who sees the host's hello cannot then change the joiner's: the
    # host checks it against the commitment the joiner sent before it saw anything.
    changes = {name: value for name, (value, _) in HELLO_TAMPERING.items()}
    value = (changes | {"role": "host", "future-field": "anything"})[field]
    host, joiner = make_pair()
    joiner_hello, *rest = to_hellos(host, joiner)
    changed = unpack(joiner_hello[4:]) | {field: value}
    expect_error(host, encode_frame(pack(changed)) + b"".join(rest), ErrorCode.BAD_REVEAL)
    assert "committed" in close_sent(host).reason


def test_unknown_first_frame_fields_are_accepted_and_do_not_change_the_code() -> None:
    reference, _ = handshake(*fixed_pair())
    host, joiner = fixed_pair()
    (commit,) = split_frames(joiner.data_to_send())
    host.receive_data(encode_frame(pack(unpack(commit[4:]) | {"later": [b"\x00" * 99]})))
    assert drain(host) == []
    (hello,) = split_frames(host.data_to_send())
    extended = unpack(hello[4:]) | {"future-field": "x" * 5000, "more": [1, {"a": b"z"}]}
    joiner.receive_data(encode_frame(pack(extended)))
    h, j = handshake(host, joiner)
    assert h.sas == j.sas == reference.sas
    assert h.session_id == j.session_id == reference.session_id


SMALL_ORDER_KEY = bytes([1]) + bytes(31)  # the neutral point: one signature fits all
NON_CANONICAL_KEY = (1 + 2**255 - 19).to_bytes(32, "little")  # y + p instead of y


@pytest.mark.parametrize(
    ("identity", "why"),
    [(SMALL_ORDER_KEY, "small-order"), (NON_CANONICAL_KEY, "non-canonical")],
    ids=["small-order", "non-canonical"],
)
def test_identity_key_that_proves_nothing_is_refused(identity: bytes, why: str) -> None:
    host, joiner = make_pair()
    deliver(joiner, host)
    (hello,) = split_frames(host.data_to_send())
    tampered = encode_frame(pack(unpack(hello[4:]) | {"identity": identity}))
    expect_error(joiner, tampered, ErrorCode.BAD_KEY)
    close = close_sent(joiner)
    assert close.code == "bad-key" and "identity key refused" in close.reason
    assert why in close.reason


def after_hellos() -> tuple[Connection, Connection, list[bytes]]:
    """A fixed pair whose hellos were exchanged, and the host's next frames (auth, propose)."""
    host, joiner = fixed_pair()
    deliver(joiner, host)
    deliver(host, joiner)
    deliver(joiner, host)
    return host, joiner, split_frames(host.data_to_send())


def test_every_encrypted_byte_is_authenticated() -> None:
    _, _, frames = after_hellos()
    stream = b"".join(frames)
    # Every byte but the length prefixes (a wrong length is a stall or a size error).
    prefixes = {0, 1, 2, 3, len(frames[0]), len(frames[0]) + 1}
    prefixes |= {len(frames[0]) + 2, len(frames[0]) + 3}
    for i in sorted(set(range(len(stream))) - prefixes):
        _, joiner, _ = after_hellos()
        tampered = bytearray(stream)
        tampered[i] ^= 0x01
        expect_error(joiner, bytes(tampered), ErrorCode.DECRYPT_FAILED)


def test_replayed_frame_fails() -> None:
    _, joiner, (auth, _) = after_hellos()
    joiner.receive_data(auth)
    assert drain(joiner) == []
    expect_error(joiner, auth, ErrorCode.DECRYPT_FAILED)


def test_reordered_frames_fail() -> None:
    _, joiner, (auth, propose) = after_hellos()
    expect_error(joiner, propose + auth, ErrorCode.DECRYPT_FAILED)


def test_errors_are_reported_to_the_peer_encrypted() -> None:
    host, joiner, (_, propose) = after_hellos()
    expect_error(joiner, propose, ErrorCode.DECRYPT_FAILED)
    (close,) = deliver(joiner, host)
    assert close.code == "decrypt-failed" and "tampered" in close.reason


def test_valid_frame_out_of_phase() -> None:
    host, joiner = make_pair()
    handshake(host, joiner)
    host._queue(Accept())  # bypass our own checks, as a rogue peer would
    expect_error(joiner, host.data_to_send(), ErrorCode.UNEXPECTED_MESSAGE)


def test_game_message_during_handshake() -> None:
    host, joiner = fixed_pair()
    host.receive_data(b"".join(to_hellos(host, joiner)))
    assert drain(host) == []
    # Rewind the host's sealer so a Move takes the place (and nonce) of its Auth.
    host._outgoing.clear()
    host._sealer = crypto.FrameSealer(host._secrets.sending_key(Role.HOST))
    host._queue(Move("draw", SIG))
    expect_error(joiner, host.data_to_send(), ErrorCode.UNEXPECTED_MESSAGE)


def test_unknown_message_in_game() -> None:
    host, joiner = make_pair()
    handshake(host, joiner)
    host._outgoing += host._sealer.seal(pack({"t": "teleport", "to": "moon"}))
    expect_error(joiner, host.data_to_send(), ErrorCode.UNKNOWN_MESSAGE)


# --- man in the middle ----------------------------------------------------------------------


class Impostor:
    """An identity that shows someone else's public key but can only sign with its own."""

    def __init__(self, shown: Ed25519PrivateKey) -> None:
        self._shown = shown.public_key()
        self._real = Ed25519PrivateKey.generate()

    def public_key(self):
        return self._shown

    def sign(self, data: bytes) -> bytes:
        return self._real.sign(data)


def relay_handshake(
    host: Connection, joiner: Connection, mallory_host: Connection, mallory_joiner: Connection
) -> tuple[HandshakeComplete | None, HandshakeComplete | None]:
    """Mallory runs a joiner towards the host and a host towards the joiner."""
    done: dict[str, HandshakeComplete] = {}
    for _ in range(5):
        for a, b, label in (
            (host, mallory_joiner, "mj"),
            (mallory_joiner, host, "host"),
            (joiner, mallory_host, "mh"),
            (mallory_host, joiner, "joiner"),
        ):
            for event in deliver(a, b) + drain(b):
                if isinstance(event, RulesProposed):
                    b.accept_rules()
                    event = drain(b)[0]
                if isinstance(event, HandshakeComplete):
                    done[label] = event
    return done.get("host"), done.get("joiner")


def test_mitm_with_its_own_keys_shows_in_sas_and_trust(tmp_path) -> None:
    from cuttle_protocol.store import KnownPeers, Trust

    alice, bob = player("alice"), player("bob")
    pins = KnownPeers(tmp_path)
    pins.remember("bob", bob.identity.public_key().public_bytes_raw())
    mallory_as_bob = LocalPlayer("bob", Ed25519PrivateKey.generate())
    mallory_as_alice = LocalPlayer("alice", Ed25519PrivateKey.generate())
    h, j = relay_handshake(
        Connection(Role.HOST, alice, rules=CLASSIC),
        Connection(Role.JOINER, bob),
        Connection(Role.HOST, mallory_as_alice, rules=CLASSIC),
        Connection(Role.JOINER, mallory_as_bob),
    )
    assert h is not None and j is not None
    assert h.sas != j.sas  # read aloud, the codes differ
    assert h.session_id != j.session_id
    assert pins.check(h.peer_name, h.peer_identity) is Trust.CHANGED


def test_mitm_showing_the_real_keys_cannot_sign() -> None:
    alice, bob = player("alice"), player("bob")
    host = Connection(Role.HOST, alice, rules=CLASSIC)
    mallory_joiner = Connection(Role.JOINER, LocalPlayer("bob", Impostor(bob.identity)))
    expect_error(host, b"".join(to_hellos(host, mallory_joiner)), ErrorCode.BAD_SIGNATURE)
    joiner = Connection(Role.JOINER, bob)
    impostor = LocalPlayer("alice", Impostor(alice.identity))
    mallory_host = Connection(Role.HOST, impostor, rules=CLASSIC)
    mallory_host.receive_data(b"".join(to_hellos(mallory_host, joiner)))
    assert drain(mallory_host) == []
    expect_error(joiner, mallory_host.data_to_send(), ErrorCode.BAD_SIGNATURE)


def test_mitm_cannot_choose_a_code_after_seeing_the_other_side() -> None:
    # Mallory relays the real joiner's commitment to the host, then, holding the host's
    # hello, tries every way of finishing: the joiner's own hello gives the two honest
    # sides the same code (no man in the middle); any hello of his is refused.
    host, joiner = make_pair()
    commitment = joiner.data_to_send()
    host.receive_data(commitment)
    assert drain(host) == []
    host_hello = host.data_to_send()
    for _attempt in range(3):
        fake = Connection(Role.JOINER, LocalPlayer("bob", Ed25519PrivateKey.generate()))
        fake.data_to_send()
        fake.receive_data(host_hello)
        assert drain(fake) == []
        probe, _ = make_pair()
        probe.receive_data(commitment)
        drain(probe)
        expect_error(probe, fake.data_to_send(), ErrorCode.BAD_REVEAL)
    # As the joiner's host, he must show a hello before the joiner opens its own: the
    # joiner's fresh ephemeral key then decides the code he gets on that side.
    codes = set()
    for _attempt in range(3):
        bob = Connection(Role.JOINER, player("bob"))
        mallory = Connection(
            Role.HOST,
            LocalPlayer("alice", Ed25519PrivateKey.generate()),
            rules=CLASSIC,
            random_bytes=counter_random(b"the same each time"),
        )
        codes.add(handshake(mallory, bob)[1].sas)
    assert len(codes) == 3  # the same Mallory hello, three different codes


# --- fuzzing --------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=500))
def test_random_bytes_at_a_fresh_connection(data: bytes) -> None:
    _, joiner = make_pair()
    joiner.receive_data(data)
    try:
        drain(joiner)
    except RemoteProtocolError:
        assert joiner.phase is Phase.ERROR


MSGPACK_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.text(max_size=20)
    | st.binary(max_size=40),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["hello", "auth", "move", "deck", "close", "ping", "x"]),
    st.dictionaries(
        st.sampled_from(
            [
                "versions",
                "caps",
                "role",
                "name",
                "identity",
                "ephemeral",
                "text",
                "data",
                "code",
                "reason",
                "n",
                "signature",
                "other",
            ]
        ),
        MSGPACK_VALUES,
        max_size=7,
    ),
)
def test_random_messages_in_game(kind: str, fields: dict) -> None:
    host, joiner = make_pair()
    handshake(host, joiner)
    host._outgoing += host._sealer.seal(pack({"t": kind} | fields))
    joiner.receive_data(host.data_to_send())
    try:
        drain(joiner)
    except RemoteProtocolError as exc:
        assert exc.code in (
            ErrorCode.MALFORMED_MESSAGE,
            ErrorCode.UNKNOWN_MESSAGE,
            ErrorCode.UNEXPECTED_MESSAGE,
        )
