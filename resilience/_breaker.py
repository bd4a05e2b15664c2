"""A circuit breaker per source: stop calling a source that keeps failing, then probe it.

closed ──(threshold failures in a row)──▶ open ──(cool-down over)──▶ half-open
  ▲                                        ▲                          │ one probe
  └──────────────(probe succeeds)──────────┴───────(probe fails)──────┘

A source that says when it may be asked again (a daily quota spent until midnight) is held
open for exactly that long with `hold`, whatever the threshold.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Literal

__all__ = ["MAX_HOLD_S", "CircuitBreaker", "State"]

MAX_HOLD_S = 24 * 3600.0  # the longest a source's own words may hold its circuit open

State = Literal["closed", "open", "half_open"]


class CircuitBreaker:
    """Closed, open or half-open; `allow()` before each call, then record how it went.

    A `threshold` of 0 turns the breaker off: it stays closed whatever happens.
    """

    def __init__(
        self,
        threshold: int = 5,
        cooldown_s: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.threshold = threshold
        self.cooldown_s = cooldown_s
        self._clock = clock
        self._failures = 0
        self._until: float | None = None  # when an open circuit lets a probe through
        self._probing = False

    @property
    def state(self) -> State:
        """The state as of now (an open circuit whose cool-down is over is half-open)."""
        if self._until is None:
            return "closed"
        return "half_open" if self.remaining_cooldown() == 0 else "open"

    def remaining_cooldown(self) -> float:
        """Seconds until an open circuit lets a probe through (0 when closed)."""
        return 0.0 if self._until is None else max(0.0, self._until - self._clock())

    def allow(self) -> bool:
        """Whether a call may go out now; in half-open, only one probe at a time."""
        state = self.state
        if state == "closed":
            return True
        if state == "open" or self._probing:
            return False
        self._probing = True
        return True

    def record_success(self) -> None:
        """The source answered: close the circuit."""
        self._failures = 0
        self._until = None
        self._probing = False

    def record_failure(self) -> bool:
        """The source failed; true when this failure is the one that opened the circuit."""
        if self.threshold <= 0:
            return False
        before = self.state
        self._failures += 1
        self._probing = False
        if before == "half_open" or (before == "closed" and self._failures >= self.threshold):
            self._until = self._clock() + self.cooldown_s
            return True
        return False

    def hold(self, seconds: float) -> None:
        """Open the circuit for `seconds` (at most `MAX_HOLD_S`): the source said it will
        refuse until then. An error's words are not trusted to switch a source off for
        longer than a day ("try again in 5000 hours", a 300-digit Retry-After)."""
        seconds = min(max(seconds, 0.0), MAX_HOLD_S)
        self._until = max(self._until or 0.0, self._clock() + seconds)
        self._probing = False

    def release(self) -> None:
        """An allowed call ended without a verdict (cancelled): let another probe through."""
        self._probing = False
