"""The two-party wire protocol, sans I/O (SPEC part 3): framing, the msgpack codec, the
messages, the handshake and its code (`Connection`), addresses and invitations, the
code-attempt budget, and the LAN announcement's record (SPEC 3.13). No sockets, no trio:
the shells drive it."""

from __future__ import annotations

from .address import DEFAULT_PORT, format_address, parse_address
from .announcement import (
    SERVICE_TYPE,
    Announcement,
    IncompatibleVersion,
    RecordError,
    display_text,
    seats_text,
)
from .codebudget import Alarm, CodeAlarm, CodeBudget, CodeLimits
from .codec import pack, unpack
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
from .framing import MAX_FRAME_SIZE, FrameDecoder, encode_frame
from .invitation import Invitation, InvitationError, fingerprint_text, is_invitation
from .messages import (
    MAX_NAME_LEN,
    Accept,
    Auth,
    Close,
    Commit,
    DeckPayload,
    Entry,
    Flip,
    Hello,
    Message,
    Move,
    Ping,
    Pong,
    Post,
    Propose,
    RematchAnswer,
    RematchRequest,
    Resume,
    TableStatus,
    display_safe,
    message_from_wire,
)
from .state import Phase, Role, State

__all__ = [
    "DEFAULT_PORT",
    "MAX_FRAME_SIZE",
    "MAX_NAME_LEN",
    "NEED_DATA",
    "PROTOCOL_VERSIONS",
    "SERVICE_TYPE",
    "Accept",
    "Alarm",
    "Announcement",
    "Auth",
    "Close",
    "CodeAlarm",
    "CodeBudget",
    "CodeLimits",
    "Commit",
    "Connection",
    "DeckPayload",
    "Entry",
    "Event",
    "Flip",
    "FrameDecoder",
    "HandshakeComplete",
    "Hello",
    "IncompatibleVersion",
    "Invitation",
    "InvitationError",
    "LocalPlayer",
    "Message",
    "Move",
    "Phase",
    "Ping",
    "Pong",
    "Post",
    "Propose",
    "RecordError",
    "RematchAnswer",
    "RematchRequest",
    "Resume",
    "Role",
    "Rules",
    "RulesProposed",
    "State",
    "TableStatus",
    "display_safe",
    "display_text",
    "encode_frame",
    "fingerprint",
    "fingerprint_text",
    "format_address",
    "is_invitation",
    "message_from_wire",
    "pack",
    "parse_address",
    "seats_text",
    "unpack",
]
