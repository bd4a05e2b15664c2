"""The registry: definitions, everything wrong with a call caught before the network, and
the bound on a call that does not end."""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

import httpx
import pytest
from pydantic import BaseModel
from structlog.testing import capture_logs

from errors import InvalidInput, classify
from offline import SimulatedServices
from resilience import Event
from tests.tools.upstream import is_safe_for_a_model
from tools import Registry, Tool, ToolResult, builtin_tools


@pytest.fixture
def registry(sim_client: httpx.AsyncClient) -> Registry:
    return Registry(builtin_tools(sim_client))


def test_default_registry_has_both_tools(registry: Registry) -> None:
    """get_weather and calculate, in that order, each with an input schema."""
    definitions = registry.definitions()
    assert [d["name"] for d in definitions] == ["get_weather", "calculate"]
    assert definitions[0]["input_schema"]["required"] == ["city"]
    assert definitions[1]["input_schema"]["required"] == ["expression"]
    assert [tool.name for tool in registry.tools] == ["get_weather", "calculate"]


async def test_unknown_tool_is_fix_input_naming_the_tools(
    registry: Registry, sim: SimulatedServices
) -> None:
    """An unknown name says which tools exist, and calls nothing."""
    result = await registry.dispatch("get_wether", {"city": "Paris"})
    assert result.is_error
    assert result.error is not None
    assert result.error.action == "fix_input"
    assert "calculate, get_weather" in result.content
    assert not any(sim.calls.values())


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        ({}, "the city is missing"),
        ({"city": None}, "the city is null"),
        ({"city": 12345}, "the city must be text"),
        ({"city": ["Paris"]}, "the city must be text"),
        ({"city": ""}, "the city is empty"),
        ({"city": "   "}, "the city is empty"),
        ({"city": "x" * 500}, "the city is too long"),
        ({"city": ".."}, "the city contains no letters"),
        ({"city": "12345"}, "the city contains no letters"),
        ({"city": "Paris\r\nHost: evil"}, "the city contains control characters"),
        ({"city": "Paris", "units": "F"}, "units is not an accepted input"),
        (None, "the input must be an object"),
        ("Paris", "the input must be an object"),
    ],
)
async def test_invalid_city_is_fix_input_before_any_request(
    raw: object, words: str, registry: Registry, sim: SimulatedServices
) -> None:
    """Missing, null, mistyped, empty, absurd or extra input: fix_input, nothing sent."""
    result = await registry.dispatch("get_weather", raw)
    assert result.is_error
    assert result.error is not None
    assert (result.error.action, result.error.error_type) == ("fix_input", "invalid_input")
    assert words in result.content
    assert is_safe_for_a_model(result.content)
    assert not any(sim.calls.values())


class _Input(BaseModel):
    value: str


async def test_a_crashing_tool_is_an_escalate_result() -> None:
    """A bug in a handler becomes a result that says so plainly; dispatch never raises."""

    async def broken(_args: _Input) -> ToolResult:
        raise KeyError("temperature")

    tool = Tool("broken", "Always fails.", _Input, broken, "checking something")
    with capture_logs() as logs:
        result = await Registry([tool]).dispatch("broken", {"value": "x"})
    assert [(e["event"], type(e["exc_info"])) for e in logs] == [("tool.crashed", KeyError)]
    assert result.is_error
    assert result.error is not None
    assert result.error.action == "escalate"
    assert "KeyError" not in result.content
    assert "temperature" not in result.content


def registry_line(result: ToolResult) -> tuple[str, str, int, str, str | None]:
    """The result's single attempt, without its duration."""
    [attempt] = result.attempts
    assert isinstance(attempt, Event)
    assert 0 <= attempt.duration_s < 5
    return (attempt.caller, attempt.source, attempt.number, attempt.outcome, attempt.action)


async def test_unknown_tool_result_has_one_registry_attempt(registry: Registry) -> None:
    """An unknown tool is one "registry" attempt: number 1, invalid_input, fix_input."""
    result = await registry.dispatch("get_wether", {"city": "Paris"})
    assert registry_line(result) == ("get_wether", "registry", 1, "invalid_input", "fix_input")


