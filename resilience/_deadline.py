"""Deadlines: a budget for the whole call, and a timeout for each attempt within it.

A read timeout alone cannot stop a server that drips a byte every 100 ms (each byte resets
it), so every attempt also runs under a wall-clock limit: the smaller of the per-attempt
timeout and whatever is left of the call's budget.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from errors import DeadlineExceeded

__all__ = ["Deadline"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Deadline:
    """The moment a call must be over, on an injectable monotonic clock."""

    expires_at: float
    clock: Callable[[], float]

    @classmethod
    def after(cls, seconds: float, clock: Callable[[], float]) -> Deadline:
        """A deadline `seconds` from now."""
        return cls(clock() + seconds, clock)

    def remaining(self) -> float:
        """Seconds left, never negative."""
        return max(0.0, self.expires_at - self.clock())

    async def run(self, timeout_s: float, source: str, work: Callable[[], Awaitable[T]]) -> T:
        """`work()`, cut at `timeout_s` or at the deadline, whichever comes first."""
        limit = min(timeout_s, self.remaining())
        if limit <= 0:
            raise DeadlineExceeded(f"no time left to call {source}", source=source)
        scope = asyncio.timeout(limit)
        try:
            async with scope:
                return await work()
        except TimeoutError:
            if not scope.expired():
                raise
            raise _cut(source, limit, limit < timeout_s) from None


def _cut(source: str, limit: float, by_deadline: bool) -> Exception:
    if by_deadline:
        return DeadlineExceeded(
            f"the call's deadline cut {source} after {limit:.2f} s", source=source
        )
    return TimeoutError(f"{source} gave no complete answer within {limit:g} s")
