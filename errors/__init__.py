"""error-to-action: turn any failure into what it means and what happens next.

    verdict = classify(error, "getting the weather for Paris", retry_count=0)
    verdict.result.user_message   # one plain sentence, the only thing a model reads
    verdict.step                  # retry this source, try the next one, or stop

`classify` (and `error_to_action`, its six fields) answer with the rules; the Claude-backed
variants (`explain_with_claude`, `classify_with_fallback_model`) ask the model and check its
answer against the same schema and policy. `register_secret` adds a value `redact` masks.

The walk, for a reader: `_classify.py` (the verdict) → `_exceptions.py` (any error as
`Facts`) → `_text.py` (reading its words and numbers) → `_rules.py` (which kind)
→ `_kinds.py` (what each kind means) → `_wording.py` (the sentences).
"""

from errors._classify import MAX_RETRIES, Verdict, classify, error_to_action
from errors._exceptions import (
    BadSetting,
    BadUpstreamData,
    DeadlineExceeded,
    Gone,
    InvalidInput,
    NotFound,
    OwnFault,
    ResponseTooLarge,
    SourceSkipped,
    ToolError,
    UpstreamError,
    UpstreamStatus,
)
from errors._kinds import Action, Blame, ErrorAction, ErrorType, Kind, Step
from errors._llm import Assisted, classify_with_fallback_model, explain_with_claude
from errors._redact import MIN_SECRET_LENGTH, for_outside, redact, register_secret
from errors._text import MAX_WAIT_S, exception_line, hint_from_headers, is_stack_trace
from errors._wording import duration, plainness_problems

__all__ = [
    "MAX_RETRIES",
    "MAX_WAIT_S",
    "MIN_SECRET_LENGTH",
    "Action",
    "Assisted",
    "BadSetting",
    "BadUpstreamData",
    "Blame",
    "DeadlineExceeded",
    "ErrorAction",
    "ErrorType",
    "Gone",
    "InvalidInput",
    "Kind",
    "NotFound",
    "OwnFault",
    "ResponseTooLarge",
    "SourceSkipped",
    "Step",
    "ToolError",
    "UpstreamError",
    "UpstreamStatus",
    "Verdict",
    "classify",
    "classify_with_fallback_model",
    "duration",
    "error_to_action",
    "exception_line",
    "explain_with_claude",
    "for_outside",
    "hint_from_headers",
    "is_stack_trace",
    "plainness_problems",
    "redact",
    "register_secret",
]