async def test_invalid_input_result_has_one_registry_attempt(registry: Registry) -> None:
    """Input refused by validation is one "registry" attempt naming the tool."""
    result = await registry.dispatch("get_weather", {"city": 12345})
    assert registry_line(result) == ("get_weather", "registry", 1, "invalid_input", "fix_input")


async def test_crashed_handler_result_has_one_registry_attempt() -> None:
    """A crashing handler is one "registry" attempt whose outcome is the error type."""

    async def broken(_args: _Input) -> ToolResult:
        raise KeyError("temperature")

    tool = Tool("broken", "Always fails.", _Input, broken, "checking something")
    result = await Registry([tool]).dispatch("broken", {"value": "x"})
    assert registry_line(result) == ("broken", "registry", 1, "internal_error", "escalate")


async def test_registry_failures_are_logged_once_as_its_attempt(registry: Registry) -> None:
    """The one log event of a registry failure names the registry source and attempt 1."""
    with capture_logs() as logs:
        result = await registry.dispatch("x" * 200, {})
    [event] = logs
    assert (event["event"], event["source"], event["attempt"]) == ("tool.unknown", "registry", 1)
    assert event["tool"] == result.attempts[0].caller == "x" * 80
    assert event["developer_note"]


def hanging_tool() -> Tool:
    async def hang(_args: _Input) -> ToolResult:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    return Tool("hangs", "Never answers.", _Input, hang, "checking something")


async def test_a_handler_past_its_timeout_is_a_deadline_result() -> None:
    """`timeout_s` cuts a hanging handler: one deadline_exceeded result, one registry attempt."""
    async with asyncio.timeout(5):  # a hang guard, not a timing assertion
        with capture_logs() as logs:
            result = await Registry([hanging_tool()]).dispatch(
                "hangs", {"value": "x"}, timeout_s=0.01
            )
    assert result.is_error
    assert result.error is not None
    assert result.content == result.error.user_message
    assert registry_line(result) == ("hangs", "registry", 1, "deadline_exceeded", "escalate")
    assert is_safe_for_a_model(result.content)
    [event] = logs
    assert event["event"] == "tool.timed_out"
    assert {k: event[k] for k in result.error.log_fields()} == result.error.log_fields()


async def test_a_timeout_error_raised_by_the_handler_is_a_crash() -> None:
    """A TimeoutError of the handler's own, within the bound, is a bug, not the registry's cut."""

    async def broken(_args: _Input) -> ToolResult:
        raise TimeoutError("inner")

    tool = Tool("broken", "Always fails.", _Input, broken, "checking something")
    with capture_logs() as logs:
        result = await Registry([tool]).dispatch("broken", {"value": "x"}, timeout_s=60)
    assert [e["event"] for e in logs] == ["tool.crashed"]
    assert result.is_error


class _Counted(BaseModel):
    """An input model that counts how often its JSON schema is rendered."""

    renders: ClassVar[int] = 0
    value: str

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        _Counted.renders += 1
        return super().model_json_schema(*args, **kwargs)


async def test_definitions_are_built_once() -> None:
    """Every model call asks for the definitions; the schemas are rendered only at start."""

    async def answer(_args: _Counted) -> ToolResult:
        return ToolResult("ok")

    registry = Registry([Tool("counted", "Counts.", _Counted, answer, "counting")])
    first, second = registry.definitions(), registry.definitions()
    assert first == second
    assert first[0]["input_schema"]["required"] == ["value"]
    assert _Counted.renders == 1


def test_failed_result_carries_only_the_sentence() -> None:
    """ToolResult.failed: is_error, the verdict kept, and the model reads its user_message."""
    error = classify(InvalidInput("city", "is empty", "give a name"), "getting the weather").result
    attempt = Event("failed", "get_weather", "registry", 1, 0.0, error.error_type)
    result = ToolResult.failed(error, (attempt,))
    assert (result.content, result.is_error) == (error.user_message, True)
    assert (result.error, result.attempts) == (error, (attempt,))
