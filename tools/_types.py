"""What a tool call hands back to the agent: exactly one `ToolResult` per `tool_use`."""

from __future__ import annotations

from dataclasses import dataclass

from errors import ErrorAction
from resilience import Attempt

__all__ = ["ToolResult"]


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What one `tool_use` produces: exactly one of these becomes one `tool_result`.

    `content` is the tool's JSON text on success (or a degraded answer), and only the
    error-to-action `user_message` when `is_error` is true.
    """

    content: str
    is_error: bool = False
    error: ErrorAction | None = None
    attempts: tuple[Attempt, ...] = ()

    @classmethod
    def failed(cls, error: ErrorAction, attempts: tuple[Attempt, ...] = ()) -> ToolResult:
        """The `is_error` result for `error`: the model reads only its `user_message`."""
        return cls(error.user_message, is_error=True, error=error, attempts=attempts)
