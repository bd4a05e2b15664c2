"""From the engine's `Outcome` to the one `ToolResult` the model is given."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from errors import classify
from resilience import Outcome
from tools._types import ToolResult

__all__ = ["to_result"]

T = TypeVar("T")


def to_result(
    outcome: Outcome[T],
    operation: str,
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
        return ToolResult.failed(classify(outcome.fix, operation).result, attempts)
    if no_answer is not None:
        return no_answer(outcome)
    if outcome.failure is None:
        raise ValueError("a tool call needs at least one source")  # a developer's mistake
    return ToolResult.failed(outcome.failure.result, attempts)
