"""Values the tool layer hands to the agent: results, attempt records, progress events."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from errors import ErrorAction

__all__ = ["Attempt", "Observer", "Progress", "ProgressKind", "ToolResult"]

ProgressKind = Literal["retrying", "waiting", "falling_back", "degraded", "skipped"]


@dataclass(frozen=True, slots=True)
class Attempt:
    """One call to one source, for the `/trace` timeline and the demo."""

    tool: str
    source: str  # e.g. "open-meteo", "wttr.in", "calculate"
    number: int  # 1-based, per source (0: the source was skipped, not called)
    duration_s: float
    outcome: str  # "ok", or the error_type of the failure
    action: str | None = None  # error-to-action's action, on failure
    wait_s: float | None = None  # the wait requested before the next attempt, if any


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


@dataclass(frozen=True, slots=True)
class Progress:
    """A progress event for a status line ("weather service busy — retrying in 2 s")."""

    kind: ProgressKind
    tool: str
    source: str
    message: str  # one plain phrase, safe to show a person
    wait_s: float | None = None


class Observer(Protocol):
    """Receives progress events; must not block."""

    def __call__(self, event: Progress, /) -> None: ...
