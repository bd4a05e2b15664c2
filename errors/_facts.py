"""Translate any failure, foreign or ours, into one `Facts` record — the only place that does.

Foreign exceptions are recognised by class name along their MRO rather than by import, so
this module (and `agent explain-error`) never pays for importing the anthropic SDK or httpx.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import ValidationError

from errors import _exceptions as ours
from errors._redact import redact
from errors._retry_after import hint_from_headers, hint_from_text

__all__ = ["Facts", "Signal", "facts_from"]


class Signal(StrEnum):
    """What kind of failure it is, before any policy is applied."""

    STATUS = "status"  # an HTTP status (and maybe an upstream error type) says it all
    TIMEOUT = "timeout"
    NETWORK = "network"
    BAD_DATA = "bad_data"
    NOT_FOUND = "not_found"
    INVALID_INPUT = "invalid_input"
    MISSING_KEY = "missing_key"
    DEADLINE = "deadline"
    SKIPPED = "skipped"
    INTERNAL = "internal"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class Facts:
    """Everything classification may look at; `text` is redacted and never shown to a model."""

    signal: Signal
    text: str = ""
    status: int | None = None
    upstream_type: str | None = None
    hint_s: float | None = None
    exception: str | None = None
    request_id: str | None = None
    source: str | None = None
    field: str | None = None
    problem: str | None = None
    fix: str | None = None
    subject: str | None = None
    what: str | None = None


# Error types in an Anthropic error body, as the status they stand for. A mid-stream
# `overloaded_error` arrives with HTTP 200, so the body's type decides, not the status.
_STATUS_OF_TYPE = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}

# Class names (anywhere in the MRO) of httpx, httpx2, anthropic and builtin errors → signal.
# Order matters: the first name found in the MRO, walking from the most specific class, wins.
_SIGNAL_OF_CLASS = {
    "APITimeoutError": Signal.TIMEOUT,
    "TimeoutException": Signal.TIMEOUT,
    "TimeoutError": Signal.TIMEOUT,
    "APIResponseValidationError": Signal.BAD_DATA,
    "DecodingError": Signal.BAD_DATA,
    "JSONDecodeError": Signal.BAD_DATA,
    "TooManyRedirects": Signal.BAD_DATA,
    "APIConnectionError": Signal.NETWORK,
    "TransportError": Signal.NETWORK,
    "ConnectionError": Signal.NETWORK,
    "gaierror": Signal.NETWORK,
    "FileNotFoundError": Signal.NOT_FOUND,
    "OSError": Signal.NETWORK,
    "InvalidURL": Signal.INTERNAL,
}

_STATUS_IN_TEXT = re.compile(r"(?<![\d:])(?<!\d\.)([45]\d\d)(?!\d|\.\d)")

# Raw strings carry no type: a few well-known phrases stand for one.
_TEXT_SIGNALS = (
    (re.compile(r"(?i)timed? ?out|deadline exceeded|ETIMEDOUT"), Signal.TIMEOUT),
    (
        re.compile(
            r"(?i)connection (refused|reset|aborted|closed)|ECONN\w+|EHOSTUNREACH|ENOTFOUND"
            r"|getaddrinfo|name resolution|DNS|network is unreachable|fetch failed|socket hang up"
        ),
        Signal.NETWORK,
    ),
    (
        re.compile(r"(?i)could not resolve authentication|api[_ ]key.*(missing|not set)"),
        Signal.MISSING_KEY,
    ),
    (
        re.compile(r"(?i)not valid json|unexpected token|json ?decode|malformed (response|json)"),
        Signal.BAD_DATA,
    ),
    (
        re.compile(r"(?i)validation (error|failed)|field required|is required|invalid input"),
        Signal.INVALID_INPUT,
    ),
    (re.compile(r"(?i)\bnot found\b|no such|does not exist"), Signal.NOT_FOUND),
)


def facts_from(error: BaseException | str, now: datetime | None = None) -> Facts:
    """The facts of `error`: a raw string, one of ours, or a foreign exception."""
    if isinstance(error, str):
        return _from_text(error, now)
    if isinstance(error, ours.ToolError):
        return _from_ours(error, now)
    if isinstance(error, ValidationError):
        return _from_validation(error)
    return _from_foreign(error, now)


def _from_text(text: str, now: datetime | None) -> Facts:
    clean = redact(text)
    status = _status_in(clean)
    signal = Signal.STATUS if status else _text_signal(clean)
    return Facts(signal, clean, status=status, hint_s=hint_from_text(clean, now))


def _status_in(text: str) -> int | None:
    """The first HTTP error status in the text (a port such as ":443" is not one)."""
    codes = (int(m.group(1)) for m in _STATUS_IN_TEXT.finditer(text[:200]))
    return next((code for code in codes if code in _ERROR_STATUSES), None)


# Error statuses real services send; other three-digit numbers in a message are not statuses.
_ERROR_STATUSES = frozenset([*range(400, 432), 451, 499, *range(500, 512), *range(520, 531)])


def _text_signal(text: str) -> Signal:
    return next((sig for pattern, sig in _TEXT_SIGNALS if pattern.search(text)), Signal.UNKNOWN)


def _from_ours(error: ours.ToolError, now: datetime | None) -> Facts:
    base = Facts(
        _OWN_SIGNALS.get(type(error), Signal.UNKNOWN),
        redact(error.reason),
        exception=type(error).__name__,
        source=error.source,
    )
    match error:
        case ours.UpstreamStatus():
            hint = hint_from_headers(error.headers, now)
            return replace(base, signal=Signal.STATUS, status=error.status, hint_s=hint)
        case ours.NotFound():
            return replace(base, signal=Signal.NOT_FOUND, subject=error.subject, what=error.what)
        case ours.InvalidInput():
            return replace(
                base,
                signal=Signal.INVALID_INPUT,
                field=error.field,
                problem=error.problem,
                fix=error.fix,
            )
    return base


_OWN_SIGNALS: dict[type[ours.ToolError], Signal] = {
    ours.BadUpstreamData: Signal.BAD_DATA,
    ours.ResponseTooLarge: Signal.BAD_DATA,
    ours.SourceSkipped: Signal.SKIPPED,
    ours.DeadlineExceeded: Signal.DEADLINE,
}


def _from_validation(error: ValidationError) -> Facts:
    details = error.errors(include_url=False)
    first: Mapping[str, Any] = details[0] if details else {}
    field = " ".join(str(part) for part in first.get("loc", ()) if isinstance(part, str))
    problem, fix = _validation_words(str(first.get("type", "")), first.get("ctx") or {})
    text = redact(f"{error.error_count()} validation error(s); first: {field} {first.get('type')}")
    return Facts(
        Signal.INVALID_INPUT,
        text,
        exception="ValidationError",
        field=field.replace("_", " ") or "input",
        problem=problem,
        fix=fix,
    )


def _validation_words(kind: str, ctx: Mapping[str, Any]) -> tuple[str, str]:
    """A pydantic error type in plain words: (what is wrong, what to do)."""
    if kind == "missing":
        return "is missing", "send it again with that value filled in"
    if kind.endswith("_type") or kind in {"none_required", "is_instance_of"}:
        expected = _EXPECTED.get(kind.removesuffix("_type").removesuffix("_parsing"), "valid")
        return f"must be {expected}", f"send it again as {expected}"
    if kind.endswith("too_short"):
        return (
            ("is empty", "send it again with a value")
            if ctx.get("min_length") == 1
            else ("is too short", "send it again with a longer value")
        )
    if kind.endswith("too_long"):
        return "is too long", "send it again with a shorter value"
    if kind == "extra_forbidden":
        return "is not an accepted input", "send it again without that input"
    return "is not valid", "send it again with a valid value"


_EXPECTED = {
    "string": "text",
    "int": "a whole number",
    "float": "a number",
    "bool": "true or false",
    "list": "a list",
    "dict": "an object",
    "model": "an object",
}


def _from_foreign(error: BaseException, now: datetime | None) -> Facts:
    names = [cls.__name__ for cls in type(error).__mro__]
    if "APIStatusError" in names or "HTTPStatusError" in names:
        return _from_status_error(error, now)
    signal = next((_SIGNAL_OF_CLASS[n] for n in names if n in _SIGNAL_OF_CLASS), None)
    text = redact(_describe(error))
    if signal is None:
        signal = Signal.MISSING_KEY if _text_signal(text) is Signal.MISSING_KEY else Signal.INTERNAL
    return Facts(signal, text, exception=_qualname(error))


def _from_status_error(error: BaseException, now: datetime | None) -> Facts:
    response = getattr(error, "response", None)
    headers = _headers(response)
    upstream_type = getattr(error, "type", None)
    status = getattr(error, "status_code", None) or getattr(response, "status_code", None)
    if isinstance(upstream_type, str) and (status is None or status < 400):
        status = _STATUS_OF_TYPE.get(upstream_type, 500)
    message = getattr(error, "api_message", None) or _describe(error)
    return Facts(
        Signal.STATUS,
        redact(message),
        status=status if isinstance(status, int) else None,
        upstream_type=upstream_type if isinstance(upstream_type, str) else None,
        hint_s=hint_from_headers(headers, now),
        exception=_qualname(error),
        request_id=getattr(error, "request_id", None) or headers.get("request-id"),
    )


def _headers(response: object) -> dict[str, str]:
    raw = getattr(response, "headers", None)
    try:
        return {str(k).lower(): str(v) for k, v in dict(raw or {}).items()}
    except (TypeError, ValueError):
        return {}


def _describe(error: BaseException) -> str:
    text = str(error) or type(error).__name__
    cause = error.__cause__ or error.__context__
    return f"{text} (caused by {_qualname(cause)}: {cause})" if cause else text


def _qualname(error: BaseException) -> str:
    module = type(error).__module__.split(".")[0]
    name = type(error).__name__
    return name if module == "builtins" else f"{module}.{name}"
