"""One tool call's record: its deadline, its attempts, and the events it logs and reports.

Every failed attempt is logged exactly once, here, with error-to-action's fields; progress
for a person watching (retrying, waiting, falling back) goes to the injected observer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import structlog

from errors import InvalidInput, NotFound, Verdict
from tools._types import Attempt, Observer, Progress, ProgressKind
from tools.middleware._deadline import Deadline
from tools.middleware._policy import Policy

__all__ = ["Call", "Decision", "Outcome", "in_seconds", "retry_phrase"]

T = TypeVar("T")
log = structlog.get_logger("tools")


@dataclass(frozen=True, slots=True)
class Decision:
    """What follows a failed attempt: `reason` is "backoff", "retry_after" or "reconnect" (at
    once, after a connect-phase failure) when retrying, else why not ("not_retryable",
    "hint_beyond_cap", "deadline", "retry_budget", "attempt_cap").
    """

    retry: bool
    reason: str
    wait_s: float = 0.0


@dataclass(frozen=True, slots=True)
class Outcome(Generic[T]):
    """How a call through the fallback chain ended."""

    value: T | None
    source: str | None  # the source that answered
    attempts: tuple[Attempt, ...]
    failure: Verdict | None = None  # the last failure, when no source answered
    fix: NotFound | InvalidInput | None = None  # the caller's input must change
    retry_after_s: float | None = None  # a wait asked for, too long to take inside the call


class Call:
    """The state of one call through the middleware."""

    def __init__(self, tool: str, operation: str, policy: Policy, observer: Observer | None):
        self.tool = tool
        self.operation = operation
        self.policy = policy
        self.observer = observer
        self.deadline = Deadline.after(policy.deadline_s, policy.clock)
        self.attempts: list[Attempt] = []
        self.failure: Verdict | None = None  # the latest failure: at the end, the last one
        self.failure_source: str | None = None
        self.fix: NotFound | InvalidInput | None = None
        self.retry_after_s: float | None = None

    def succeeded(self, source: str, number: int, duration_s: float) -> None:
        """Record an attempt that answered."""
        self.attempts.append(Attempt(self.tool, source, number, duration_s, "ok"))

    def failed(
        self, source: str, number: int, duration_s: float, verdict: Verdict, decision: Decision
    ) -> None:
        """Record, log and report one failed attempt."""
        wait = decision.wait_s if decision.retry else None
        self._record(source, number, duration_s, verdict, wait)
        if decision.reason == "hint_beyond_cap":
            self.retry_after_s = verdict.hint_s
        log.warning(
            "tool.attempt_failed",
            **self._fields(source, number, verdict),
            next=decision.reason,
            wait_s=wait,
            duration_s=round(duration_s, 3),
        )
        if decision.retry:
            self._report_retry(source, decision)

    def _record(
        self, source: str, number: int, duration_s: float, verdict: Verdict, wait: float | None
    ) -> None:
        result = verdict.result
        outcome, action = result.error_type, result.action.value
        self.attempts.append(Attempt(self.tool, source, number, duration_s, outcome, action, wait))
        self.failure, self.failure_source = verdict, source

    def _report_retry(self, source: str, decision: Decision) -> None:
        if decision.reason == "retry_after":
            words = f"{source} is busy — waiting {in_seconds(decision.wait_s)} as it asked"
            self.notify("waiting", source, words, decision.wait_s)
        else:
            words = f"{source} failed — {retry_phrase(decision.wait_s)}"
            self.notify("retrying", source, words, decision.wait_s)

    def skipped(self, source: str, verdict: Verdict, cooldown_s: float) -> None:
        """Record that an open circuit kept `source` from being called."""
        self._record(source, 0, 0.0, verdict, None)
        log.warning(
            "tool.source_skipped",
            **self._fields(source, 0, verdict),
            cooldown_s=round(cooldown_s, 1),
        )
        self.notify("skipped", source, f"{source} is paused after repeated failures — skipping")

    def circuit_opened(self, source: str, cooldown_s: float) -> None:
        """Log that `source`'s circuit just opened."""
        log.warning("tool.circuit_open", tool=self.tool, source=source, cooldown_s=cooldown_s)

    def falling_back(self, failed: str, fallback: str) -> None:
        """Log and report the move from a source that could not answer to the next one."""
        log.info("tool.fallback_used", tool=self.tool, source=fallback, failed_source=failed)
        self.notify("falling_back", fallback, f"{failed} could not answer — trying {fallback}")

    def outcome(self, value: T | None = None, source: str | None = None) -> Outcome[T]:
        """The call's result; with no value and nothing to fix, it ends degraded."""
        if value is None and self.fix is None:
            self._degraded()
        return Outcome(
            value, source, tuple(self.attempts), self.failure, self.fix, self.retry_after_s
        )

    def _degraded(self) -> None:
        """Log the end of the chain with the verdict that ended it (already logged as an
        attempt, which is not repeated: no `attempt` field here)."""
        log.warning("tool.degraded", tool=self.tool, **self._last_failure())
        self.notify("degraded", "", "no source answered — giving a partial answer")

    def _last_failure(self) -> dict[str, Any]:
        if self.failure is None:
            note = f"no source could be called while {self.operation}"
            return {"error_type": None, "action": None, "retryable": False, "developer_note": note}
        result = self.failure.result
        return {
            "last_source": self.failure_source,
            "error_type": result.error_type,
            "action": result.action.value,
            "retryable": result.retryable,
            "developer_note": result.developer_note,
        }

    def notify(
        self, kind: ProgressKind, source: str, message: str, wait_s: float | None = None
    ) -> None:
        """Send a progress event to the observer; a failing observer never fails the call."""
        if self.observer is None:
            return
        try:
            self.observer(Progress(kind, self.tool, source, message, wait_s))
        except Exception:  # a display problem must not cost the answer
            log.exception("tool.observer_failed", tool=self.tool, source=source)

    def _fields(self, source: str, number: int, verdict: Verdict) -> dict[str, Any]:
        result = verdict.result
        return {
            "tool": self.tool,
            "source": source,
            "attempt": number,
            "error_type": result.error_type,
            "action": result.action.value,
            "retryable": result.retryable,
            "developer_note": result.developer_note,
        }


def retry_phrase(wait_s: float) -> str:
    """ "retrying now" for a wait under half a second, else "retrying in 2 s" (whole seconds)."""
    return "retrying now" if wait_s < 0.5 else f"retrying in {in_seconds(wait_s)}"


def in_seconds(wait_s: float) -> str:
    """A wait in whole seconds, halves rounded up and never below one: "1 s", "3 s"."""
    return f"{max(1, math.floor(wait_s + 0.5))} s"
