"""The engine: sources in order; within a source, tenacity runs the attempts.

    for each source, in order:
        its breaker open?  → skipped; the next source
        tenacity's AsyncRetrying runs its attempts, each cut at the attempt timeout or the
        call's deadline, whichever is first:
            retry = retry_if_error_to_action(operation)   (and the source's own `retry_on`)
            wait  = wait_error_to_action(the policy's full jitter)
            stop  = stop_error_to_action() | the caller's bounds: attempts, deadline, budget
        answered  → the call's answer
        gave up   → the verdict's step: STOP ends the call, NEXT tries the next source

Every decision is read from error-to-action's verdict, classified once per failed attempt:
whether to try again and after how long, the next source or the end, what the source's
breaker learns. The engine adds only the caller's own bounds (`resilience._policy`), and says
what happens as `Event`s to its listeners (`resilience/tracing.py`). The same engine runs tool
sources (Open-Meteo, then wttr.in) and model calls (the primary model, then a fallback).
"""

from __future__ import annotations

import asyncio
import traceback
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception
from tenacity.stop import stop_base

from errors import ErrorType, SourceSkipped, Step, Verdict, classify
from resilience._policy import (
    BUDGET_RATIO,
    BUDGET_TOKENS,
    IN_PROCESS,
    Breaker,
    Budget,
    Deadline,
    Policy,
    full_jitter,
    retry_if_error_to_action,
    stop_error_to_action,
    verdict_of,
    wait_error_to_action,
)
from resilience._state import Paced
from resilience.tracing import (
    CANCELLED,
    Event,
    Listener,
    Reason,
    What,
    listener_failed,
    log_event,
    record,
    trace_event,
)

__all__ = ["AttemptInfo", "Engine", "Outcome", "RetryOn", "Source"]

T = TypeVar("T")
RetryOn = Callable[[BaseException], bool]


def retries_anything(_error: BaseException) -> bool:
    """The default `retry_on`: error-to-action alone decides."""
    return True


@dataclass(frozen=True, slots=True)
class AttemptInfo:
    """What a source's fetch function is told about the attempt it is making."""

    number: int  # 1-based
    retry_count: int
    after_timeout: bool = False  # the last attempt timed out: send a lighter request if any


@dataclass(frozen=True, slots=True)
class Source(Generic[T]):
    """A name and a function making one attempt.

    Every exception `fetch` raises is classified by error-to-action, which decides whether
    the same source is tried again. `retry_on` can only narrow that: a failure it returns
    false for is not retried (it still falls through to the next source). `trusted` says
    whether its word that the input is wrong ("no such place") may end a call as input to
    fix; an untrusted one is still not retried, but alone it leaves the call unanswered.
    """

    name: str
    fetch: Callable[[AttemptInfo], Awaitable[T]]
    trusted: bool = True
    retry_on: RetryOn = retries_anything


@dataclass(frozen=True, slots=True)
class Outcome(Generic[T]):
    """How a call through the chain of sources ended."""

    value: T | None
    source: str | None  # the source that answered; None when none did
    attempts: tuple[Event, ...]
    failure: Verdict | None = None  # the last failure, worded as final (no retry promised)
    error: Exception | None = None  # the exception behind `failure`
    fix: Verdict | None = None  # the caller's input must change (a trusted source said so)
    retry_after_s: float | None = None  # a wait asked for, beyond the cap or the time left

    @property
    def answered(self) -> bool:
        """Whether some source answered."""
        return self.source is not None


