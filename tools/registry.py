"""Tools: the `Tool` type, its one `ToolResult` per call, and the registry that dispatches.

    registry = Registry([weather_tool(http), calculate_tool()])
    registry.definitions()                       # the Messages API's `tools` list
    result = await registry.dispatch("get_weather", {"city": "Paris"}, timeout_s=30)

A tool is a name, a description, a pydantic input model and an async handler that returns a
`ToolResult` and never raises for upstream failures: its sources run behind the resilience
engine, and `to_result` turns the engine's `Outcome` into the one result the model is given —
the answer, or only error-to-action's one plain sentence with `is_error`.

Unknown names and invalid input become `fix_input` results in `dispatch`, before any network
call; a handler that crashes (a bug) becomes an `escalate` result, and one that outlasts the
caller's `timeout_s` a `deadline_exceeded` one. Nothing raises past `dispatch`, and each of
these results carries one event from the "registry" source, so every result says what
happened.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import structlog
from pydantic import BaseModel, ValidationError

from errors import DeadlineExceeded, ErrorAction, InvalidInput, classify
from resilience import Event, Listener, Outcome, Policy

if TYPE_CHECKING:
    from anthropic.types import ToolParam

__all__ = [
    "SOURCE",
    "Handler",
    "Rebind",
    "Registry",
    "Tool",
    "ToolResult",
    "json_schema",
    "subject_of",
    "to_result",
]

log = structlog.get_logger("tools")

SOURCE = "registry"  # the timeline's source for calls settled before or around the tool
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What one `tool_use` produces: exactly one of these becomes one `tool_result`.

    `content` is the tool's JSON text on success (or a degraded answer), and only the
    error-to-action `user_message` when `is_error` is true.
    """

    content: str
    is_error: bool = False
    error: ErrorAction | None = None
    attempts: tuple[Event, ...] = ()

    @classmethod
    def failed(cls, error: ErrorAction, attempts: tuple[Event, ...] = ()) -> ToolResult:
        """The `is_error` result for `error`: the model reads only its `user_message`."""
        return cls(error.user_message, is_error=True, error=error, attempts=attempts)


Handler = Callable[[Any], Awaitable[ToolResult]]
Rebind = Callable[[Policy | None, Listener | None], "Tool"]


@dataclass(frozen=True, slots=True)
class Tool:
    """One tool the model may call.

    `handler` receives a validated instance of `input_model` and returns a `ToolResult`;
    it never raises for upstream failures (the engine turns them into results).
    `activity` names the work in plain words ("getting the weather") for error messages.
    `rebind`, when set, builds the same tool on an agent's policy and listener (`bound`).
    `input_schema`, when set, is the JSON Schema sent to the model in place of the input
    model's own (an MCP server's schema); `origin` says where a tool comes from, for `/tools`.
    `foreign`: its answers are text from outside the project (an MCP server's, a `@tool`
    function's), which the model is sent as data (`source_of`).
    """

    name: str
    description: str
    input_model: type[BaseModel]
    handler: Handler
    activity: str
    rebind: Rebind | None = None
    input_schema: Mapping[str, Any] | None = None
    origin: str = ""
    foreign: bool = False

    def definition(self) -> ToolParam:
        """The Anthropic `tools` entry for this tool."""
        schema = self.input_schema
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": dict(schema) if schema else dict(json_schema(self.input_model)),
        }

    def bound(self, policy: Policy | None, listener: Listener | None) -> Tool:
        """This tool on `policy` (its sleep, clock, retry budget) reporting to `listener`;
        itself when it was built for them already."""
        return self if self.rebind is None else self.rebind(policy, listener)


@functools.lru_cache(maxsize=512)
def json_schema(model: type[BaseModel]) -> Mapping[str, Any]:
    """`model`'s JSON schema, rendered once per model (it takes pydantic about half a
    millisecond), however many agents offer the tool. Not to be changed: it is shared."""
    return model.model_json_schema()


def to_result(
    outcome: Outcome[T],
    render: Callable[[T], str],
    *,
    no_answer: Callable[[Outcome[T]], ToolResult] | None = None,
) -> ToolResult:
    """The answer, rendered; or the input to fix; or, with no source answering,
    `no_answer`'s result (e.g. a degraded answer) or the last failure's one plain sentence."""
    attempts = outcome.attempts
    if outcome.answered:
        return ToolResult(render(outcome.value), attempts=attempts)  # type: ignore[arg-type]
    if outcome.fix is not None:
        return ToolResult.failed(outcome.fix.result, attempts)
    if no_answer is not None:
        return no_answer(outcome)
    if outcome.failure is None:
        raise ValueError("a tool call needs at least one source")  # a developer's mistake
    return ToolResult.failed(outcome.failure.result, attempts)


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

    def source_of(self, name: str) -> str:
        """Where the answers of tool `name` come from, when that is outside the project (an
        MCP server, a `@tool` function); "" for the built-in tools, whose answers we compose."""
        tool = self._tools.get(name)
        if tool is None or not tool.foreign:
            return ""
        return tool.origin or f"the {name} function"

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
            known = ", ".join(sorted(self._tools)) or "none"
            error = InvalidInput("tool", "is not one this agent has", f"use one of: {known}")
            return _failure(error, "calling a tool", "tool.unknown", name, started)
        try:
            args = tool.input_model.model_validate(raw_input)
        except ValidationError as exc:
            return _failure(exc, tool.activity, "tool.input_invalid", name, started)
        bound = asyncio.timeout(timeout_s)
        try:
            async with bound:
                return await tool.handler(args)
        except Exception as exc:  # a bug in the tool: report it, never crash the turn
            if bound.expired():
                late = DeadlineExceeded(f"no result within the registry's {timeout_s:g} s")
                return _failure(late, tool.activity, "tool.timed_out", name, started)
            return _failure(exc, tool.activity, "tool.crashed", name, started, exc_info=exc)


def _failure(
    error: BaseException, activity: str, event: str, name: str, started: float, **fields: Any
) -> ToolResult:
    """Classify, log once, and answer with the one registry event of this call."""
    result = classify(error, activity).result
    tool = name[:80]
    log.warning(event, tool=tool, source=SOURCE, attempt=1, **result.log_fields(), **fields)
    duration = time.monotonic() - started
    attempt = Event("failed", tool, SOURCE, 1, duration, result.error_type, result.action.value)
    return ToolResult.failed(result, (attempt,))


def subject_of(args: BaseModel) -> str:
    """What a call is about, in the caller's own values: its short texts and numbers
    ("Mars/Olympus", "TWD USD"), for the timeline and for error-to-action, which repeats one
    of them only when an error blames it."""
    values = args.model_dump(exclude_unset=True).values()
    said = [str(v) for v in values if isinstance(v, str | int | float) and not isinstance(v, bool)]
    return " ".join(v for v in said if 0 < len(v) <= 60)[:200]
