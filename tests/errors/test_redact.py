"""Secrets never survive redaction."""

from __future__ import annotations

import pytest

from errors import error_to_action, redact

SECRETS = [
    ("Authorization: Bearer abcDEF123456789xyz", "abcDEF123456789xyz"),
    ("x-api-key: sk-ant-api03-AAAABBBBCCCCDDDD", "sk-ant-api03-AAAABBBBCCCCDDDD"),
    ("GET https://api.example.test/v1?city=Paris&key=s3cr3tvalue", "s3cr3tvalue"),
    ("GET /v1?access_token=tok_123456&x=1", "tok_123456"),
    ('{"api_key": "hunter2hunter2"}', "hunter2hunter2"),
    ("token=abcdef123", "abcdef123"),
    ("using ghp_0123456789abcdefABCDEF for push", "ghp_0123456789abcdefABCDEF"),
    ("raw key sk-proj-0123456789abcdef in message", "sk-proj-0123456789abcdef"),
]


@pytest.mark.parametrize(("text", "secret"), SECRETS)
def test_redact_masks(text: str, secret: str) -> None:
    """Each form of secret is masked."""
    assert secret not in redact(text)


@pytest.mark.parametrize(("text", "secret"), SECRETS)
def test_no_secret_in_any_field(text: str, secret: str) -> None:
    """A secret inside an error or operation appears in none of the six fields."""
    result = error_to_action(f"401 Unauthorized: {text}", f"calling the API with {text}")
    assert secret not in result.to_json()


def test_ordinary_text_untouched() -> None:
    """Redaction leaves ordinary words, statuses and hints alone."""
    text = "429 Too Many Requests. Retry-After: 30 (token expired)"
    assert redact(text) == text
