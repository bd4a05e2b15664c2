"""The one retry decision: what follows a failed attempt, for tools and models alike.

error-to-action has the first word and says almost everything. Classify each failure with
the caller's cap, the smaller of its patience and the time it has left::

    verdict = classify(error, operation, retry_count=n, max_wait_s=policy.wait_cap(remaining_s))
    decision = decide(verdict, policy, n, remaining_s, budget=budget)
    if decision.retry:
        await policy.sleep(decision.wait_s)

`verdict.wait_s` is then the wait: the server's Retry-After clamped to [1 s, cap]
("retry_after"), 0 for a connection that never opened ("reconnect"), or None, for a
full-jitter backoff ("backoff"). A Retry-After longer than the cap or the time left is
`verdict.beyond_cap`: it is not slept, so the caller falls back or reports the wait. What is
left here is the caller's own bounds: its attempt cap, its deadline and its retry budget.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from errors import Verdict
from resilience._budget import RetryBudget
from resilience._policy import Policy, full_jitter

__all__ = ["Decision", "Reason", "decide"]

Reason = Literal[
    # retrying
    "backoff",  # full-jitter backoff: no hint, and a connection that may have reached a server
    "retry_after",  # the server's Retry-After, within the cap
    "reconnect",  # at once: the connection never opened, so no server did any work
    # not retrying
    "not_retryable",  # error-to-action says stop (its action is not retry/wait, or retries spent)
    "hint_beyond_cap",  # the Retry-After is longer than the cap or the time left: report it
    "attempt_cap",  # `Policy.max_attempts` reached
    "deadline",  # the wait would use up the time left
    "retry_budget",  # the shared retry budget is spent
]


@dataclass(frozen=True, slots=True)
class Decision:
    """What follows a failed attempt: retry after `wait_s` seconds, or not; `reason` says why."""

    retry: bool
    reason: Reason
    wait_s: float = 0.0


def decide(
    verdict: Verdict,
    policy: Policy,
    retry_count: int,
    remaining_s: float = math.inf,
    *,
    budget: RetryBudget | None = None,
) -> Decision:
    """Retry or not, and after how long, for a `verdict` classified with
    `max_wait_s=policy.wait_cap(remaining_s)` after `retry_count` retries.

    `remaining_s` is the time left in the caller's deadline (none: infinite); `budget`, if
    given, may veto the retry. Pure but for `policy.rand`, which draws the jitter.
    """
    if not verdict.retryable:
        return Decision(retry=False, reason="not_retryable")
    if verdict.beyond_cap:
        return Decision(retry=False, reason="hint_beyond_cap")
    if retry_count + 1 >= policy.max_attempts:
        return Decision(retry=False, reason="attempt_cap")
    wait, reason = _wait(verdict, policy, retry_count)
    if wait >= remaining_s:
        return Decision(retry=False, reason="deadline")
    if budget is not None and not budget.allows_retry():
        return Decision(retry=False, reason="retry_budget")
    return Decision(retry=True, reason=reason, wait_s=wait)


def _wait(verdict: Verdict, policy: Policy, retry_count: int) -> tuple[float, Reason]:
    if verdict.wait_s is None:
        return full_jitter(policy, retry_count), "backoff"
    return verdict.wait_s, "retry_after" if verdict.hint_s is not None else "reconnect"
