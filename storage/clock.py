"""The time every write is stamped with: the system clock in UTC, unless a campaign is
being replayed (``replayed_clock``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime


class _Clock:
    read: Callable[[], datetime] | None = None  # None: the system clock


def utcnow() -> datetime:
    """Now, in UTC (or the replayed time)."""
    return _Clock.read() if _Clock.read is not None else datetime.now(UTC)


@contextmanager
def replayed_clock(read: Callable[[], datetime]) -> Iterator[None]:
    """Every write in this process is stamped with ``read()`` instead of the time, while the
    block runs: ``qrels demo`` replays its campaign over the past days this way, through the
    same functions people use. Not for concurrent use."""
    _Clock.read = read
    try:
        yield
    finally:
        _Clock.read = None
