"""A tiny turn-based game for testing the table: seats count up in turn from the dealer.

Used in-process by the table's network tests (tables of real processes play real games:
test_table_headless.py for L'Unisson at 3 and 6 seats, test_host_join.py for Cuttle).
"""

from __future__ import annotations

from collections.abc import Callable

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cuttle_protocol.shells import TableShell
from cuttle_protocol.table import CodeShown, Delivered, Started, TableEnded
from cuttle_protocol.wire import LocalPlayer


async def play_count(
    shell: TableShell,
    limit: int,
    *,
    stall_at: int | None = None,
    hold: tuple[int, trio.Event] | None = None,
    watch: Callable[[object], None] = lambda event: None,
) -> str:
    """Play until someone says `limit`; the result line, the same on every side. A seat
    whose turn comes at `stall_at` never says it (to test the timeouts); with `hold`
    (n, event), the seat whose turn comes at n says it only once the event is set (so that
    a test's own steps happen mid-game, however slow the machine). `watch` sees every
    event of the shell."""
    state = {"n": 0, "next": -1}
    shell.owes = lambda: (
        (state["next"], True) if state["next"] >= 0 and state["n"] < limit else None
    )

    async def say_later(n: int, event: trio.Event) -> None:
        await event.wait()
        if not shell.ended.is_set():
            shell.post({"t": "count", "n": n})

    async with trio.open_nursery() as nursery:

        def my_turn() -> None:
            n = state["n"] + 1
            if state["next"] != shell.core.me or n == stall_at:
                return
            if hold is not None and n == hold[0] and not hold[1].is_set():
                nursery.start_soon(say_later, n, hold[1])
            else:
                shell.post({"t": "count", "n": n})

        result = "result: no ending"
        async for event in shell.events:
            watch(event)
            if isinstance(event, CodeShown):
                shell.confirm()
            elif isinstance(event, Started):
                state["next"] = event.dealer
                my_turn()
            elif isinstance(event, Delivered):
                n = event.body.get("n")
                if event.seat != state["next"] or n != state["n"] + 1:
                    shell.fault(event.seat, "illegal_move", f"counted {n!r} out of turn")
                    continue
                state["n"], state["next"] = n, (event.seat + 1) % len(shell.core.seats)
                if n == limit:
                    result = f"result: counted to {n}, last seat {event.seat}"
                    break
                my_turn()
            elif isinstance(event, TableEnded):
                result = f"result: stopped: {event.kind} by seat {event.culprit}"
                break
        nursery.cancel_scope.cancel()
    return result


def on_log_length(shell: TableShell, lengths: list[int], action: Callable[[], bool | None]) -> None:
    """Call `action` as soon as the table's log reaches each of `lengths` (in order), in
    the step that grew it: a test acts mid-game at a set point without polling, which
    trio's mock clock would not wake while the game runs on. Once per step: a step that
    passes two lengths at once (a resumed connection catching up) acts for the first. An
    action that returns False could not act yet: it is tried again at the next step."""
    pending = list(lengths)
    flush = shell._flush  # every change of the log passes through it

    def watched() -> None:
        flush()
        log = shell.core.log if shell.core is not None else None
        if pending and log is not None and len(log) >= pending[0] and action() is not False:
            pending.pop(0)

    shell._flush = watched  # type: ignore[method-assign]


def player(name: str) -> LocalPlayer:
    return LocalPlayer(name, Ed25519PrivateKey.generate())
