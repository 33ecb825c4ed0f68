"""Trio as a guest of Textual's asyncio loop: the app's one trio run, shared by its parts.

Textual runs on asyncio; the network code is trio.  ``TrioGuest`` starts one trio run in
*guest mode* (``trio.lowlevel.start_guest_run``) on the running asyncio loop, so both run
on one thread: trio tasks may touch controllers and widgets directly, and the UI hands work
to trio with ``run_sync_soon`` (e.g. ``send_channel.send_nowait``).

Trio allows one run per thread, so the app starts a single ``TrioGuest`` and every part that
needs trio (the lobby's LAN browser, a network game) starts a ``GuestTask`` in it, which it
can cancel alone.  ``aclose`` ends the whole run and waits for it, so the asyncio loop never
stops under a half-cancelled trio run.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

import trio


class GuestTask:
    """One task of the guest run: cancel it, or wait on asyncio until it has ended."""

    def __init__(self, guest: TrioGuest) -> None:
        self._guest = guest
        self._scope: trio.CancelScope | None = None
        self._cancelled = False
        self._finished = asyncio.Event()

    @property
    def done(self) -> bool:
        return self._finished.is_set()

    async def _run(self, async_fn: Callable[[], Awaitable[Any]]) -> None:
        try:
            with trio.CancelScope() as scope:
                self._scope = scope
                if self._cancelled:
                    scope.cancel()
                await async_fn()
        finally:
            self._finished.set()

    def cancel(self) -> None:
        def now() -> None:
            self._cancelled = True
            if self._scope is not None:
                self._scope.cancel()

        self._guest.run_sync_soon(now)

    async def wait(self, patience: float) -> None:
        """Wait (on asyncio) until the task ends by itself, at most ``patience`` seconds."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._finished.wait(), patience)

    async def aclose(self, patience: float = 5.0) -> None:
        """Cancel, and wait until the task has unwound (at most ``patience`` seconds)."""
        self.cancel()
        with contextlib.suppress(TimeoutError):  # a stuck task must not hang the app
            await asyncio.wait_for(self._finished.wait(), patience)


class TrioGuest:
    """The app's trio run, hosted by the asyncio loop of the code that starts it."""

    def __init__(self) -> None:
        self._token: trio.lowlevel.TrioToken | None = None
        self._nursery: trio.Nursery | None = None
        self._pending: list[tuple[Callable[..., Any], tuple[Any, ...]]] = []
        self._finished: asyncio.Event | None = None
        self.done = False

    @property
    def started(self) -> bool:
        return self._finished is not None

    def start(self) -> None:
        """Start the run; call from code running on the asyncio loop."""
        loop = asyncio.get_running_loop()
        self._finished = asyncio.Event()

        async def main() -> None:
            self._token = trio.lowlevel.current_trio_token()
            async with trio.open_nursery() as nursery:
                self._nursery = nursery
                for fn, args in self._pending:  # asked for before trio had started
                    fn(*args)
                self._pending.clear()
                await trio.sleep_forever()

        def finished(_: object) -> None:
            self.done = True
            assert self._finished is not None
            self._finished.set()

        trio.lowlevel.start_guest_run(
            main,
            run_sync_soon_threadsafe=loop.call_soon_threadsafe,
            run_sync_soon_not_threadsafe=loop.call_soon,
            done_callback=finished,
            host_uses_signal_set_wakeup_fd=True,  # asyncio may own the wakeup fd
        )

    def start_task(self, async_fn: Callable[[], Awaitable[Any]]) -> GuestTask:
        """Run ``async_fn`` as a task of the run (from the UI side)."""
        task = GuestTask(self)
        self.run_sync_soon(lambda: self._nursery.start_soon(task._run, async_fn))  # type: ignore[union-attr]
        return task

    def run_sync_soon(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` inside the trio run (from the UI side)."""
        if self.done:
            return
        if self._token is None:
            self._pending.append((fn, args))
        else:
            self._token.run_sync_soon(fn, *args)

    async def aclose(self, patience: float = 5.0) -> None:
        """End the run, and wait (on asyncio) until trio has finished unwinding."""
        self.run_sync_soon(lambda: self._nursery and self._nursery.cancel_scope.cancel())
        if self._finished is not None and not self.done:
            with contextlib.suppress(TimeoutError):  # trio is stuck: do not hang the app
                await asyncio.wait_for(self._finished.wait(), patience)
