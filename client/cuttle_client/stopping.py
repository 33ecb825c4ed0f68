"""SIGTERM and SIGHUP end a ``cuttle`` command the way Ctrl+C (SIGINT) does.

A ``kill``, a shutdown (SIGTERM) or a closed terminal (SIGHUP) would otherwise end the
process at once: no ``close`` to the other player, the LAN announcement and the router's
port mapping left behind, the terminal left in the app's screen. So:

- ``installed`` (once, around the whole command) hands both signals to SIGINT's handler:
  in a headless game (``run_trio``) trio's, so ``KeyboardInterrupt`` comes out of the main
  task at a checkpoint and every ``finally`` runs (a game in progress is left, not
  conceded: ``play.play_at_table``); elsewhere Python's
  ``KeyboardInterrupt`` (``cuttle arena`` then ends its workers: ``cuttle_net.jobs``);
- a Textual app (``run_app``) takes all three signals itself: it quits as after ``ctrl+q``
  (a game in progress left, never conceded) and restores the terminal.

The command then exits with 128 + the signal's number (``status``), as shells expect.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import threading
from collections.abc import Awaitable, Callable, Iterator
from types import FrameType
from typing import Any, TypeVar

T = TypeVar("T")

STOPS = tuple(s for s in (signal.SIGTERM, getattr(signal, "SIGHUP", None)) if s is not None)
"""The signals that stop a command as Ctrl+C does (Windows has no SIGHUP)."""

_received: int | None = None  # the first stopping signal, if one came


@contextlib.contextmanager
def installed() -> Iterator[None]:
    """Within the block (the whole command), hand SIGTERM and SIGHUP to SIGINT's handler.

    A signal the parent ignores stays ignored (``nohup``'s SIGHUP). SIGINT always gets
    Python's handler, even if the parent ignored it (a script's background job): it is the
    path the other two take. The handlers are put back after the block.
    """
    global _received
    _received = None
    if threading.current_thread() is not threading.main_thread():
        yield  # signals reach the main thread only: a caller elsewhere keeps its own
        return
    saved = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, *STOPS)}
    if saved[signal.SIGINT] is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    for signum in STOPS:
        if saved[signum] is not signal.SIG_IGN:
            signal.signal(signum, _forward)
    try:
        yield
    finally:
        for signum, handler in saved.items():
            if handler is not None:  # None: not set from Python, nothing to put back
                signal.signal(signum, handler)


def _forward(signum: int, frame: FrameType | None) -> None:
    _note(signum)
    handler = signal.getsignal(signal.SIGINT)
    if not callable(handler):  # someone set SIGINT back to the default or ignored it
        raise KeyboardInterrupt
    handler(signal.SIGINT, frame)


def _note(signum: int) -> None:
    global _received
    if _received is None:
        _received = signum


@contextlib.contextmanager
def handled(stop: Callable[[int], None]) -> Iterator[None]:
    """Within the block, SIGINT, SIGTERM and SIGHUP call ``stop(signum)`` instead of raising
    ``KeyboardInterrupt`` (a signal ignored from the start stays ignored). ``stop`` runs in
    the main thread between two bytecodes of whatever was running: it must only schedule
    the work (``call_soon_threadsafe``)."""

    def on_signal(signum: int, frame: FrameType | None) -> None:
        _note(signum)
        stop(signum)

    saved = {
        signum: signal.signal(signum, on_signal)
        for signum in (signal.SIGINT, *STOPS)
        if signal.getsignal(signum) is not signal.SIG_IGN
    }
    try:
        yield
    finally:
        for signum, handler in saved.items():
            if handler is not None:
                signal.signal(signum, handler)


def stopped() -> bool:
    """Did a signal stop the command?"""
    return _received is not None


def status() -> int:
    """The exit status of a command that a signal stopped: 128 + its number (130 for
    SIGINT, 143 for SIGTERM, 129 for SIGHUP)."""
    return 128 + (_received or signal.SIGINT)


def interrupted(exc: BaseException) -> bool:
    """Is ``exc`` a ``KeyboardInterrupt``, alone or in (nested) exception groups?"""
    if isinstance(exc, BaseExceptionGroup):
        matched, rest = exc.split(KeyboardInterrupt)
        return matched is not None and rest is None
    return isinstance(exc, KeyboardInterrupt)


def run_trio(async_fn: Callable[..., Awaitable[T]], *args: object) -> T:
    """``trio.run``, with Ctrl+C (and so SIGTERM and SIGHUP) raised only in the main task, at
    a checkpoint: never in the middle of a session step or a journal write, and always
    where the game's ``finally`` blocks can still tell the other side."""
    import trio

    return trio.run(async_fn, *args, restrict_keyboard_interrupt_to_checkpoints=True)


def run_app(app: Any) -> None:
    """Run the Textual ``app``, which SIGINT, SIGTERM and SIGHUP quit cleanly (the terminal
    restored): as its ``quit_for_signal()`` (async) says, else at once. A second signal
    quits at once."""
    import asyncio

    signals: list[int] = []

    def stop_soon(signum: int) -> None:  # in a signal handler: only schedule the work
        if signum == getattr(signal, "SIGHUP", None):
            _let_go_of_a_hung_up_terminal()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # the app is not running: nothing to leave or to restore
            raise KeyboardInterrupt from None
        signals.append(signum)
        loop.call_soon_threadsafe(app.call_later, stop)

    async def stop() -> None:
        quit_for_signal = getattr(app, "quit_for_signal", None)
        if quit_for_signal is None or len(signals) > 1:
            app.exit()
        else:
            await quit_for_signal()

    with handled(stop_soon):
        app.run()


def _let_go_of_a_hung_up_terminal() -> None:
    """The terminal hung up (closed, or its connection lost) if it answers with EIO: then
    every read and write fails, and Textual's writer thread dies on the first one, after
    which its bounded queue blocks the app for good. Point stdin, stdout and stderr at
    /dev/null (nothing is left to restore), and keep Textual from starting its screen again
    on the SIGCONT that comes with a hang-up. A SIGHUP from ``kill`` while the terminal is
    there changes nothing: the terminal is restored as on any quit."""
    import termios  # POSIX only, as SIGHUP is

    gone = []
    for fd in (0, 1, 2):
        try:
            termios.tcgetattr(fd)
        except termios.error as e:
            if e.args[0] == errno.EIO:
                gone.append(fd)
    if not gone:
        return
    signal.signal(signal.SIGCONT, signal.SIG_DFL)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in gone:
        os.dup2(null, fd)
    os.close(null)
