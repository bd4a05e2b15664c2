"""Rate or quota: a short window is waited out, a day, a month or money is escalated.

The period decides, wherever it is said (words, a quota name, a JSON reason), and so does the
wait a text asks for: "Please try again in 18.642s", Slack's `retry_after`, "in one minute",
"tomorrow". A spent daily quota carries the seconds until the next UTC midnight in `hint_s`,
so a circuit breaker can stay open that long; the WAIT semantics of `wait_s` and `beyond_cap`
are unchanged.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from errors import Action, classify

NOW = datetime(2025, 3, 1, 18, 30, tzinfo=UTC)  # 5 h 30 min before the next UTC midnight
WEATHER = "Fetching the forecast for Bonn"


@pytest.mark.parametrize(
    "error",
    [
        "Daily API request limit exceeded. Please try again tomorrow.",
        '{"error": true, "reason": "Daily API request limit exceeded. Please try again tomorrow."}',
        "429 RESOURCE_EXHAUSTED Quota exceeded for quota metric 'Requests per day'",
    ],
)
def test_a_daily_limit_escalates_until_midnight(error: str) -> None:
    """A per-day limit is a spent quota: escalate, say "tomorrow", hint = seconds to midnight."""
    verdict = classify(error, WEATHER, now=NOW)
    assert verdict.result.error_type == "quota_exhausted"
    assert verdict.result.action is Action.ESCALATE
    assert not verdict.retryable
    assert "tomorrow" in verdict.result.user_message
    assert verdict.hint_s == 5.5 * 3600
    assert verdict.wait_s is None
    assert not verdict.beyond_cap


def test_the_hint_follows_the_injected_clock() -> None:
    """A minute before midnight, the daily quota's hint is a minute."""
    late = datetime(2025, 3, 1, 23, 59, tzinfo=UTC)
    verdict = classify(
        "Daily API request limit exceeded. Please try again tomorrow.", WEATHER, now=late
    )
    assert verdict.hint_s == 60


def test_open_meteos_minutely_limit_waits_a_minute() -> None:
    """Open-Meteo's minutely 429 is a rate limit: wait, with a 60 s hint."""
    error = (
        '429 {"error": true, "reason": "Minutely API request limit exceeded. Please try again '
        'in one minute."}'
    )
    verdict = classify(error, WEATHER, now=NOW)
    assert (verdict.result.error_type, verdict.result.action) == ("rate_limit", Action.WAIT)
    assert verdict.hint_s == 60


def test_a_wait_beyond_the_cap_is_reported_not_slept() -> None:
    """WAIT semantics are unchanged: a hint beyond the cap leaves wait_s at the cap."""
    error = "Minutely API request limit exceeded. Please try again in one minute."
    verdict = classify(error, WEATHER, max_wait_s=5, now=NOW)
    assert verdict.result.action is Action.WAIT
    assert (verdict.hint_s, verdict.wait_s, verdict.beyond_cap) == (60, 5, True)


@pytest.mark.parametrize(
    ("error", "hint"),
    [
        (
            "Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000, Used 14567, "
            "Requested 24754. Please try again in 18.642s.",
            18.642,
        ),
        ("Rate limit reached for requests. Please try again in 6ms.", 0.006),
        ('{"ok": false, "error": "ratelimited", "retry_after": 1}', 1.0),
        ("429 Too Many Requests: retry after 7", 7.0),
    ],
)
def test_wait_hints_are_read_from_the_text(error: str, hint: float) -> None:
    """A wait the text asks for is the hint, as a Retry-After header would be."""
    verdict = classify(error, "Asking the model", now=NOW)
    assert verdict.result.action is Action.WAIT
    assert verdict.hint_s == pytest.approx(hint)


@pytest.mark.parametrize(
    "error",
    [
        "429 RESOURCE_EXHAUSTED Quota exceeded for quota metric 'Generate Content API requests "
        "per minute'",
        "Rate exceeded",
        "Rate limit reached for gpt-4 on requests per min (RPM): Limit 3, Used 3, Requested 1.",
    ],
)
def test_short_windows_wait(error: str) -> None:
    """Per-second and per-minute limits, however named, pass with their window."""
    assert classify(error, "Asking the model").result.action is Action.WAIT


@pytest.mark.parametrize(
    "error",
    [
        "You exceeded your current quota, please check your plan and billing details.",
        '{"error": {"type": "insufficient_quota", "code": "insufficient_quota"}}',
        "Your credit balance is too low to access the Anthropic API.",
        "429 Monthly request quota exceeded",
    ],
)
def test_money_and_long_periods_escalate(error: str) -> None:
    """Billing, "insufficient_quota" and monthly quotas escalate as quota_exhausted."""
    result = classify(error, "Asking the model", now=NOW).result
    assert (result.error_type, result.action) == ("quota_exhausted", Action.ESCALATE)


def test_iam_access_denied_sent_as_400_is_not_malformed() -> None:
    """An AWS AccessDenied with "status code: 400" is a permission, not malformed input."""
    error = (
        "An error occurred (AccessDenied) when calling the AssumeRole operation: User: "
        "arn:aws:iam::123:user/ci is not authorized to perform: sts:AssumeRole, status code: 400"
    )
    result = classify(error, "Assuming the deploy role").result
    assert result.action is Action.ESCALATE
    assert result.error_type != "invalid_request"


def test_an_idempotency_clash_is_not_retried() -> None:
    """A 409 for a reused idempotency key is fixed by the caller, never retried."""
    error = (
        '409 {"error": {"type": "idempotency_error", "message": "Keys for idempotent requests '
        'can only be used with the same parameters they were first used with."}}'
    )
    result = classify(error, "Creating the refund").result
    assert (result.error_type, result.action) == ("idempotency_conflict", Action.FIX_INPUT)
