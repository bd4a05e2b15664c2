"""The tool registry: builds the Anthropic `tools` list and dispatches one `tool_use`.

Unknown names and invalid input become `fix_input` results here, before any network call;
a handler that crashes (a bug) becomes an `escalate` result. Nothing raises past `dispatch`,
and each of these results carries one `Attempt` from the "registry" source, so every result
says what happened.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

import structlog
from pydantic import ValidationError

from errors import InvalidInput, classify
from tools._tool import Tool
from tools._types import Attempt, ToolResult

__all__ = ["SOURCE", "Registry"]

log = structlog.get_logger("tools")

SOURCE = "registry"  # the timeline's source for calls settled before any tool ran


class Registry:
    """Tools by name."""

    def __init__(self, tools: Iterable[Tool]) -> None:
        self._tools = {tool.name: tool for tool in tools}

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    @property
    def tools(self) -> tuple[Tool, ...]:
        """The registered tools, in registration order."""
        return tuple(self._tools.values())

    def definitions(self) -> list[dict[str, Any]]:
        """The `tools` parameter for the Messages API."""
        return [tool.definition() for tool in self._tools.values()]

    async def dispatch(self, name: str, raw_input: object) -> ToolResult:
        """Run one tool call; every outcome, including a bug, is a `ToolResult`."""
        started = time.monotonic()
        tool = self._tools.get(name)
        if tool is None:
            return self._unknown(name, started)
        try:
            args = tool.input_model.model_validate(raw_input)
        except ValidationError as exc:
            return _failure(exc, tool.activity, "tool.input_invalid", name, started)
        try:
            return await tool.handler(args)
        except Exception as exc:  # a bug in the tool: report it, never crash the turn
            return _failure(exc, tool.activity, "tool.crashed", name, started, exc_info=exc)

    def _unknown(self, name: str, started: float) -> ToolResult:
        known = ", ".join(sorted(self._tools)) or "none"
        error = InvalidInput("tool", "is not one this agent has", f"use one of: {known}")
        return _failure(error, "calling a tool", "tool.unknown", name, started)


def _failure(
    error: BaseException, activity: str, event: str, name: str, started: float, **fields: Any
) -> ToolResult:
    """Classify, log once, and answer with the one registry `Attempt` of this call."""
    verdict = classify(error, activity)
    result = verdict.result
    tool = name[:80]
    log.warning(
        event,
        tool=tool,
        source=SOURCE,
        attempt=1,
        error_type=result.error_type,
        action=result.action.value,
        retryable=result.retryable,
        developer_note=result.developer_note,
        **fields,
    )
    duration = time.monotonic() - started
    attempt = Attempt(tool, SOURCE, 1, duration, result.error_type, result.action.value)
    return ToolResult(result.user_message, is_error=True, error=result, attempts=(attempt,))
