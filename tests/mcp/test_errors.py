"""MCP failures translated at the boundary, and what error-to-action then makes of them."""

from __future__ import annotations

import pytest
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, ValidationError

from errors import BadUpstreamData, classify, plainness_problems
from errors._vocab_words import THINGS
from tests.mcp.conftest import SECRET
from tools.mcp import McpToolError, ServerGone
from tools.mcp._connection import translate


@pytest.mark.parametrize(
    ("code", "kind", "action"),
    [
        (-32000, ServerGone, "retry"),  # the SDK's "connection closed"
        (-32001, TimeoutError, "retry"),  # the SDK's request timeout
        (-32602, McpToolError, "fix_input"),  # invalid params
        (-32601, McpToolError, "fix_input"),  # no such tool
        (-32603, McpToolError, "retry"),  # internal error
        (-32700, McpToolError, "escalate"),  # parse error
        (-32600, McpToolError, "escalate"),  # invalid request
    ],
)
def test_json_rpc_errors_by_code(code: int, kind: type[BaseException], action: str) -> None:
    """Each code becomes an error error-to-action places by its code, and its words stay out."""
    error = translate(MCPError(code, f"server words with {SECRET}"), "flaky")
    assert isinstance(error, kind)
    result = classify(error, "running the echo tool").result
    assert result.action == action
    assert SECRET not in result.user_message
    assert "server words" not in result.user_message
    assert SECRET not in result.developer_note  # redacted


def test_a_group_of_one_is_unwrapped() -> None:
    """The one error in an anyio task group's exception group is the one translated."""
    group = ExceptionGroup("task group", [MCPError(-32603, "boom")])
    assert isinstance(translate(group, "flaky"), McpToolError)


def test_a_result_breaking_the_schema_is_bad_data() -> None:
    class Shape(BaseModel):
        content: list[str]

    with pytest.raises(ValidationError) as caught:
        Shape.model_validate({"content": "not a list"})
    error = translate(caught.value, "flaky")
    assert isinstance(error, BadUpstreamData)
    assert classify(error, "running the echo tool").result.error_type == "bad_data"


def test_an_output_schema_breach_is_bad_data() -> None:
    error = translate(RuntimeError("Invalid structured content returned by tool x: 1"), "s")
    assert isinstance(error, BadUpstreamData)


def test_other_errors_pass_through() -> None:
    """A bug of ours stays what it is, for error-to-action to call an internal error."""
    bug = KeyError("x")
    assert translate(bug, "flaky") is bug


@pytest.mark.parametrize(
    ("text", "error_type", "action"),
    [
        ("503 Service Unavailable", "server_error", "retry"),
        ("429 Too Many Requests. Retry-After: 2", "rate_limit", "wait"),
        ("upstream timed out after 30s", "timeout", "retry"),
        ("connection refused by db:5432", "network", "retry"),
        ("file not found: /etc/x", "not_found", "fix_input"),  # a name the caller chose
        ("no such queue 'tasks'", "not_found", "fix_input"),
        ("validation error: field 'path' is required", "invalid_input", "fix_input"),
        ("quota exceeded for this month (402)", "quota_exhausted", "escalate"),
        (f"upstream exploded with key={SECRET}", "unknown", "escalate"),
    ],
)
def test_is_error_text_is_classified(text: str, error_type: str, action: str) -> None:
    """An `isError` result's text decides, as a raw error's would; the sentence is ours."""
    result = classify(McpToolError(text, server="flaky"), "running the echo tool").result
    assert (result.error_type, result.action) == (error_type, action)
    assert plainness_problems(result.user_message) == []
    assert SECRET not in result.user_message + result.developer_note
    assert text.split()[0] not in result.user_message or text.split()[0] in THINGS