class Engine:
    """Retries, fallback, deadlines and breakers for one caller (a tool, or the model).

    It lives as long as the caller: it holds a circuit breaker per source and the retry
    budget (the policy's, shared, or one of its own). `kind` prefixes its log events;
    `listener` hears every event too (a progress line, say).
    """

    def __init__(
        self,
        caller: str,
        policy: Policy | None = None,
        listener: Listener | None = None,
        *,
        kind: Literal["tool", "model"] = "tool",
    ) -> None:
        self.caller = caller
        self.policy = policy or Policy()
        self.kind = kind
        self.state = self.policy.state or IN_PROCESS
        self.budget: Budget = self.policy.budget or self.state.budget(
            caller, BUDGET_TOKENS, BUDGET_RATIO
        )
        self.bucket = self.state.bucket(caller, self.policy.requests_per_minute, self.policy.clock)
        self.listeners: tuple[Listener, ...] = (log_event, trace_event, record)
        if listener is not None:
            self.listeners += (listener,)
        self._breakers: dict[str, Breaker] = {}

    def breaker(self, source: str) -> Breaker:
        """The circuit breaker of `source`, created on first use (where the policy's `state`
        keeps breakers: in this process, or shared by a fleet)."""
        if source not in self._breakers:
            policy = self.policy
            self._breakers[source] = self.state.breaker(
                f"{self.caller}/{source}",
                policy.breaker_threshold,
                policy.breaker_cooldown_s,
                policy.clock,
            )
        return self._breakers[source]

    async def run(
        self,
        operation: str,
        sources: Sequence[Source[T]],
        *,
        subject: str = "",
        deadline: Deadline | None = None,
    ) -> Outcome[T]:
        """Try `sources` in order until one answers. `operation` names the work in words
        ("getting the weather for Paris"); `subject` is what it is about, for the timeline;
        `deadline` bounds the whole call (default: the policy's `deadline_s` from now)."""
        deadline = deadline or Deadline.after(self.policy.deadline_s, self.policy.clock)
        call: _Call[T] = _Call(self, operation, subject, deadline)
        for index, source in enumerate(sources):
            if index:
                call.emit("falling_back", source.name, previous=sources[index - 1].name)
            step = await call.source(source)
            if step is None:
                return call.outcome(source.name)
            if step is Step.STOP:
                break
        return call.outcome(None)


