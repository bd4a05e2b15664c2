"""What must never reach a model: raw error text and secrets, found in the tool_results it got."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

__all__ = ["MARKERS", "leak_markers", "leaks"]

# Each marker is a tell-tale of text written for a developer, not for the person asking.
MARKERS: dict[str, re.Pattern[str]] = {
    "traceback": re.compile(r"Traceback \(most recent call last\)|File \"[^\"]+\", line \d+"),
    "exception name": re.compile(r"\b[A-Z][A-Za-z]*(?:Error|Exception|Timeout)\b"),
    "Error: prefix": re.compile(r"\bError:"),
    "URL": re.compile(r"https?://|\b127\.0\.0\.1\b|\blocalhost:\d+"),
    "status code": re.compile(r"\b(?:HTTP|status)\W{0,3}[1-5]\d\d\b|\b[45]\d\d\b"),
    # str(exc) of the usual suspects: httpx, the socket layer, json.
    "library message": re.compile(
        r"All connection attempts failed|\[Errno -?\d+\]|Server disconnected without"
        r"|Expecting value: line \d+|Connection refused|Name or service not known"
    ),
}


def leak_markers(text: str, secrets: Iterable[str] = ()) -> list[str]:
    """The names of the markers found in one tool_result text."""
    found = [name for name, pattern in MARKERS.items() if pattern.search(text)]
    return found + ["secret" for secret in secrets if secret and secret in text][:1]


def leaks(tool_results: Mapping[str, str], secrets: Iterable[str] = ()) -> dict[str, list[str]]:
    """tool_use_id -> markers, for every tool_result text that has at least one."""
    kept = tuple(secrets)
    found = {tid: leak_markers(text, kept) for tid, text in tool_results.items()}
    return {tid: markers for tid, markers in found.items() if markers}
