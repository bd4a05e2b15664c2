"""Model calls through the resilience engine: the primary model, then a fallback model.

Each model is a source: its failures are classified by error-to-action and retried within
`MODEL_POLICY` (more patient than a tool's: a turn without the model has no answer), and a
model that stays overloaded or unreachable hands over to the next one
(`AGENT_FALLBACK_MODEL`). The timeline and the log name the model each attempt went to.
When no model answers, `ModelUnavailable` carries one plain sentence for the person.

An attempt that streamed part of a line before failing has that line ended before the next
attempt, so the retried answer starts on a line of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Awaitable, Callable, Sequence

from agent import spans
from agent.models import ModelBackend, ModelRequest, Reply, TextSink
from errors import ErrorAction, classify
from resilience import (
    Attempt,
    AttemptInfo,
    Deadline,
    Engine,
    Observer,
    Outcome,
    Policy,
    Source,
)

__all__ = ["MODEL_POLICY", "ModelCaller", "ModelUnavailable", "Sleep", "model_policy"]

Sleep = Callable[[float], Awaitable[None]]

# More patient than a tool. The breaker works only with a fallback model (`ModelCaller` turns
# it off for one): after repeated failures the primary is skipped for a while and the
# fallback answers at once; skipping the only model would just refuse sooner.
MODEL_POLICY = Policy(
    max_wait_s=30.0,
    deadline_s=300.0,
    attempt_timeout_s=120.0,
    base_backoff_s=1.0,
    max_backoff_s=8.0,
    max_attempts=3,
    breaker_threshold=3,
    breaker_cooldown_s=60.0,
)


def model_policy(
    tools_policy: Policy | None = None, *, attempt_timeout_s: float | None = None
) -> Policy:
    """`MODEL_POLICY`, on the tools policy's sleep, clock and jitter when given, and with
    `attempt_timeout_s` (AGENT_MODEL_TIMEOUT: one attempt, streaming included) when given."""
    policy = MODEL_POLICY
    if tools_policy is not None:
        policy = dataclasses.replace(
            policy, sleep=tools_policy.sleep, clock=tools_policy.clock, rand=tools_policy.rand
        )
    if attempt_timeout_s is not None:
        policy = dataclasses.replace(policy, attempt_timeout_s=attempt_timeout_s)
    return policy


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


# No connection could be opened (refused, no such host): what to check, where it is set.
_UNREACHABLE_AT_BASE_URL = (
    "Claude could not be reached at the address in ANTHROPIC_BASE_URL; check that it is "
    "right and that the server there is running, then try again."
)
_UNREACHABLE = (
    "Claude could not be reached; check your network connection (and any proxy settings), "
    "then try again."
)


class ModelUnavailable(Exception):
    """No model answered within the bounds; `sentence` is safe to show a person.

    `unreachable`: no connection to the model could even be opened (refused, DNS);
    `base_url`: the ANTHROPIC_BASE_URL in use, if one is set (it is not repeated: it may
    hold credentials)."""

    def __init__(
        self, result: ErrorAction, *, unreachable: bool = False, base_url: str | None = None
    ) -> None:
        super().__init__(result.error_type)
        self.result = result
        self.sentence = _sentence(result, unreachable=unreachable, base_url=base_url)


def _sentence(result: ErrorAction, *, unreachable: bool, base_url: str | None) -> str:
    """The user's fix where the setup is wrong (the key, the model id, the address), else
    the verdict's."""
    if result.error_type in _KEY_PROBLEMS:
        return _KEY_SENTENCE
    if result.error_type == "not_found":
        return _MODEL_SENTENCE
    if unreachable:
        return _UNREACHABLE_AT_BASE_URL if base_url else _UNREACHABLE
    return result.user_message


class ModelCaller:
    """Asks the models in order, through one engine (its breakers live as long as it does)."""

    def __init__(
        self,
        models: ModelBackend | Sequence[ModelBackend],
        policy: Policy | None = None,
        observer: Observer | None = None,
        *,
        base_url: str | None = None,
    ) -> None:
        """`base_url`: ANTHROPIC_BASE_URL, if set, for the sentence when it can't be reached."""
        self.models = tuple(models) if isinstance(models, Sequence) else (models,)
        self.base_url = base_url
        policy = policy or MODEL_POLICY
        if len(self.models) == 1:
            policy = dataclasses.replace(policy, breaker_threshold=0)
        self.engine = Engine("model", policy, observer, kind="model")

    @property
    def name(self) -> str:
        """The primary model's name."""
        return self.models[0].name

    async def create(
        self, request: ModelRequest, timeline: list[Attempt], *, deadline: Deadline | None = None
    ) -> Reply:
        """One reply, or `ModelUnavailable` once no model is worth asking again."""
        await _loaded(self.models, deadline)
        sources = [_source(model, request) for model in self.models]
        with spans.chat(self.name, request.max_tokens) as span:
            outcome = await self.engine.run(_operation(self.name), sources, deadline=deadline)
            timeline.extend(outcome.attempts)
            if outcome.answered and outcome.value is not None:
                spans.replied(span, outcome.value, outcome.source)
                return outcome.value
            unavailable = _unavailable(outcome, self.base_url)
            span.fail(unavailable.result)
        raise unavailable from outcome.error

    async def aclose(self) -> None:
        """Close every model."""
        for model in self.models:
            await model.aclose()


async def _loaded(models: Sequence[ModelBackend], deadline: Deadline | None) -> None:
    """Wait for any model whose SDK is still loading (`agent/models/_deferred.py`) before the
    first attempt: loading is not asking, so it spends no attempt's time, only the turn's (a
    load still going when that runs out is left to the engine, which reports the deadline)."""
    waits = [ready() for model in models if (ready := getattr(model, "ready", None))]
    if not waits:
        return
    limit = None if deadline is None else max(0.0, deadline.remaining())
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(limit):
            await asyncio.gather(*waits)


def _operation(name: str) -> str:
    return "asking Claude for an answer" if name.startswith("claude") else "asking the model"


def _unavailable(outcome: Outcome[Reply], base_url: str | None) -> ModelUnavailable:
    if outcome.fix is not None:  # the request itself is wrong (e.g. the prompt is too long)
        return ModelUnavailable(classify(outcome.fix, _operation("")).result)
    failure = outcome.failure
    assert failure is not None  # no answer and nothing to fix: something failed
    unreachable = failure.result.error_type == "network" and failure.facts.connect_phase
    return ModelUnavailable(failure.result, unreachable=unreachable, base_url=base_url)


def _source(model: ModelBackend, request: ModelRequest) -> Source[Reply]:
    """One model as a source: each attempt streams through a line watch."""

    async def fetch(_info: AttemptInfo) -> Reply:
        watch = _LineWatch(request.on_text)
        try:
            return await model.create(dataclasses.replace(request, on_text=watch.sink))
        except BaseException:
            watch.close_line()
            raise

    return Source(model.name, fetch)


class _LineWatch:
    """Passes streamed text on, remembering whether it left a line open."""

    def __init__(self, on_text: TextSink | None) -> None:
        self.on_text = on_text
        self.mid_line = False
        self.sink: TextSink | None = None if on_text is None else self._pass

    def _pass(self, text: str) -> None:
        if text:
            self.mid_line = not text.endswith("\n")
        if self.on_text is not None:
            self.on_text(text)

    def close_line(self) -> None:
        """After a failed attempt: "Let me" + retry reads "Let me\\nAll good.", not "Let meAll"."""
        if self.on_text is not None and self.mid_line:
            self.on_text("\n")
