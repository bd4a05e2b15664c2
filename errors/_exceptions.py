"""The project's own failure types, sorted by who acts next.

Tools raise these; error-to-action classifies them like any foreign error. The tree::

    ToolError                    something a tool could not do (never shown raw to a model)
    ├── UpstreamError            a source answered, or failed to, in a way that may pass
    │   ├── UpstreamStatus       it answered with a non-2xx status (and maybe Retry-After)
    │   ├── BadUpstreamData      it answered 2xx with data we cannot use (HTML, drift, nulls)
    │   │   └── ResponseTooLarge the body passed the size cap and was not read whole
    │   └── SourceSkipped        its circuit breaker is open: not called at all
    ├── NotFound                 the thing asked for does not exist: fix the input
    ├── Gone                     nothing there to get (deleted, not carried): go on without it
    ├── InvalidInput             the caller's input is wrong: fix the input, never sent upstream
    ├── DeadlineExceeded         the whole call ran out of time: stop, answer without it
    └── OwnFault                 the app's own doing (a request it built, refused): escalate

    BadSetting (a ValueError)    a setting from the environment is unusable: a usage error at
                                 start-up, named but never echoed (it may hold a key)

Every type carries plain, structured facts (a field name, a place, a status), never an
upstream body meant for a reader: those go only to `developer_note`, redacted.

`facts_from` turns any error into `Facts`: a raw string (read by `errors._text`), one of
these (their facts as they carry them), pydantic's `ValidationError` (which input, what is
wrong, in words), or a foreign exception, recognised by class name along its MRO
(`errors._vocab_clients`), never by import, so this module never pays for importing the
anthropic SDK or httpx. A foreign error's status, headers, error type and request id are read
from the attributes the SDKs and HTTP clients share, its errno through `errno.errorcode`, a
gRPC error through its `code()`, and its message (with its cause) as text.
"""

from __future__ import annotations

import errno
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from errors import _vocab_grpc, _vocab_os
from errors._facts import Facts, Signal, clean_text, cut
from errors._text import (
    exception_line,
    facts_from_text,
    hint_from_headers,
    primary,
    should_retry,
    without_frames,
)
from errors._vocab_api import STATUS_OF_TYPE
from errors._vocab_clients import CONNECT_CLASSES, SIGNAL_OF_CLASS

__all__ = [
    "BadSetting",
    "BadUpstreamData",
    "DeadlineExceeded",
    "Gone",
    "InvalidInput",
    "NotFound",
    "OwnFault",
    "ResponseTooLarge",
    "SourceSkipped",
    "ToolError",
    "UpstreamError",
    "UpstreamStatus",
    "facts_from",
]


