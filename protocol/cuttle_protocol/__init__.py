"""cuttle_protocol: the sans-I/O wire protocol of cuttle-net (SPEC.md part 3).

The core (everything importable from here) does no I/O and does not import trio; the trio
shell is `cuttle_protocol.trio_peer`.
"""

from .address import DEFAULT_PORT, parse_address
from .connection import (
    NEED_DATA,
    PROTOCOL_VERSIONS,
    Connection,
    Event,
    HandshakeComplete,
    LocalPlayer,
    Rules,
    RulesProposed,
)
from .crypto import fingerprint
from .errors import ErrorCode, LocalProtocolError, ProtocolError, RemoteProtocolError
from .framing import MAX_FRAME_SIZE
from .identity import (
    ConfigError,
    KnownPeers,
    Trust,
    default_config_dir,
    load_or_create_identity,
)
from .messages import (
    Close,
    DeckPayload,
    Message,
    Move,
    Ping,
    Pong,
    RematchAnswer,
    RematchRequest,
    display_safe,
)
from .state import Phase, Role, State

__all__ = [
    "DEFAULT_PORT",
    "MAX_FRAME_SIZE",
    "NEED_DATA",
    "PROTOCOL_VERSIONS",
    "Close",
    "ConfigError",
    "Connection",
    "DeckPayload",
    "ErrorCode",
    "Event",
    "HandshakeComplete",
    "KnownPeers",
    "LocalPlayer",
    "LocalProtocolError",
    "Message",
    "Move",
    "Phase",
    "Ping",
    "Pong",
    "ProtocolError",
    "RematchAnswer",
    "RematchRequest",
    "RemoteProtocolError",
    "Role",
    "Rules",
    "RulesProposed",
    "State",
    "Trust",
    "default_config_dir",
    "display_safe",
    "fingerprint",
    "load_or_create_identity",
    "parse_address",
]
