"""The resilience engine, one for tools and models: retries decided by error-to-action and run
by tenacity, fallback through sources, deadlines, circuit breakers, a retry budget, and one
event type for the log, spans, the timeline and a progress line.

    engine = Engine("get_weather", policy, listener)
    outcome = await engine.run("getting the weather for Paris", [primary, fallback])

`outcome.value` is the first answer; `outcome.attempts` says what happened on the way. Where
breakers, budgets and request buckets live is the policy's `state`: this process (the
default), or Redis shared by a fleet (`state_from_url`, `resilience/_state.py`). Your own
tenacity code can ask error-to-action the same way the engine does: `retry_if_error_to_action`,
`wait_error_to_action`, `stop_error_to_action` (see `resilience/_policy.py`).
"""

from resilience import tracing
from resilience._engine import AttemptInfo, Engine, Outcome, RetryOn, Source
from resilience._policy import (
    IN_PROCESS,
    MAX_HOLD_S,
    Breaker,
    BreakerState,
    Bucket,
    Budget,
    CircuitBreaker,
    Deadline,
    InProcess,
    Policy,
    RequestBucket,
    RetryBudget,
    State,
    full_jitter,
    retry_if_error_to_action,
    stop_error_to_action,
    verdict_of,
    wait_error_to_action,
)
from resilience._state import Paced, RedisState, check_state_url, state_from_url
from resilience.tracing import (
    CANCELLED,
    Event,
    Listener,
    ProgressKind,
    Reason,
    What,
    recording_attempts,
    retry_phrase,
)

__all__ = [
    "CANCELLED",
    "IN_PROCESS",
    "MAX_HOLD_S",
    "AttemptInfo",
    "Breaker",
    "BreakerState",
    "Bucket",
    "Budget",
    "CircuitBreaker",
    "Deadline",
    "Engine",
    "Event",
    "InProcess",
    "Listener",
    "Outcome",
    "Paced",
    "Policy",
    "ProgressKind",
    "Reason",
    "RedisState",
    "RequestBucket",
    "RetryBudget",
    "RetryOn",
    "Source",
    "State",
    "What",
    "check_state_url",
    "full_jitter",
    "recording_attempts",
    "retry_if_error_to_action",
    "retry_phrase",
    "state_from_url",
    "stop_error_to_action",
    "tracing",
    "verdict_of",
    "wait_error_to_action",
]
