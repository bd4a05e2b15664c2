"""The classification table: every row of README.md's failure policy, one test or more each."""

from __future__ import annotations

import errno

import httpx
import pytest

from errors import (
    Action,
    BadUpstreamData,
    DeadlineExceeded,
    InvalidInput,
    NotFound,
    ResponseTooLarge,
    SourceSkipped,
    UpstreamStatus,
    classify,
    error_to_action,
)

W, R, F, E, S = Action.WAIT, Action.RETRY, Action.FIX_INPUT, Action.ESCALATE, Action.SKIP

TABLE = [
    # (raw error, retry_count, error_type, action)
    ("429 Too Many Requests. Retry-After: 30", 0, "rate_limit", W),
    ("429 Too Many Requests", 1, "rate_limit", W),
    ("429 Too Many Requests", 2, "rate_limit", E),
    ("403 Forbidden: API rate limit exceeded for 192.0.2.1", 0, "rate_limit", W),
    ("429 You exceeded your current quota, check your plan and billing", 0, "quota_exhausted", E),
    ("402 Payment Required", 0, "quota_exhausted", E),
    ("529 Overloaded", 0, "overloaded", W),
    ("503 Service Unavailable. Retry-After: 5", 0, "service_unavailable", W),
    ("503 Service Unavailable", 0, "server_error", R),
    ("500 Internal Server Error", 0, "server_error", R),
    ("502 Bad Gateway", 1, "server_error", E),
    ("504 Gateway Timeout", 0, "timeout", R),
    ("Request timed out after 30s", 0, "timeout", R),
    ("Request timed out after 30s", 1, "timeout", E),
    ("TypeError: fetch failed", 0, "network", R),
    ("connect ECONNREFUSED 127.0.0.1:443", 0, "network", R),
    ("getaddrinfo ENOTFOUND api.example.com", 1, "network", E),
    (
        "403 Forbidden: You don't have permission to push to this repository",
        0,
        "auth_permission_denied",
        F,
    ),
    (
        "403 Forbidden: Resource protected by organization SAML enforcement",
        0,
        "auth_requires_admin",
        E,
    ),
    ("403 Forbidden: requires the admin role", 0, "auth_requires_admin", E),
    ("403 Forbidden", 0, "auth_permission_denied", E),
    ("401 Unauthorized: token expired", 0, "auth_token_expired", F),
    ("401 Unauthorized: invalid x-api-key", 0, "auth_invalid_credentials", F),
    ("404 Not Found", 0, "not_found", F),
    ("404 Not Found: no longer exists", 0, "not_found", S),
    ("400 Bad Request: 'count' must be between 1 and 100", 0, "invalid_request", F),
    ("422 Unprocessable Entity", 0, "invalid_request", F),
    ("413 Payload Too Large", 0, "request_too_large", F),
    ("409 Conflict", 0, "conflict", R),
    ("Unexpected token < in JSON at position 0", 0, "bad_data", R),
    ("Unexpected token < in JSON at position 0", 1, "bad_data", E),
    ("ValidationError: field required", 0, "invalid_input", F),
    ("the moon is in the wrong phase", 0, "unknown", E),
]


@pytest.mark.parametrize(("error", "retries", "error_type", "action"), TABLE)
def test_raw_string_rows(error: str, retries: int, error_type: str, action: Action) -> None:
    """Each raw error string lands on its row of the table."""
    result = error_to_action(error, "Fetching billing data", retry_count=retries)
    assert (result.error_type, result.action) == (error_type, action)
    assert result.retryable == (action in {W, R})


OWN = [
    (UpstreamStatus(503, source="open-meteo"), "server_error", R),
    (UpstreamStatus(429, headers={"Retry-After": "2"}), "rate_limit", W),
    (BadUpstreamData("HTML instead of JSON", source="wttr.in"), "bad_data", R),
    (ResponseTooLarge("body over 1 MB"), "bad_data", R),
    (SourceSkipped("circuit open", source="open-meteo"), "source_skipped", S),
    (NotFound("Atlantis", what="place"), "not_found", F),
    (InvalidInput("city", "is empty", "give a city name"), "invalid_input", F),
    (DeadlineExceeded("20 s budget spent"), "deadline_exceeded", E),
]


@pytest.mark.parametrize(("error", "error_type", "action"), OWN)
def test_own_errors(error: Exception, error_type: str, action: Action) -> None:
    """The project's own tool errors classify by type, not by text."""
    result = error_to_action(error, "getting the weather for Paris")
    assert (result.error_type, result.action) == (error_type, action)