class ToolError(Exception):
    """Base of the project's failures; `source` names the upstream involved, if any."""

    def __init__(self, reason: str, *, source: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.source = source


class UpstreamError(ToolError):
    """A source failed in a way that another attempt or another source may avoid."""


class UpstreamStatus(UpstreamError):
    """A source answered with a non-2xx status."""

    def __init__(
        self,
        status: int,
        reason: str = "",
        *,
        source: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(reason or f"HTTP {status}", source=source)
        self.status = status
        self.headers = {k.lower(): v for k, v in (headers or {}).items()}


class BadUpstreamData(UpstreamError):
    """A source answered 2xx, but with data that cannot be used."""


class ResponseTooLarge(BadUpstreamData):
    """A body grew past the size cap; reading stopped there."""


class SourceSkipped(UpstreamError):
    """A source was not called because its circuit breaker is open."""


class NotFound(ToolError):
    """The thing asked for does not exist: `subject` is its name, `what` its kind ("place")."""

    def __init__(self, subject: str, *, what: str = "match", source: str | None = None) -> None:
        super().__init__(f"no {what} found for {subject!r}", source=source)
        self.subject = subject
        self.what = what


class Gone(ToolError):
    """What was asked for is not there to get — deleted, expired, or not carried by this
    source (a fallback that lists fewer things) — although the request was fine: go on without
    it, never tell the caller to change it."""


class InvalidInput(ToolError):
    """The caller's input is wrong; `problem` and `fix` are plain phrases for a reader."""

    def __init__(self, field: str, problem: str, fix: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem
        self.fix = fix


class DeadlineExceeded(ToolError):
    """The whole call's time budget ran out."""


class OwnFault(ToolError):
    """A failure only the app's developers can fix, such as a request the app built that an
    upstream refused: no retry, no input to correct; another source may still answer."""


class BadSetting(ValueError):
    """A setting (`name`, e.g. an environment variable) whose value cannot be used."""

    def __init__(self, name: str, problem: str) -> None:
        super().__init__(f"{name} {problem}")
        self.name = name
        self.problem = problem


# --- any error as facts ----------------------------------------------------------------


def facts_from(error: BaseException | str, now: datetime | None = None, context: str = "") -> Facts:
    """The facts of `error`: a raw string, one of ours, or a foreign exception. `context` is
    the (cleaned) operation and user context, for the rows that depend on them."""
    if isinstance(error, str):
        return _from_string(error, now, context)
    if isinstance(error, ToolError):
        return from_ours(error, now, context)
    if isinstance(error, ValidationError):
        return from_validation(error)._replace(context=context)
    return from_foreign(error, now, context)


def _from_string(error: str, now: datetime | None, context: str) -> Facts:
    """A raw text; a stack trace is read by its last exception line, or — when that says
    nothing — by everything but its frames (never by the source lines it quotes). Cut first,
    as every text is: the tail, where the last exception line is, is kept."""
    error = cut(error)
    last = exception_line(error) if "\n" in error else error
    facts = facts_from_text(clean_text(last), now, context)
    if last is not error and facts.signal is Signal.UNKNOWN:
        facts = facts_from_text(clean_text(without_frames(error)), now, context)
    return facts


# --- our own errors -------------------------------------------------------------------------


def from_ours(error: ToolError, now: datetime | None, context: str = "") -> Facts:
    """The facts a tool put in its exception."""
    base = Facts(Signal.UNKNOWN, clean_text(error.reason), exception=type(error).__name__)
    base = base._replace(source=error.source, context=context)
    match error:
        case UpstreamStatus():
            return _upstream_status(base, error, now, context)
        case NotFound():
            return _signalled(base, Signal.NOT_FOUND, subject=error.subject, what=error.what)
        case Gone():
            return _signalled(base, Signal.GONE)
        case InvalidInput():
            fields = {"field": error.field, "problem": error.problem, "fix": error.fix}
            return _signalled(base, Signal.INVALID_INPUT, **fields)
        case BadUpstreamData():
            return _signalled(base, Signal.BAD_DATA)
        case SourceSkipped():
            return _signalled(base, Signal.SKIPPED)
        case DeadlineExceeded():
            return _signalled(base, Signal.DEADLINE)
        case OwnFault():
            return _signalled(base, Signal.INTERNAL)
    said = facts_from_text(base.text, now, context)  # a plain ToolError: its words are all
    return said._replace(exception=base.exception, source=base.source)


def _upstream_status(
    base: Facts, error: UpstreamStatus, now: datetime | None, context: str
) -> Facts:
    """A status an upstream answered, read with what its body said ("Daily API request limit
    exceeded" is a quota until tomorrow, not a busy spell); a header's wait hint wins."""
    said = facts_from_text(base.text, now, context)
    header_hint = hint_from_headers(error.headers, now)
    return said._replace(
        signal=primary(said.signals, error.status),
        status=error.status,
        hint_s=said.hint_s if header_hint is None else header_hint,
        retry_said=should_retry(error.headers),
        exception=base.exception,
        source=base.source,
    )


def _signalled(base: Facts, signal: Signal, **more: Any) -> Facts:
    return base._replace(signal=signal, signals=frozenset({signal}), **more)


# --- pydantic -------------------------------------------------------------------------------


def from_validation(error: ValidationError) -> Facts:
    """A pydantic error: which input, what is wrong with it, what to do, in words."""
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
        signals=frozenset({Signal.INVALID_INPUT}),
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
    if "input" in detail and detail["input"] is None and kind != "model_type":
        return "is null", "send it again with a value"
    if kind.endswith("_type") or kind in {"none_required", "is_instance_of"}:
        expected = _EXPECTED.get(kind.removesuffix("_type").removesuffix("_parsing"), "valid")
        return f"must be {expected}", f"send it again as {expected}"
    if kind.endswith("too_short"):
        if ctx.get("min_length") == 1:
            return "is empty", "send it again with a value"
        return "is too short", "send it again with a longer value"
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


def from_foreign(error: BaseException, now: datetime | None, context: str = "") -> Facts:
    """A foreign exception: its class, errno, status and headers, and its message's words."""
    names = [cls.__name__ for cls in type(error).__mro__]
    facts = facts_from_text(clean_text(_describe(error)), now, context)
    facts = facts._replace(**_status_facts(error, names, now))
    signals = facts.signals | _class_signals(error, names)
    if not signals and facts.status is None:
        signals = frozenset({Signal.INTERNAL})  # an exception nobody recognises: our bug
    return facts._replace(
        signal=primary(signals, facts.status),
        signals=signals,
        exception=_qualname(error),
        connect_phase=facts.connect_phase or _connect_phase(error),
    )


def _class_signals(error: BaseException, names: list[str]) -> frozenset[Signal]:
    """What the class, an errno or a gRPC code says."""
    found = next((SIGNAL_OF_CLASS[n] for n in names if n in SIGNAL_OF_CLASS), None)
    by_errno = _vocab_os.ERRNO_NAMES.get(_errno_name(error))
    return frozenset(s for s in (found, by_errno, _grpc_signal(error)) if s is not None)


def _errno_name(error: BaseException) -> str:
    """An OSError's errno by its name on this platform ("ECONNREFUSED"), else ""."""
    code = getattr(error, "errno", None)
    return errno.errorcode.get(code, "") if isinstance(code, int) else ""


def _grpc_signal(error: BaseException) -> Signal | None:
    """A grpc.RpcError's status, through its `code()`."""
    code = getattr(error, "code", None)
    if not callable(code):
        return None
    try:
        name = getattr(code(), "name", "")
    except Exception:  # a `code` that is not gRPC's: nothing to learn from it
        return None
    return _vocab_grpc.BY_NAME.get(str(name).lower())


def _connect_phase(error: BaseException | None) -> bool:
    """Whether `error`, or what caused it, was raised before anything was sent."""
    for _ in range(4):  # a short cause chain: SDK error ← httpx2 error ← OSError
        if error is None:
            return False
        names = {cls.__name__ for cls in type(error).__mro__}
        if CONNECT_CLASSES & names or _errno_name(error) in _vocab_os.CONNECT_NAMES:
            return True
        error = error.__cause__ or error.__context__
    return False


_STATUS_CLASSES = {"APIStatusError", "HTTPStatusError", "ClientResponseError", "HTTPError"}


def _status_facts(error: BaseException, names: list[str], now: datetime | None) -> dict[str, Any]:
    """Status, headers, upstream type and request id of an error that carries a response."""
    response = getattr(error, "response", None)
    if isinstance(response, Mapping):  # botocore: error.response is the parsed body
        return _botocore_facts(response)
    status = _status_of(error, response)
    upstream = getattr(error, "type", None)
    upstream = upstream if isinstance(upstream, str) else None
    if status is None and upstream is None and not _STATUS_CLASSES & set(names):
        return {}
    if upstream and (status is None or status < 400):
        status = STATUS_OF_TYPE.get(upstream, 500)
    headers = _headers(getattr(response, "headers", None) or getattr(error, "headers", None))
    message = getattr(error, "api_message", None)
    facts: dict[str, Any] = {
        "status": status if status is not None and status >= 400 else None,
        "upstream_type": upstream,
        "hint_s": hint_from_headers(headers, now),
        "retry_said": should_retry(headers),
        "request_id": getattr(error, "request_id", None) or headers.get("request-id"),
    }
    if message:
        facts["text"] = clean_text(str(message))
    return {k: v for k, v in facts.items() if v is not None}


def _botocore_facts(response: Mapping[str, Any]) -> dict[str, Any]:
    """botocore's ClientError: `response["Error"]["Code"]` and the HTTP status."""
    meta = _mapping(response.get("ResponseMetadata"))
    code = _mapping(response.get("Error")).get("Code")
    status, request_id = meta.get("HTTPStatusCode"), meta.get("RequestId")
    facts = {
        "upstream_type": code if isinstance(code, str) else None,
        "status": status if isinstance(status, int) and status >= 400 else None,
        "request_id": request_id if isinstance(request_id, str) else None,
    }
    return {k: v for k, v in facts.items() if v is not None}


def _mapping(value: object) -> Mapping[str, Any]:
    """`value` if it is a mapping (a `response` dict of any shape may carry anything), else {}."""
    return value if isinstance(value, Mapping) else {}


def _status_of(error: BaseException, response: object) -> int | None:
    for value in (
        getattr(error, "status_code", None),
        getattr(response, "status_code", None),
        getattr(error, "status", None),
        getattr(error, "code", None),
    ):
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


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
