"""A turn ends in bounded time: a deadline for the whole turn (AGENT_TURN_TIMEOUT) bounds every
model call and tool round; each model attempt is cut at AGENT_MODEL_TIMEOUT, streaming
included. Real time here is a few tenths of a second; the asserts are on outcomes only."""

from __future__ import annotations

import asyncio
import dataclasses

from pydantic import BaseModel
from structlog.testing import capture_logs

from agent.conversation import Conversation
from agent.loop import Limits, Turn
from agent.models import (
    BACKSTOP_S,
    ModelCaller,
    ModelRequest,
    ModelUnavailable,
    Reply,
    model_policy,
)
from agent.settings import Settings
from offline import SimulatedServices, open_agent
from tests.agent.helpers import ScriptedModel, assert_error_sentence, calls, registry, text
from tools import Tool, ToolResult, make_client

GUARD_S = 10  # a hang guard only: without the bounds under test these would never end


class HangingModel:
    """A model that never answers (an endpoint that accepts and stays silent)."""

    name = "claude-sonnet-4-6"

    def __init__(self) -> None:
        self.calls = 0

    async def create(self, request: ModelRequest) -> Reply:
        self.calls += 1
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    async def aclose(self) -> None:
        return None


class _In(BaseModel):
    n: int


async def _hang(_: _In) -> ToolResult:
    await asyncio.Event().wait()
    return ToolResult("never")


async def _no_sleep(_: float) -> None:
    return None


def _turn(model: object, limits: Limits, tools: object = None) -> Turn:
    policy = model_policy(attempt_timeout_s=60.0)
    caller = ModelCaller(model, policy)  # type: ignore[arg-type]
    return Turn(Conversation(), caller=caller, registry=tools or registry(), limits=limits)


async def test_a_silent_model_ends_the_turn_at_its_deadline_with_one_sentence() -> None:
    """No answer ever comes: the turn's deadline cuts the call; unanswered, one plain sentence,
    logged once as agent.turn_timed_out."""
    model = HangingModel()
    with capture_logs() as logs:
        async with asyncio.timeout(GUARD_S):
            answer = await _turn(model, Limits(turn_timeout_s=0.2)).run("weather?")
    assert answer.answered is False
    assert answer.error is not None
    assert answer.error.error_type == "turn_timed_out"
    assert_error_sentence(answer.text)
    assert "limit" in answer.text
    assert model.calls == 1  # cut by the turn's deadline: no time left to try again
    assert [e["event"] for e in logs].count("agent.turn_timed_out") == 1


async def test_a_hanging_tool_is_cut_at_what_is_left_of_the_turn() -> None:
    """A tool that never returns, with a long tool bound: the round is cut at the turn's
    deadline, the call still gets its result, and the turn ends unanswered."""
    tools = registry([Tool("hang", "hangs", _In, _hang, "waiting on the slow tool")])
    model = ScriptedModel(calls(("hang", {"n": 1})), text("never asked"))
    limits = Limits(turn_timeout_s=0.3, tool_timeout_s=60.0)
    with capture_logs() as logs:
        async with asyncio.timeout(GUARD_S):
            answer = await _turn(model, limits, tools).run("slow?")
    [result] = answer.tool_results
    assert result["is_error"] is True
    assert "tool.timed_out" in [e["event"] for e in logs]
    assert (answer.answered, answer.error and answer.error.error_type) == (
        False,
        "turn_timed_out",
    )
    assert len(model.requests) == 1  # no time was left to ask again


async def test_one_model_attempt_is_cut_at_the_model_timeout_then_tried_once_more() -> None:
    """AGENT_MODEL_TIMEOUT bounds one attempt however its bytes arrive: a timeout, retried
    once, then one plain sentence — never a hang."""
    model = HangingModel()
    policy = dataclasses.replace(model_policy(attempt_timeout_s=0.05), sleep=_no_sleep)
    caller = ModelCaller(model, policy)
    async with asyncio.timeout(GUARD_S):
        try:
            await caller.create(ModelRequest(messages=[]), [])
        except ModelUnavailable as exc:
            unavailable = exc
    assert model.calls == 2
    assert unavailable.result.error_type == "timeout"
    assert_error_sentence(unavailable.sentence)


async def test_the_settings_timeouts_reach_the_model_policy_and_the_turn() -> None:
    """open_agent: AGENT_MODEL_TIMEOUT is the model attempt's bound (the engine's cut a
    backstop just after it), AGENT_MODEL_STALL_TIMEOUT its no-progress window,
    AGENT_TURN_TIMEOUT the turn's; limits given explicitly win."""
    settings = Settings.from_env(
        {"AGENT_MODEL_TIMEOUT": "7", "AGENT_MODEL_STALL_TIMEOUT": "4", "AGENT_TURN_TIMEOUT": "9"}
    )
    async with make_client(transport=SimulatedServices().transport) as http:
        agent = await open_agent(settings, http=http)
        explicit = await open_agent(settings, http=http, limits=Limits(turn_timeout_s=3.0))
        await agent.aclose()
        await explicit.aclose()
    assert agent.caller.attempt_s == 7.0
    assert agent.caller.engine.policy.attempt_timeout_s == 7.0 + BACKSTOP_S
    assert agent.caller.stall_s == 4.0
    assert agent.limits.turn_timeout_s == 9.0
    assert explicit.limits.turn_timeout_s == 3.0
