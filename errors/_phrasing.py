"""Words: one plain sentence for the user, a step for the caller, facts for the developer.

Nothing from an upstream body reaches `user_message` or `action_detail`: they are built from
the operation (ours, kept as written: `errors._subject`), our own structured facts (a field
name that looks like one, a place, a period, a wait) and each rule's fixed wording. A
sentence that still fails the plainness check falls back to the rule's own words about "that
request".
"""

from __future__ import annotations

import json
import re

from errors._facts import Facts, Period, clean_text
from errors._plain import plainness_problems
from errors._redact import redact
from errors._rules import LATER, Rule
from errors._schema import Action
from errors._subject import FALLBACK_SUBJECT, subject_of

__all__ = [
    "action_detail",
    "developer_note",
    "duration",
    "phrase",
    "subject_of",
    "tidy",
    "user_message",
]

_MAX_MESSAGE = 230

_TECHNICAL = re.compile(
    r"\w+://[^\s]{0,200}|[^\s]{0,80}[_/\\=<>{}\[\]()@#$%^*|`~][^\s]{0,80}|\[redacted\]"
    r"|\b[1-5]\d\d\b|\b\w{0,40}(?:Error|Exception|Traceback)\b"
)
_NOT_WORDS = re.compile(r"[^\w\s,'’&+-]")


def phrase(text: str, limit: int) -> str:
    """`text` as plain words: no markup, no sentence breaks, at most `limit` characters."""
    words = " ".join(_NOT_WORDS.sub(" ", _TECHNICAL.sub(" ", redact(text))).split())
    return _shorten(words, limit).strip(" ,'’&+-")


_BREAKS = re.compile(r"[.!?;]+(?=\s|$)|[{}<>\[\]`]")


def tidy(text: str, limit: int) -> str:
    """Our own words (a problem, a fix) made safe inside a sentence, symbols kept: "2 * (3 + 4)"."""
    words = " ".join(_BREAKS.sub(",", clean_text(text)).split()).strip(" ,")
    return _shorten(words, limit)


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0]


def duration(seconds: float) -> str:
    """About how long, the way a person says it."""
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size and (unit != "minute" or seconds >= 90):  # "90 seconds", not "2 min"
            count = round(seconds / size)
            return f"1 {unit}" if count == 1 else f"{count} {unit}s"
    whole = max(1, round(seconds))
    return "1 second" if whole == 1 else f"{whole} seconds"


def user_message(rule: Rule, facts: Facts, subject: str, action: Action, wait: float | None) -> str:
    """One plain sentence: what failed (`subject`, the operation as a phrase) and what happens
    next."""
    sentence = _sentence(rule, facts, subject, action, wait)
    if len(sentence) <= _MAX_MESSAGE and not plainness_problems(sentence):
        return sentence
    return rule.sentence.replace("{subject}", FALLBACK_SUBJECT)


def _sentence(rule: Rule, facts: Facts, subject: str, action: Action, wait: float | None) -> str:
    if action is Action.ESCALATE and rule.action.retries:
        return f"{subject} still isn't working after retrying, so it's stopped for now; {LATER}."
    if rule.action is Action.WAIT:
        return _wait_sentence(rule, subject, facts.hint_s, wait)
    if rule.error_type == "quota_exhausted" and facts.period in _PERIOD_WORDS:
        return _period_sentence(subject, facts.period)
    if rule.error_type == "not_found" and facts.subject is not None:
        return (
            f"{subject} stopped because no {phrase(facts.what or 'match', 20)} called "
            f"“{phrase(facts.subject, 40)}” could be found; check the spelling and try again."
        )
    if rule.error_type in _NAMES_THE_FIELD and facts.field:
        return (
            f"{subject} couldn't start because the {phrase(facts.field, 40)} "
            f"{tidy(facts.problem or 'is not valid', 60)}; "
            f"{tidy(facts.fix or 'change it and try again', 100)}."
        )
    return rule.sentence.replace("{subject}", subject)


_NAMES_THE_FIELD = frozenset({"invalid_input", "invalid_request"})
_PERIOD_WORDS = {
    Period.DAY: ("daily", "tomorrow"),
    Period.MONTH: ("monthly", "next month, or ask the account owner to raise it"),
}


def _period_sentence(subject: str, period: Period | None) -> str:
    adjective, when = _PERIOD_WORDS[period or Period.DAY]
    return f"{subject} has reached the service's {adjective} usage limit; please try again {when}."


def _wait_sentence(rule: Rule, subject: str, hint: float | None, wait: float | None) -> str:
    if hint is None or wait is None:
        return rule.sentence.replace("{subject}", subject)
    if hint > wait:
        return (
            f"{subject} is held up because the service is busy for about {duration(hint)}; "
            "please try again after that."
        )
    return (
        f"{subject} is on hold because the service is busy; "
        f"it should be ready in about {duration(wait)}."
    )


def action_detail(rule: Rule, facts: Facts, action: Action, wait: float | None) -> str:
    """The next step, precise enough for a program or an operator to follow."""
    if action is Action.ESCALATE and rule.action.retries:
        return "Retries are used up; stop retrying and report the failure (or use a fallback)."
    if action is Action.WAIT and facts.hint_s is not None and wait is not None:
        if facts.hint_s > wait:
            return (
                f"The server asked for {duration(facts.hint_s)}, more than the "
                f"{duration(wait)} cap: do not sleep; use a fallback or report the wait."
            )
        return f"Wait {duration(wait)} per Retry-After, then retry the same request unchanged."
    if rule.error_type == "quota_exhausted" and facts.hint_s is not None and facts.period:
        return f"Do not retry. The limit resets in about {duration(facts.hint_s)}."
    if rule.error_type in _NAMES_THE_FIELD and facts.field and facts.fix:
        return (
            f"Correct the {phrase(facts.field, 40)} ({tidy(facts.fix, 100)}) and call "
            "again; never resend it unchanged."
        )
    if action is Action.RETRY and facts.connect_phase:
        return "Retry once right away (nothing was sent); escalate or fall back if it fails again."
    return rule.detail


_MAX_NOTE = 400


def developer_note(facts: Facts, rule: Rule, operation: str, retry_count: int) -> str:
    """The technical facts for the log: status, type, reason, hint, retry count, request id.
    `operation` is already cleaned (cut, tidied, redacted)."""
    parts = [f"op={operation[:80]!r}"] if operation else []
    said = [p for p in (facts.source, facts.status and str(facts.status), facts.upstream_type) if p]
    if said:
        parts.append(" ".join(said))
    if facts.exception:
        parts.append(facts.exception)
    if facts.hint_s is not None:
        parts.append(f"Retry-After: {facts.hint_s:.3g}s")
    parts.append(f"class={rule.error_type} retry_count={retry_count}")
    if facts.request_id:
        parts.append(f"request_id={clean_text(facts.request_id)[:64]}")
    if facts.text:
        parts.append(f"reason: {facts.text[:200].rstrip('.')}")
    return _fit(". ".join(parts), _MAX_NOTE)


def _fit(text: str, limit: int) -> str:
    """`text` cut so that even its JSON-escaped form stays within `limit` characters."""
    if len(text) + text.count('"') + text.count("\\") <= limit and text.isprintable():
        return text  # printable text escapes only quotes and backslashes, one character each
    over = len(json.dumps(text, ensure_ascii=False)) - 2 - limit
    while over > 0:
        text = text[: len(text) - over]
        over = len(json.dumps(text, ensure_ascii=False)) - 2 - limit
    return text
