"""Translate any failure, foreign or ours, into one `Facts` record — the only place that does.

Foreign exceptions are recognised by class name along their MRO rather than by import, so
this module (and `agent explain-error`) never pays for importing the anthropic SDK or httpx.
Raw text is cleaned once here: capped (head and tail), control characters dropped, secrets
redacted. Everything downstream sees only this record.
"""

from __future__ import annotations

import errno
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum
from functools import lru_cache
from typing import Any

from pydantic import ValidationError

from errors import _exceptions as ours
from errors._redact import redact
from errors._retry_after import hint_from_headers, hint_from_text

__all__ = ["Facts", "Signal", "clean_text", "facts_from"]


class Signal(StrEnum):
    """What kind of failure it is, before any policy is applied."""

    STATUS = "status"  # an HTTP status (and maybe an upstream error type) says it all
    TIMEOUT = "timeout"
    NETWORK = "network"
    BAD_DATA = "bad_data"
    NOT_FOUND = "not_found"
    INVALID_INPUT = "invalid_input"
    MISSING_KEY = "missing_key"
    PERMISSION = "permission"  # a local permission (file, socket), not an HTTP one
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
    context: str = ""  # the operation and user context, for rows that depend on them
    connect_phase: bool = False  # the connection never opened (refused, DNS): nothing was sent


_HEAD, _TAIL = 4096, 2048  # a traceback's cause sits at its end; a body's status at its start
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]+")


@lru_cache(maxsize=1024)  # batches repeat operations and errors; cleaning is the costly part
def clean_text(text: str) -> str:
    """`text` capped to its head and tail, without control characters, secrets redacted."""
    if len(text) > _HEAD + _TAIL:
        text = f"{text[:_HEAD]} … {text[-_TAIL:]}"
    return redact(" ".join(_CONTROL.sub(" ", text).split()))


def facts_from(error: BaseException | str, now: datetime | None = None) -> Facts:
    """The facts of `error`: a raw string, one of ours, or a foreign exception."""
    if isinstance(error, str):
        return _from_text(clean_text(error), now)
    if isinstance(error, ours.ToolError):
        return _from_ours(error, now)
    if isinstance(error, ValidationError):
        return _from_validation(error)
    return _from_foreign(error, now)


# --- raw text -------------------------------------------------------------------------------

# A three-digit number is a status only where something says so: "HTTP/1.1 503", "status: 429",
# '"statusCode":503', "Error: 503", "error code 529", or leading the text / followed by a
# reason phrase. Ports (":443"), positions ("at position 404") and line numbers are not.
_STATUS_ANCHORS = re.compile(
    r"(?i)(?:HTTP(?:/\d(?:\.\d)?)?\s+|status(?:[ _-]?code)?[\"']?\s*[:=]?\s*[\"']?"
    r"|\b(?:error|code)\b[\"']?\s*[:=]?\s*(?:code\s*)?[\"']?|^\s*|\b(?:returned|got|answered)\s+)"
    r"([45]\d\d)\b(?![.:]\d)"
    r"|(?<![\d.:])\b([45]\d\d): (?=\D)"
    r"|\b([45]\d\d)\s+(?=Too Many|Not Found|Forbidden|Unauthori[sz]ed|Service Unavailable"
    r"|Internal Server|Bad Gateway|Gateway Time|Bad Request|Payment Required|Conflict"
    r"|Unprocessable|Request Time|Payload Too|Request Entity|Overloaded|Gone\b)"
)

# Error statuses real services send; other three-digit numbers are not statuses.
_ERROR_STATUSES = frozenset([*range(400, 432), 451, 499, *range(500, 512), *range(520, 531)])

# Phrases that name a status when no number does.
_STATUS_PHRASES = (
    (
        re.compile(
            r"(?i)credit balance is too low|insufficient (?:funds|credit|balance|quota)"
            r"|exceeded your current quota|quota exceeded"
        ),
        429,
    ),
    (re.compile(r"(?i)rate.?limit|too many requests|throttl|rate exceeded|slow ?down"), 429),
    (re.compile(r"(?i)overloaded"), 529),
    (re.compile(r"(?i)service unavailable"), 503),
    (re.compile(r"(?i)bad gateway"), 502),
    (re.compile(r"(?i)gateway time-?out"), 504),
    (re.compile(r"(?i)internal server error"), 500),
    (
        re.compile(
            r"(?i)invalid (?:x-)?api[ _-]?key|incorrect api key|token (?:has )?expired"
            r"|expired token|unauthori[sz]ed|authentication failed|bad credentials"
        ),
        401,
    ),
    (
        re.compile(
            r"(?i)forbidden|permission (?:to \S+ )?denied|access denied|not authori[sz]ed"
            r"|don't have permission|do not have permission"
        ),
        403,
    ),
)

