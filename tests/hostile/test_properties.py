"""Properties over arbitrary input: the weather parsers and `agent explain-error` take anything
a hostile upstream or caller sends, and answer within their contract or refuse plainly.

- The weather parsers, on any JSON (non-finite numbers and deep nesting included), return a
  plausible report or raise only `BadUpstreamData` / `NotFound`.
- `parse_json`, on any bytes, returns a value or raises only `BadUpstreamData`.
- `agent explain-error`, on any lines, never crashes and writes exactly one six-field JSON
  object per valid line, nothing else.
"""

from __future__ import annotations

import io
import json
import math
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.cli import main
from agent.explain import parse_lines
from errors import Action, BadUpstreamData, NotFound
from tools.http import parse_json
from tools.weather._sources import Report, parse_current, parse_j1, parse_place

FIELDS = ["error_type", "user_message", "action", "action_detail", "retryable", "developer_note"]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.sampled_from(["8.8", "-1e999", "NaN", "58", "Overcast", "", "1e999"]),
)
# A reading: anything, or often a plausible one (so that parsing goes on past it).
readings = st.one_of(scalars, st.floats(min_value=-95, max_value=65), st.integers(-95, 65).map(str))
codes = st.one_of(
    scalars, st.integers(0, 99), st.sampled_from([math.inf, -math.inf, math.nan, 1e300, 2.5])
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
# Shapes close to the real ones, with any values, so that the parsers' success paths are hit.
forecasts = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {
            "current": st.fixed_dictionaries(
                {},
                optional={
                    "temperature_2m": readings,
                    "relative_humidity_2m": readings,
                    "weather_code": codes,
                },
            )
        }
    ),
)
j1s = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {
            "current_condition": st.lists(
                st.fixed_dictionaries(
                    {},
                    optional={
                        "temp_C": readings,
                        "humidity": readings,
                        "weatherCode": st.one_of(json_values, readings),
                        "weatherDesc": st.one_of(
                            json_values, st.lists(st.fixed_dictionaries({"value": scalars}))
                        ),
                    },
                ),
                max_size=2,
            )
        }
    ),
)
places = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {
            "results": st.lists(
                st.fixed_dictionaries(
                    {},
                    optional={
                        "name": scalars,
                        "latitude": readings,
                        "longitude": readings,
                        "country": scalars,
                    },
                ),
                max_size=3,
            )
        }
    ),
)


def plausible(report: Report) -> None:
    assert math.isfinite(report.temperature_c)
    assert -95 <= report.temperature_c <= 65
    assert report.humidity_pct is None or 0 <= report.humidity_pct <= 100
    assert report.condition
    assert json.loads(report.to_json())["source"] == report.source


@settings(max_examples=400, deadline=None)
@given(forecasts)
def test_parse_current_answers_or_refuses_plainly(body: Any) -> None:
    try:
        report = parse_current(body, "Paris")
    except BadUpstreamData:
        return
    plausible(report)


@settings(max_examples=400, deadline=None)
@given(j1s)
def test_parse_j1_answers_or_refuses_plainly(body: Any) -> None:
    try:
        report = parse_j1(body, "Paris")
    except BadUpstreamData:
        return
    plausible(report)


@settings(max_examples=400, deadline=None)
@given(places, st.lists(st.text(max_size=8), max_size=2))
def test_parse_place_answers_or_refuses_plainly(body: Any, hints: list[str]) -> None:
    try:
        place = parse_place(body, "Paris", hints)
    except (BadUpstreamData, NotFound):
        return
    assert abs(place.latitude) <= 90
    assert abs(place.longitude) <= 180
    assert place.name


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.binary(max_size=200),
        st.builds(lambda d: b"[" * d + b"]" * d, st.integers(0, 3000)),
        st.builds(lambda v: json.dumps(v).encode(), json_values),
    )
)
def test_parse_json_returns_a_value_or_bad_data(body: bytes) -> None:
    try:
        value = parse_json(body, "upstream")
    except BadUpstreamData:
        return
    text = json.dumps(value, allow_nan=False)  # finite and not too deep: it serialises
    assert text


lines = st.one_of(
    st.text(max_size=80).map(lambda t: t.replace("\n", " ")),
    st.builds(
        lambda v: json.dumps(v),
        st.fixed_dictionaries(
            {"error": json_values},
            optional={
                "operation": json_values,
                "user_context": json_values,
                "retry_count": scalars,
            },
        ),
    ),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(lines, max_size=6))
def test_explain_error_writes_one_six_field_object_per_valid_line(given_lines: list[str]) -> None:
    """Through the command itself: never a crash, one result per valid input (a line, or a
    pasted stack trace), in order."""
    out, err = io.StringIO(), io.StringIO()
    text = "".join(f"{line}\n" for line in given_lines)
    code = main(["explain-error"], env={}, stdin=io.StringIO(text), stdout=out, stderr=err)
    inputs = list(parse_lines(io.StringIO(text)))
    valid = [parsed for parsed in inputs if parsed.request is not None]
    written = out.getvalue().splitlines()
    assert len(written) == len(valid)
    assert code == (0 if len(valid) == len(inputs) else 1)
    for text in written:
        result = json.loads(text)
        assert list(result) == FIELDS
        assert result["action"] in {action.value for action in Action}
        assert result["retryable"] == (result["action"] in {"retry", "wait"})
    assert "Traceback" not in err.getvalue()
