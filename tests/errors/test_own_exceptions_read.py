"""The project's own exceptions are read with their words, as a raw error text would be;
the same words get the same reading in every process."""

from __future__ import annotations

import os
import subprocess
import sys

from errors import Action, OwnFault, ToolError, UpstreamStatus, classify

# Open-Meteo's daily-limit body (open-meteo/open-meteo, RateLimiter.swift, dailyExceeded).
DAILY = (
    "open-meteo answered 429 Too Many Requests: "
    "Daily API request limit exceeded. Please try again tomorrow."
)


def test_a_status_error_body_naming_a_daily_limit_is_a_quota() -> None:
    """A 429 whose body names a daily limit is quota_exhausted, not a short busy spell."""
    verdict = classify(UpstreamStatus(429, DAILY, source="open-meteo"), "getting the weather")
    assert (verdict.result.error_type, verdict.result.action) == ("quota_exhausted", "escalate")
    assert verdict.facts.status == 429
    assert "tomorrow" in verdict.result.user_message


def test_a_retry_after_header_wins_over_the_period_in_the_text() -> None:
    """A Retry-After header is the wait hint even when the text names a period."""
    error = UpstreamStatus(429, DAILY, source="open-meteo", headers={"Retry-After": "120"})
    assert classify(error, "getting the weather").facts.hint_s == 120


def test_a_plain_status_is_still_a_status() -> None:
    """A bare 503 from a source stays a retryable server error."""
    verdict = classify(UpstreamStatus(503, source="open-meteo"), "getting the weather")
    assert (verdict.result.error_type, verdict.result.action) == ("server_error", "retry")


def test_own_fault_is_an_internal_error_whatever_its_words() -> None:
    """OwnFault is escalated as the app's own problem, though its text reads like a 400."""
    error = OwnFault("open-meteo refused our request: 400 Bad Request", source="open-meteo")
    result = classify(error, "getting the weather").result
    assert (result.error_type, result.action) == ("internal_error", "escalate")


def test_a_plain_tool_error_is_read_by_its_words() -> None:
    """A ToolError of no particular kind is classified by what it says."""
    result = classify(ToolError("quota exceeded for this month (402)"), "running a tool").result
    assert (result.error_type, result.action) == ("quota_exhausted", "escalate")


def test_the_same_text_gets_the_same_status_whatever_the_hash_seed() -> None:
    """Two reason phrases in one text: the first named gives the status, in every process."""
    code = (
        "from errors import classify;"
        "print(classify('proxy said Bad Gateway, then Bad Request', 'x').facts.status)"
    )
    seen = {
        subprocess.run(  # noqa: S603 - this interpreter, a fixed script
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        for seed in range(6)
    }
    assert seen == {"502"}


def test_the_first_reason_phrase_named_gives_the_status() -> None:
    """A word of a later phrase earlier in the text does not move that phrase first."""
    text = "Request failed: Bad Gateway, then Bad Request"
    assert classify(text, "calling the proxy").facts.status == 502


class _OddResponse(Exception):
    """A client error whose `response` is a dict of its own shape, not botocore's."""

    def __init__(self, response: object) -> None:
        super().__init__("throttled by the gateway")
        self.response = response


def test_a_response_dict_of_any_shape_is_still_classified() -> None:
    """`{"Error": "throttled"}` or a list for a code: classified, never an exception."""
    for response in ({"Error": "throttled"}, {"Error": {"Code": ["x"]}}, {"ResponseMetadata": 5}):
        verdict = classify(_OddResponse(response), "calling the gateway")
        assert verdict.result.action in set(Action)
