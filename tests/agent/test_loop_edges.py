"""The loop's edges: paused tool calls, empty replies, a prompt too long, hung tools, bounds."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import structlog
from pydantic import BaseModel
from structlog.testing import LogCapture, capture_logs

from agent.conversation import Conversation
from agent.loop import Answer, Limits, Turn
from agent.models import ModelCaller, PromptTooLong, Text, ToolCall
from agent.records import GAVE_UP, NO_ANSWER
from agent.settings import Settings
from offline import SimulatedServices, open_agent
from resilience import Policy
from tests.agent.helpers import (
    ScriptedModel,
    calls,
    model_policy_on,
    registry,
    reply,
    text,
    user_blocks,
)
from tools import Tool, ToolResult, make_client

TOO_LONG = "prompt is too long: 210000 tokens > 200000 maximum"


async def run(
    model: ScriptedModel,
    question: str = "q?",
    *,
    conversation: Conversation | None = None,
    limits: Limits | None = None,
    tools: Any = None,
) -> Answer:
    async def no_sleep(_: float) -> None:
        return None

    turn = Turn(
        conversation if conversation is not None else Conversation(),
        caller=ModelCaller(model, model_policy_on(no_sleep)),
        registry=tools or registry(),
        limits=limits or Limits(),
    )
    return await turn.run(question)


def _no_empty_message(conversation: Conversation) -> None:
    for message in conversation.messages:
        assert message["content"], conversation.messages
        for block in message["content"]:
            assert not isinstance(block, dict) or block.get("text", "x").strip(), message


# --- pause_turn ------------------------------------------------------------------------------


async def test_a_paused_turn_with_tool_calls_runs_them_before_going_on() -> None:
    """pause_turn carrying tool_use blocks: each is run and answered in the next request."""
    paused = reply(
        [
            Text("Looking."),
            ToolCall(id="tu_p", name="get_weather", input={"city": "Paris"}),
        ],
        "pause_turn",
    )
    model = ScriptedModel(paused, text("Paris is clear."))
    answer = await run(model)
    [result] = user_blocks(model.requests[1])
    assert (result["tool_use_id"], result.get("is_error", False)) == ("tu_p", False)
    assert answer.text == "Paris is clear."


# --- empty replies are no answer, and never enter the history --------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        reply([], "end_turn"),
        reply([Text("  \n")], "end_turn"),
        reply([], "tool_use"),
        reply([], "stop_sequence"),
    ],
    ids=["end_turn, no content", "blank text", "tool_use, no tool_use block", "stop_sequence"],
)
async def test_a_reply_with_no_text_is_no_answer_and_not_kept(reply: Any) -> None:
    """Nothing to show: answered is False, one plain sentence, the turn rolled back, logged."""
    conversation = Conversation()
    with capture_logs() as logs:
        answer = await run(ScriptedModel(reply), conversation=conversation)
    assert (answer.answered, answer.text) == (False, NO_ANSWER)
    assert len(conversation) == 0
    [event] = [e for e in logs if e["event"] == "agent.empty_answer"]
    assert (event["error_type"], event["retryable"]) == ("empty_answer", False)
    assert event["developer_note"]


async def test_a_tool_use_stop_without_tool_calls_is_a_plain_reply() -> None:
    """stop_reason tool_use with text but no tool_use block: the text is the answer."""
    conversation = Conversation()
    answer = await run(ScriptedModel(text("Done.", "tool_use")), conversation=conversation)
    assert (answer.answered, answer.text) == (True, "Done.")
    assert [m["role"] for m in conversation.messages] == ["user", "assistant"]
    _no_empty_message(conversation)


async def test_blank_text_before_a_tool_call_is_not_sent_back() -> None:
    """An empty text block beside a tool_use is dropped from the history sent next."""
    blank_then_call = reply(
        [
            Text(""),
            ToolCall(id="tu_1", name="calculate", input={"expression": "2"}),
        ],
        "tool_use",
    )
    model = ScriptedModel(blank_then_call, text("4."))
    conversation = Conversation()
    await run(model, conversation=conversation)
    assert [b["type"] for b in model.requests[1].messages[-2]["content"]] == ["tool_use"]  # type: ignore[index]
    _no_empty_message(conversation)


async def test_an_empty_wrap_up_reply_is_the_phrased_answer() -> None:
    """Bounded, and the tools-off call says nothing: the agent's own sentence, kept in history."""
    conversation = Conversation()
    model = ScriptedModel(calls(("get_weather", {"city": "Atlantis"})), reply([]))
    model.replies.appendleft(calls(("get_weather", {"city": "Atlantis"})))
    answer = await run(model, conversation=conversation, limits=Limits(max_repeats=1))
    assert (answer.answered, answer.text) == (True, GAVE_UP)
    assert conversation.messages[-1]["role"] == "assistant"
    _no_empty_message(conversation)


