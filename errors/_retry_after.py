"""Retry-After: read the server's hint, then clamp it to a wait worth taking."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

__all__ = ["MAX_WAIT_S", "MIN_WAIT_S", "clamp_wait", "hint_from_headers", "hint_from_text"]

# A hint of 0 (or a date already past) must not become a hot loop of instant retries.
MIN_WAIT_S = 1.0
# A hint of an hour must not become an hour of sleep; past this the caller should give up.
MAX_WAIT_S = 60.0

_TEXT_HINT = re.compile(
    r"(?i)\bretry-after(-ms)?\s*[:=]\s*(\d+(?:\.\d+)?|[A-Z][a-z]{2},[^\n]{10,30}?GMT)"
)


def hint_from_headers(headers: Mapping[str, str], now: datetime | None = None) -> float | None:
    """Seconds the server asked us to wait, from `retry-after-ms` or `retry-after`."""
    lowered = {k.lower(): v for k, v in headers.items()}
    if (ms := _number(lowered.get("retry-after-ms"))) is not None:
        return ms / 1000
    value = lowered.get("retry-after")
    return None if value is None else _seconds(value, now)


def hint_from_text(text: str, now: datetime | None = None) -> float | None:
    """The same hint, found in a raw error string such as "429 … Retry-After: 30"."""
    match = _TEXT_HINT.search(text)
    if match is None:
        return None
    if match.group(1):
        ms = _number(match.group(2))
        return None if ms is None else ms / 1000
    return _seconds(match.group(2), now)


def clamp_wait(hint: float, cap: float = MAX_WAIT_S) -> float:
    """The wait to take for a hint: never below `MIN_WAIT_S`, never above `cap`."""
    return min(max(hint, MIN_WAIT_S), max(cap, MIN_WAIT_S))


def _seconds(value: str, now: datetime | None) -> float | None:
    seconds = _number(value)
    if seconds is not None:
        return seconds
    try:
        when = parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def _number(value: str | None) -> float | None:
    try:
        number = float(value) if value is not None else None
    except ValueError:
        return None
    # NaN, infinities and negatives are not hints.
    return number if number is not None and 0 <= number < float("inf") else None
