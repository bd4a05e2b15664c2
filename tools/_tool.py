"""A tool: a name, a description, a pydantic input model and an async handler."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from resilience import Observer, Policy
from tools._types import ToolResult

if TYPE_CHECKING:
    from anthropic.types import ToolParam

__all__ = ["Handler", "Rebind", "Tool"]

Handler = Callable[[Any], Awaitable[ToolResult]]
Rebind = Callable[[Policy | None, Observer | None], "Tool"]


@dataclass(frozen=True, slots=True)
class Tool:
    """One tool the model may call.

    `handler` receives a validated instance of `input_model` and returns a `ToolResult`;
    it never raises for upstream failures (the engine turns them into results).
    `activity` names the work in plain words ("getting the weather") for error messages.
    `rebind`, when set, builds the same tool on an agent's policy and observer (`bound`).
    `input_schema`, when set, is the JSON Schema sent to the model in place of the input
    model's own (an MCP server's schema); `origin` says where a tool comes from, for `/tools`.
    """

    name: str
    description: str
    input_model: type[BaseModel]
    handler: Handler
    activity: str
    rebind: Rebind | None = None
    input_schema: Mapping[str, Any] | None = None
    origin: str = ""

    def definition(self) -> ToolParam:
        """The Anthropic `tools` entry for this tool."""
        schema = self.input_schema
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": dict(schema) if schema else self.input_model.model_json_schema(),
        }

    def bound(self, policy: Policy | None, observer: Observer | None) -> Tool:
        """This tool on `policy` (its sleep, clock, retry budget) reporting to `observer`;
        itself when it was built for them already."""
        return self if self.rebind is None else self.rebind(policy, observer)