# Raw strings carry no type: a few well-known phrases stand for one. Order matters.
_TEXT_SIGNALS = (
    (
        re.compile(
            r"(?i)could not resolve authentication|api[_ ]key\b.{0,40}\b(?:missing|not set)"
        ),
        Signal.MISSING_KEY,
    ),
    (
        re.compile(r"(?i)timed? ?out|deadline exceeded|ETIMEDOUT|Timeout(?:Error|Exception)"),
        Signal.TIMEOUT,
    ),
    (
        re.compile(
            r"(?i)connection (?:refused|reset|aborted|closed)|ECONN\w+|EHOSTUNREACH|ENOTFOUND"
            r"|EAI_AGAIN|getaddrinfo|name resolution|\bDNS\b|network is unreachable|fetch failed"
            r"|socket hang up|no route to host|no such host|could not (?:resolve|connect)"
            r"|curl: \((?:6|7|35|52|56)\)|upstream connect error|broken pipe"
        ),
        Signal.NETWORK,
    ),
    (
        re.compile(
            r"(?i)not valid json|unexpected token|json ?decode|malformed (?:response|json)"
            r"|expecting value: line|unexpected end of json|invalid json"
        ),
        Signal.BAD_DATA,
    ),
    (
        re.compile(r"(?i)validation (?:error|failed)|field required|is required|invalid input"),
        Signal.INVALID_INPUT,
    ),
    (re.compile(r"(?i)\bnot found\b|no such|does not exist|NoSuch\w+"), Signal.NOT_FOUND),
)
_TYPE_IN_TEXT = re.compile(r"\"type\"\s*:\s*\"(\w+_error|request_too_large)\"")


_CONNECT_PHASE_TEXT = re.compile(
    r"(?i)connection refused|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|getaddrinfo|name resolution"
    r"|no such host|could not resolve|curl: \((?:6|7)\)"
)
# Exceptions raised before a request was sent (httpx, httpx2, builtins), also as a cause.
_CONNECT_PHASE_CLASSES = frozenset(
    {"ConnectError", "ConnectTimeout", "ConnectionRefusedError", "gaierror"}
)


_CONNECT_PHASE_TEXT = re.compile(
    r"(?i)connection refused|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|getaddrinfo|name resolution"
    r"|no such host|could not resolve|curl: \((?:6|7)\)"
)
# Exceptions raised before a request was sent (httpx, httpx2, builtins), also as a cause.
_CONNECT_PHASE_CLASSES = frozenset(
    {"ConnectError", "ConnectTimeout", "ConnectionRefusedError", "gaierror"}
)


def _from_text(text: str, now: datetime | None) -> Facts:
    upstream_type = _type_in(text)
    status = _status_in(text) or _STATUS_OF_TYPE.get(upstream_type or "") or _status_named(text)
    signal = _text_signal(text)
    if status and signal not in {Signal.MISSING_KEY, Signal.NETWORK, Signal.TIMEOUT}:
        signal = Signal.STATUS
    return Facts(
        signal,
        text,
        status=status,
        upstream_type=upstream_type,
        hint_s=hint_from_text(text, now),
        connect_phase=_CONNECT_PHASE_TEXT.search(text) is not None,
    )


def _status_in(text: str) -> int | None:
    """The first anchored HTTP error status in the text."""
    for match in _STATUS_ANCHORS.finditer(text):
        code = int(next(group for group in match.groups() if group))
        if code in _ERROR_STATUSES:
            return code
    return None


def _status_named(text: str) -> int | None:
    return next((code for pattern, code in _STATUS_PHRASES if pattern.search(text)), None)


def _type_in(text: str) -> str | None:
    match = _TYPE_IN_TEXT.search(text)
    return match.group(1) if match else None


def _text_signal(text: str) -> Signal:
    return next((sig for pattern, sig in _TEXT_SIGNALS if pattern.search(text)), Signal.UNKNOWN)


# --- our own errors -------------------------------------------------------------------------


