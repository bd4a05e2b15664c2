"""The classification table: facts → what it is, what happens, in which words.

First match wins. Each row says why it is there; special cases that real services get wrong
come before the general rows they would otherwise fall into (a 403 that is a rate limit, a 429
or 400 that is a spent quota). `{subject}` in a sentence is the operation, as a phrase.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from errors._facts import Facts, Signal
from errors._schema import Action

__all__ = ["LATER", "RULES", "Rule", "rule_for"]

Match = Callable[[Facts], bool]


@dataclass(frozen=True, slots=True)
class Rule:
    """One row of the table."""

    error_type: str
    matches: Match
    action: Action
    sentence: str  # the user_message, with {subject}
    detail: str  # the action_detail
    retries: int = 0  # retries this kind earns before it escalates


def signal(*signals: Signal) -> Match:
    return lambda f: f.signal in signals


def status(*codes: int) -> Match:
    return lambda f: f.status in codes


def status_range(low: int, high: int) -> Match:
    return lambda f: f.status is not None and low <= f.status <= high


def upstream(*types: str) -> Match:
    return lambda f: f.upstream_type in types


def says(pattern: str) -> Match:
    regex = re.compile(pattern, re.IGNORECASE)
    return lambda f: regex.search(f.text) is not None


def about(pattern: str) -> Match:
    regex = re.compile(pattern, re.IGNORECASE)
    return lambda f: regex.search(f.context) is not None


def both(a: Match, b: Match) -> Match:
    return lambda f: a(f) and b(f)


def either(*ms: Match) -> Match:
    return lambda f: any(m(f) for m in ms)


_AUTH = status(401, 403)
_QUOTA = (
    r"quota|billing|credit balance|insufficient (?:funds|credit|balance|quota)|payment"
    r"|plan limit|usage limit|exceeded your current"
)
_ADMIN = r"\bSSO\b|SAML|administrator|\badmin\b|organi[sz]ation|\brole\b|policy"
LATER = "please try again in a few minutes"
_BUSY = "{subject} hit a busy service, so it will be tried again in a moment."
_BACKOFF = "Back off with full-jitter exponential delay, then retry the same request."

RULES: tuple[Rule, ...] = (
    # Our own verdicts first: the tool already knows exactly what went wrong.
    Rule(
        "invalid_input",
        signal(Signal.INVALID_INPUT),
        Action.FIX_INPUT,  # same input, same no
        "{subject} was given input it can't use, so the input needs correcting first.",
        "Correct the input and call again; never resend it unchanged.",
    ),
    Rule(
        "not_found",
        signal(Signal.NOT_FOUND),
        Action.FIX_INPUT,  # a name to correct
        "{subject} couldn't find what was asked for; check the name and try again.",
        "Retrying cannot find it: ask for a corrected name, or skip this item.",
    ),
    Rule(
        "deadline_exceeded",
        signal(Signal.DEADLINE),
        Action.ESCALATE,  # the budget is spent
        f"{{subject}} ran out of time, so it was stopped; {LATER}.",
        "Stop: the call's time budget is spent. Answer without this result.",
    ),
    Rule(
        "source_skipped",
        signal(Signal.SKIPPED),
        Action.SKIP,  # breaker open: use another
        "{subject} skipped a service that keeps failing and will use another if there is one.",
        "Skip this source until its cool-down ends; try the next source.",
    ),
    Rule(
        "auth_missing_key",
        signal(Signal.MISSING_KEY),
        Action.FIX_INPUT,  # set it and go
        "{subject} can't start because no API key is set; add the key or run offline.",
        "Set ANTHROPIC_API_KEY (or run offline), then try again.",
    ),
    Rule(
        "auth_permission_denied",
        signal(Signal.PERMISSION),
        Action.ESCALATE,  # local access
        "{subject} isn't allowed to use what it needs here; someone with access must grant it.",
        "Do not retry. Grant the process access to the resource named in the developer note.",
    ),
    # Spent quota or billing, even when sent as 429 or 400: waiting will not refill it.
    Rule(
        "quota_exhausted",
        either(status(402), upstream("billing_error"), both(status_range(400, 499), says(_QUOTA))),
        Action.ESCALATE,
        "{subject} is blocked because the account's usage limit or billing needs attention "
        "from its owner.",
        "Do not retry. An account owner must raise the quota or fix billing.",
    ),
    # GitHub and others send a rate limit as 403 "API rate limit exceeded": it passes.
    Rule("rate_limit", both(status(403), says(r"rate.?limit")), Action.WAIT, _BUSY, _BACKOFF, 2),
    # Capacity: 529, and the SDK's mid-stream overloaded_error (HTTP 200, the type decides).
    Rule(
        "overloaded",
        either(status(529), upstream("overloaded_error")),
        Action.WAIT,
        _BUSY,
        _BACKOFF,
        2,
    ),
    Rule("rate_limit", status(429), Action.WAIT, _BUSY, _BACKOFF, 2),
    # 503 with Retry-After is the server scheduling us, like a 429.
    Rule(
        "service_unavailable",
        both(status(503), lambda f: f.hint_s is not None),
        Action.WAIT,
        _BUSY,
        _BACKOFF,
        2,
    ),
    # Auth that only someone else can fix: no retry, no guessing.
    Rule(
        "auth_requires_admin",
        both(_AUTH, says(_ADMIN)),
        Action.ESCALATE,
        "{subject} needs access that only an administrator can grant; please ask them.",
        "Do not retry. An administrator must grant access (SSO, role or policy).",
    ),
    # Auth with a known fix: a 403 on a push means "fork it" (the text or the operation says so).
    Rule(
        "auth_permission_denied",
        both(
            status(403),
            either(says(r"\bpush\b|\bfork\b|write access"), about(r"\bpush\b|pull request")),
        ),
        Action.FIX_INPUT,
        "You don't have write access to this repository; fork it, push to your fork, then "
        "open a pull request.",
        "Fork the repository, push the branch to the fork, then open a pull request.",
    ),
    Rule(
        "auth_token_expired",
        both(_AUTH, says(r"expired")),
        Action.FIX_INPUT,
        "{subject} was refused because the access token has expired; sign in again or renew "
        "it, then retry.",
        "Sign in again or renew the access token, then retry with the new one.",
    ),
    Rule(
        "auth_invalid_credentials",
        either(status(401), upstream("authentication_error")),
        Action.FIX_INPUT,
        "{subject} was refused because the credentials weren't accepted; check the key or "
        "token and try again.",
        "Check that the API key or token is correct and active, then try again.",
    ),
    # A plain 403: someone has to grant the permission.
    Rule(
        "auth_permission_denied",
        status(403),
        Action.ESCALATE,
        "{subject} isn't allowed with the current permissions; someone who manages access "
        "needs to grant it.",
        "Do not retry. Someone who manages access must grant the permission.",
    ),
    Rule(
        "not_found",
        status(404, 410),
        Action.SKIP,  # nothing there; go on without it
        "{subject} found nothing there, so it will be skipped.",
        "Skip this item; retrying the same request cannot find it.",
    ),
    Rule(
        "request_too_large",
        status(413),
        Action.FIX_INPUT,  # send less
        "{subject} sent more than the service accepts; try again with less.",
        "Send a smaller request (fewer items or a shorter payload).",
    ),
    Rule(
        "timeout",
        either(status(408, 504), signal(Signal.TIMEOUT)),
        Action.RETRY,
        "{subject} took too long, so it will be tried once more.",
        "Retry once with a lighter request; escalate if it times out again.",
        1,
    ),
    Rule(
        "conflict",
        status(409),
        Action.RETRY,  # a concurrent change; try again
        "{subject} clashed with another change, so it will be tried once more.",
        "Retry once after a short backoff; escalate if the conflict persists.",
        1,
    ),
    Rule(
        "invalid_request",
        status_range(400, 499),
        Action.FIX_INPUT,  # malformed: fix, resend
        "{subject} was turned down as malformed, so it needs correcting before another try.",
        "Fix the request's parameters before sending it again; never resend it as is.",
    ),
    Rule(
        "server_error",
        status_range(500, 599),
        Action.RETRY,  # once, then escalate
        "{subject} hit a temporary problem at the service, so it will be tried once more.",
        "Retry once after a short jittered backoff; escalate if it fails again.",
        1,
    ),
    Rule(
        "network",
        signal(Signal.NETWORK),
        Action.RETRY,  # refused, reset, DNS
        "{subject} couldn't reach the service, so it will be tried once more.",
        "Retry once after a short backoff; escalate or fall back if still unreachable.",
        1,
    ),
    Rule(
        "bad_data",
        signal(Signal.BAD_DATA),
        Action.RETRY,  # once, then fall back
        "{subject} got an answer that didn't make sense, so it will be tried once more.",
        "Retry once; if the data is still unusable, fall back to another source.",
        1,
    ),
    Rule(
        "internal_error",
        signal(Signal.INTERNAL),
        Action.ESCALATE,  # our bug: developers act
        "{subject} failed because of a problem in this app, which has been logged for the "
        "developers.",
        "Do not retry. Fix the bug described in the developer note.",
    ),
    Rule(
        "unknown",
        lambda f: True,
        Action.ESCALATE,  # unidentified: do not loop on it
        "{subject} failed for a reason that couldn't be identified, so it has been logged for "
        "a closer look.",
        "Do not retry automatically. Inspect the developer note and escalate.",
    ),
)


def rule_for(facts: Facts) -> Rule:
    """The first row that matches (the last row always does)."""
    return next(rule for rule in RULES if rule.matches(facts))
