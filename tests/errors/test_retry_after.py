"""Retry-After parsing: seconds, HTTP dates and retry-after-ms, clamped both ways."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from errors._text import (
    _TWINS,
    MAX_WAIT_S,
    MIN_WAIT_S,
    clamp_wait,
    hint_from_headers,
    hint_from_text,
)

NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"Retry-After": "30"}, 30),
        ({"retry-after": "0"}, 0),
        ({"Retry-After": "1.5"}, 1.5),
        ({"Retry-After": "Mon, 30 Nov 2026 12:00:45 GMT"}, 45),
        ({"Retry-After": "Mon, 30 Nov 2026 11:00:00 GMT"}, 0),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"Retry-After": "Mon, 30 Nov 2026 12:00:45 -0000"}, 45),
        ({"Retry-After": "Mon, 30 Nov 2026 12:00:45"}, 45),
        (
            {
                "date": "Mon, 30 Nov 2026 11:59:59 -0000",
                "anthropic-ratelimit-requests-remaining": "0",
                "anthropic-ratelimit-requests-reset": "2026-11-30T12:00:00Z",
            },
            1,
        ),
        ({"Retry-After": "soon"}, None),
        ({"Retry-After": "-5"}, None),
        ({"Retry-After": "nan"}, None),
        ({}, None),
    ],
)
def test_hint_from_headers(headers: dict[str, str], seconds: float | None) -> None:
    """Each header form gives the seconds the server asked for, or None."""
    assert hint_from_headers(headers, NOW) == seconds


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("429 Too Many Requests. Retry-After: 30", 30),
        ("503; retry-after=12", 12),
        ("retry-after-ms: 1500", 1.5),
        ("Retry-After: Mon, 30 Nov 2026 12:01:00 GMT", 60),
        ("429 Too Many Requests", None),
        ("You are uploading too fast. Please wait 59 more minutes.", 59 * 60),  # set E, Imgur
        ("Please wait 2 more hours", 7200),
    ],
)
def test_hint_from_text(text: str, seconds: float | None) -> None:
    """A hint inside a raw error string is found too."""
    assert hint_from_text(text, NOW) == seconds


@pytest.mark.parametrize(
    ("hint", "wait"), [(0, MIN_WAIT_S), (0.2, MIN_WAIT_S), (30, 30), (3600, MAX_WAIT_S)]
)
def test_clamp(hint: float, wait: float) -> None:
    """Zero is not a hot loop and an hour is not an hour of sleep."""
    assert clamp_wait(hint) == wait


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("Please TRY AGAIN IN 20 Seconds", 20.0),
        ("RETRY_AFTER: 7", 7.0),
        ("Retry In 1500MS", 1.5),
        ("TRY AGAIN IN ONE MINUTE", 60.0),
        ("try again in 20 ſeconds", 20.0),  # beyond ASCII: the case-blind pattern itself
    ],
)
def test_any_case_gives_the_same_hint(text: str, seconds: float) -> None:
    """ASCII text is searched lower-cased by the patterns' case-sensitive twins: any case reads."""
    assert hint_from_text(text, NOW) == seconds


def test_the_ascii_twins_are_the_case_blind_patterns_in_lower_case() -> None:
    """The twins match exactly what the `(?i)` patterns match on ASCII text only while those are
    written in lower case."""
    for pattern, twin in _TWINS.items():
        assert pattern.flags & re.IGNORECASE
        assert not twin.flags & re.IGNORECASE
        assert twin.pattern == pattern.pattern.removeprefix("(?i)") == twin.pattern.lower()
