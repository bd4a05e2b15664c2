"""Words: one plain sentence for the user, a step for the caller, facts for the developer.

Nothing from an upstream body ever reaches `user_message` or `action_detail`: they are built
only from the operation, our own structured facts and fixed phrases.
"""

from __future__ import annotations

import re

from errors._facts import Facts
from errors._redact import redact
from errors._rules import Rule
from errors._schema import Action

__all__ = [
    "action_detail",
    "developer_note",
    "duration",
    "quoted",
    "subject_of",
    "user_message",
]

_TECHNICAL = re.compile(
    r"\w*://\S*|\S*[_/\\=<>{}\[\]()@#$%^*|`~]\S*|\S*\[redacted\]\S*|\b[1-5]\d\d\b"
    r"|\b\w*(?:Error|Exception|Traceback)\b"
)
_CUT_AT = re.compile(r"\s+(?:from|via|using|through|against)\s+.*$", re.IGNORECASE)
_NOT_WORDS = re.compile(r"[^\w\s,'’&+-]")
_MAX_SUBJECT = 60


def subject_of(operation: str) -> str:
    """The operation as a short, plain phrase to start a sentence: "Fetching billing data"."""
    text = _TECHNICAL.sub(" ", redact(operation))
    text = _CUT_AT.sub("", _NOT_WORDS.sub(" ", text))
    phrase = _shorten(" ".join(text.split()), _MAX_SUBJECT).strip(" ,'’&+-")
    return phrase[:1].upper() + phrase[1:] if phrase else "That request"


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0]


def quoted(value: str, limit: int = 40) -> str:
    """A name the caller gave, safe inside a sentence: no sentence breaks, no markup."""
    clean = " ".join(_NOT_WORDS.sub(" ", redact(value)).split())[:limit]
    return f"“{clean}”" if clean else "that name"


def duration(seconds: float) -> str:
    """About how long, the way a person says it."""
    if seconds < 90:
        whole = max(1, round(seconds))
        return f"{whole} second" if whole == 1 else f"{whole} seconds"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} minutes"
    hours = round(seconds / 3600)
    return "1 hour" if hours == 1 else f"{hours} hours"


def user_message(rule: Rule, facts: Facts, subject: str, action: Action, wait: float | None) -> str:
    """One sentence: what failed (by name) and what happens next."""
    if (fixed := _FIX_SENTENCE.get(rule.error_type)) and action is Action.FIX_INPUT:
        return f"{fixed}."
    if action is Action.ESCALATE and rule.action in {Action.RETRY, Action.WAIT}:
        return f"{subject} still isn't working after a retry, so it's stopped for now; {_LATER}."
    if rule.action is Action.WAIT:
        return _wait_sentence(subject, facts.hint_s, wait)
    if rule.error_type in {"invalid_input", "not_found"} and (facts.field or facts.subject):
        return _input_sentence(subject, facts)
    return f"{subject} {_PHRASES[rule.error_type]}."


_LATER = "please try again in a few minutes"


def _wait_sentence(subject: str, hint: float | None, wait: float | None) -> str:
    if hint is None or wait is None:
        return f"{subject} hit a busy service, so it will be tried again in a moment."
    if hint > wait:
        return (
            f"{subject} is held up because the service is busy for about {duration(hint)}; "
            "please try again after that."
        )
    return (
        f"{subject} is on hold because the service is busy; "
        f"it should be ready in about {duration(wait)}."
    )


def _input_sentence(subject: str, facts: Facts) -> str:
    if facts.subject is not None:
        return (
            f"{subject} stopped because no {facts.what or 'match'} called "
            f"{quoted(facts.subject)} could be found; check the spelling and try again."
        )
    fix = quoted(facts.fix or "", 100).strip("“”") if facts.fix else "change it and try again"
    return f"{subject} couldn't start because the {facts.field} {facts.problem}; {fix}."


