"""`calculate`: the article's logic-error category, done safely (an AST walk, no `eval`)."""

from __future__ import annotations

import json
import time

import structlog
from pydantic import BaseModel, ConfigDict, Field

from errors import InvalidInput, classify
from tools._arith import evaluate
from tools._tool import Tool
from tools._types import Attempt, ToolResult

__all__ = ["CalculateInput", "calculate_tool"]

log = structlog.get_logger("tools")

TOOL = "calculate"  # the tool's name, and the one source it calls: itself
OPERATION = "working out the calculation"
DESCRIPTION = (
    "Evaluate an arithmetic expression exactly, e.g. '2 * (3 + 4)' or '1.5 ** 2 / 3'. "
    "Supports numbers, + - * / // % ** and parentheses; no variables or functions."
)


class CalculateInput(BaseModel):
    """The tool's input."""

    model_config = ConfigDict(str_strip_whitespace=True, extra="forbid")

    expression: str = Field(
        min_length=1, max_length=200, description="The arithmetic expression to evaluate."
    )


def calculate_tool() -> Tool:
    """The `calculate` tool."""
    return Tool(
        name=TOOL,
        description=DESCRIPTION,
        input_model=CalculateInput,
        handler=_calculate,
        activity=OPERATION,
    )


async def _calculate(args: CalculateInput) -> ToolResult:
    started = time.perf_counter()
    try:
        value = evaluate(args.expression)
    except InvalidInput as exc:
        return _rejected(exc, time.perf_counter() - started)
    attempt = Attempt(TOOL, TOOL, 1, time.perf_counter() - started, "ok")
    body = {"expression": args.expression, "result": _tidy(value)}
    return ToolResult(json.dumps(body), attempts=(attempt,))


def _tidy(value: int | float) -> int | float:
    """Floats to 12 significant digits, so 0.1 + 0.2 reads 0.3."""
    return float(f"{value:.12g}") if isinstance(value, float) else value


def _rejected(error: InvalidInput, duration_s: float) -> ToolResult:
    result = classify(error, OPERATION).result
    log.warning("tool.attempt_failed", tool=TOOL, source=TOOL, attempt=1, **result.log_fields())
    attempt = Attempt(TOOL, TOOL, 1, duration_s, result.error_type, result.action.value)
    return ToolResult.failed(result, (attempt,))
