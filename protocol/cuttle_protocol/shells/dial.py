"""Reaching a host: every address a name (or an invitation) gives, tried in the order
RFC 8305 ("happy eyeballs") recommends, and a failure that names each address tried and
the likely cause.

trio's ``open_tcp_stream`` races addresses the same way, but when all fail it reports one
summary; a player who cannot connect needs to know which addresses were tried and whether
each one refused (nothing listening, or a firewall rejecting) or never answered (a
firewall dropping, or a router not forwarding the port).  So the race is done here.
"""

from __future__ import annotations

import errno
import socket
from collections.abc import Sequence
from dataclasses import dataclass

import trio

from ..wire.address import format_address as shown

STAGGER = 0.25
"""Seconds before the next address is tried while one is still connecting (RFC 8305 §5)."""

REFUSED = "refused"
NO_ANSWER = "no answer"
UNREACHABLE = "unreachable"
UNKNOWN_NAME = "unknown name"

_CAUSES = {  # what each outcome most likely means, said once after the outcome itself
    REFUSED: "nothing is listening on that port there, or a firewall rejects it",
    NO_ANSWER: (
        "a firewall drops the connection, or the host is behind a router (NAT) "
        "that does not forward the port to it"
    ),
    UNREACHABLE: "this machine has no route there (e.g. no IPv6 connectivity)",
    UNKNOWN_NAME: "check the spelling, or use the host's IP address",
}


@dataclass(frozen=True)
class Attempt:
    """One address tried and what came of it (``REFUSED``, ``NO_ANSWER``, …)."""

    address: str
    outcome: str
    detail: str = ""


class Unreachable(Exception):
    """No address answered; ``attempts`` says what happened at each."""

    def __init__(self, attempts: Sequence[Attempt]) -> None:
        self.attempts = tuple(attempts)
        super().__init__(self.explain())

    @property
    def timed_out(self) -> bool:
        return any(a.outcome == NO_ANSWER for a in self.attempts)

    def explain(self) -> str:
        """Each address's outcome, then what the outcomes mean, each said once: "refused —
        nothing is listening…", never "refused. refused: …"."""
        tried = "; ".join(f"{a.address}: {a.outcome}{_detail(a)}" for a in self.attempts)
        outcomes = list(dict.fromkeys(a.outcome for a in self.attempts))
        if len(outcomes) == 1:
            return f"tried {tried} — {_CAUSES[outcomes[0]]}"
        return f"tried {tried}. " + "; ".join(f"{o}: {_CAUSES[o]}" for o in outcomes)


def _detail(attempt: Attempt) -> str:
    return f" ({attempt.detail})" if attempt.detail else ""


@dataclass(frozen=True)
class _Candidate:
    family: int
    sockaddr: tuple
    address: str


async def _resolve(targets: Sequence[tuple[str, int]]) -> tuple[list[_Candidate], list[Attempt]]:
    """Every address of every target, each name's own interleaved by family (RFC 8305 §4:
    first the family the resolver preferred, then alternating); duplicates once."""
    found: dict[str, _Candidate] = {}
    failed: list[Attempt] = []
    for host, port in targets:
        try:
            infos = await trio.socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (socket.gaierror, UnicodeError) as exc:
            detail = getattr(exc, "strerror", None) or str(exc)
            failed.append(Attempt(shown(host, port), UNKNOWN_NAME, detail))
            continue
        by_family: dict[int, list[_Candidate]] = {}
        for family, _type, _proto, _name, sockaddr in infos:
            if family not in (socket.AF_INET, socket.AF_INET6):
                continue
            ip = _zoned(str(sockaddr[0]), sockaddr)
            by_family.setdefault(family, []).append(
                _Candidate(family, sockaddr, shown(ip, int(sockaddr[1])))
            )
        queues = list(by_family.values())
        while any(queues):
            for queue in queues:
                if queue:
                    candidate = queue.pop(0)
                    found.setdefault(candidate.address, candidate)
    return list(found.values()), failed


def _zoned(ip: str, sockaddr: tuple) -> str:
    """A link-local IPv6 address with its zone (fe80::1%eth0), as it must be dialled and
    shown: getaddrinfo gives the zone as the sockaddr's scope id, not in the text."""
    if len(sockaddr) < 4 or not sockaddr[3] or "%" in ip:
        return ip
    try:
        return f"{ip}%{socket.if_indextoname(sockaddr[3])}"
    except OSError:
        return f"{ip}%{sockaddr[3]}"


async def dial(
    targets: Sequence[tuple[str, int]], timeout: float, *, stagger: float = STAGGER
) -> tuple[trio.SocketStream, str]:
    """A TCP stream to the first of ``targets`` to answer, and the address it answered at;
    raises ``Unreachable`` naming every address tried.  ``timeout`` bounds the whole race."""
    candidates, attempts = await _resolve(targets)
    winner: tuple[trio.SocketStream, str] | None = None
    outcome: dict[str, Attempt] = {}
    started: set[str] = set()

    async def attempt(candidate: _Candidate, failed: trio.Event) -> None:
        nonlocal winner
        sock = None
        try:
            sock = trio.socket.socket(candidate.family, socket.SOCK_STREAM)
            await sock.connect(candidate.sockaddr)
        except OSError as exc:
            if sock is not None:
                sock.close()
            if isinstance(exc, ConnectionRefusedError):
                kind = REFUSED
            elif exc.errno == errno.ETIMEDOUT:
                kind = NO_ANSWER
            else:  # no route, no such family here, or anything else the system reports
                kind = UNREACHABLE
            detail = exc.strerror or str(exc) if kind == UNREACHABLE else ""
            outcome[candidate.address] = Attempt(candidate.address, kind, detail)
            failed.set()
            return
        except BaseException:
            if sock is not None:
                sock.close()
            raise
        if winner is None:
            winner = (trio.SocketStream(sock), candidate.address)
            nursery.cancel_scope.cancel()
        else:
            sock.close()

    with trio.move_on_after(timeout):
        async with trio.open_nursery() as nursery:
            for candidate in candidates:
                started.add(candidate.address)
                failed = trio.Event()
                nursery.start_soon(attempt, candidate, failed)
                with trio.move_on_after(stagger):
                    await failed.wait()
    if winner is not None:
        return winner
    for candidate in candidates:
        late = "not tried: time ran out" if candidate.address not in started else ""
        attempts.append(
            outcome.get(candidate.address)
            or Attempt(candidate.address, NO_ANSWER, late or f"nothing within {timeout:g} s")
        )
    raise Unreachable(attempts)
