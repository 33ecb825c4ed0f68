"""Batches of work in worker processes (``cuttle arena --jobs``) that never outlive the caller.

A batch is one task, minutes long in a big match, so a pool that is merely shut down would
let each worker finish its batch first, after the parent was told to stop. Here a match
left early (Ctrl+C, SIGTERM and SIGHUP reach the parent as ``KeyboardInterrupt``; or the
caller stops reading) terminates the workers at once.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

T = TypeVar("T")


def in_processes(
    work: Callable[..., list[T]], batches: Sequence[tuple[Any, ...]], jobs: int
) -> Iterator[T]:
    """Yield the items of ``work(*batch)`` for each batch in turn, the batches run in ``jobs``
    worker processes (``work`` and its arguments must pickle)."""
    from concurrent.futures import ProcessPoolExecutor  # imports sockets: only when needed

    pool = ProcessPoolExecutor(jobs, initializer=_worker_signals)
    try:
        with _stops_held():  # the workers are forked in `submit`
            futures = [pool.submit(work, *batch) for batch in batches]
        for future in futures:
            yield from future.result()
    except BaseException:
        _terminate(pool)
        raise
    finally:
        # Stopped while `submit` started the pool's manager thread, there is no thread to
        # join (RuntimeError) and the workers were terminated above: let the stop go on.
        with contextlib.suppress(RuntimeError):
            pool.shutdown(cancel_futures=True)


def _terminate(pool: Any) -> None:
    # SIGKILL, not SIGTERM: a worker forked a moment before still holds the handlers of the
    # `cuttle` command until its initializer runs, and SIGTERM then raises in its fork
    # hooks, is ignored there, and leaves it serving while the caller waits for it forever
    # (seen under load). The workers hold nothing to save.
    kill = getattr(pool, "kill_workers", None)  # Python 3.14
    if kill is not None:
        kill()
        return
    for process in list((pool._processes or {}).values()):
        process.kill()


_STOPS = [getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n)]


@contextlib.contextmanager
def _stops_held() -> Iterator[None]:
    """Stop signals wait (delivered as the block ends): a stop raised between a worker's
    fork and the pool's note of it left that worker unknown to ``_terminate``, serving on
    after the command ended and holding its output open (seen under load: the caller
    waited for the end of that output for ever)."""
    if not hasattr(signal, "pthread_sigmask"):  # (Windows: spawned, nothing inherited)
        yield
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _worker_signals() -> None:
    """In a worker: Ctrl+C reaches the whole process group, and the parent ends the workers
    itself; SIGTERM and SIGHUP end a worker at once (not the handlers a forked worker
    inherited from the ``cuttle`` command, which would only raise there), and none of them
    is held any more (a worker forked while the parent held them inherits the mask)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPS)
