"""Properties over arbitrary input: names stay values, arithmetic never escapes as a crash."""

from __future__ import annotations

import math
from urllib.parse import unquote

import httpx
from hypothesis import given
from hypothesis import strategies as st

from errors import InvalidInput
from tools.calculator import evaluate
from tools.weather._sources import path_segment

ARITHMETIC = st.text(alphabet="0123456789.+-*/%() e", max_size=40)


@given(st.text(min_size=1, max_size=100))
def test_a_city_is_always_exactly_one_path_segment(city: str) -> None:
    """Whatever the name, it is one opaque segment that decodes back to itself."""
    segment = path_segment(city)
    url = httpx.URL(f"https://wttr.in/{segment}")
    assert url.host == "wttr.in"
    assert url.raw_path.count(b"/") == 1
    assert not {"/", "?", "#", "."} & set(segment)
    assert unquote(segment) == city


def outcome_of(expression: str) -> int | float | InvalidInput:
    try:
        return evaluate(expression)
    except InvalidInput as error:
        return error


@given(st.one_of(ARITHMETIC, st.text(max_size=40)))
def test_evaluate_answers_or_says_what_to_fix(expression: str) -> None:
    """Any text evaluates to a finite number or raises InvalidInput — nothing else."""
    outcome = outcome_of(expression)
    if isinstance(outcome, InvalidInput):
        assert (outcome.field, bool(outcome.problem), bool(outcome.fix)) == (
            "expression",
            True,
            True,
        )
    else:
        assert isinstance(outcome, int) or math.isfinite(outcome)
