"""The classification table: facts → (error_type, action, retries allowed), first match wins.

Each row says why. Special cases that real services get wrong come before the general rows
they would otherwise fall into (a 403 that is a rate limit, a 429 that is a spent quota).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from errors._facts import Facts, Signal
from errors._schema import Action

__all__ = ["RULES", "Rule", "rule_for"]

Match = Callable[[Facts], bool]


@dataclass(frozen=True, slots=True)
class Rule:
    """One row: when it matches, what it is called, what happens, how often it may be retried."""

    error_type: str
    matches: Match
    action: Action
    retries: int = 0  # attempts after the first that this kind earns before escalating
    fix: str = ""  # the known fix, for fix_input rows that have one


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


def both(a: Match, b: Match) -> Match:
    return lambda f: a(f) and b(f)


def either(*ms: Match) -> Match:
    return lambda f: any(m(f) for m in ms)


_AUTH = status(401, 403)
_QUOTA_WORDS = r"quota|billing|credit balance|insufficient|payment|plan limit|usage limit"
_ADMIN_WORDS = r"\bSSO\b|SAML|administrator|\badmin\b|organi[sz]ation|role|policy|billing"

RULES: tuple[Rule, ...] = (
    # Our own verdicts first: the tool already knows exactly what went wrong.
    Rule("invalid_input", signal(Signal.INVALID_INPUT), Action.FIX_INPUT),  # same input, same no
    Rule("not_found", signal(Signal.NOT_FOUND), Action.FIX_INPUT),  # a name to correct
    Rule("deadline_exceeded", signal(Signal.DEADLINE), Action.ESCALATE),  # the budget is spent
    Rule("source_skipped", signal(Signal.SKIPPED), Action.SKIP),  # breaker open: use another
    Rule(
        "auth_missing_key",
        signal(Signal.MISSING_KEY),
        Action.FIX_INPUT,
        fix="Set ANTHROPIC_API_KEY (or run offline), then try again.",
    ),
    # Spent quota or billing, even when sent as 429: waiting will not refill it.
    Rule("quota_exhausted", either(status(402), upstream("billing_error")), Action.ESCALATE),
    Rule("quota_exhausted", both(status(429, 403), says(_QUOTA_WORDS)), Action.ESCALATE),
    # GitHub and others send a rate limit as 403 "API rate limit exceeded": it passes.
    Rule("rate_limit", both(status(403), says(r"rate.?limit")), Action.WAIT, retries=2),
    # Capacity: 529, and the SDK's mid-stream overloaded_error (HTTP 200, type decides).
    Rule("overloaded", either(status(529), upstream("overloaded_error")), Action.WAIT, retries=2),
    Rule("rate_limit", status(429), Action.WAIT, retries=2),
    # 503 with Retry-After is the server scheduling us, like a 429.
    Rule(
        "service_unavailable",
        lambda f: f.status == 503 and f.hint_s is not None,
        Action.WAIT,
        retries=2,
    ),
    # Auth that only someone else can fix: no retry, no guessing.
    Rule("auth_requires_admin", both(_AUTH, says(_ADMIN_WORDS)), Action.ESCALATE),
    # Auth with a known fix the caller can apply.
    Rule(
        "auth_permission_denied",
        both(status(403), says(r"\bpush\b|\bfork\b|write access")),
        Action.FIX_INPUT,
        fix="Fork the repository, push the branch to the fork, then open a pull request.",
    ),
    Rule(
        "auth_token_expired",
        both(_AUTH, says(r"expired")),
        Action.FIX_INPUT,
        fix="Sign in again or renew the access token, then retry with the new one.",
    ),
    Rule(
        "auth_invalid_credentials",
        either(status(401), upstream("authentication_error")),
        Action.FIX_INPUT,
        fix="Check that the API key or token is correct and active, then try again.",
    ),
    # A plain 403: someone has to grant the permission.
    Rule("auth_permission_denied", status(403), Action.ESCALATE),
    Rule("not_found", status(404, 410), Action.SKIP),  # nothing there; go on without it
    Rule("request_too_large", status(413), Action.FIX_INPUT),  # send less
    Rule("timeout", either(status(408, 504), signal(Signal.TIMEOUT)), Action.RETRY, retries=1),
    Rule("conflict", status(409), Action.RETRY, retries=1),  # a concurrent change; try again
    Rule("invalid_request", status_range(400, 499), Action.FIX_INPUT),  # malformed: resend fixed
    Rule("server_error", status_range(500, 599), Action.RETRY, retries=1),  # once, then escalate
    Rule("network", signal(Signal.NETWORK), Action.RETRY, retries=1),  # refused, reset, DNS
    Rule("bad_data", signal(Signal.BAD_DATA), Action.RETRY, retries=1),  # once, then fall back
    Rule("internal_error", signal(Signal.INTERNAL), Action.ESCALATE),  # our bug: tell developers
    Rule("unknown", lambda f: True, Action.ESCALATE),  # unidentified: do not loop on it
)


def rule_for(facts: Facts) -> Rule:
    """The first row that matches (the last row always does)."""
    return next(rule for rule in RULES if rule.matches(facts))
