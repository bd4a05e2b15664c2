"""error-to-action for tenacity: three strategies that read one verdict per failed attempt.

    from tenacity import AsyncRetrying, stop_after_attempt
    from resilience import (
        retry_if_error_to_action, stop_error_to_action, verdict_of, wait_error_to_action,
    )

    try:
        async for attempt in AsyncRetrying(
            retry=retry_if_error_to_action("fetching the billing data"),
            wait=wait_error_to_action(),
            stop=stop_error_to_action() | stop_after_attempt(5),
            reraise=True,
        ):
            with attempt:
                return await fetch_billing()
    except Exception:
        print(verdict_of(attempt.retry_state).final().result.user_message)

`retry_if_error_to_action` classifies each failure once (`errors.classify`, with the attempt's
retry count) and says yes to the kinds that may pass: timeouts, dropped connections, 5xx,
rate limits, overload. `wait_error_to_action` sleeps what the failure itself asks for — the
server's Retry-After within the cap, nothing for a connection that never opened — and backs
off with full jitter otherwise. `stop_error_to_action` stops once the kind's retries are spent
(the third attempt is always the last) or the server asks for a longer wait than the cap.
`verdict_of(state)` is the verdict they read. The engine (`resilience._engine`) runs every
source's attempts with exactly these three.
"""

from __future__ import annotations

from collections.abc import Callable
from weakref import WeakKeyDictionary

from tenacity import RetryCallState, retry_base, wait_random_exponential
from tenacity.stop import stop_base
from tenacity.wait import wait_base

from errors import MAX_WAIT_S, Step, Verdict, classify

__all__ = [
    "retry_if_error_to_action",
    "stop_error_to_action",
    "verdict_of",
    "wait_error_to_action",
]

# The verdict on each retry state's latest failure, with the attempt it is for.
_VERDICTS: WeakKeyDictionary[RetryCallState, tuple[int, Verdict]] = WeakKeyDictionary()

Backoff = Callable[[RetryCallState], float]


def verdict_of(state: RetryCallState) -> Verdict | None:
    """The verdict on the latest attempt of `state`, if it failed (classified at most once)."""
    error = _failure(state)
    if error is None:
        return None
    known = _VERDICTS.get(state)
    if known is not None and known[0] == state.attempt_number:
        return known[1]
    return _remember(state, classify(error, "", retry_count=state.attempt_number - 1))


class retry_if_error_to_action(retry_base):
    """Retry the failures error-to-action calls passing: retry and wait kinds.

    `operation` names the work in words ("fetching the billing data"): it is the subject of
    the sentence. `max_wait_s` is the longest wait worth taking (a number, or a function read
    at each failure, such as the time left): a longer Retry-After is not slept.
    """

    def __init__(
        self,
        operation: str,
        *,
        user_context: str = "",
        max_wait_s: float | Callable[[], float] = MAX_WAIT_S,
    ) -> None:
        self.operation = operation
        self.user_context = user_context
        self.max_wait_s = max_wait_s

    def __call__(self, state: RetryCallState) -> bool:
        error = _failure(state)
        return error is not None and self.verdict(state, error).kind.action.retries

    def verdict(self, state: RetryCallState, error: BaseException) -> Verdict:
        """The verdict on `error`, the latest attempt's failure, classified once."""
        known = _VERDICTS.get(state)
        if known is not None and known[0] == state.attempt_number:
            return known[1]
        cap = self.max_wait_s() if callable(self.max_wait_s) else self.max_wait_s
        retries = state.attempt_number - 1
        verdict = classify(error, self.operation, self.user_context, retries, max_wait_s=cap)
        return _remember(state, verdict)


class wait_error_to_action(wait_base):
    """The wait the failure asks for; without one, `backoff` (full jitter by default)."""

    def __init__(self, backoff: Backoff | None = None) -> None:
        self.backoff = backoff or wait_random_exponential(multiplier=0.5, max=4)

    def __call__(self, state: RetryCallState) -> float:
        verdict = verdict_of(state)
        if verdict is not None and verdict.wait_s is not None:
            return verdict.wait_s
        return self.backoff(state)


class stop_error_to_action(stop_base):
    """Stop once error-to-action says this failure earns no more attempts: the kind's retries
    are spent, or the server asked for a longer wait than the cap."""

    def __call__(self, state: RetryCallState) -> bool:
        verdict = verdict_of(state)
        return verdict is not None and verdict.step is not Step.RETRY


def _failure(state: RetryCallState) -> Exception | None:
    """The latest attempt's exception, if it raised one worth classifying (a cancellation or
    an interrupt is never retried, so never classified)."""
    outcome = state.outcome
    if outcome is None or not outcome.failed:
        return None
    error = outcome.exception()
    return error if isinstance(error, Exception) else None


def _remember(state: RetryCallState, verdict: Verdict) -> Verdict:
    _VERDICTS[state] = (state.attempt_number, verdict)
    return verdict
