"""An MCP tool's JSON Schema as the registry's input check: bad input never reaches the
server, and the sentence names the input in our words."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from mcp.types import Tool as RemoteTool
from pydantic import ValidationError
from structlog.testing import capture_logs

from errors import classify, plainness_problems
from resilience import CircuitBreaker, Policy
from tools.mcp._tool import arguments, input_model, mcp_tool

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "count": {"type": "integer", "minimum": 1},
        "colour": {"enum": ["red", "blue"]},
        "json": {"type": "string"},  # a name BaseModel has an attribute for
        "x-trace": {"type": ["string", "null"]},  # not an identifier
        "filter": {
            "type": "object",
            "properties": {"tag": {"type": "string"}},
            "required": ["tag"],
        },
    },
    "required": ["count"],
}


def sentence(raw: dict[str, Any], schema: dict[str, Any] = SCHEMA) -> str:
    with pytest.raises(ValidationError) as caught:
        input_model("find_things", schema).model_validate(raw)
    message = classify(caught.value, "running the find things tool").result.user_message
    assert plainness_problems(message) == []
    return message


@pytest.mark.parametrize(
    "raw",
    [
        {"count": 1},
        {"count": 2, "colour": "red", "json": "{}", "x-trace": None},
        {"count": 2, "filter": {"tag": "a"}, "unlisted": [1, 2]},  # extras allowed by default
    ],
)
def test_valid_input_is_sent_as_given(raw: dict[str, Any]) -> None:
    """Exactly the inputs the model gave, under the server's own names."""
    assert arguments(input_model("find_things", SCHEMA).model_validate(raw)) == raw


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        ({}, "the count is missing"),
        ({"count": "3"}, "the count must be a whole number"),  # strict: never coerced
        ({"count": 0}, "the input count is too small"),
        ({"count": 1, "colour": "green"}, "the input colour is not one of the values"),
        ({"count": 1, "filter": {}}, "the input filter lacks a part it needs"),
    ],
)
def test_invalid_input_is_named_in_our_words(raw: dict[str, Any], words: str) -> None:
    assert words in sentence(raw)


def test_extras_are_refused_when_the_schema_says_so() -> None:
    closed = {**SCHEMA, "additionalProperties": False}
    assert "not an accepted input" in sentence({"count": 1, "other": 2}, closed)


def test_an_unusable_schema_is_logged_once_however_often_the_tool_is_rebound() -> None:
    """Each agent binds the tool to its own policy; the input model is made once, so the
    unusable schema is logged once."""
    broken = {"type": "object", "properties": {"n": {"type": "integer", "minimum": "x"}}}
    server = SimpleNamespace(
        server=SimpleNamespace(name="s"), breaker_for=lambda _: CircuitBreaker()
    )
    remote = RemoteTool(name="t", inputSchema=broken)
    with capture_logs() as logs:
        tool = mcp_tool(server, remote, "t", Policy(), None)  # type: ignore[arg-type]
        rebound = [tool.bound(Policy(), None) for _ in range(3)]
    assert [log["event"] for log in logs].count("mcp.schema_unusable") == 1
    assert all(again.input_model is tool.input_model for again in rebound)


def test_an_unusable_schema_leaves_judging_to_the_server() -> None:
    """A schema that isn't valid JSON Schema checks only what pydantic can."""
    broken = {"type": "object", "properties": {"n": {"type": "integer", "minimum": "x"}}}
    model = input_model("t", broken)
    assert arguments(model.model_validate({"n": -5})) == {"n": -5}
