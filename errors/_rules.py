"""The classification table: facts → what it is, what happens, in which words, and why.

First match wins. Every row carries its reason (`why`). A row is data: the signals, statuses
and upstream error types that can make it match (its *gate*: any one will do), and an
optional further condition (`when`). Specific kinds come before the general rows they would
otherwise fall into: a card decline before a spent quota, a spent quota before a rate limit, a
rate limit sent as 403 before the 403 rows, an AWS AccessDenied sent as 400 before
"malformed", a connection that never opened before a timeout word in its URL. `{subject}` in
a sentence is the operation, as a phrase.

`rule_for` looks only at the rows whose gate the facts open (an index by signal, status and
type), in table order, so its cost does not grow with the table.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from errors._facts import Facts, Period, Signal
from errors._schema import Action

__all__ = ["LATER", "RULES", "Rule", "rule_for"]

Match = Callable[[Facts], bool]
S = Signal


@dataclass(frozen=True, slots=True)
class Rule:
    """One row of the table."""

    error_type: str
    action: Action
    sentence: str  # the user_message, with {subject}
    detail: str  # the action_detail
    why: str  # the reason this row exists and sits where it does
    signals: frozenset[Signal] = frozenset()  # the gate: any of these signals …
    statuses: frozenset[int] = frozenset()  # … or of these statuses …
    upstreams: frozenset[str] = frozenset()  # … or of these upstream error types
    when: Match | None = None  # and then this, if given
    retries: int = 0  # retries this kind earns before it escalates

    def matches(self, facts: Facts) -> bool:
        """Whether the gate opens for `facts` and the condition holds."""
        gated = self.signals or self.statuses or self.upstreams
        opened = (
            not self.signals.isdisjoint(facts.signals)
            or facts.status in self.statuses
            or (facts.upstream_type or "").lower() in self.upstreams
        )
        return (opened or not gated) and (self.when is None or self.when(facts))


def mentions(*words: str) -> Match:
    """The error's text has any of `words` as a whole word."""
    return lambda f: f.mentions(*words)


def about(pattern: str) -> Match:
    """The operation or user context matches `pattern`."""
    regex = re.compile(pattern, re.IGNORECASE)
    return lambda f: regex.search(f.context) is not None


def _write_access(f: Facts) -> bool:
    return f.mentions("write") and f.mentions("access")


def either(*ms: Match) -> Match:
    return lambda f: any(m(f) for m in ms)


def period(*periods: Period) -> Match:
    return lambda f: f.period in periods


def busy_status(f: Facts) -> bool:
    """No status, or one a busy service sends (429, 5xx): words of being busy are believed."""
    return f.status is None or f.status == 429 or f.status >= 500


def client_status_or_none(f: Facts) -> bool:
    return f.status is None or 400 <= f.status <= 499


def _row(
    error_type: str,
    action: Action,
    sentence: str,
    detail: str,
    why: str,
    *,
    signals: Iterable[Signal] = (),
    statuses: Iterable[int] = (),
    upstreams: Iterable[str] = (),
    when: Match | None = None,
    retries: int = 0,
) -> Rule:
    return Rule(
        error_type,
        action,
        sentence,
        detail,
        why,
        frozenset(signals),
        frozenset(statuses),
        frozenset(upstreams),
        when,
        retries,
    )


_ADMIN = ("sso", "saml", "administrator", "admin", "organization", "organisation", "role", "policy")
LATER = "please try again in a few minutes"
_BUSY = "{subject} hit a busy service, so it will be tried again in a moment."
_BACKOFF = "Back off with full-jitter exponential delay, then retry the same request."
_QUOTA = (
    "{subject} is blocked because the account's usage limit or billing needs attention "
    "from its owner."
)
_NO_QUOTA = "Do not retry. An account owner must raise the quota or fix billing."
_REFUSED = "{subject} couldn't reach the service, so it will be tried once more."
_CLIENT_ERRORS = range(400, 500)
_SERVER_ERRORS = range(500, 600)
E, F, R, W, K = Action.ESCALATE, Action.FIX_INPUT, Action.RETRY, Action.WAIT, Action.SKIP

