"""Properties over any input: valid schema, one plain sentence, no secret, bounded retries."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from errors import Action, ErrorAction, error_to_action, plainness_problems

SECRET = "sk-ant-api03-Zq8XwY7vU6tS5rR4"

_fragments = st.sampled_from(
    [
        "429 Too Many Requests",
        "503",
        "529 Overloaded",
        "Retry-After: 30",
        "retry-after-ms: 10",
        "Retry-After: Mon, 30 Nov 2026 12:00:00 GMT",
        "timed out",
        "ECONNRESET",
        "403 Forbidden",
        "rate limit",
        "quota",
        "SSO",
        "push",
        "expired",
        "404",
        "Traceback (most recent call)",
        "KeyError: 'x'",
        "https://api.example.test/v1?key=abc123",
        f"Bearer {SECRET}",
        SECRET,
        "\n",
        ". ",
        "<html>",
        "{",
        "Retry-After: 99999999999",
        "Retry-After: -1",
    ]
)
_bodies = st.dictionaries(
    st.sampled_from(["status", "statusCode", "message", "type", "error", "Retry-After"]),
    st.one_of(st.integers(100, 599), st.text(max_size=30), _fragments),
    max_size=4,
).map(json.dumps)
_raw = st.text(alphabet=st.characters(codec="utf-8"), max_size=60)  # control characters too
errors_text = st.lists(st.one_of(_fragments, _raw, _bodies), max_size=6).map(" ".join)
exceptions = st.sampled_from(
    [
        TimeoutError(),
        ConnectionResetError(),
        KeyError(SECRET),
        ValueError("bad"),
        OSError(5, SECRET),
    ]
)
operations = st.one_of(
    st.text(max_size=120),
    st.sampled_from(
        [
            "Fetching billing data from billing_api",
            f"calling https://x.test?key={SECRET}",
            "getting the weather for São Paulo",
            "",
            "   ",
            "KeyError at 0x1f 500",
        ]
    ),
)


@settings(max_examples=300, deadline=None)
@given(
    error=st.one_of(errors_text, exceptions),
    operation=operations,
    retries=st.integers(min_value=0, max_value=5),
)
def test_any_input_gives_a_plain_valid_answer(
    error: str | Exception, operation: str, retries: int
) -> None:
    """Any string or exception → schema-valid, one plain sentence, no secret, bounded retries."""
    result = error_to_action(error, operation, "", retries)
    text = result.to_json()
    assert ErrorAction.model_validate_json(text) == result
    assert plainness_problems(result.user_message) == []
    assert SECRET not in text
    assert "abc123" not in text
    assert result.retryable == (result.action in {Action.RETRY, Action.WAIT})
    if retries >= 2:
        assert not result.retryable
    # The skill's 250-token budget, at a conservative three characters a token.
    assert len(text) <= 750
    assert json.loads(text)["action"] in {a.value for a in Action}