class _Call(Generic[T]):
    """One call through the engine: its deadline, its record, and the source being tried."""

    def __init__(self, engine: Engine, operation: str, subject: str, deadline: Deadline) -> None:
        self.engine, self.policy = engine, engine.policy
        self.operation, self.subject, self.deadline = operation, subject, deadline
        self.attempts: list[Event] = []
        self.value: T | None = None
        self.last: Verdict | None = None  # the latest failure
        self.error: Exception | None = None
        self.failed_at = ""  # the source of the latest failure
        self.fix: Verdict | None = None
        self.retry_after_s: float | None = None
        self._started = 0.0  # when the latest attempt went out

    async def source(self, source: Source[T]) -> Step | None:
        """Attempts at `source`, run by tenacity; None once it answers, else what follows."""
        breaker = self.engine.breaker(source.name)
        # The subject (the caller's own values) lets a sentence repeat the one an error blames.
        decide = retry_if_error_to_action(
            self.operation, user_context=self.subject, max_wait_s=self._wait_cap
        )
        bounds = _Bounds(self.policy, self.deadline, self.engine.budget)
        retrying = AsyncRetrying(
            retry=decide & retry_if_exception(source.retry_on),
            wait=wait_error_to_action(self._backoff),
            stop=stop_error_to_action() | bounds,
            before_sleep=lambda state: self._failed(source.name, state, _retry_reason(state)),
            sleep=self._sleep,
            reraise=True,
        )
        state: RetryCallState | None = None
        try:
            async for attempt in retrying:
                state = attempt.retry_state
                if not breaker.allow():
                    return self._skipped(source.name, breaker)
                with attempt:
                    self.value = await self._attempt(source, breaker, decide, state)
                    return None
        except Exception:
            assert state is not None  # tenacity raises only what an attempt raised
            return self._gave_up(source, breaker, state, bounds.reason)
        finally:
            # tenacity keeps the state of its loop and its next actions, bound to itself, on the
            # object, and its strategies are bound to the call: reference cycles that only the
            # garbage collector frees, with everything the call touched hanging from them (at
            # concurrency 20, 290 young-generation collections per 600 questions where 200
            # remain without them). The object is not used again: let it hold nothing.
            vars(retrying).clear()
        raise AssertionError("tenacity ended without an answer or an error")  # pragma: no cover

    async def _attempt(
        self,
        source: Source[T],
        breaker: Breaker,
        decide: retry_if_error_to_action,
        state: RetryCallState,
    ) -> T:
        """One attempt, bounded; the breaker and the budget learn how it went."""
        number = state.attempt_number
        started = self._started = self.policy.clock()
        timed_out = self.last is not None and self.last.kind.error_type is ErrorType.TIMEOUT
        info = AttemptInfo(number, number - 1, timed_out and number > 1)
        self.emit("attempting", source.name, number=number)
        try:
            await self._pace(source.name)
            value = await self.deadline.run(
                self.policy.attempt_timeout_s, source.name, lambda: source.fetch(info)
            )
        except asyncio.CancelledError:
            breaker.release()  # cut short by the caller: no verdict on the source
            self.emit("cancelled", source.name, number=number, since=started)
            raise
        except Exception as error:
            verdict = decide.verdict(state, error)  # the one classification of this attempt
            self.last, self.error, self.failed_at = verdict, error, source.name
            if isinstance(error, Paced):  # our own rate, not the source's failure
                breaker.release()
            else:
                self._learn(source.name, breaker, verdict)
            raise
        breaker.record_success()
        self.engine.budget.record_success()
        self.emit("answered", source.name, number=number, since=started)
        return value

    async def _pace(self, name: str) -> None:
        """Keep to the policy's requests a minute (the model API's limit; with shared state,
        the fleet's): wait for this attempt's place, or, when it is further off than the wait
        cap allows, fail the attempt the way the API itself would (`Paced`, a 429 with its
        Retry-After), so error-to-action words the wait like any other."""
        if self.policy.requests_per_minute <= 0:
            return
        cap = self._wait_cap()
        wait = self.engine.bucket.take(cap)
        if wait > cap:
            raise Paced(name, wait)
        if wait > 0:
            await self.policy.sleep(wait)

    def _learn(self, name: str, breaker: Breaker, verdict: Verdict) -> None:
        """What the source's breaker (and the retry budget) learn from a failure."""
        if verdict.kind.blame == "none":
            breaker.release()
        elif verdict.kind.blame == "caller":
            breaker.record_success()  # the source works; the question was wrong
        else:
            self.engine.budget.record_failure()
            if breaker.record_failure():
                self.emit("circuit_opened", name, cooldown_s=breaker.cooldown_s)

    def _failed(self, name: str, state: RetryCallState, reason: Reason | None) -> None:
        """The latest attempt failed: say so, with what follows (a retry's wait, or not)."""
        wait = state.upcoming_sleep if reason in _RETRYING else None
        self.emit(
            "failed",
            name,
            number=state.attempt_number,
            since=self._started,
            verdict=self.last,
            next=reason,
            wait_s=wait,
        )

    def _gave_up(
        self,
        source: Source[T],
        breaker: Breaker,
        state: RetryCallState,
        stopped_by: Reason | None,
    ) -> Step:
        """No more attempts at `source`: why, and what follows (the verdict's step)."""
        verdict = self.last
        assert verdict is not None  # an attempt failed, or tenacity would have answered
        reason = stopped_by or ("hint_beyond_cap" if verdict.beyond_cap else "not_retryable")
        self._failed(source.name, state, reason)
        if verdict.beyond_cap:  # not slept: the answer says when to try again
            self.retry_after_s = verdict.hint_s
        if (
            verdict.hint_s
            and self.policy.breaker_threshold > 0
            and not isinstance(self.error, Paced)
        ):
            breaker.hold(verdict.hint_s)  # a server's "not before" holds its breaker
        step = verdict.kind.then if verdict.step is Step.RETRY else verdict.step
        if verdict.kind.blame == "caller" and source.trusted:
            self.fix = verdict if step is Step.STOP else self.fix or verdict
        return step

    def _skipped(self, name: str, breaker: Breaker) -> Step:
        verdict = classify(SourceSkipped(f"{name}: circuit open", source=name), self.operation)
        self.last, self.failed_at = verdict, name
        self.emit("skipped", name, verdict=verdict, cooldown_s=breaker.remaining_cooldown())
        return Step.NEXT

    def outcome(self, answered_by: str | None) -> Outcome[T]:
        """The call's result; with no source answering and nothing to fix, it gave up."""
        _let_go(self.error)
        failure = None if answered_by or self.last is None else self.last.final()
        if answered_by is None and self.fix is None:
            self.emit("gave_up", self.failed_at, verdict=failure)
        self.emit("ended", answered_by or "", number=len(self.attempts), wait_s=self.retry_after_s)
        return Outcome(
            self.value if answered_by else None,
            answered_by,
            tuple(self.attempts),
            failure,
            None if answered_by else self.error,
            self.fix,
            self.retry_after_s,
        )

    def emit(self, what: What, source: str, *, since: float | None = None, **fields: Any) -> None:
        """Hand one event to every listener; one that raises never fails the call."""
        if since is not None:
            fields["duration_s"] = self.policy.clock() - since
        if (verdict := fields.get("verdict")) is not None:
            fields.update(outcome=verdict.result.error_type, action=verdict.result.action.value)
        elif what in _OUTCOMES:
            fields["outcome"] = _OUTCOMES[what]
        engine = self.engine
        event = Event(what, engine.caller, source, subject=self.subject, kind=engine.kind, **fields)
        if event.ends_attempt:
            self.attempts.append(event)
        for listener in engine.listeners:
            try:
                listener(event)
            except Exception as exc:  # a display problem must not cost the answer
                listener_failed(event, exc)

    async def _sleep(self, seconds: float) -> None:
        if seconds > 0:  # an immediate retry goes straight out, without even a sleep(0)
            await self.policy.sleep(seconds)

    def _wait_cap(self) -> float:
        return self.policy.wait_cap(self.deadline.remaining())

    def _backoff(self, state: RetryCallState) -> float:
        return full_jitter(self.policy, state.attempt_number - 1)