RULES: tuple[Rule, ...] = (
    # Our own verdicts: the tool already knows exactly what went wrong.
    _row(
        "deadline_exceeded",
        E,
        f"{{subject}} ran out of time, so it was stopped; {LATER}.",
        "Stop: the call's time budget is spent. Answer without this result.",
        "the whole call's budget is spent: nothing left to retry with",
        signals=[S.DEADLINE],
    ),
    _row(
        "source_skipped",
        K,
        "{subject} skipped a service that keeps failing and will use another if there is one.",
        "Skip this source until its cool-down ends; try the next source.",
        "its circuit breaker is open: use another source",
        signals=[S.SKIPPED],
    ),
    _row(
        "auth_missing_key",
        F,
        "{subject} can't start because a key or password isn't set; add it or run offline.",
        "Set the missing key or credentials (for Claude, ANTHROPIC_API_KEY) or run offline, "
        "then try again.",
        "nothing was sent for want of a credential: set it and go",
        signals=[S.MISSING_KEY],
    ),
    # This machine's limits: retrying cannot make room; a person must.
    _row(
        "disk_full",
        E,
        "{subject} failed because the disk is full; someone needs to free up space first.",
        "Do not retry. Free disk space (or raise the disk quota), then try again.",
        "ENOSPC/EDQUOT/SQLSTATE 53100: no retry makes room",
        signals=[S.DISK_FULL],
    ),
    _row(
        "out_of_memory",
        E,
        "{subject} failed because the system ran out of memory; someone who runs it needs to "
        "free memory or raise the limit.",
        "Do not retry. Free memory or raise the memory limit (Redis maxmemory, the container).",
        "ENOMEM, Redis OOM, SQLSTATE 53200: the same request needs the same memory",
        signals=[S.OUT_OF_MEMORY],
    ),
    _row(
        "resource_exhausted",
        E,
        "{subject} failed because the system hit one of its limits, such as open files; "
        "someone who runs it must raise the limit.",
        "Do not retry. Raise the limit named in the developer note (ulimit -n, max processes).",
        "EMFILE/ENFILE and the like: a limit of this machine, not of the request",
        signals=[S.RESOURCE_LIMIT],
    ),
    _row(
        "auth_permission_denied",
        E,
        "{subject} isn't allowed to use what it needs here; someone with access must grant it.",
        "Do not retry. Grant the process access to the resource named in the developer note.",
        "EACCES/EPERM: a local permission only its owner can grant",
        signals=[S.PERMISSION],
    ),
    _row(
        "tls_certificate",
        E,
        "{subject} was stopped because the service's security certificate isn't trusted or "
        "has expired; someone who runs it must fix the certificate.",
        "Do not retry. Install the issuing authority, or renew or correct the server's "
        "certificate.",
        "a certificate is not fixed by trying again, and must never be skipped",
        signals=[S.CERTIFICATE],
    ),
    # Money, sizes and keys: the caller's to change.
    _row(
        "payment_declined",
        F,
        "{subject} didn't go through because the card was declined; please use a different "
        "card or payment method.",
        "Do not retry the same card. Ask for another card or payment method.",
        "a declined card is the payer's to change, not an exhausted quota of ours",
        signals=[S.DECLINED],
    ),
    _row(
        "context_too_long",
        F,
        "{subject} was turned down because the conversation or prompt is too long; shorten it "
        "or start a new conversation, then try again.",
        "Shorten the prompt or the history (or start a new conversation) before resending.",
        "too long is too long however often it is sent: it must be shortened",
        signals=[S.TOO_LONG],
    ),
    _row(
        "idempotency_conflict",
        F,
        "{subject} was turned down because its request key is already taken by another "
        "request; don't send it again with the same key.",
        "Do not resend with this idempotency key: await the first request's result, or use a "
        "new key for a different request.",
        "the key belongs to another request (in flight, or with other parameters): resending "
        "it returns the same refusal",
        signals=[S.IDEMPOTENCY],
    ),
    _row(
        "already_exists",
        F,
        "{subject} was turned down because it already exists; use the existing one or choose "
        "a different name.",
        "Use the existing resource, or create it under a different name.",
        "it is there already: creating it again cannot succeed",
        signals=[S.EXISTS],
    ),
    # Spent quotas escalate; short windows wait. Money first, then the period, then the words.
    _row(
        "quota_exhausted",
        E,
        _QUOTA,
        _NO_QUOTA,
        "402 and billing_error: money, which waiting cannot refill",
        statuses=[402],
        upstreams=["billing_error"],
    ),
    _row(
        "quota_exhausted",
        E,
        _QUOTA,
        _NO_QUOTA,
        "billing, plan or balance words: the owner must act, whatever the status says",
        signals=[S.QUOTA],
        when=lambda f: f.billing,
    ),
    _row(
        "quota_exhausted",
        E,
        _QUOTA,
        _NO_QUOTA,
        "a limit per day or per month: waiting a minute cannot refill it",
        signals=[S.QUOTA, S.RATE_LIMIT],
        when=period(Period.DAY, Period.MONTH),
    ),
    _row(
        "rate_limit",
        W,
        _BUSY,
        _BACKOFF,
        "a per-second, per-minute or per-hour limit passes with its window",
        signals=[S.QUOTA, S.RATE_LIMIT],
        when=period(Period.SECOND, Period.MINUTE, Period.HOUR),
        retries=2,
    ),
    _row(
        "quota_exhausted",
        E,
        _QUOTA,
        _NO_QUOTA,
        "a spent quota with no window named: its owner must raise it",
        signals=[S.QUOTA],
    ),
    _row(
        "overloaded",
        W,
        _BUSY,
        _BACKOFF,
        "529, a mid-stream overloaded_error (HTTP 200: the type decides), too many "
        "connections; not a 4xx whose message merely says overloaded",
        signals=[S.CAPACITY],
        statuses=[529],
        upstreams=["overloaded_error"],
        when=busy_status,
        retries=2,
    ),
    _row(
        "rate_limit",
        W,
        _BUSY,
        _BACKOFF,
        "429 and its words, also when sent as 403 (GitHub): it passes",
        signals=[S.RATE_LIMIT],
        statuses=[429],
        retries=2,
    ),
    _row(
        "service_unavailable",
        W,
        _BUSY,
        _BACKOFF,
        "503 with Retry-After is the server scheduling us, like a 429",
        statuses=[503],
        when=lambda f: f.hint_s is not None,
        retries=2,
    ),
    _row(
        "recipient_unavailable",
        K,
        "{subject} couldn't reach the person, who has blocked or not started the "
        "conversation, so it will be skipped.",
        "Skip this recipient; they must start (or unblock) the conversation first.",
        "the recipient's choice: no retry, fix or administrator changes it",
        signals=[S.RECIPIENT_GONE],
    ),
    # Auth that only someone else can fix: no retry, no guessing.
    _row(
        "auth_requires_admin",
        E,
        "{subject} needs access that only an administrator can grant; please ask them.",
        "Do not retry. An administrator must grant access (SSO, role or policy).",
        "SSO, SAML, a role or a policy: an administrator acts, not the caller",
        signals=[S.FORBIDDEN],
        statuses=[401, 403],
        when=mentions(*_ADMIN),
    ),
    _row(
        "auth_permission_denied",
        F,
        "You don't have write access to this repository; fork it, push to your fork, then "
        "open a pull request.",
        "Fork the repository, push the branch to the fork, then open a pull request.",
        "a refused push has a known fix: fork it",
        signals=[S.FORBIDDEN],
        statuses=[401, 403],
        when=either(mentions("push", "fork"), _write_access, about(r"\bpush\b")),
    ),
    _row(
        "auth_token_expired",
        F,
        "{subject} was refused because the access token has expired; sign in again or renew "
        "it, then retry.",
        "Sign in again or renew the access token, then retry with the new one.",
        "an expired token is renewed, not retried",
        signals=[S.EXPIRED_TOKEN],
    ),
    _row(
        "auth_token_expired",
        F,
        "{subject} was refused because the access token has expired; sign in again or renew "
        "it, then retry.",
        "Sign in again or renew the access token, then retry with the new one.",
        "a 401/403 that says expired: the same",
        statuses=[401, 403],
        when=mentions("expired"),
    ),
    _row(
        "auth_invalid_credentials",
        F,
        "{subject} was refused because the credentials weren't accepted; check the key or "
        "token and try again.",
        "Check that the API key or token is correct and active, then try again.",
        "a wrong key stays wrong: check it",
        signals=[S.BAD_CREDENTIALS],
        statuses=[401],
        upstreams=["authentication_error"],
    ),
    _row(
        "auth_permission_denied",
        E,
        "{subject} isn't allowed with the current permissions; someone who manages access "
        "needs to grant it.",
        "Do not retry. Someone who manages access must grant the permission.",
        "403 and its words (AccessDenied, RBAC, scopes), also when sent as 400",
        signals=[S.FORBIDDEN],
        statuses=[403],
    ),
    _row(
        "not_found",
        K,
        "{subject} found nothing there, so it will be skipped.",
        "Skip this item; retrying the same request cannot find it.",
        "404/410: nothing there; go on without it",
        statuses=[404, 410],
    ),
    _row(
        "request_too_large",
        F,
        "{subject} sent more than the service accepts; try again with less.",
        "Send a smaller request (fewer items or a shorter payload).",
        "413: send less",
        statuses=[413],
    ),
    _row(
        "network",
        R,
        _REFUSED,
        "Retry once; escalate or fall back if still unreachable.",
        "refused or not resolved: nothing was sent, whatever other words the text has",
        signals=[S.NETWORK],
        when=lambda f: f.connect_phase,
        retries=1,
    ),
    _row(
        "timeout",
        R,
        "{subject} took too long, so it will be tried once more.",
        "Retry once with a lighter request; escalate if it times out again.",
        "408, 504, client timeouts: once more, then escalate",
        signals=[S.TIMEOUT],
        statuses=[408, 504],
        retries=1,
    ),
    _row(
        "conflict",
        R,
        "{subject} clashed with another change, so it will be tried once more.",
        "Retry once after a short backoff (re-read first); escalate if the conflict persists.",
        "409, deadlocks, serialization failures, stale versions: the retry usually wins",
        signals=[S.CONFLICT],
        statuses=[409],
        retries=1,
    ),
    _row(
        "not_found",
        F,
        "{subject} couldn't find what was asked for; check the name and try again.",
        "Retrying cannot find it: ask for a corrected name, or skip this item.",
        "a name that does not exist (a place, a package, a channel): correct it",
        signals=[S.NOT_FOUND],
        when=client_status_or_none,
    ),
    _row(
        "invalid_input",
        F,
        "{subject} was given input it can't use, so the input needs correcting first.",
        "Correct the input and call again; never resend it unchanged.",
        "same input, same no: correct it (never sent upstream if it is ours)",
        signals=[S.INVALID_INPUT],
        when=lambda f: f.status is None,
    ),
    _row(
        "invalid_request",
        F,
        "{subject} was turned down as malformed, so it needs correcting before another try.",
        "Fix the request's parameters before sending it again; never resend it as is.",
        "400/422 and their words: fix, then resend",
        signals=[S.BAD_REQUEST, S.INVALID_INPUT],
        statuses=_CLIENT_ERRORS,
    ),
    _row(
        "server_error",
        R,
        "{subject} hit a temporary problem at the service, so it will be tried once more.",
        "Retry once after a short jittered backoff; escalate if it fails again.",
        "5xx and their words, gRPC INTERNAL/UNAVAILABLE: once more, then escalate",
        signals=[S.SERVER],
        statuses=_SERVER_ERRORS,
        retries=1,
    ),
    _row(
        "network",
        R,
        _REFUSED,
        "Retry once after a short backoff; escalate or fall back if still unreachable.",
        "reset, dropped, disconnected: once more, then escalate",
        signals=[S.NETWORK],
        retries=1,
    ),
    _row(
        "bad_data",
        R,
        "{subject} got an answer that didn't make sense, so it will be tried once more.",
        "Retry once; if the data is still unusable, fall back to another source.",
        "HTML for JSON, drift, a cut body: once, then fall back",
        signals=[S.BAD_DATA],
        retries=1,
    ),
    _row(
        "internal_error",
        E,
        "{subject} failed because of a problem in this app, which has been logged for the "
        "developers.",
        "Do not retry. Fix the bug described in the developer note.",
        "our bug: developers act",
        signals=[S.INTERNAL],
    ),
    _row(
        "unknown",
        E,
        "{subject} failed for a reason that couldn't be identified, so it has been logged for "
        "a closer look.",
        "Do not retry automatically. Inspect the developer note and escalate.",
        "unidentified: do not loop on it",
    ),
)


def _index(rules: tuple[Rule, ...]) -> tuple[dict[object, tuple[int, ...]], tuple[int, ...]]:
    """Row numbers by gate key (a signal, a status, an upstream type), and the ungated rows."""
    by_key: dict[object, list[int]] = {}
    ungated = []
    for number, rule in enumerate(rules):
        keys = [*rule.signals, *rule.statuses, *(("type", t) for t in rule.upstreams)]
        if not keys:
            ungated.append(number)
        for key in keys:
            by_key.setdefault(key, []).append(number)
    return {key: tuple(numbers) for key, numbers in by_key.items()}, tuple(ungated)


_BY_KEY, _UNGATED = _index(RULES)


def rule_for(facts: Facts) -> Rule:
    """The first row that matches (the last row always does)."""
    numbers = set(_UNGATED)
    for signal in facts.signals:
        numbers.update(_BY_KEY.get(signal, ()))
    if facts.status is not None:
        numbers.update(_BY_KEY.get(facts.status, ()))
    if facts.upstream_type is not None:
        numbers.update(_BY_KEY.get(("type", facts.upstream_type.lower()), ()))
    for number in sorted(numbers):
        rule = RULES[number]
        if rule.when is None or rule.when(facts):
            return rule
    return RULES[-1]
