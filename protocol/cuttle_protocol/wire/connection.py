"""The sans-I/O connection: bytes in, events out; messages in, bytes out.

    conn = Connection(Role.JOINER, me)
    transport.write(conn.data_to_send())          # the joiner's commitment
    conn.receive_data(transport.read())
    while (event := conn.next_event()) is not NEED_DATA:
        ...                                       # RulesProposed, HandshakeComplete, Move...
        transport.write(conn.data_to_send())

The connection runs the whole handshake itself (commitment, key exchange, signatures, the
game proposed); the caller only answers `RulesProposed` (joiner) and then exchanges game messages
with `send`. Everything to write, replies included, collects in one buffer so frames leave
in the order their nonces were assigned.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey

from cuttle_net.identity_key import BadIdentityKey, identity_public_key

from ..errors import Declined, ErrorCode, LocalProtocolError, ProtocolError, RemoteProtocolError
from . import codec, crypto
from .framing import FrameDecoder, encode_frame
from .messages import (
    GAME_MESSAGES,
    KEY_SIZE,
    MAX_LIST_LEN,
    MAX_NAME_LEN,
    MAX_TEXT_LEN,
    TOKEN,
    Accept,
    Auth,
    Close,
    Commit,
    Hello,
    Message,
    Ping,
    Pong,
    Propose,
    display_safe,
    message_from_wire,
)
from .state import INITIAL, Phase, Role, State, next_state, phase

PROTOCOL_VERSIONS: tuple[int, ...] = (6,)
"""The wire protocol versions this implementation speaks."""


def own_key_refusal(role: Role) -> str:
    """Why a side refuses a peer whose identity key is its own (SPEC 3.6): one line that also
    says how to play both seats on one machine."""
    peer = "joiner" if role is Role.HOST else "host"
    return (
        f"the {peer} shows your own identity key: you cannot play yourself. For two seats on"
        " one machine, give the second player its own folders:"
        " cuttle --config-dir DIR --data-dir DIR join ..."
    )


class _NeedData:
    def __repr__(self) -> str:
        return "NEED_DATA"


NEED_DATA = _NeedData()
"""Returned by `next_event` when a whole frame has not arrived yet."""


@dataclass(frozen=True)
class LocalPlayer:
    """Who we are: the name shown to the peer and our long-term Ed25519 identity key."""

    name: str
    identity: Ed25519PrivateKey

    def __post_init__(self) -> None:
        if not 1 <= len(self.name) <= MAX_NAME_LEN or display_safe(self.name) != self.name:
            raise ValueError(
                f"a player name is 1..{MAX_NAME_LEN} printable characters without"
                " leading, trailing or repeated spaces"
            )


@dataclass(frozen=True)
class Rules:
    """The rule set ("classic" or "standard") and variant names proposed by the host."""

    rules: str
    variants: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "variants", tuple(self.variants))
        names = (self.rules, *self.variants)
        if not all(TOKEN.fullmatch(name) for name in names) or len(set(names)) != len(names):
            raise ValueError("rules and variants are distinct lower-case tokens")
        if len(self.variants) > MAX_LIST_LEN:
            raise ValueError(f"at most {MAX_LIST_LEN} variants")


@dataclass(frozen=True)
class RulesProposed:
    """Event (joiner only): answer with `accept_rules()` or `refuse_rules(reason)`."""

    rules: Rules


@dataclass(frozen=True)
class HandshakeComplete:
    """Event: the handshake succeeded; game messages may flow."""

    role: Role
    version: int
    caps: frozenset[str]
    rules: Rules
    peer_name: str  # display-safe
    peer_identity: bytes  # raw Ed25519 public key
    peer_fingerprint: str
    session_id: bytes
    sas: str


Event = Message | RulesProposed | HandshakeComplete

CodeGate = Callable[[], tuple[str, str] | None]
"""Host: may this connection see our hello (a try at the code)? None, or a refusal."""


class Connection:
    """One side of a cuttle-net connection, without I/O."""

    def __init__(
        self,
        role: Role,
        player: LocalPlayer,
        *,
        rules: Rules | None = None,
        versions: tuple[int, ...] = PROTOCOL_VERSIONS,
        caps: tuple[str, ...] = (),
        random_bytes: Callable[[int], bytes] = os.urandom,
        code_gate: CodeGate | None = None,
    ) -> None:
        """`rules` is required of the host; `random_bytes` is injectable for test vectors.

        `code_gate` (host only) is asked when the joiner's commitment arrives, before our
        hello would give this connection a try at the code (SPEC 3.11): None lets the hello
        go; a (close code, reason) refuses instead, with a plaintext `close` (SPEC 3.6), and
        `next_event` raises `Declined`."""
        if (rules is None) != (role is Role.JOINER):
            raise ValueError("the host, and only the host, proposes rules")
        if code_gate is not None and role is not Role.HOST:
            raise ValueError("only the host shows its hello on a commitment")
        self._code_gate = code_gate
        self.role = role
        self._player = player
        self._rules = rules
        self._ephemeral = X25519PrivateKey.from_private_bytes(random_bytes(KEY_SIZE))
        self._decoder = FrameDecoder()
        self._outgoing = bytearray()
        self.our_state = INITIAL[role]
        self.their_state = INITIAL[role.other]
        self._error: ProtocolError | None = None
        self._sealer: crypto.FrameSealer | None = None
        self._opener: crypto.FrameOpener | None = None
        self._peer_hello: Hello | None = None
        self._peer_key: Ed25519PublicKey | None = None
        self._transcript = b""
        self._secrets: crypto.SessionSecrets | None = None
        self._version = 0
        self._their_commit = b""  # host: the joiner's commitment to its hello
        self._complete: HandshakeComplete | None = None  # joiner: due once it accepts
        self._code_exposed = False
        self._identity = player.identity.public_key().public_bytes_raw()
        self._hello = Hello(
            versions=versions,
            caps=caps,
            role=role.value,
            name=player.name,
            identity=self._identity,
            ephemeral=self._ephemeral.public_key().public_bytes_raw(),
        )
        self._hello_body = codec.pack(self._hello.to_wire())
        if role is Role.JOINER:
            self._send(Commit(hello=crypto.hello_commitment(self._hello_body)))

    # --- state -------------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        return phase(self.our_state, self.their_state)

    @property
    def buffered(self) -> int:
        """Bytes received that do not yet form a whole frame (or were not yet processed)."""
        return self._decoder.buffered

    @property
    def error(self) -> ProtocolError | None:
        """The error that ended this connection, if one did."""
        return self._error

    @property
    def code_exposed(self) -> bool:
        """Both hellos are out: the peer can compute the code of this attempt.

        Host: a handshake that then fails was one try at matching the code (SPEC 3.5).
        Joiner: a `busy` that comes after this is no reason to dial again by itself, as
        every new connection would give a man in the middle another code to match.
        """
        return self._code_exposed

    # --- bytes in, events out ----------------------------------------------------------

    def receive_data(self, data: bytes) -> None:
        """Buffer bytes from the peer; frames after the peer's Close are ignored."""
        if self.their_state is not State.CLOSED:
            self._decoder.feed(data)

    def next_event(self) -> Event | _NeedData:
        """The next event, or NEED_DATA. A `Close` from the peer is returned as an event."""
        if self._error is not None:
            raise self._error
        if self._complete is not None:
            complete, self._complete = self._complete, None
            return complete
        try:
            while self.their_state is not State.CLOSED:
                frame = self._decoder.next_frame()
                if frame is None:
                    break
                event = self._handle(*self._decode(*frame))
                if event is not None:
                    return event
        except ProtocolError as exc:
            self._fail(exc)
            raise
        return NEED_DATA

    # --- messages in, bytes out ----------------------------------------------------------

    def send(self, message: Message) -> None:
        """Queue a game message or a `Close`; raise LocalProtocolError if not allowed now."""
        try:
            allowed = type(message) in GAME_MESSAGES and self.phase is Phase.GAME
            if not (allowed or type(message) is Close):
                raise LocalProtocolError(
                    ErrorCode.UNEXPECTED_MESSAGE,
                    f"cannot send {message.TYPE} in phase {self.phase.value}",
                )
            self._send(message)
        except LocalProtocolError as exc:
            self._fail(exc)
            raise

    def close(self, code: ErrorCode | str = ErrorCode.PEER_QUIT, reason: str = "") -> None:
        """Queue a `Close` unless one was already sent."""
        if self.our_state not in (State.CLOSED, State.ERROR):
            self._send(Close(code=str(code), reason=reason[:MAX_TEXT_LEN]))

    def accept_rules(self) -> None:
        """Joiner: agree to the proposed rules; the handshake is then complete
        (`next_event` returns `HandshakeComplete`)."""
        self._require_pending_proposal()
        self._send(Accept())
        self._complete = self._completion()

    def refuse_rules(self, reason: str) -> None:
        """Joiner: refuse the proposed rules; this closes the connection."""
        self._require_pending_proposal()
        self.close(ErrorCode.RULES_REFUSED, reason)

    @property
    def sending(self) -> bool:
        """Bytes are queued for the peer (`data_to_send` would give some)."""
        return bool(self._outgoing)

    def data_to_send(self) -> bytes:
        """Everything queued for the peer since the last call."""
        data = bytes(self._outgoing)
        self._outgoing.clear()
        return data

    # --- internals -------------------------------------------------------------------------

    def _require_pending_proposal(self) -> None:
        if not (self.role is Role.JOINER and self.our_state is State.ACCEPT and self._rules):
            raise LocalProtocolError(ErrorCode.UNEXPECTED_MESSAGE, "no rules proposal to answer")

    def _send(self, message: Message, body: bytes | None = None) -> None:
        target = next_state(self.role, self.our_state, type(message), self.their_state)
        if target is None:
            raise LocalProtocolError(
                ErrorCode.UNEXPECTED_MESSAGE,
                f"{message.TYPE} may not be sent in state {self.our_state.value}",
            )
        self._queue(message, body)
        self.our_state = target

    def _queue(self, message: Message, body: bytes | None = None) -> None:
        body = body if body is not None else codec.pack(message.to_wire())
        self._outgoing += self._sealer.seal(body) if self._sealer else encode_frame(body)

    def _fail(self, exc: ProtocolError) -> None:
        if self._error is not None:
            return
        if self.our_state not in (State.CLOSED, State.ERROR):
            # Tell the peer why; our own mistakes are reported to it as internal errors.
            ours = isinstance(exc, LocalProtocolError)
            code = ErrorCode.INTERNAL_ERROR if ours else exc.code
            self._queue(Close(code=code.value, reason=exc.message[:MAX_TEXT_LEN]))
        self._error = exc
        self.our_state = self.their_state = State.ERROR

    def _decode(self, prefix: bytes, body: bytes) -> tuple[Message, bytes]:
        """The message in a frame, and the frame's plaintext body."""
        if self._opener is None:
            return message_from_wire(codec.unpack(body)), body
        try:
            plaintext = self._opener.open(prefix, body)
            return message_from_wire(codec.unpack(plaintext)), plaintext
        except RemoteProtocolError as exc:
            if exc.code is not ErrorCode.DECRYPT_FAILED or self.their_state is not State.AUTH:
                raise
            # A host that could not use our hello has no keys, so it closes in plaintext.
            try:
                message = message_from_wire(codec.unpack(body))
            except RemoteProtocolError:
                raise exc from None
            if type(message) is not Close:
                raise
            return message, body

    def _handle(self, message: Message, body: bytes) -> Event | None:
        peer = self.role.other
        target = next_state(peer, self.their_state, type(message), self.our_state)
        if target is None:
            if type(message) is Hello and self.their_state is State.COMMIT:
                self._check_versions(message)  # an older joiner opens with its hello
            if type(message) is Commit and self.role is Role.JOINER:
                raise RemoteProtocolError(ErrorCode.ROLE_CONFLICT, "both sides are joiners")
            raise RemoteProtocolError(
                ErrorCode.UNEXPECTED_MESSAGE,
                f"{message.TYPE} is not allowed from the {peer.value} in state"
                f" {self.their_state.value}",
            )
        self.their_state = target
        if self.our_state is State.CLOSED:
            return None  # we already said goodbye; whatever crossed it is moot
        match message:
            case Commit():
                self._their_commit = message.hello
                refusal = self._code_gate() if self._code_gate is not None else None
                if refusal is not None:
                    raise Declined(ErrorCode(refusal[0]), refusal[1])
                self._send(self._hello, self._hello_body)
                self._code_exposed = True
            case Hello():
                self._on_hello(message, body)
            case Auth():
                self._on_auth(message)
            case Propose():
                return self._on_propose(message)
            case Accept():
                return self._completion()
            case Ping():
                self._send(Pong(n=message.n))
                return None
            case Close():
                self.our_state = State.CLOSED
                return message
            case _:
                return message
        return None

    def _check_versions(self, hello: Hello) -> None:
        common = set(hello.versions) & set(self._hello.versions)
        if not common:
            raise RemoteProtocolError(
                ErrorCode.VERSION_MISMATCH,
                f"the peer speaks versions {sorted(hello.versions)}; we speak"
                f" {sorted(self._hello.versions)}",
            )
        self._version = max(common)

    def _on_hello(self, hello: Hello, body: bytes) -> None:
        if self.role is Role.HOST and crypto.hello_commitment(body) != self._their_commit:
            raise RemoteProtocolError(
                ErrorCode.BAD_REVEAL,
                "the joiner's hello is not the one it committed to: someone may be in the middle",
            )
        if hello.role != self.role.other.value:
            raise RemoteProtocolError(
                ErrorCode.ROLE_CONFLICT, f"both sides claim to be the {self.role.value}"
            )
        self._check_versions(hello)
        try:
            self._peer_key = identity_public_key(hello.identity)
        except BadIdentityKey as exc:
            raise RemoteProtocolError(ErrorCode.BAD_KEY, f"identity key refused: {exc}") from None
        try:
            shared = self._ephemeral.exchange(X25519PublicKey.from_public_bytes(hello.ephemeral))
        except ValueError:
            raise RemoteProtocolError(
                ErrorCode.BAD_KEY, "ephemeral key refused: a low-order X25519 point"
            ) from None
        self._peer_hello = hello
        hellos = (self._hello, hello)
        host_hello, joiner_hello = hellos if self.role is Role.HOST else hellos[::-1]
        self._transcript = crypto.transcript_hash(host_hello, joiner_hello)
        self._secrets = crypto.derive_secrets(shared, self._transcript)
        if self.role is Role.JOINER:
            self._send(self._hello, self._hello_body)  # the opening, still in plaintext
            self._code_exposed = True
        self._sealer = crypto.FrameSealer(self._secrets.sending_key(self.role))
        self._opener = crypto.FrameOpener(self._secrets.receiving_key(self.role))
        if hello.identity == self._identity:
            # Checked once both hellos are out, so that each side finds it by itself (a
            # joiner that stopped before its hello would leave the host with its word only),
            # and before anything is signed or trusted (3.6).
            raise RemoteProtocolError(ErrorCode.BAD_KEY, own_key_refusal(self.role))
        signature = self._player.identity.sign(crypto.auth_message(self.role, self._transcript))
        self._send(Auth(signature=signature))

    def _on_auth(self, auth: Auth) -> None:
        assert self._peer_key is not None
        try:
            self._peer_key.verify(
                auth.signature, crypto.auth_message(self.role.other, self._transcript)
            )
        except InvalidSignature:
            raise RemoteProtocolError(
                ErrorCode.BAD_SIGNATURE,
                "the peer's handshake signature does not verify: someone may be in the middle",
            ) from None
        if self.role is Role.HOST:  # the joiner proved its key: our game, in the same flight
            assert self._rules is not None
            self._send(Propose(self._rules.rules, self._rules.variants))

    def _peer_identity(self) -> bytes:
        assert self._peer_hello is not None
        return self._peer_hello.identity

    def _on_propose(self, propose: Propose) -> RulesProposed:
        self._rules = Rules(propose.rules, propose.variants)
        return RulesProposed(self._rules)

    def _completion(self) -> HandshakeComplete:
        """What both sides agree on."""
        assert self._peer_hello is not None and self._secrets is not None
        assert self._rules is not None
        peer = self._peer_hello
        return HandshakeComplete(
            role=self.role,
            version=self._version,
            caps=frozenset(self._hello.caps) & frozenset(peer.caps),
            rules=self._rules,
            peer_name=display_safe(peer.name),
            peer_identity=peer.identity,
            peer_fingerprint=crypto.fingerprint(peer.identity),
            session_id=self._secrets.session_id,
            sas=self._secrets.sas,
        )