def _let_go(error: BaseException | None) -> None:
    """Clear the local variables of the finished frames a failure's traceback holds (and its
    causes'): they hold the call, its tenacity loop and the failure itself, a cycle only the
    garbage collector would free. The traceback still reads as one: files, lines, code."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        traceback.clear_frames(error.__traceback__)
        error = error.__cause__ or error.__context__


_RETRYING = frozenset({"backoff", "retry_after", "reconnect"})
_OUTCOMES = {"answered": "ok", "cancelled": CANCELLED}


def _retry_reason(state: RetryCallState) -> Reason:
    """How the wait before a retry was chosen: the server's hint, at once, or a backoff."""
    verdict = verdict_of(state)
    if verdict is None or verdict.wait_s is None:
        return "backoff"
    return "retry_after" if verdict.hint_s is not None else "reconnect"


class _Bounds(stop_base):
    """The caller's own bounds, asked once error-to-action would retry: attempts, the time
    left, the retry budget. It remembers which one stopped the source."""

    def __init__(self, policy: Policy, deadline: Deadline, budget: Budget) -> None:
        self.policy, self.deadline, self.budget = policy, deadline, budget
        self.reason: Reason | None = None

    def __call__(self, state: RetryCallState) -> bool:
        if state.attempt_number >= self.policy.max_attempts:
            self.reason = "attempt_cap"
        elif state.upcoming_sleep >= self.deadline.remaining():
            self.reason = "deadline"
        elif not self.budget.allows_retry():
            self.reason = "retry_budget"
        return self.reason is not None
