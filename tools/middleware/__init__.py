"""Resilience middleware for any tool: deadline ▸ circuit breaker ▸ retry ▸ fallback.

Every decision about a failure comes from error-to-action (`errors.classify`); this package
only carries it out, within a time budget and a retry budget.
"""

from tools.middleware._breaker import CircuitBreaker
from tools.middleware._budget import RetryBudget
from tools.middleware._call import Decision, Outcome, in_seconds, retry_phrase
from tools.middleware._deadline import Deadline
from tools.middleware._fallback import Resilience
from tools.middleware._policy import Policy, full_jitter
from tools.middleware._retry import AttemptInfo, Source, decide, retry_wait, with_retries

__all__ = [
    "AttemptInfo",
    "CircuitBreaker",
    "Deadline",
    "Decision",
    "Outcome",
    "Policy",
    "Resilience",
    "RetryBudget",
    "Source",
    "decide",
    "full_jitter",
    "in_seconds",
    "retry_phrase",
    "retry_wait",
    "with_retries",
]