# --- a bounded turn is a logged failure -------------------------------------------------------


@pytest.mark.parametrize(
    ("limits", "why"),
    [(Limits(max_rounds=2), "rounds used"), (Limits(max_repeats=1), "repeated a failing call")],
    ids=["max_rounds", "repeat bound"],
)
async def test_a_bounded_turn_is_logged_once_with_its_failure_fields(
    limits: Limits, why: str
) -> None:
    """agent.turn_bounded: once, with error_type, action, retryable and a developer_note."""
    model = ScriptedModel(calls(("get_weather", {"city": "Atlantis"})), repeat_last=True)
    with capture_logs() as logs:
        await run(model, limits=limits)
    [event] = [e for e in logs if e["event"] == "agent.turn_bounded"]
    assert (event["error_type"], event["action"], event["retryable"]) == (
        "turn_bounded",
        "escalate",
        False,
    )
    assert why in event["developer_note"]


# --- a prompt too long -----------------------------------------------------------------------


async def test_a_prompt_too_long_drops_earlier_turns_and_asks_once_more() -> None:
    """A 400 "prompt is too long" with earlier turns: they are dropped and the turn answers."""
    conversation = Conversation()
    await run(ScriptedModel(text("first answer")), "first?", conversation=conversation)
    model = ScriptedModel(PromptTooLong(TOO_LONG), text("second answer"))
    answer = await run(model, "second?", conversation=conversation)
    assert answer.text == "second answer"
    assert len(model.requests[1].messages) == 1
    assert [m["role"] for m in conversation.messages] == ["user", "assistant"]


async def test_a_prompt_too_long_with_nothing_to_drop_says_so_and_keeps_nothing() -> None:
    """Still too long after trimming: no answer, a plain sentence, and the next turn works."""
    conversation = Conversation()
    await run(ScriptedModel(text("first answer")), "first?", conversation=conversation)
    model = ScriptedModel(PromptTooLong(TOO_LONG), PromptTooLong(TOO_LONG), text("third"))
    failed = await run(model, "second?", conversation=conversation)
    after = await run(model, "third?", conversation=conversation)
    assert failed.answered is False
    assert "too long" in failed.text
    assert "200000" not in failed.text
    assert len(model.requests) == 3
    assert after.text == "third"
    assert len(model.requests[2].messages) == 1


# --- every tool call is bounded, whatever the tool ---------------------------------------------


class _In(BaseModel):
    n: int


async def _hang(_: _In) -> ToolResult:
    await asyncio.Event().wait()
    return ToolResult("never")


async def test_a_tool_that_hangs_is_cut_at_the_registry_bound() -> None:
    """A tool built without the middleware hangs: one is_error result, logged, turn ends."""
    tools = registry([Tool("hang", "hangs", _In, _hang, "waiting on the slow tool")])
    model = ScriptedModel(calls(("hang", {"n": 1}), ("calculate", {"expression": "2"})), text("k"))
    capture = LogCapture()
    structlog.configure(processors=[structlog.contextvars.merge_contextvars, capture])
    async with asyncio.timeout(5):  # a hang guard: without the bound, the turn never ends
        answer = await run(model, tools=tools, limits=Limits(tool_timeout_s=0.05))
    hung, fine = answer.tool_results
    assert hung["is_error"] is True
    assert "ran out of time" in hung["content"]
    assert "is_error" not in fine
    [event] = [e for e in capture.entries if e["event"] == "tool.timed_out"]
    assert (event["error_type"], event["tool_use_id"]) == ("deadline_exceeded", "toolu_00")
    assert [a.outcome for a in answer.attempts if a.source == "registry"] == ["deadline_exceeded"]


@pytest.mark.parametrize(
    ("limits", "policy", "bound"),
    [
        (Limits(), None, 30.0),
        (Limits(), Policy(deadline_s=50.0), 60.0),
        (Limits(tool_timeout_s=5.0), Policy(deadline_s=50.0), 5.0),
    ],
    ids=["default", "a longer tools deadline", "set explicitly"],
)
async def test_the_tool_bound_defaults_past_the_tools_own_deadline(
    limits: Limits, policy: Policy | None, bound: float
) -> None:
    """Unset, the per-call bound is the tools' whole-call deadline plus a margin."""
    async with make_client(transport=SimulatedServices().transport) as http:
        agent = await open_agent(Settings(), http=http, policy=policy, limits=limits)
        await agent.aclose()
    assert agent.limits.tool_timeout_s == bound
