"""`calculate`: safe arithmetic on an AST (no `eval`), made with `@tool` like any other.

Division by zero, huge powers and syntax errors raise `InvalidInput`, which the engine turns
into a fix_input sentence saying what to change.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from tools._arith import evaluate
from tools._function import tool
from tools._tool import Tool

__all__ = ["DESCRIPTION", "calculate_tool"]

DESCRIPTION = (
    "Evaluate an arithmetic expression exactly, e.g. '2 * (3 + 4)' or '1.5 ** 2 / 3'. "
    "Supports numbers, + - * / // % ** and parentheses; no variables or functions."
)
Expression = Annotated[
    str, Field(min_length=1, max_length=200, description="The arithmetic expression to evaluate.")
]


async def calculate(expression: Expression) -> dict[str, Any]:
    """The value of `expression`, floats to 12 significant digits (0.1 + 0.2 reads 0.3)."""
    value = evaluate(expression)
    tidy = float(f"{value:.12g}") if isinstance(value, float) else value
    return {"expression": expression, "result": tidy}


def calculate_tool() -> Tool:
    """The `calculate` tool."""
    make = tool(description=DESCRIPTION, activity="working out the calculation")
    return make(calculate)
