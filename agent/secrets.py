"""Redaction by value: the secrets this process was configured with, registered at start-up.

Patterns catch keys that look like keys (`sk-…`, `Bearer …`, `key=…`); a key without a known
prefix, echoed back by a 401 or carried in an endpoint's `?appid=`, does not look like one.
So at start-up every configured value that is, or may be, a secret is handed to the
redactor, which then masks it wherever it appears — in the log, on stderr, and in anything
sent to the model:

- the API key;
- every query value, and the user name and password, of each configured endpoint
  (ANTHROPIC_BASE_URL and the weather URLs), as written and percent-decoded;
- the value of every environment variable whose name ends in `_KEY`, `_TOKEN`, `_SECRET`
  or `_PASSWORD`.

The redactor is injected (`register`), so this module depends on nothing but the settings:
the entry point passes `errors.register_secret`.

    register_configured_secrets(settings, os.environ, errors.register_secret)

Values shorter than `MIN_LENGTH` are left to the patterns: masking a two-letter
`lang=en` everywhere would garble every line and protect nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from urllib.parse import parse_qsl, unquote, urlsplit

from agent.settings import Settings
from errors._redact import MIN_SECRET_LENGTH

__all__ = ["MIN_LENGTH", "SECRET_SUFFIXES", "configured_secrets", "register_configured_secrets"]

MIN_LENGTH = MIN_SECRET_LENGTH  # the redactor's own floor: registering shorter would do nothing
SECRET_SUFFIXES = ("_KEY", "_TOKEN", "_SECRET", "_PASSWORD")


def register_configured_secrets(
    settings: Settings, env: Mapping[str, str], register: Callable[[str], None]
) -> int:
    """Hand every configured secret to `register`, once each; returns how many."""
    values = configured_secrets(settings, env)
    for value in values:
        register(value)
    return len(values)


def configured_secrets(settings: Settings, env: Mapping[str, str]) -> list[str]:
    """The values `register_configured_secrets` registers, longest first, without repeats."""
    found = {value for value in _candidates(settings, env) if len(value) >= MIN_LENGTH}
    return sorted(found, key=lambda value: (-len(value), value))


def _candidates(settings: Settings, env: Mapping[str, str]) -> Iterator[str]:
    if settings.api_key:
        yield settings.api_key.strip()
    endpoints = settings.endpoints
    urls = [settings.base_url, endpoints.geocoding_url, endpoints.forecast_url, endpoints.wttr_url]
    for url in urls:
        if url:
            yield from _url_secrets(url)
    for name, value in env.items():
        if name.upper().endswith(SECRET_SUFFIXES) and value.strip():
            yield value.strip()


def _url_secrets(url: str) -> Iterator[str]:
    """The query values and the user info of `url`, as written and decoded."""
    try:
        parts = urlsplit(url)
        username, password = parts.username, parts.password
    except ValueError:
        return
    for raw in (username, password):
        if raw:
            yield raw
            yield unquote(raw)
    for pair in parts.query.split("&"):
        _, _, raw = pair.partition("=")
        if raw:
            yield raw
    for _, value in parse_qsl(parts.query, keep_blank_values=False):
        yield value
