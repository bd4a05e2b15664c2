"""Secret redaction for anything written to a log, a terminal or a model."""

from __future__ import annotations

import re

__all__ = ["redact"]

_MASK = "[redacted]"

# Each pattern keeps its label (group 1) and masks the secret after it.
_PATTERNS = (
    # API keys with a well-known prefix: Anthropic/OpenAI "sk-…", GitHub "ghp_…"/"github_pat_…",
    # Slack "xox?-…", AWS access key ids.
    re.compile(
        r"()\b(?:sk-[A-Za-z0-9_\-]{8,}|gh[pousr]_[A-Za-z0-9]{16,}|github_pat_\w{20,}"
        r"|xox[abprs]-[A-Za-z0-9\-]{8,}|AKIA[0-9A-Z]{16})"
    ),
    # Authorization headers and bare bearer/basic credentials.
    re.compile(r"(?i)(\b(?:bearer|basic)\s+)[A-Za-z0-9._~+/=\-]{8,}"),
    # Header-style secrets: "x-api-key: …", "api_key=…", "token=…" in query strings and JSON.
    re.compile(
        r"(?i)((?:x-api-key|api[_-]?key|access[_-]?token|refresh[_-]?token|token|secret|password"
        r"|passwd|key|sig|signature)[\"']?\s*[:=]\s*[\"']?)[^\s&\"',;}]{3,}"
    ),
)


def redact(text: str) -> str:
    """`text` with API keys, bearer tokens and `key=`/`token=` values masked."""
    for pattern in _PATTERNS:
        text = pattern.sub(lambda m: m.group(1) + _MASK, text)
    return text
