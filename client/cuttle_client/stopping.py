"""SIGTERM and SIGHUP end a ``cuttle`` command the way Ctrl+C (SIGINT) does.

A ``kill``, a shutdown (SIGTERM) or a closed terminal (SIGHUP) would otherwise end the
process at once: no ``close`` to the other player, the LAN announcement and the router's
port mapping left behind, the terminal left in the app's screen. ``installed`` (once, around
the whole command) hands both signals to whatever SIGINT does at that moment:

- headless (trio): trio's handler, so ``KeyboardInterrupt`` comes out of the main task's
  next checkpoint and every ``finally`` runs (a game in progress is left, not conceded:
  ``netgame.play_match``, ``tablegame.play_at_table``);
- the terminal client: its own handler (``handled``), which leaves the game as ``ctrl+q``
  then *leave* would, and restores the terminal;
- anything else: Python's ``KeyboardInterrupt``.

The command then exits with 128 + the signal's number (``status``), as shells expect.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Awaitable, Callable, Iterator
from types import FrameType
from typing import TypeVar

T = TypeVar("T")

STOPS = (signal.SIGTERM, signal.SIGHUP)
"""The signals that stop a command as Ctrl+C does."""

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
def handled(stop: Callable[[], None]) -> Iterator[None]:
    """Within the block, SIGINT, SIGTERM and SIGHUP call ``stop()`` instead of raising
    ``KeyboardInterrupt``. ``stop`` runs in the main thread between two bytecodes of
    whatever was running: it must only schedule the work (``call_soon_threadsafe``)."""

    def on_sigint(signum: int, frame: FrameType | None) -> None:
        _note(signum)
        stop()

    before = signal.signal(signal.SIGINT, on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


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
