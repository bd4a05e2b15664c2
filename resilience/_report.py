"""One call's record: its attempts, its events in the log, its progress for a person.

Every failed attempt is logged exactly once, here, with error-to-action's fields; progress
(retrying, waiting, falling back) goes to the injected observer. Event names carry the
caller's kind: `tool.attempt_failed`, `model.attempt_failed`, and so on. The same moments go
to the call's trace (`CallTrace`: no-ops unless tracing is on).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

import structlog

from errors import Action, InvalidInput, NotFound, OwnFault, Verdict, classify, duration
from resilience._decide import Decision
from resilience._timeline import Attempt, Observer, Progress, ProgressKind, record
from resilience._trace import CallTrace

__all__ = ["CANCELLED", "Call", "Kind", "Outcome", "retry_phrase"]

CANCELLED = "cancelled"  # the outcome of an attempt cut short by the caller's cancellation

T = TypeVar("T")
Kind = Literal["tool", "model"]
log = structlog.get_logger("resilience")

# The event that ends a call no source answered: a tool answers degraded; a model call fails
# (and the turn says so itself, so a person watching is told nothing more here).
_GAVE_UP = {"tool": "tool.degraded", "model": "model.call_failed"}
_GAVE_UP_WORDS = {"tool": "no source answered", "model": None}  # the tool says what it does next


@dataclass(frozen=True, slots=True)
class Outcome(Generic[T]):
    """How a call through the chain of sources ended."""

    value: T | None
    source: str | None  # the source that answered; None when none did
    attempts: tuple[Attempt, ...]
    failure: Verdict | None = None  # the last failure, worded as final (no retry promised)
    error: Exception | None = None  # the exception behind `failure`
    fix: NotFound | InvalidInput | None = None  # the caller's input must change
    retry_after_s: float | None = None  # a wait asked for, beyond the cap or the time left

    @property
    def answered(self) -> bool:
        """Whether some source answered."""
        return self.source is not None


class Call:
    """The record of one call: attempts so far, the latest failure, what to fix."""

    def __init__(
        self, caller: str, kind: Kind, operation: str, subject: str, observer: Observer | None
    ) -> None:
        self.caller, self.kind, self.operation, self.subject = caller, kind, operation, subject
        self.observer = observer
        self.attempts: list[Attempt] = []
        self.failure: Verdict | None = None
        self.error: Exception | None = None
        self.failure_source: str | None = None
        self.fix: NotFound | InvalidInput | None = None
        self.retry_after_s: float | None = None
        self.trace = CallTrace.start(caller, subject)

    def succeeded(self, source: str, number: int, duration_s: float) -> None:
        """Record an attempt that answered."""
        self._add(source, number, duration_s, "ok")

    def cancelled(self, source: str, number: int, duration_s: float) -> None:
        """Record an attempt cut short because the call itself was cancelled (for whoever is
        recording attempts: a cancelled call has no outcome)."""
        self._add(source, number, duration_s, CANCELLED)

    def failed(
        self,
        source: str,
        number: int,
        duration_s: float,
        failure: tuple[Exception, Verdict],
        decision: Decision,
    ) -> None:
        """Record, log and report one failed attempt."""
        error, verdict = failure
        wait = decision.wait_s if decision.retry else None
        self._add(source, number, duration_s, verdict.result.error_type, verdict, wait)
        self.error, self.failure_source = error, source
        self.failure = verdict if decision.retry else _final(error, verdict, self.operation)
        if verdict.beyond_cap:  # not slept: the answer says when to try again
            self.retry_after_s = verdict.hint_s
        fields = self._fields(source, number, verdict)
        log.warning(f"{self.kind}.attempt_failed", **fields, next=decision.reason, wait_s=wait)
        self.trace.failed(source, number, verdict, decision)
        if decision.retry:
            self._report_retry(source, verdict, decision)

    def skipped(self, source: str, verdict: Verdict, cooldown_s: float) -> None:
        """Record that an open circuit kept `source` from being called."""
        self._add(source, 0, 0.0, verdict.result.error_type, verdict)
        self.failure, self.failure_source = verdict, source
        fields = self._fields(source, 0, verdict)
        log.warning(f"{self.kind}.source_skipped", **fields, cooldown_s=round(cooldown_s, 1))
        self.trace.skipped(source, verdict, cooldown_s)
        self.notify("skipped", source, f"{source} is paused after repeated failures — skipping")

    def circuit_opened(self, source: str, cooldown_s: float) -> None:
        """Log that `source`'s circuit just opened."""
        fields = self._who(source)
        log.warning(f"{self.kind}.circuit_open", **fields, cooldown_s=round(cooldown_s, 1))
        self.trace.circuit_opened(source, cooldown_s)

    def falling_back(self, failed: str, fallback: str) -> None:
        """Log and report the move from a source that could not answer to the next one."""
        log.info(f"{self.kind}.fallback_used", **self._who(fallback), failed_source=failed)
        self.trace.falling_back(failed, fallback)
        self.notify("falling_back", fallback, f"{failed} could not answer — trying {fallback}")

    def outcome(self, value: T | None = None, source: str | None = None) -> Outcome[T]:
        """The call's result; with no source answering and nothing to fix, it gave up."""
        if source is None and self.fix is None:
            self._gave_up()
        self.trace.ended(source, len(self.attempts), self.retry_after_s)
        return Outcome(
            value,
            source,
            tuple(self.attempts),
            None if source else self.failure,
            None if source else self.error,
            self.fix,
            self.retry_after_s,
        )

    def notify(
        self, kind: ProgressKind, source: str, message: str, wait_s: float | None = None
    ) -> None:
        """Send a progress event to the observer; a failing observer never fails the call."""
        if self.observer is None:
            return
        try:
            self.observer(Progress(kind, self.caller, source, message, wait_s))
        except Exception as exc:  # a display problem must not cost the answer
            fault = OwnFault(f"the progress observer raised {type(exc).__name__}: {exc}")
            result = classify(fault, "showing progress").result
            log.error(f"{self.kind}.observer_failed", **self._who(source), **result.log_fields())

    def _gave_up(self) -> None:
        """Log the end of the chain: which source failed last, and as what. That failure was
        logged with its attempt, once, note and all; it is not repeated here."""
        who = {"tool": self.caller} if self.kind == "tool" else {}
        error_type = self.failure.result.error_type if self.failure else None
        log.warning(
            _GAVE_UP[self.kind], **who, last_source=self.failure_source, error_type=error_type
        )
        self.trace.gave_up(self.failure_source, error_type)
        if words := _GAVE_UP_WORDS[self.kind]:
            self.notify("degraded", "", words)

    def _add(
        self,
        source: str,
        number: int,
        duration_s: float,
        outcome: str,
        verdict: Verdict | None = None,
        wait_s: float | None = None,
    ) -> None:
        action = verdict.result.action.value if verdict else None
        attempt = Attempt(
            self.caller, source, number, duration_s, outcome, action, wait_s, self.subject
        )
        self.attempts.append(attempt)
        record(attempt)

    def _report_retry(self, source: str, verdict: Verdict, decision: Decision) -> None:
        if decision.reason == "retry_after":
            words = f"{source} is busy — waiting {_whole(decision.wait_s)} as it asked"
            self.notify("waiting", source, words, decision.wait_s)
        elif verdict.result.action is Action.WAIT:
            words = f"{source} is busy — {retry_phrase(decision.wait_s)}"
            self.notify("waiting", source, words, decision.wait_s)
        else:
            words = f"{source} failed — {retry_phrase(decision.wait_s)}"
            self.notify("retrying", source, words, decision.wait_s)

    def _who(self, source: str) -> dict[str, Any]:
        """The caller and source, under the names the log contract uses."""
        who: dict[str, Any] = {"source": source}
        if self.kind == "tool":
            who["tool"] = self.caller
        return who

    def _fields(self, source: str, number: int, verdict: Verdict) -> dict[str, Any]:
        return {**self._who(source), "attempt": number, **verdict.result.log_fields()}


def _final(error: Exception, verdict: Verdict, operation: str) -> Verdict:
    """The verdict in words fit for the end: one that would retry is worded as spent, so no
    sentence promises a retry that will not come (a wait beyond the cap keeps its "try again
    in …")."""
    if not verdict.retryable or verdict.beyond_cap:
        return verdict
    return classify(error, operation, retry_count=_SPENT)


_SPENT = 99  # past every kind's retries: error-to-action words it as final


def retry_phrase(wait_s: float) -> str:
    """ "retrying now" for a wait under half a second, else "retrying in 2 seconds"."""
    return "retrying now" if wait_s < 0.5 else f"retrying in {_whole(wait_s)}"


def _whole(wait_s: float) -> str:
    """A wait in words, in whole seconds with halves rounded up, never "0 seconds"."""
    return duration(math.floor(wait_s + 0.5))
