"""The per-direction state machine, as tables (SPEC.md 3.8).

Each side's *sending* state moves through the same table whether we track our own frames or
the peer's, so one table checks what we may send and what the peer may send us.
"""

from __future__ import annotations

from enum import Enum, StrEnum

from .messages import GAME_MESSAGES, Accept, Auth, Close, Commit, Hello, Message, Propose


class Role(StrEnum):
    HOST = "host"  # accepted the TCP connection; proposes the rules
    JOINER = "joiner"  # opened the TCP connection; accepts or refuses them

    @property
    def other(self) -> Role:
        return Role.JOINER if self is Role.HOST else Role.HOST


class State(Enum):
    """What the next frame from one side may be."""

    COMMIT = "commit"
    HELLO = "hello"
    AUTH = "auth"
    PROPOSE = "propose"
    ACCEPT = "accept"
    GAME = "game"
    CLOSED = "closed"
    ERROR = "error"


INITIAL: dict[Role, State] = {Role.HOST: State.HELLO, Role.JOINER: State.COMMIT}


class Phase(Enum):
    HANDSHAKE = "handshake"
    GAME = "game"
    CLOSED = "closed"
    ERROR = "error"


_GAME: dict[type[Message], State] = dict.fromkeys(GAME_MESSAGES, State.GAME)

TRANSITIONS: dict[Role, dict[State, dict[type[Message], State]]] = {
    Role.HOST: {
        State.HELLO: {Hello: State.AUTH},
        State.AUTH: {Auth: State.PROPOSE},
        State.PROPOSE: {Propose: State.GAME},
        State.GAME: _GAME,
    },
    Role.JOINER: {
        State.COMMIT: {Commit: State.HELLO},
        State.HELLO: {Hello: State.AUTH},
        State.AUTH: {Auth: State.ACCEPT},
        State.ACCEPT: {Accept: State.GAME},
        State.GAME: _GAME,
    },
}
"""sender's role -> sender's state -> message kind -> sender's next state. `Close` is allowed
in every state listed here and leads to CLOSED."""

_AFTER_HOST_HELLO = frozenset({State.AUTH, State.PROPOSE, State.GAME})

PEER_STATES_REQUIRED: dict[tuple[Role, type[Message]], frozenset[State]] = {
    # The host shows its hello only to a joiner committed to its own...
    (Role.HOST, Hello): frozenset({State.HELLO}),
    # ...which opens it only once it has the host's.
    (Role.JOINER, Hello): _AFTER_HOST_HELLO,
    # The host proposes its game only to a joiner that signed the transcript...
    (Role.HOST, Propose): frozenset({State.ACCEPT}),
    # ...and the joiner accepts only rules it has been sent.
    (Role.JOINER, Accept): frozenset({State.GAME}),
}
"""(sender, kind) -> the states the *other* side must have reached before it may be sent."""


def next_state(role: Role, state: State, kind: type[Message], other: State) -> State | None:
    """The sender's state after sending `kind`, or None if it may not send it now."""
    if state in (State.CLOSED, State.ERROR):
        return None
    if kind is Close:
        return State.CLOSED
    target = TRANSITIONS[role][state].get(kind)
    required = PEER_STATES_REQUIRED.get((role, kind))
    if target is None or (required is not None and other not in required):
        return None
    return target


def phase(ours: State, theirs: State) -> Phase:
    if State.ERROR in (ours, theirs):
        return Phase.ERROR
    if State.CLOSED in (ours, theirs):
        return Phase.CLOSED
    if ours is State.GAME and theirs is State.GAME:
        return Phase.GAME
    return Phase.HANDSHAKE
