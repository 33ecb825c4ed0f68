"""A listener's ``log`` hook for tests that read its news as the host's console does."""

from __future__ import annotations

from collections.abc import Callable

from cuttle_client.progress import progress_lines


def worded(lines: list[str]) -> Callable[[object], None]:
    """A hook that appends each event's lines (the client's words: ``cuttle host``'s)."""
    return lambda news: lines.extend(progress_lines(news))  # type: ignore[arg-type]
