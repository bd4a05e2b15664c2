"""`calculate`: safe arithmetic on an AST (no `eval`), made with `@tool` like any other.

The expression is parsed with `ast` and only numbers and operators are evaluated. Every way an
expression can be wrong — division by zero, a huge power, a syntax error, a name — raises
`errors.InvalidInput("expression", problem, fix)` with plain phrases, which the engine turns
into a fix_input sentence saying exactly what to change.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import Field

from errors import InvalidInput
from tools._function import tool
from tools.registry import Tool

__all__ = ["DESCRIPTION", "MAX_BITS", "calculate_tool", "evaluate"]


# --- safe arithmetic ----------------------------------------------------------------------------

Number = int | float

MAX_BITS = 10_000  # about 3,000 digits: far past any answer a person wants, quick to compute
# Said in words: a person reads "operators and brackets" more easily than a row of symbols.
_USE_ONLY = "use only numbers, arithmetic operators and brackets"

_BINARY: dict[type[ast.operator], Callable[[Number, Number], Number]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[Number], Number]] = {
    ast.UAdd: operator.pos,
    ast.USub: operator.neg,
}


def evaluate(expression: str) -> Number:
    """The value of an arithmetic `expression`, or `InvalidInput` saying what to change."""
    try:
        tree = ast.parse(expression, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise InvalidInput(
            "expression",
            "is not a complete arithmetic expression",
            "write it with numbers, arithmetic operators and brackets, closing every bracket",
        ) from exc
    return _finite(_eval(tree.body))


def _eval(node: ast.expr) -> Number:
    match node:
        case ast.Constant(value=bool()):
            raise _not_a_number(node)
        case ast.Constant(value=int() | float() as value):
            return _finite(value)
        case ast.BinOp(left=left, op=op, right=right):
            return _binary(op, _eval(left), _eval(right))
        case ast.UnaryOp(op=op, operand=operand) if type(op) in _UNARY:
            return _UNARY[type(op)](_eval(operand))
    raise _not_a_number(node)


def _binary(op: ast.operator, left: Number, right: Number) -> Number:
    function = _BINARY.get(type(op))
    if function is None:
        raise InvalidInput(
            "expression", "uses an operator this calculator does not support", _USE_ONLY
        )
    if isinstance(op, ast.Pow) and _huge_power(left, right):
        raise _too_large()  # refuse before computing: a huge int power takes seconds
    try:
        result = function(left, right)
    except ZeroDivisionError as exc:
        raise InvalidInput(
            "expression", "divides by zero", "change the divisor to a number other than zero"
        ) from exc
    except OverflowError as exc:
        raise _too_large() from exc
    if isinstance(result, complex):
        raise InvalidInput(
            "expression",
            "takes a fractional power of a negative number, which has no real result",
            "use a positive base or a whole-number exponent",
        )
    if isinstance(result, int) and result.bit_length() > MAX_BITS:
        raise _too_large()
    return result


def _huge_power(base: Number, exponent: Number) -> bool:
    """Whether an int power would pass `MAX_BITS` (floats simply overflow, quickly)."""
    if not (isinstance(base, int) and isinstance(exponent, int) and abs(base) > 1):
        return False
    return exponent * math.log2(abs(base)) > MAX_BITS


def _finite(value: Number) -> Number:
    if isinstance(value, float) and not math.isfinite(value):
        raise _too_large()
    return value


def _not_a_number(node: ast.expr) -> InvalidInput:
    return InvalidInput("expression", f"contains {_kind(node)}, which is not a number", _USE_ONLY)


def _kind(node: ast.expr) -> str:
    """What a non-number is, in words (never the raw text: it could be anything)."""
    match node:
        case ast.Name(id=name) if len(name) <= 20:
            return f"the name {name}"
        case ast.Constant(value=str()):
            return "text"
        case ast.Constant(value=bool()):
            return "a true or false value"
        case ast.Call():
            return "a function call"
    return "something other than arithmetic"


def _too_large() -> InvalidInput:
    return InvalidInput(
        "expression",
        "has a result too large to work out",
        "use smaller numbers or an exponent below a few hundred",
    )


# --- the tool -----------------------------------------------------------------------------------

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
    make = tool(description=DESCRIPTION, activity="working out the calculation", trusted=True)
    return make(calculate)
