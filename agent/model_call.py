"""Model calls through error-to-action: the one retry layer for the model API (tenacity).

Each failed attempt is classified with `errors.classify(…, retry_count=n, max_wait_s=cap)`
and the retry is decided by `tools.middleware.decide` — the same decision the tools' retries
take, on a more patient `Policy` (`MODEL_POLICY`): the server's Retry-After within the cap,
an immediate reconnect when the connection never opened, full-jitter backoff otherwise; a
longer Retry-After ends the call with "try again in …". Sleep and jitter are injected.
An attempt that streamed part of a line before failing has that line ended before the retry,
so the retried answer starts on a line of its own.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import structlog
from tenacity import AsyncRetrying, RetryCallState, stop_after_attempt

from errors import Action, ErrorAction, Verdict, classify
from tools import Attempt, Observer, Progress
from tools.middleware import Decision, Policy, decide, retry_phrase

if TYPE_CHECKING:
    from anthropic.types import Message

    from agent.models import ModelBackend, ModelRequest, TextSink

__all__ = ["MODEL_POLICY", "ModelCaller", "ModelUnavailable", "Sleep", "model_policy"]

log = structlog.get_logger("agent")

Sleep = Callable[[float], Awaitable[None]]

_OPERATION = {"claude": "asking Claude for an answer"}

# More patient than a tool: there is no fallback model, and a turn without one has no answer.
MODEL_POLICY = Policy(max_wait_s=30.0, base_backoff_s=1.0, max_backoff_s=8.0, max_attempts=3)


def model_policy(tools_policy: Policy | None = None) -> Policy:
    """`MODEL_POLICY`, running on the tools policy's sleep, clock and jitter when given."""
    if tools_policy is None:
        return MODEL_POLICY
    return dataclasses.replace(
        MODEL_POLICY, sleep=tools_policy.sleep, clock=tools_policy.clock, rand=tools_policy.rand
    )


_KEY_PROBLEMS = {"auth_invalid_credentials", "auth_missing_key", "auth_token_expired"}
_KEY_SENTENCE = (
    "Claude did not accept the API key; set a valid ANTHROPIC_API_KEY "
    "(or run with --offline) and try again."
)
# Built from our own words only: a 404 body may echo anything.
_MODEL_SENTENCE = (
    "Claude has no model by the name given; check --model or AGENT_MODEL "
    "(and ANTHROPIC_BASE_URL, if set) and try again."
)


class ModelUnavailable(Exception):
    """The model could not be reached within the bounds; `sentence` is safe to show a person."""

    def __init__(self, result: ErrorAction) -> None:
        super().__init__(result.error_type)
        self.result = result
        self.sentence = _sentence(result)


def _sentence(result: ErrorAction) -> str:
    """The user's fix where the setup is wrong (the key, the model id), else the verdict's."""
    if result.error_type in _KEY_PROBLEMS:
        return _KEY_SENTENCE
    if result.error_type == "not_found":
        return _MODEL_SENTENCE
    return result.user_message


@dataclass(slots=True)
class ModelCaller:
    """Calls a backend, retrying what error-to-action says may pass."""

    backend: ModelBackend
    policy: Policy = MODEL_POLICY
    observer: Observer | None = None

    async def create(self, request: ModelRequest, timeline: list[Attempt]) -> Message:
        """One model answer, or `ModelUnavailable` once retrying is no longer worth it."""
        run = _Run(self, timeline)
        retrying = AsyncRetrying(
            sleep=self.policy.sleep,
            stop=stop_after_attempt(self.policy.max_attempts),
            retry=run.should_retry,
            wait=run.wait,
            reraise=True,
        )
        try:
            return await retrying(run.attempt, request)
        except Exception as exc:
            raise run.give_up(exc) from exc


class _Run:
    """The state of one call across its attempts."""

    def __init__(self, caller: ModelCaller, timeline: list[Attempt]) -> None:
        self.caller = caller
        self.timeline = timeline
        self.verdict: Verdict | None = None
        self.decision = Decision(retry=False, reason="not_retryable")
        self.operation = _OPERATION.get(caller.backend.name, "asking the model for an answer")
        self.number = 0
        self.started = 0.0
        self.on_text: TextSink | None = None
        self.mid_line = False  # this attempt streamed text that did not end its line

    async def attempt(self, request: ModelRequest) -> Message:
        self.number += 1
        self.started = time.monotonic()
        self.on_text, self.mid_line = request.on_text, False
        if request.on_text is not None:
            request = dataclasses.replace(request, on_text=self._watched(request.on_text))
        with structlog.contextvars.bound_contextvars(attempt=self.number):
            message = await self.caller.backend.create(request)
        self._record("ok")
        return message

    def _watched(self, on_text: TextSink) -> TextSink:
        """`on_text`, noting whether the text so far left a line open."""

        def stream(text: str) -> None:
            if text:
                self.mid_line = not text.endswith("\n")
            on_text(text)

        return stream

    def should_retry(self, state: RetryCallState) -> bool:
        error = state.outcome.exception() if state.outcome else None
        if not isinstance(error, Exception):
            return False
        policy, retries = self.caller.policy, state.attempt_number - 1
        self.verdict = classify(
            error, self.operation, retry_count=retries, max_wait_s=policy.wait_cap()
        )
        self.decision = decide(self.verdict, policy, retries)
        return self.decision.retry

    def wait(self, state: RetryCallState) -> float:
        assert self.verdict is not None  # should_retry ran first
        self._failed(self.verdict, self.decision.wait_s)
        return self.decision.wait_s

    def give_up(self, error: Exception) -> ModelUnavailable:
        verdict = self.verdict
        if verdict is None or (verdict.retryable and not verdict.beyond_cap):
            # not classified yet, or stopped by the attempt cap: past retrying now
            retries = max(self.number, self.caller.policy.max_attempts)
            verdict = classify(error, self.operation, retry_count=retries)
        result = verdict.result
        self._record(result.error_type, result.action.value)
        log.warning("model.call_failed", **self._context(), **result.log_fields())
        return ModelUnavailable(result)

    def _failed(self, verdict: Verdict, wait: float) -> None:
        result = verdict.result
        self._record(result.error_type, result.action.value, wait)
        log.warning("model.attempt_failed", wait_s=wait, **self._context(), **result.log_fields())
        if self.on_text is not None and self.mid_line:  # "Let me" + retry: not "Let meAll good."
            self.on_text("\n")
        if self.caller.observer is not None:
            self.caller.observer(_progress(self.caller.backend.name, result, wait))

    def _context(self) -> dict[str, object]:
        return {"source": self.caller.backend.name, "attempt": self.number}

    def _record(self, outcome: str, action: str | None = None, wait: float | None = None) -> None:
        duration = time.monotonic() - self.started
        name = self.caller.backend.name
        self.timeline.append(Attempt("model", name, self.number, duration, outcome, action, wait))


def _progress(backend: str, result: ErrorAction, wait: float) -> Progress:
    label = "Claude" if backend == "claude" else "the model"
    if result.action is Action.WAIT:
        message = f"{label} is busy — {retry_phrase(wait)}"
        return Progress("waiting", "model", backend, message, wait)
    message = f"{label} did not answer — {retry_phrase(wait)}"
    return Progress("retrying", "model", backend, message, wait)
