"""Foreign exceptions — anthropic, httpx, httpx2, pydantic — normalise into the same facts."""

from __future__ import annotations

import anthropic
import httpx
import httpx2
import pytest
from pydantic import BaseModel, ValidationError

from errors import Action, classify, error_to_action

_REQUEST = httpx2.Request("POST", "https://api.anthropic.com/v1/messages")


def api_error(
    status: int,
    kind: str,
    cls: type[anthropic.APIStatusError] = anthropic.APIStatusError,
    headers: dict[str, str] | None = None,
) -> anthropic.APIStatusError:
    body = {"type": "error", "error": {"type": kind, "message": "upstream says hi"}}
    response = httpx2.Response(
        status, json=body, headers={"request-id": "req_011", **(headers or {})}, request=_REQUEST
    )
    return cls("upstream says hi", response=response, body=body)


@pytest.mark.parametrize(
    ("error", "error_type", "action"),
    [
        (api_error(529, "overloaded_error", anthropic.OverloadedError), "overloaded", Action.WAIT),
        (api_error(200, "overloaded_error"), "overloaded", Action.WAIT),
        (api_error(200, "api_error"), "server_error", Action.RETRY),
        (api_error(429, "rate_limit_error", anthropic.RateLimitError), "rate_limit", Action.WAIT),
        (api_error(500, "api_error", anthropic.InternalServerError), "server_error", Action.RETRY),
        (
            api_error(401, "authentication_error", anthropic.AuthenticationError),
            "auth_invalid_credentials",
            Action.FIX_INPUT,
        ),
        (
            api_error(400, "billing_error", anthropic.BadRequestError),
            "quota_exhausted",
            Action.ESCALATE,
        ),
        (
            api_error(400, "invalid_request_error", anthropic.BadRequestError),
            "invalid_request",
            Action.FIX_INPUT,
        ),
        (anthropic.APIConnectionError(request=_REQUEST), "network", Action.RETRY),
        (anthropic.APITimeoutError(request=_REQUEST), "timeout", Action.RETRY),
    ],
)
def test_anthropic_errors(error: Exception, error_type: str, action: Action) -> None:
    """SDK errors classify by status and the body's error.type (200 mid-stream included)."""
    result = error_to_action(error, "asking Claude")
    assert (result.error_type, result.action) == (error_type, action)


def test_anthropic_request_id_and_hint() -> None:
    """The request id reaches the developer note and retry-after-ms the wait."""
    error = api_error(429, "rate_limit_error", anthropic.RateLimitError, {"retry-after-ms": "2500"})
    verdict = classify(error, "asking Claude")
    assert verdict.wait_s == 2.5
    assert "req_011" in verdict.result.developer_note


def test_missing_key_type_error() -> None:
    """The SDK's TypeError for a missing key says how to fix it."""
    error = TypeError('"Could not resolve authentication method. Expected either api_key …"')
    result = error_to_action(error, "asking Claude")
    assert (result.error_type, result.action) == ("auth_missing_key", Action.FIX_INPUT)
    assert "ANTHROPIC_API_KEY" in result.action_detail


@pytest.mark.parametrize("module", [httpx, httpx2])
@pytest.mark.parametrize(
    ("name", "error_type"),
    [
        ("ConnectError", "network"),
        ("ReadError", "network"),
        ("RemoteProtocolError", "network"),
        ("ReadTimeout", "timeout"),
        ("ConnectTimeout", "timeout"),
        ("PoolTimeout", "timeout"),
    ],
)
def test_httpx_transport_errors(module: object, name: str, error_type: str) -> None:
    """httpx and httpx2 transport errors map the same way."""
    error = getattr(module, name)("boom")
    assert error_to_action(error, "getting the weather").error_type == error_type


def test_httpx_status_error_with_retry_after() -> None:
    """raise_for_status errors carry their status and Retry-After."""
    request = httpx.Request("GET", "https://example.test/x")
    response = httpx.Response(503, headers={"Retry-After": "4"}, request=request)
    error = httpx.HTTPStatusError("503", request=request, response=response)
    verdict = classify(error, "getting the weather")
    assert (verdict.result.error_type, verdict.wait_s) == ("service_unavailable", 4)


class _City(BaseModel):
    city: str


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        ({}, "city is missing"),
        ({"city": None}, "city is null"),
        ({"city": 12345}, "city must be text"),
    ],
)
def test_pydantic_validation(raw: dict[str, object], words: str) -> None:
    """A ValidationError says which input was wrong, in words."""
    with pytest.raises(ValidationError) as info:
        _City.model_validate(raw)
    result = error_to_action(info.value, "getting the weather")
    assert result.action is Action.FIX_INPUT
    assert words in result.user_message
