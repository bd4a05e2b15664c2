"""Model fallback: when the primary model stays unavailable, the fallback model answers,
through the same engine as the tools' fallback (one breaker per model, one log, one timeline)."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest
from structlog.testing import capture_logs

from agent.app import Agent, claude_models
from agent.claude import ClaudeModel
from agent.loop import Limits
from agent.models import ModelCaller, ModelRequest, ModelUnavailable, PromptTooLong
from agent.settings import Settings
from offline import QueuedModel, api_error, text
from tests.agent.fake_claude import FakeClaude, error, message, text_block
from tests.agent.helpers import API_KEY, CLAUDE_BASE, model_policy_on, registry

REQUEST = ModelRequest(messages=[{"role": "user", "content": "hi"}])


def overloaded(times: int) -> list[Exception]:
    return [api_error(529, "overloaded_error", "Overloaded") for _ in range(times)]


def pair(primary_replies: list[Any], fallback_replies: list[Any]) -> tuple[QueuedModel, ...]:
    primary = QueuedModel(*primary_replies, name="claude-sonnet-4-6")
    fallback = QueuedModel(*fallback_replies, name="claude-haiku-4-5")
    return primary, fallback


async def test_the_fallback_answers_when_the_primary_stays_overloaded(fake_sleep: Any) -> None:
    """Three 529s from the primary (its retries spent), then the fallback's answer."""
    primary, fallback = pair(overloaded(3), [text("From Haiku.")])
    timeline: list[Any] = []
    caller = ModelCaller([primary, fallback], model_policy_on(fake_sleep))
    reply = await caller.create(REQUEST, timeline)
    assert reply.text == "From Haiku."
    assert [(a.source, a.outcome) for a in timeline] == [
        ("claude-sonnet-4-6", "overloaded"),
        ("claude-sonnet-4-6", "overloaded"),
        ("claude-sonnet-4-6", "overloaded"),
        ("claude-haiku-4-5", "ok"),
    ]


async def test_the_log_says_which_model_took_over(fake_sleep: Any) -> None:
    """`model.fallback_used` names the model that answered and the one that failed."""
    primary, fallback = pair(overloaded(3), [text("ok")])
    with capture_logs() as logs:
        await ModelCaller([primary, fallback], model_policy_on(fake_sleep)).create(REQUEST, [])
    [used] = [e for e in logs if e["event"] == "model.fallback_used"]
    assert (used["source"], used["failed_source"]) == ("claude-haiku-4-5", "claude-sonnet-4-6")


async def test_a_healthy_primary_never_touches_the_fallback(fake_sleep: Any) -> None:
    """The fallback is asked only when the primary will not answer."""
    primary, fallback = pair([text("primary")], [text("fallback")])
    reply = await ModelCaller([primary, fallback], model_policy_on(fake_sleep)).create(REQUEST, [])
    assert reply.text == "primary"
    assert fallback.requests == []


async def test_a_primary_that_keeps_failing_is_skipped_next_time(fake_sleep: Any) -> None:
    """After the primary's breaker opens, the next call goes straight to the fallback."""
    primary, fallback = pair(overloaded(3), [text("one"), text("two")])
    caller = ModelCaller([primary, fallback], model_policy_on(fake_sleep))
    await caller.create(REQUEST, [])
    timeline: list[Any] = []
    reply = await caller.create(REQUEST, timeline)
    assert reply.text == "two"
    assert len(primary.requests) == 3
    assert [(a.source, a.number, a.outcome) for a in timeline] == [
        ("claude-sonnet-4-6", 0, "source_skipped"),
        ("claude-haiku-4-5", 1, "ok"),
    ]


async def test_one_model_has_no_breaker_to_refuse_with(fake_sleep: Any) -> None:
    """Without a fallback, a model that failed three times is still asked the next time."""
    model = QueuedModel(*overloaded(3), text("back"), name="claude-sonnet-4-6")
    caller = ModelCaller(model, model_policy_on(fake_sleep))
    with pytest.raises(ModelUnavailable):
        await caller.create(REQUEST, [])
    assert (await caller.create(REQUEST, [])).text == "back"