def _from_ours(error: ours.ToolError, now: datetime | None) -> Facts:
    base = Facts(
        Signal.UNKNOWN,
        clean_text(error.reason),
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
        case ours.BadUpstreamData():
            return replace(base, signal=Signal.BAD_DATA)
        case ours.SourceSkipped():
            return replace(base, signal=Signal.SKIPPED)
        case ours.DeadlineExceeded():
            return replace(base, signal=Signal.DEADLINE)
    return base


# --- pydantic -------------------------------------------------------------------------------


def _from_validation(error: ValidationError) -> Facts:
    details = error.errors(include_url=False)
    first: Mapping[str, Any] = details[0] if details else {}
    field = _field_name(first.get("loc", ()))
    problem, fix = _validation_words(first)
    text = clean_text(
        f"{error.error_count()} validation error(s); first: {field} {first.get('type')}"
    )
    return Facts(
        Signal.INVALID_INPUT,
        text,
        exception="ValidationError",
        field=field.replace("_", " ") or "input",
        problem=problem,
        fix=fix,
    )


def _field_name(loc: tuple[int | str, ...]) -> str:
    """The input's name: the first identifier-like part of the location (dict keys from
    upstream data, which may carry any text, are not names)."""
    names = (p for p in loc if isinstance(p, str) and p.isidentifier() and len(p) <= 30)
    return next(names, "")


def _validation_words(detail: Mapping[str, Any]) -> tuple[str, str]:
    """A pydantic error in plain words: (what is wrong, what to do)."""
    kind, ctx = str(detail.get("type", "")), detail.get("ctx") or {}
    if kind == "missing":
        return "is missing", "send it again with that value filled in"
    if kind.endswith("_type") or kind in {"none_required", "is_instance_of"}:
        expected = _EXPECTED.get(kind.removesuffix("_type").removesuffix("_parsing"), "valid")
        return f"must be {expected}", f"send it again as {expected}"
    if kind.endswith("too_short"):
        empty = ctx.get("min_length") == 1
        return (
            ("is empty", "send it again with a value")
            if empty
            else ("is too short", "send it again with a longer value")
        )
    if kind.endswith("too_long"):
        return "is too long", "send it again with a shorter value"
    if kind == "extra_forbidden":
        return "is not an accepted input", "send it again without that input"
    if kind in {"value_error", "assertion_error"}:  # our own validators' words
        return str(detail.get("msg", "")).split(", ", 1)[-1].lower(), "send it again corrected"
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


# --- foreign exceptions ---------------------------------------------------------------------

# Anthropic error-body types, as the status they stand for. A mid-stream `overloaded_error`
# arrives with HTTP 200, so the body's type decides, not the status.
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

# Class names (anywhere in the MRO, most specific first) of httpx, httpx2, anthropic and
# builtin errors → signal. Only socket-level OSErrors are network failures.
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
    "herror": Signal.NETWORK,
    "URLError": Signal.NETWORK,
    "FileNotFoundError": Signal.NOT_FOUND,
    "PermissionError": Signal.PERMISSION,
    "InvalidURL": Signal.INTERNAL,
}


def _from_foreign(error: BaseException, now: datetime | None) -> Facts:
    names = [cls.__name__ for cls in type(error).__mro__]
    if {"APIStatusError", "HTTPStatusError"} & set(names) or _has_http_code(error):
        return _from_status_error(error, now)
    signal = next((_SIGNAL_OF_CLASS[n] for n in names if n in _SIGNAL_OF_CLASS), None)
    signal = signal or _ERRNO_SIGNALS.get(getattr(error, "errno", None) or -1)
    text = clean_text(_describe(error))
    if signal is None:
        signal = Signal.MISSING_KEY if _text_signal(text) is Signal.MISSING_KEY else Signal.INTERNAL
    return Facts(signal, text, exception=_qualname(error), connect_phase=_connect_phase(error))


def _connect_phase(error: BaseException | None) -> bool:
    """Whether `error`, or what caused it, was raised before anything was sent."""
    for _ in range(4):  # a short cause chain: SDK error ← httpx2 error ← OSError
        if error is None:
            return False
        if _CONNECT_PHASE_CLASSES & {cls.__name__ for cls in type(error).__mro__}:
            return True
        error = error.__cause__ or error.__context__
    return False


# A plain OSError is a socket failure only when its errno says so.
_ERRNO_SIGNALS = {
    **dict.fromkeys(
        (
            errno.ECONNREFUSED,
            errno.ECONNRESET,
            errno.ECONNABORTED,
            errno.ENETUNREACH,
            errno.EHOSTUNREACH,
            errno.ENETDOWN,
            errno.EPIPE,
        ),
        Signal.NETWORK,
    ),
    errno.ETIMEDOUT: Signal.TIMEOUT,
}


def _has_http_code(error: BaseException) -> bool:
    """urllib's HTTPError and its kin: an integer `code` and response headers."""
    code = getattr(error, "code", None)
    return isinstance(code, int) and code >= 400 and hasattr(error, "headers")


def _from_status_error(error: BaseException, now: datetime | None) -> Facts:
    response = getattr(error, "response", None)
    headers = _headers(getattr(response, "headers", None) or getattr(error, "headers", None))
    upstream_type = getattr(error, "type", None)
    upstream_type = upstream_type if isinstance(upstream_type, str) else None
    status = _status_of(error, response, upstream_type)
    message = getattr(error, "api_message", None) or _describe(error)
    return Facts(
        Signal.STATUS,
        clean_text(str(message)),
        status=status,
        upstream_type=upstream_type,
        hint_s=hint_from_headers(headers, now),
        exception=_qualname(error),
        request_id=getattr(error, "request_id", None) or headers.get("request-id"),
    )


def _status_of(error: BaseException, response: object, upstream_type: str | None) -> int | None:
    status = next(
        (
            s
            for s in (
                getattr(error, "status_code", None),
                getattr(response, "status_code", None),
                getattr(error, "code", None),
            )
            if isinstance(s, int)
        ),
        None,
    )
    if upstream_type and (status is None or status < 400):
        return _STATUS_OF_TYPE.get(upstream_type, 500)
    return status


def _headers(raw: object) -> dict[str, str]:
    try:
        items = raw.items() if hasattr(raw, "items") else ()
        return {str(k).lower(): str(v) for k, v in items}
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
