"""Calls to a real MCP server (one process for the module) through the engine: what came
back, what the timeline says, what was logged. Deadlines are the engine's, set short here."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from structlog.testing import capture_logs

from errors import plainness_problems
from resilience import Policy
from tests.mcp.conftest import SECRET, Plan, flaky, quick
from tools import Registry, ToolResult
from tools.mcp import McpToolset, open_toolset

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def shared_plan(tmp_path_factory: pytest.TempPathFactory) -> Plan:
    return Plan(Path(tmp_path_factory.mktemp("mcp")) / "plan.json")


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def toolset(shared_plan: Plan) -> AsyncIterator[McpToolset]:
    toolset = await open_toolset([flaky(shared_plan)])
    assert toolset.problems == []
    yield toolset
    await toolset.aclose()


@pytest.fixture
def plan(shared_plan: Plan) -> Plan:
    shared_plan.set()
    return shared_plan


async def call(
    toolset: McpToolset, tool: str, args: dict[str, Any], policy: Policy | None = None
) -> ToolResult:
    """One call on a policy of its own (and so a circuit breaker of its own)."""
    tools = [t.bound(policy or quick(), None) for t in toolset.tools]
    return await Registry(tools).dispatch(tool, args)


def timeline(result: ToolResult) -> list[tuple[str, str, int, str, str | None]]:
    return [(a.caller, a.source, a.number, a.outcome, a.action) for a in result.attempts]


def assert_sentence(result: ToolResult) -> None:
    """A failure reaches the model as one plain sentence, and nothing of the server's."""
    assert result.is_error
    assert plainness_problems(result.content) == []
    assert SECRET not in result.content
    assert "server said" not in result.content
    assert "exploded" not in result.content


async def test_the_servers_tools_are_listed_with_their_own_schema(toolset: McpToolset) -> None:
    echo = next(t for t in toolset.tools if t.name == "echo")
    assert [t.name for t in toolset.tools] == ["echo", "add", "pid"]
    assert echo.origin == "MCP server flaky"
    assert echo.definition()["input_schema"]["required"] == ["text"]
    assert echo.description == "Answer with the same text."


async def test_an_answer_comes_back_as_text(toolset: McpToolset, plan: Plan) -> None:
    result = await call(toolset, "echo", {"text": "hi"})
    assert (result.content, result.is_error) == ("hi", False)
    assert timeline(result) == [("echo", "flaky", 1, "ok", None)]


async def test_an_is_error_result_is_classified_never_forwarded(
    toolset: McpToolset, plan: Plan
) -> None:
    """The server's words (and its secret) go to the log, redacted; the model gets ours."""
    plan.set(echo=[f"is_error:upstream exploded with key={SECRET}"])
    with capture_logs() as logs:
        result = await call(toolset, "echo", {"text": "hi"})
    assert_sentence(result)
    assert timeline(result) == [("echo", "flaky", 1, "unknown", "escalate")]
    failed = next(e for e in logs if e["event"] == "tool.attempt_failed")
    assert "exploded" in failed["developer_note"]
    assert SECRET not in str(logs)


async def test_a_busy_is_error_is_retried_and_answers(toolset: McpToolset, plan: Plan) -> None:
    plan.set(echo=["is_error:503 Service Unavailable"])
    result = await call(toolset, "echo", {"text": "hi"})
    assert result.content == "hi"
    assert timeline(result) == [
        ("echo", "flaky", 1, "server_error", "retry"),
        ("echo", "flaky", 2, "ok", None),
    ]


async def test_a_json_rpc_internal_error_is_retried(toolset: McpToolset, plan: Plan) -> None:
    plan.set(echo=["rpc_error:-32603"])
    result = await call(toolset, "echo", {"text": "hi"})
    assert result.content == "hi"
    assert [a.outcome for a in result.attempts] == ["server_error", "ok"]


async def test_invalid_params_is_input_to_fix(toolset: McpToolset, plan: Plan) -> None:
    """The server turned the input down: never retried, the model is told to fix it."""
    plan.set(echo=["rpc_error:-32602"])
    result = await call(toolset, "echo", {"text": "hi"})
    assert_sentence(result)
    assert timeline(result) == [("echo", "flaky", 1, "invalid_input", "fix_input")]
    assert result.error is not None
    assert result.error.action == "fix_input"


async def test_a_malformed_result_is_bad_data_then_retried(toolset: McpToolset, plan: Plan) -> None:
    plan.set(echo=["malformed"])
    result = await call(toolset, "echo", {"text": "hi"})
    assert result.content == "hi"
    assert [a.outcome for a in result.attempts] == ["bad_data", "ok"]


async def test_a_hung_call_ends_at_its_attempt_deadline(toolset: McpToolset, plan: Plan) -> None:
    """Each attempt is cut at the attempt timeout; after one retry the engine stops."""
    plan.set(echo=["hang", "hang"])
    result = await call(toolset, "echo", {"text": "hi"}, quick(attempt_timeout_s=0.2))
    assert_sentence(result)
    assert timeline(result) == [
        ("echo", "flaky", 1, "timeout", "retry"),
        ("echo", "flaky", 2, "timeout", "escalate"),
    ]
    assert (await call(toolset, "echo", {"text": "again"})).content == "again"  # still alive


async def test_a_hung_call_ends_at_the_calls_deadline(toolset: McpToolset, plan: Plan) -> None:
    """With the call's deadline before the attempt's, the deadline ends it, unretried."""
    plan.set(echo=["hang"])
    result = await call(toolset, "echo", {"text": "hi"}, quick(deadline_s=0.2))
    assert_sentence(result)
    assert timeline(result) == [("echo", "flaky", 1, "deadline_exceeded", "escalate")]


async def test_a_slow_answer_within_the_deadline_is_an_answer(
    toolset: McpToolset, plan: Plan
) -> None:
    plan.set(echo=["slow:0.05"])
    assert (await call(toolset, "echo", {"text": "hi"})).content == "hi"


async def test_bad_input_is_stopped_before_the_server(toolset: McpToolset, plan: Plan) -> None:
    """The server's schema is checked here: the server is never called (its plan untouched)."""
    plan.set(add=["crash"])
    result = await call(toolset, "add", {"a": "one", "b": 2})
    assert_sentence(result)
    assert "the a must be a whole number" in result.content
    assert timeline(result) == [("add", "registry", 1, "invalid_input", "fix_input")]
    assert plan.left("add") == ["crash"]


async def test_one_circuit_breaker_per_server(toolset: McpToolset, plan: Plan) -> None:
    """Failures of one tool open the server's breaker: its other tools skip it too."""
    policy = quick(breaker_threshold=2)
    plan.set(echo=["rpc_error:-32603", "rpc_error:-32603"])
    assert [a.outcome for a in (await call(toolset, "echo", {"text": "x"}, policy)).attempts] == [
        "server_error",
        "server_error",
    ]
    result = await call(toolset, "add", {"a": 1, "b": 2}, policy)
    assert_sentence(result)
    assert timeline(result) == [("add", "flaky", 0, "source_skipped", "skip")]
