"""error-to-action: turn any failure into what it means and what happens next.

`classify` (and `error_to_action`, its six fields) answer with the rules; the Claude-backed
variants (`explain_with_claude`, `classify_with_fallback_model`) ask the model and check its
answer against the same schema and policy. `register_secret` adds a value `redact` masks.

The Claude-backed variants (and with them structlog and asyncio) are imported on first use
(PEP 562): the rules alone are what most callers need.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from errors._classify import Verdict, classify, error_to_action
from errors._exceptions import (
    BadSetting,
    BadUpstreamData,
    DeadlineExceeded,
    InvalidInput,
    NotFound,
    OwnFault,
    ResponseTooLarge,
    SourceSkipped,
    ToolError,
    UpstreamError,
    UpstreamStatus,
)
from errors._phrasing import duration
from errors._plain import plainness_problems
from errors._redact import redact, register_secret
from errors._schema import Action, ErrorAction

if TYPE_CHECKING:
    from errors._llm import Assisted, classify_with_fallback_model, explain_with_claude

__all__ = [
    "Action",
    "Assisted",
    "BadSetting",
    "BadUpstreamData",
    "DeadlineExceeded",
    "ErrorAction",
    "InvalidInput",
    "NotFound",
    "OwnFault",
    "ResponseTooLarge",
    "SourceSkipped",
    "ToolError",
    "UpstreamError",
    "UpstreamStatus",
    "Verdict",
    "classify",
    "classify_with_fallback_model",
    "duration",
    "error_to_action",
    "explain_with_claude",
    "plainness_problems",
    "redact",
    "register_secret",
]


_LLM = {"Assisted", "classify_with_fallback_model", "explain_with_claude"}


def __getattr__(name: str) -> Any:
    if name not in _LLM:
        raise AttributeError(f"module 'errors' has no attribute {name!r}")
    from errors import _llm

    value = getattr(_llm, name)
    globals()[name] = value
    return value
