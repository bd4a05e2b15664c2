"""Secret redaction for anything written to a log, a terminal or a model."""

from __future__ import annotations

import re

__all__ = ["redact"]

_MASK = "[redacted]"

# Each pattern keeps its label (group 1) and masks the secret after it.
_PATTERNS = (
    # Keys with a well-known prefix: Anthropic/OpenAI "sk-…", Stripe "sk_live_…"/"rk_test_…",
    # GitHub "ghp_…"/"github_pat_…", Slack "xox?-…", AWS access key ids.
    re.compile(
        r"()\b(?:sk-[A-Za-z0-9_\-]{8,}|[sr]k_(?:live|test)_[A-Za-z0-9]{8,}"
        r"|gh[pousr]_[A-Za-z0-9]{16,}|github_pat_\w{20,}|xox[abprs]-[A-Za-z0-9\-]{8,}"
        r"|AKIA[0-9A-Z]{16})"
    ),
    # Authorization headers, whatever the scheme, and bare bearer/basic credentials.
    re.compile(
        r"(?i)(\bauthorization[\"']?\s*[:=]\s*[\"']?(?:bearer|basic|token)?\s*)[^\s\"',;]{6,}"
    ),
    re.compile(r"(?i)(\b(?:bearer|basic)\s+)[A-Za-z0-9._~+/=\-]{8,}"),
    # A password in a URL's user part: scheme://user:password@host.
    re.compile(r"(://[^/\s:@]{1,64}:)[^@\s/]{1,128}(?=@)"),
    # Header- and query-style secrets: "x-api-key: …", "api_key=…", "token=…", JSON "password".
    re.compile(
        r"(?i)((?:x-api-key|api[_-]?key|access[_-]?token|refresh[_-]?token|client[_-]?secret"
        r"|token|secret|password|passwd|key|sig|signature)[\"']?\s*[:=]\s*[\"']?)"
        r"[^\s&\"',;}]{3,}"
    ),
)


def redact(text: str) -> str:
    """`text` with API keys, bearer tokens, URL passwords and `key=`/`token=` values masked."""
    for pattern in _PATTERNS:
        text = pattern.sub(lambda m: m.group(1) + _MASK, text)
    return text
