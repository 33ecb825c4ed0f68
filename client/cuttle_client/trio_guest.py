"""Trio as a guest of Textual's asyncio loop: the hook network play will use.

Textual runs on asyncio; the network code is trio.  ``TrioGuest`` starts a trio run in
*guest mode* (``trio.lowlevel.start_guest_run``) on the running asyncio loop, so both
run on one thread: trio tasks may touch the controller and the UI directly, and the UI
hands work to trio with ``run_sync_soon`` (e.g. ``send_channel.send_nowait``).  One
cancel scope wraps the trio function: ``cancel()`` ends the run, and ``on_done`` (trio's
``done_callback``) says when it has finished, so the app may exit after it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import trio

if TYPE_CHECKING:
    import outcome


class TrioGuest:
    """One trio run hosted by the asyncio loop of the calling code."""

    def __init__(self) -> None:
        self._token: trio.lowlevel.TrioToken | None = None
        self._scope: trio.CancelScope | None = None
        self._pending: list[tuple[Callable[..., Any], tuple[Any, ...]]] = []
        self._finished: asyncio.Event | None = None
        self.done = False

    def start(
        self,
        async_fn: Callable[[], Awaitable[Any]],
        on_done: Callable[[outcome.Outcome], None] = lambda _: None,
    ) -> None:
        """Start ``async_fn`` under trio; call from code running on the asyncio loop."""
        loop = asyncio.get_running_loop()
        self._finished = asyncio.Event()

        async def main() -> Any:
            self._token = trio.lowlevel.current_trio_token()
            with trio.CancelScope() as scope:
                self._scope = scope
                for fn, args in self._pending:  # asked for before trio had started
                    fn(*args)
                self._pending.clear()
                return await async_fn()

        def finished(result: outcome.Outcome) -> None:
            self.done = True
            assert self._finished is not None
            self._finished.set()
            on_done(result)

        trio.lowlevel.start_guest_run(
            main,
            run_sync_soon_threadsafe=loop.call_soon_threadsafe,
            run_sync_soon_not_threadsafe=loop.call_soon,
            done_callback=finished,
            host_uses_signal_set_wakeup_fd=True,  # asyncio may own the wakeup fd
        )

    def run_sync_soon(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` inside the trio run (from the UI side)."""
        if self.done:
            return
        if self._token is None:
            self._pending.append((fn, args))
        else:
            self._token.run_sync_soon(fn, *args)

    def cancel(self) -> None:
        """End the trio run through its cancel scope."""
        self.run_sync_soon(lambda: self._scope and self._scope.cancel())

    async def aclose(self, patience: float = 5.0) -> None:
        """Cancel the run and wait (on asyncio) until trio has finished unwinding, so the
        loop never stops under a half-cancelled trio run."""
        self.cancel()
        if self._finished is not None and not self.done:
            # If trio is stuck, give up waiting rather than hang the app.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._finished.wait(), patience)
