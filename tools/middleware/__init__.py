"""Resilience middleware for any tool: deadline ▸ circuit breaker ▸ retry ▸ fallback.

Every decision about a failure comes from error-to-action (`errors.classify`); this package
only carries it out, within a time budget and a retry budget. `decide` is that step on its
own, for any other retry loop (the model calls): see `tools.middleware._decide`.
"""

from tools.middleware._breaker import CircuitBreaker
from tools.middleware._budget import RetryBudget
from tools.middleware._call import Outcome, retry_phrase
from tools.middleware._decide import Decision, Reason, decide
from tools.middleware._fallback import Resilience
from tools.middleware._policy import Policy
from tools.middleware._retry import AttemptInfo, Source

__all__ = [
    "AttemptInfo",
    "CircuitBreaker",
    "Decision",
    "Outcome",
    "Policy",
    "Reason",
    "Resilience",
    "RetryBudget",
    "Source",
    "decide",
    "retry_phrase",
]