_PHRASES = {
    "invalid_input": "was given input it can't use, so the input needs correcting first",
    "deadline_exceeded": f"ran out of time, so it was stopped; {_LATER}",
    "source_skipped": "skipped a service that keeps failing, and will use another if there is one",
    "auth_missing_key": "can't start because no API key is set; add the key or run offline",
    "quota_exhausted": "is blocked because the account's usage limit or billing needs attention "
    "from its owner",
    "auth_requires_admin": "needs access that only an administrator can grant; please ask them",
    "auth_permission_denied": "isn't allowed with the current permissions; someone who manages "
    "access needs to grant it",
    "auth_token_expired": "was refused because the access token has expired; sign in again or "
    "renew it, then retry",
    "auth_invalid_credentials": "was refused because the credentials weren't accepted; check the "
    "key or token and try again",
    "not_found": "found nothing there, so it will be skipped",
    "request_too_large": "sent more than the service accepts; try again with less",
    "timeout": "took too long, so it will be tried once more",
    "conflict": "clashed with another change, so it will be tried once more",
    "invalid_request": "was turned down as malformed, so it needs correcting before another try",
    "server_error": "hit a temporary problem at the service, so it will be tried once more",
    "network": "couldn't reach the service, so it will be tried once more",
    "bad_data": "got an answer that didn't make sense, so it will be tried once more",
    "internal_error": "failed because of a problem in this app, which has been logged for the "
    "developers",
    "unknown": "failed for a reason that couldn't be identified, so it has been logged for a "
    "closer look",
}

# Known-fix auth rows say exactly what to do, in place of the generic phrase.
_FIX_SENTENCE = {
    "auth_permission_denied": "You don't have write access to this repository; fork it, push "
    "to your fork, then open a pull request",
}


def action_detail(rule: Rule, facts: Facts, action: Action, wait: float | None) -> str:
    """The next step, precise enough for a program or an operator to follow."""
    if action is Action.ESCALATE and rule.action in {Action.RETRY, Action.WAIT}:
        return "Retries are used up; stop retrying and report the failure (or use a fallback)."
    if action is Action.WAIT:
        return _wait_detail(facts.hint_s, wait)
    if rule.fix:
        return rule.fix
    return _DETAILS.get(rule.error_type, _DETAILS["unknown"]).format(
        field=facts.field or "input", fix=quoted(facts.fix or "", 100).strip("“”")
    )


def _wait_detail(hint: float | None, wait: float | None) -> str:
    if hint is None or wait is None:
        return "Back off with full-jitter exponential delay, then retry the same request."
    if hint > wait:
        return (
            f"The server asked for {hint:g} s, more than the {wait:g} s cap: do not sleep; "
            "use a fallback or report the wait."
        )
    return f"Wait {duration(wait)} per Retry-After, then retry the same request unchanged."


_DETAILS = {
    "invalid_input": "Correct the {field} ({fix}) and call again; do not resend it unchanged.",
    "not_found": "Retrying cannot find it: ask for a corrected name, or skip this item.",
    "deadline_exceeded": "Stop: the call's time budget is spent. Answer without this result.",
    "source_skipped": "Skip this source until its cool-down ends; try the next source.",
    "quota_exhausted": "Do not retry. An account owner must raise the quota or fix billing.",
    "auth_requires_admin": "Do not retry. An administrator must grant access (SSO, role, plan).",
    "auth_permission_denied": "Do not retry. Someone who manages access must grant permission.",
    "request_too_large": "Send a smaller request (fewer items or a shorter payload).",
    "timeout": "Retry once with a lighter request; escalate if it times out again.",
    "conflict": "Retry once after a short backoff; escalate if the conflict persists.",
    "invalid_request": "Fix the request's parameters before sending it again; never resend as is.",
    "server_error": "Retry once after a short jittered backoff; escalate if it fails again.",
    "network": "Retry once after a short backoff; escalate or fall back if still unreachable.",
    "bad_data": "Retry once; if the data is still unusable, fall back to another source.",
    "internal_error": "Do not retry. Fix the bug described in the developer note.",
    "unknown": "Do not retry automatically. Inspect the developer note and escalate.",
}


def developer_note(facts: Facts, rule: Rule, operation: str, retry_count: int) -> str:
    """The technical facts for the log: status, type, reason, hint, retry count, request id."""
    parts = [
        operation and f"op={operation[:80]!r}",
        " ".join(p for p in (facts.source, str(facts.status or ""), facts.upstream_type) if p),
        facts.exception and f"{facts.exception}",
        facts.text and f"reason: {facts.text[:160].rstrip('.')}",
        facts.hint_s is not None and f"Retry-After: {facts.hint_s:g}s",
        f"class={rule.error_type} retry_count={retry_count}",
        facts.request_id and f"request_id={facts.request_id}",
    ]
    return redact(". ".join(p for p in parts if p))[:400]
