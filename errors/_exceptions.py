"""The project's own failure types, sorted by who acts next.

Tools raise these; error-to-action classifies them like any foreign error. The tree::

    ToolError                    something a tool could not do (never shown raw to a model)
    ├── UpstreamError            a source answered, or failed to, in a way that may pass
    │   ├── UpstreamStatus       it answered with a non-2xx status (and maybe Retry-After)
    │   ├── BadUpstreamData      it answered 2xx with data we cannot use (HTML, drift, nulls)
    │   │   └── ResponseTooLarge the body passed the size cap and was not read whole
    │   └── SourceSkipped        its circuit breaker is open: not called at all
    ├── NotFound                 the thing asked for does not exist: fix the input
    ├── InvalidInput             the caller's input is wrong: fix the input, never sent upstream
    ├── DeadlineExceeded         the whole call ran out of time: stop, answer without it
    └── OwnFault                 the app's own doing (a request it built, refused): escalate

    BadSetting (a ValueError)    a setting from the environment is unusable: a usage error at
                                 start-up, named but never echoed (it may hold a key)

Every type carries plain, structured facts (a field name, a place, a status), never an
upstream body meant for a reader: those go only to `developer_note`, redacted.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = [
    "BadSetting",
    "BadUpstreamData",
    "DeadlineExceeded",
    "InvalidInput",
    "NotFound",
    "OwnFault",
    "ResponseTooLarge",
    "SourceSkipped",
    "ToolError",
    "UpstreamError",
    "UpstreamStatus",
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
