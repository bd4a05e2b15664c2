"""Secrets never survive redaction."""

from __future__ import annotations

import pytest

from errors import error_to_action, redact, register_secret
from errors._redact import MIN_SECRET_LENGTH

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


@pytest.mark.parametrize(("text", "secret"), SECRETS)
def test_secrets_are_masked_beside_a_letter_whose_lower_case_is_longer(
    text: str, secret: str
) -> None:
    """Beside "İ" (two characters in lower case, so spans in the lowered text would not line
    up) every form is still masked, by the patterns matched in any case, and the rest kept."""
    masked = redact(f"İstanbul: {text}")
    assert secret not in masked
    assert masked.startswith("İstanbul: ")


def test_ordinary_text_untouched() -> None:
    """Redaction leaves ordinary words, statuses and hints alone."""
    text = "429 Too Many Requests. Retry-After: 30 (token expired)"
    assert redact(text) == text


@pytest.mark.parametrize(
    "param", ["appid", "auth", "api_key", "apikey", "access_token", "sig", "signature"]
)
def test_key_ish_query_parameters_are_masked(param: str) -> None:
    """The values of common key-ish query parameters are masked, their names kept."""
    text = f"GET https://api.example.test/data/2.5/weather?q=Bonn&{param}=0f1e2d3c4b5a&units=metric"
    masked = redact(text)
    assert "0f1e2d3c4b5a" not in masked
    assert f"{param}=" in masked
    assert "q=Bonn" in masked
    assert "units=metric" in masked


@pytest.mark.parametrize("param", ["password", "secret"])
def test_password_and_secret_parameters_are_masked(param: str) -> None:
    """password= and secret= values are masked too."""
    assert "hunter2hunter2" not in redact(f"login?user=ann&{param}=hunter2hunter2")


def test_a_registered_secret_is_masked_wherever_it_appears() -> None:
    """A value registered by the program is masked in any text, with no label around it."""
    register_secret("Zq8#vL2/pw+9 kT")
    text = "upstream echoed Zq8#vL2/pw+9 kT back, and the URL had q=Zq8%23vL2%2Fpw%2B9%20kT too"
    masked = redact(text)
    assert "Zq8#vL2/pw+9 kT" not in masked
    assert "Zq8%23vL2%2Fpw%2B9%20kT" not in masked
    assert masked.count("[redacted]") == 2


def test_a_registered_secret_is_masked_in_its_form_encoded_shape() -> None:
    """The form-encoded spelling (spaces as "+") is masked as well."""
    register_secret("correct horse battery")
    assert "correct+horse+battery" not in redact("body: pw=correct+horse+battery&x=1")


def test_short_values_are_not_registered() -> None:
    """A value shorter than the minimum would mask ordinary words: it is ignored."""
    short = "a" * (MIN_SECRET_LENGTH - 1)
    register_secret(short)
    assert redact(f"the word {short} stays") == f"the word {short} stays"


def test_a_registered_secret_never_reaches_any_field() -> None:
    """A registered value inside an error reaches none of the six fields."""
    register_secret("wx-7f3a9c1e2b")
    result = error_to_action("500 upstream said: wx-7f3a9c1e2b is wrong", "Fetching wx-7f3a9c1e2b")
    assert "wx-7f3a9c1e2b" not in result.to_json()