async def test_a_prompt_too_long_is_not_sent_to_the_fallback(fake_sleep: Any) -> None:
    """A request the API refused as too long is the loop's to trim, not another model's."""
    primary, fallback = pair([PromptTooLong("prompt is too long: 210000 tokens")], [text("x")])
    caller = ModelCaller([primary, fallback], model_policy_on(fake_sleep))
    with pytest.raises(ModelUnavailable) as caught:
        await caller.create(REQUEST, [])
    assert isinstance(caught.value.__cause__, PromptTooLong)
    assert fallback.requests == []


async def test_no_model_answering_is_one_plain_sentence(fake_sleep: Any) -> None:
    """Both models down: `ModelUnavailable` with a sentence that promises nothing."""
    primary, fallback = pair(overloaded(3), overloaded(3))
    caller = ModelCaller([primary, fallback], model_policy_on(fake_sleep))
    with pytest.raises(ModelUnavailable) as caught:
        await caller.create(REQUEST, [])
    assert caught.value.result.retryable is False
    assert "529" not in caught.value.sentence


async def test_the_answer_names_the_model_that_gave_it(fake_sleep: Any) -> None:
    """`Answer.model` is the fallback's name when the fallback answered the turn."""
    primary, fallback = pair(overloaded(3), [text("Sunny.")])
    agent = Agent(ModelCaller([primary, fallback], model_policy_on(fake_sleep)), registry())
    answer = await agent.ask("weather?")
    assert (answer.text, answer.model) == ("Sunny.", "claude-haiku-4-5")


def test_agent_fallback_model_is_read_from_the_environment() -> None:
    """AGENT_FALLBACK_MODEL sets the second model; unset, there is none."""
    env = {"ANTHROPIC_API_KEY": API_KEY, "AGENT_FALLBACK_MODEL": "claude-haiku-4-5"}
    assert Settings.from_env(env).fallback_model == "claude-haiku-4-5"
    assert Settings.from_env({"ANTHROPIC_API_KEY": API_KEY}).fallback_model is None


def test_the_fallback_model_shares_the_primary_client() -> None:
    """Two Claude models, one HTTP connection pool and one key."""
    settings = Settings(
        api_key=API_KEY, offline=False, fallback_model="claude-haiku-4-5", base_url=CLAUDE_BASE
    )
    primary, fallback = claude_models(settings)
    assert isinstance(primary, ClaudeModel)
    assert isinstance(fallback, ClaudeModel)
    assert (primary.name, fallback.name) == ("claude-sonnet-4-6", "claude-haiku-4-5")
    assert fallback.client._client is primary.client._client  # the SDK's httpx2 client


async def test_end_to_end_the_sdk_reaches_the_fallback_model(fake_sleep: Any) -> None:
    """Over the real SDK: 529s for the primary's id, an answer for the fallback's id."""

    def by_model(request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        if body["model"] == "claude-sonnet-4-6":
            return error(529, "overloaded_error")
        return message(text_block(f"answered by {body['model']}"))

    fake = FakeClaude(by_model, repeat_last=True)
    primary = ClaudeModel(api_key=API_KEY, base_url=CLAUDE_BASE, transport=fake.transport())
    fallback = ClaudeModel(model="claude-haiku-4-5", client=primary.client)
    caller = ModelCaller([primary, fallback], model_policy_on(fake_sleep))
    agent = Agent(caller, registry(), Limits(), closers=[caller.aclose])
    answer = await agent.ask("hi")
    await agent.aclose()
    assert answer.text == "answered by claude-haiku-4-5"
    models = [json.loads(r.content)["model"] for r in fake.requests]
    assert models == ["claude-sonnet-4-6"] * 3 + ["claude-haiku-4-5"]
