"""The tool registry: builds the Anthropic `tools` list and dispatches one `tool_use`.

Unknown names and invalid input become `fix_input` results here, before any network call;
a handler that crashes (a bug) becomes an `escalate` result, and one that outlasts the
caller's `timeout_s` a `deadline_exceeded` one. Nothing raises past `dispatch`, and each of
these results carries one `Attempt` from the "registry" source, so every result says what
happened.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import structlog
from pydantic import BaseModel, ValidationError

from errors import DeadlineExceeded, InvalidInput, classify
from resilience import Attempt
from tools._tool import Tool
from tools._types import ToolResult

__all__ = ["SOURCE", "Registry"]

if TYPE_CHECKING:
    from anthropic.types import ToolParam

log = structlog.get_logger("tools")

SOURCE = "registry"  # the timeline's source for calls settled before or around the tool


class Registry:
    """Tools by name."""

    def __init__(self, tools: Iterable[Tool]) -> None:
        self._tools = {tool.name: tool for tool in tools}
        # Built once: each renders a pydantic JSON schema, and every model call sends them all.
        self._definitions = [tool.definition() for tool in self._tools.values()]

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    @property
    def tools(self) -> tuple[Tool, ...]:
        """The registered tools, in registration order."""
        return tuple(self._tools.values())

    def definitions(self) -> list[ToolParam]:
        """The `tools` parameter for the Messages API."""
        return list(self._definitions)

    async def dispatch(
        self, name: str, raw_input: object, *, timeout_s: float | None = None
    ) -> ToolResult:
        """Run one tool call, its handler cut at `timeout_s` (None: no bound of ours);
        every outcome, including a bug or a hang, is a `ToolResult`."""
        started = time.monotonic()
        tool = self._tools.get(name)
        if tool is None:
            return self._unknown(name, started)
        try:
            args = tool.input_model.model_validate(raw_input)
        except ValidationError as exc:
            return _failure(exc, tool.activity, "tool.input_invalid", name, started)
        return await _run(tool, args, timeout_s, started)

    def _unknown(self, name: str, started: float) -> ToolResult:
        known = ", ".join(sorted(self._tools)) or "none"
        error = InvalidInput("tool", "is not one this agent has", f"use one of: {known}")
        return _failure(error, "calling a tool", "tool.unknown", name, started)


async def _run(tool: Tool, args: BaseModel, timeout_s: float | None, started: float) -> ToolResult:
    """The handler's result, or a failure for a handler that crashed or ran out of time."""
    bound = asyncio.timeout(timeout_s)
    try:
        async with bound:
            return await tool.handler(args)
    except Exception as exc:  # a bug in the tool: report it, never crash the turn
        if bound.expired():
            late = DeadlineExceeded(f"no result within the registry's {timeout_s:g} s")
            return _failure(late, tool.activity, "tool.timed_out", tool.name, started)
        return _failure(exc, tool.activity, "tool.crashed", tool.name, started, exc_info=exc)


def _failure(
    error: BaseException, activity: str, event: str, name: str, started: float, **fields: Any
) -> ToolResult:
    """Classify, log once, and answer with the one registry `Attempt` of this call."""
    result = classify(error, activity).result
    tool = name[:80]
    log.warning(event, tool=tool, source=SOURCE, attempt=1, **result.log_fields(), **fields)
    duration = time.monotonic() - started
    attempt = Attempt(tool, SOURCE, 1, duration, result.error_type, result.action.value)
    return ToolResult.failed(result, (attempt,))
