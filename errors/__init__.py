"""error-to-action: turn any failure into what it means and what happens next."""

from errors._classify import Verdict, classify, error_to_action
from errors._exceptions import (
    BadSetting,
    BadUpstreamData,
    DeadlineExceeded,
    InvalidInput,
    NotFound,
    ResponseTooLarge,
    SourceSkipped,
    ToolError,
    UpstreamError,
    UpstreamStatus,
)
from errors._llm import explain_with_claude
from errors._phrasing import duration
from errors._plain import plainness_problems
from errors._redact import redact, register_secret
from errors._schema import Action, ErrorAction

__all__ = [
    "Action",
    "BadSetting",
    "BadUpstreamData",
    "DeadlineExceeded",
    "ErrorAction",
    "InvalidInput",
    "NotFound",
    "ResponseTooLarge",
    "SourceSkipped",
    "ToolError",
    "UpstreamError",
    "UpstreamStatus",
    "Verdict",
    "classify",
    "duration",
    "error_to_action",
    "explain_with_claude",
    "plainness_problems",
    "redact",
    "register_secret",
]
