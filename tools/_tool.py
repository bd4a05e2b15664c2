"""A tool: a name, a description, a pydantic input model and an async handler."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from tools._types import ToolResult

__all__ = ["Handler", "Tool"]

Handler = Callable[[Any], Awaitable[ToolResult]]


@dataclass(frozen=True, slots=True)
class Tool:
    """One tool the model may call.

    `handler` receives a validated instance of `input_model` and returns a `ToolResult`;
    it never raises for upstream failures (the middleware turns them into results).
    `activity` names the work in plain words ("getting the weather") for error messages.
    """

    name: str
    description: str
    input_model: type[BaseModel]
    handler: Handler
    activity: str

    def definition(self) -> dict[str, Any]:
        """The Anthropic `tools` entry for this tool."""
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": self.input_model.model_json_schema(),
        }
