"""Bounded fan-out: at most `max_tool_calls` calls of one reply run, at most
`max_concurrent_tools` of an agent's calls run at once, and a repeated id is refused; every
kept tool_use still gets exactly one tool_result."""

from __future__ import annotations

import asyncio
import json

from pydantic import BaseModel
from structlog.testing import capture_logs

from agent.app import Agent
from agent.conversation import Conversation
from agent.loop import Limits
from agent.models import ModelCaller, Text, ToolCall
from agent.records import DUPLICATE_ID, too_many
from agent.tool_round import plan_calls
from offline._messages_wire import protocol_error
from tests.agent.helpers import (
    ScriptedModel,
    assert_error_sentence,
    calls,
    check_history,
    model_policy_on,
    registry,
    reply,
    text,
)
from tools import Tool, ToolResult


async def _no_sleep(_: float) -> None:
    return None


def _agent(model: ScriptedModel, limits: Limits, tools: object = None) -> Agent:
    return Agent(ModelCaller(model, model_policy_on(_no_sleep)), tools or registry(), limits)  # type: ignore[arg-type]


def test_the_refusal_sentences_are_plain() -> None:
    assert_error_sentence(DUPLICATE_ID.user_message)
    assert_error_sentence(too_many(8).user_message)


async def test_past_the_cap_calls_are_answered_as_not_run() -> None:
    """12 calls, a cap of 8: the first 8 run, the other 4 get one plain refusal each; the next
    request is valid and the cap is logged once."""
    sums = [("calculate", {"expression": f"{n}+1"}) for n in range(12)]
    model = ScriptedModel(calls(*sums), text("done"))
    with capture_logs() as logs:
        answer = await _agent(model, Limits(max_tool_calls=8)).ask("sums?")
    assert answer.answered is True
    results = answer.tool_results
    assert [r["tool_use_id"] for r in results] == [f"toolu_{n:02d}" for n in range(12)]
    assert [r.get("is_error", False) for r in results] == [False] * 8 + [True] * 4
    assert {r["content"] for r in results[8:]} == {too_many(8).user_message}
    messages = [dict(m) for m in model.requests[1].messages]
    check_history(messages)  # type: ignore[arg-type]
    assert protocol_error(messages) is None
    [capped] = [e for e in logs if e["event"] == "agent.fanout_capped"]
    assert (capped["asked"], capped["run"], capped["not_run"]) == (12, 8, 4)
    assert capped["error_type"] == "too_many_calls"


def test_a_repeated_id_is_kept_once_and_refused() -> None:
    """Three blocks, two sharing an id: the reply keeps two blocks; the shared id is refused,
    the other runs."""
    shared = ToolCall("toolu_a", "calculate", {"expression": "1"})
    again = ToolCall("toolu_a", "get_weather", {"city": "Paris"})
    other = ToolCall("toolu_b", "calculate", {"expression": "2"})
    fan = plan_calls(reply([Text("Let me see."), shared, again, other], "tool_use"), 8)
    assert [b.id for b in fan.reply.tool_calls] == ["toolu_a", "toolu_b"]
    assert fan.reply.content[0] == Text("Let me see.")
    assert fan.run == (other,)
    assert fan.refused == {"toolu_a": DUPLICATE_ID}


async def test_a_final_reply_with_repeated_ids_leaves_a_valid_history() -> None:
    """max_tokens inside repeated calls: the closing results follow the kept blocks only."""
    shared = ToolCall("toolu_a", "calculate", {"expression": "1"})
    model = ScriptedModel(reply([Text("Let me"), shared, shared], "max_tokens"), text("ok"))
    conversation = Conversation()
    agent = _agent(model, Limits())
    await agent.ask("q?", conversation)
    await agent.ask("again?", conversation)
    messages = [dict(m) for m in model.requests[1].messages]
    check_history(messages)  # type: ignore[arg-type]
    assert protocol_error(messages) is None


class _Probe(BaseModel):
    n: int


class _Peak:
    """A slow tool that remembers how many of its calls ran at once."""

    def __init__(self) -> None:
        self.running = 0
        self.peak = 0

    async def __call__(self, args: _Probe) -> ToolResult:
        self.running += 1
        self.peak = max(self.peak, self.running)
        await asyncio.sleep(0.01)
        self.running -= 1
        return ToolResult(json.dumps({"n": args.n}))


async def test_an_agent_runs_at_most_its_concurrent_tool_calls_across_turns() -> None:
    """Two turns at once on one agent, eight calls each, a bound of three: never more than
    three run at a time, and all sixteen are answered."""
    peak = _Peak()
    tools = registry([Tool("probe", "probe", _Probe, peak, "probing")])
    probes = [("probe", {"n": n}) for n in range(8)]
    model = ScriptedModel(calls(*probes), calls(*probes), text("a"), text("b"))
    agent = _agent(model, Limits(max_concurrent_tools=3), tools)
    first, second = await asyncio.gather(
        agent.ask("one?", Conversation()), agent.ask("two?", Conversation())
    )
    assert peak.peak == 3
    results = first.tool_results + second.tool_results
    assert len(results) == 16
    assert not any(r.get("is_error") for r in results)