@pytest.mark.parametrize(
    "error",
    [
        ConnectionRefusedError(111, "refused"),
        ConnectionResetError(104, "reset"),
        OSError(errno.ENETUNREACH, "Network is unreachable"),
    ],
)
def test_os_errors_are_network(error: OSError) -> None:
    """Refused, reset and unreachable sockets are network failures, retried once."""
    result = error_to_action(error, "getting the weather")
    assert (result.error_type, result.action) == ("network", R)


def test_plain_os_error_is_not_network() -> None:
    """An OSError whose errno is not a socket failure is not retried as one."""
    assert error_to_action(OSError(5, "I/O error"), "saving").action is E


def test_timeout_error() -> None:
    """A builtin TimeoutError is a timeout."""
    assert error_to_action(TimeoutError(), "getting the weather").error_type == "timeout"


def test_a_bug_escalates() -> None:
    """An unexpected exception inside a tool is our bug: escalate, never retry."""
    result = error_to_action(KeyError("temperature"), "getting the weather")
    assert (result.error_type, result.action, result.retryable) == ("internal_error", E, False)


def test_retry_after_reaches_verdict() -> None:
    """The hint is kept raw and clamped for the wait a retry loop takes."""
    verdict = classify("429 Too Many Requests. Retry-After: 3600", "Fetching billing data")
    assert (verdict.hint_s, verdict.wait_s) == (3600, 60)


def test_retry_after_zero_is_not_a_hot_loop() -> None:
    """A hint of zero still waits a second."""
    assert classify(UpstreamStatus(429, headers={"retry-after": "0"}), "x").wait_s == 1


@pytest.mark.parametrize("retries", [2, 3, 10])
def test_never_retryable_after_two_retries(retries: int) -> None:
    """Whatever the kind, two retries are the limit."""
    for error in ("503", "529 Overloaded", "timed out", "fetch failed", "429"):
        result = error_to_action(error, "x", retry_count=retries)
        assert not result.retryable
        assert result.action is E


def test_negative_retry_count_counts_as_zero() -> None:
    """A nonsense retry count does not break the bound."""
    assert error_to_action("503", "x", retry_count=-5).action is R


def test_cap_decides_beyond_and_the_words_say_so() -> None:
    """A hint within the default cap but beyond the caller's is reported, not promised."""
    verdict = classify(UpstreamStatus(429, headers={"Retry-After": "10"}), "x", max_wait_s=5)
    assert (verdict.wait_s, verdict.beyond_cap) == (5, True)
    assert "do not sleep" in verdict.result.action_detail
    assert "10 seconds" in verdict.result.user_message


def test_hint_within_the_cap_is_waited() -> None:
    """A hint the caller can afford is the wait, and not beyond the cap."""
    verdict = classify(UpstreamStatus(429, headers={"Retry-After": "3"}), "x", max_wait_s=5)
    assert (verdict.wait_s, verdict.beyond_cap) == (3, False)


@pytest.mark.parametrize(
    "error",
    [
        httpx.ConnectError("[Errno 111] Connection refused"),
        ConnectionRefusedError(111, "refused"),
        "connect ECONNREFUSED 127.0.0.1:443",
        "getaddrinfo ENOTFOUND api.example.test",
    ],
)
def test_a_connection_that_never_opened_is_retried_at_once(error: Exception | str) -> None:
    """Nothing was sent, so the one retry needs no backoff: the wait is zero."""
    verdict = classify(error, "getting the weather")
    assert (verdict.result.action, verdict.wait_s) == (R, 0.0)
    assert "right away" in verdict.result.action_detail


@pytest.mark.parametrize(
    "error", [httpx.ReadError("reset"), httpx.ReadTimeout("slow"), "ECONNRESET", "503"]
)
def test_a_request_that_may_have_arrived_backs_off(error: Exception | str) -> None:
    """Reset, read timeouts and 5xx may have reached the server: no wait given, back off."""
    assert classify(error, "getting the weather").wait_s is None


def test_log_fields() -> None:
    """A failure's log event carries error_type, action, retryable and the note, no more."""
    result = error_to_action("503", "x")
    assert result.log_fields() == {
        "error_type": "server_error",
        "action": "retry",
        "retryable": True,
        "developer_note": result.developer_note,
    }
