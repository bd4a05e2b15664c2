"""One tool call's record: its deadline, its attempts, and the events it logs and reports.

Every failed attempt is logged exactly once, here, with error-to-action's fields; progress
for a person watching (retrying, waiting, falling back) goes to the injected observer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import structlog

from errors import InvalidInput, NotFound, Verdict, classify, duration
from tools._types import Attempt, Observer, Progress, ProgressKind
from tools.middleware._deadline import Deadline
from tools.middleware._decide import Decision
from tools.middleware._policy import Policy

__all__ = ["Call", "Outcome", "retry_phrase"]

T = TypeVar("T")
log = structlog.get_logger("tools")


@dataclass(frozen=True, slots=True)
class Outcome(Generic[T]):
    """How a call through the fallback chain ended."""

    value: T | None
    source: str | None  # the source that answered
    attempts: tuple[Attempt, ...]
    failure: Verdict | None = None  # the last failure, when no source answered
    fix: NotFound | InvalidInput | None = None  # the caller's input must change
    retry_after_s: float | None = None  # a wait asked for, beyond the cap or the time left


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
        self.failure_type: str | None = None
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
        if verdict.beyond_cap:  # not slept: the degraded answer says when to try again
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
        self.failure, self.failure_source, self.failure_type = verdict, source, outcome

    def _report_retry(self, source: str, decision: Decision) -> None:
        if decision.reason == "retry_after":
            words = f"{source} is busy — waiting {_whole(decision.wait_s)} as it asked"
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
        """Log the end of the chain: which source failed last, and how. Its fields (note
        included) were logged with that attempt, once; they are not repeated here."""
        log.warning(
            "tool.degraded",
            tool=self.tool,
            last_source=self.failure_source,
            error_type=self.failure_type,
        )
        self.notify("degraded", "", "no source answered — giving a partial answer")

    def notify(
        self, kind: ProgressKind, source: str, message: str, wait_s: float | None = None
    ) -> None:
        """Send a progress event to the observer; a failing observer never fails the call."""
        if self.observer is None:
            return
        try:
            self.observer(Progress(kind, self.tool, source, message, wait_s))
        except Exception as exc:  # a display problem must not cost the answer
            result = classify(exc, "showing progress").result
            log.error("tool.observer_failed", tool=self.tool, source=source, **result.log_fields())

    def _fields(self, source: str, number: int, verdict: Verdict) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "source": source,
            "attempt": number,
            **verdict.result.log_fields(),
        }


def retry_phrase(wait_s: float) -> str:
    """ "retrying now" for a wait under half a second, else "retrying in 2 seconds"."""
    return "retrying now" if wait_s < 0.5 else f"retrying in {_whole(wait_s)}"


def _whole(wait_s: float) -> str:
    """A wait in words, in whole seconds with halves rounded up, never "0 seconds"."""
    return duration(math.floor(wait_s + 0.5))
