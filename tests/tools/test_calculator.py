"""calculate: safe arithmetic, and logic errors as fix_input sentences saying what to change."""

from __future__ import annotations

import ast
from typing import NoReturn

import pytest
from structlog.testing import capture_logs

from errors import InvalidInput, classify
from tests.tools.upstream import is_safe_for_a_model
from tools import Registry, calculate_tool
from tools.calculator import _binary, evaluate


@pytest.fixture
def registry() -> Registry:
    return Registry([calculate_tool()])


@pytest.mark.parametrize(
    ("expression", "result"),
    [
        ("2 * (3 + 4)", "14"),
        ("1.5 ** 2 / 3", "0.75"),
        ("0.1 + 0.2", "0.3"),
        ("7 // 2", "3"),
        ("7 % 3", "1"),
        ("-(-3)", "3"),
        ("2 ** -1", "0.5"),
        ("2 ** 0.5", "1.41421356237"),
        ("10 / 4", "2.5"),
    ],
)
async def test_arithmetic_is_exact(expression: str, result: str, registry: Registry) -> None:
    """Numbers and operators evaluate, floats tidied to twelve significant digits."""
    answer = await registry.dispatch("calculate", {"expression": expression})
    assert answer.content == f'{{"expression": "{expression}", "result": {result}}}'
    assert not answer.is_error


@pytest.mark.parametrize(
    ("expression", "problem"),
    [
        ("1 / 0", "divides by zero"),
        ("5 % 0", "divides by zero"),
        ("0 ** -1", "divides by zero"),
        ("2 ** 99999", "has a result too large to work out"),
        ("9 ** 9 ** 9", "has a result too large to work out"),
        ("1e308 * 10", "has a result too large to work out"),
        ("1e999", "has a result too large to work out"),
        ("(-8) ** 0.5", "takes a fractional power of a negative number"),
        ("1 +", "is not a complete arithmetic expression"),
        ("(1 + 2", "is not a complete arithmetic expression"),
        ("x * 2", "contains the name x, which is not a number"),
        ("'a' * 3", "contains text, which is not a number"),
        ("True + 1", "contains a true or false value, which is not a number"),
        ("__import__('os').system('ls')", "contains a function call"),
        ("abs(-1)", "contains a function call, which is not a number"),
        ("1 << 3", "uses an operator this calculator does not support"),
        ("1 < 2", "contains something other than arithmetic"),
    ],
)
async def test_logic_errors_say_what_to_change(
    expression: str, problem: str, registry: Registry
) -> None:
    """Each bad expression is a fix_input result whose sentence names the problem."""
    answer = await registry.dispatch("calculate", {"expression": expression})
    assert answer.is_error
    assert answer.error is not None
    assert (answer.error.action, answer.error.retryable) == ("fix_input", False)
    assert problem in answer.content
    assert is_safe_for_a_model(answer.content)


async def test_the_model_reads_error_to_actions_sentence(registry: Registry) -> None:
    """The content is exactly error-to-action's user_message for the InvalidInput raised."""
    answer = await registry.dispatch("calculate", {"expression": "1/0"})
    error = InvalidInput(
        "expression", "divides by zero", "change the divisor to a number other than zero"
    )
    assert answer.content == classify(error, "working out the calculation").result.user_message


async def test_a_rejected_expression_is_logged_once(registry: Registry) -> None:
    """One tool.attempt_failed event, with the developer note, per rejected expression."""
    with capture_logs() as logs:
        answer = await registry.dispatch("calculate", {"expression": "1/0"})
    events = [e for e in logs if e["event"] == "tool.attempt_failed"]
    assert len(events) == 1
    assert events[0]["developer_note"]
    assert [(a.caller, a.outcome) for a in answer.attempts] == [("calculate", "invalid_input")]


class _Unpowerable(int):
    """An int whose power must never be computed."""

    def __pow__(self, exponent: object, modulo: object = None) -> NoReturn:
        raise AssertionError("the power was computed")


def test_huge_powers_are_refused_before_computing() -> None:
    """A power that would take seconds to compute is refused from its size, never computed."""
    with pytest.raises(InvalidInput, match="too large"):
        evaluate("99 ** 99999999")
    with pytest.raises(InvalidInput, match="too large"):
        _binary(ast.Pow(), _Unpowerable(99), 99_999_999)


def test_largest_allowed_power_still_computes() -> None:
    """Just under the size limit, powers are exact integers."""
    assert evaluate("2 ** 9999") == 2**9999
