"""The resilience engine, one for tools and models: retries decided by error-to-action,
fallback through sources, deadlines, circuit breakers, a retry budget, progress and a timeline.

    engine = Engine("get_weather", policy, observer)
    outcome = await engine.run("getting the weather for Paris", [primary, fallback])

`outcome.value` is the first answer; `outcome.attempts` says what happened on the way.
"""

from resilience._breaker import CircuitBreaker
from resilience._budget import RetryBudget
from resilience._deadline import Deadline
from resilience._decide import Decision, Reason, decide
from resilience._engine import Engine
from resilience._policy import Policy, full_jitter
from resilience._report import CANCELLED, Kind, Outcome, retry_phrase
from resilience._source import AttemptInfo, RetryOn, Source
from resilience._timeline import (
    Attempt,
    Observer,
    Progress,
    ProgressKind,
    record,
    recording_attempts,
)

__all__ = [
    "CANCELLED",
    "Attempt",
    "AttemptInfo",
    "CircuitBreaker",
    "Deadline",
    "Decision",
    "Engine",
    "Kind",
    "Observer",
    "Outcome",
    "Policy",
    "Progress",
    "ProgressKind",
    "Reason",
    "RetryBudget",
    "RetryOn",
    "Source",
    "decide",
    "full_jitter",
    "record",
    "recording_attempts",
    "retry_phrase",
]
