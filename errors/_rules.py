"""Recognition: which kind of failure the facts describe, row by row, each with its reason.

First match wins. A row is data: the signals, statuses and upstream error types that can make
it match (its *gate*: any one will do), an optional further condition (`when`), the kind it
names (`errors._kinds`) and why it sits where it does. Specific rows come before the general
rows they would otherwise fall into: a card decline before a spent quota, a spent quota before
a rate limit, a rate limit sent as 403 before the 403 rows, an AWS AccessDenied sent as 400
before "malformed", a connection that never opened before a timeout word in its URL.

`rule_for` looks only at the rows whose gate the facts open (an index by signal, status and
type), in table order, so its cost does not grow with the table.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from errors import _kinds as k
from errors._facts import Facts, Period, Signal
from errors._kinds import Kind

__all__ = ["RULES", "Rule", "rule_for"]

Match = Callable[[Facts], bool]
S = Signal


@dataclass(frozen=True, slots=True)
class Rule:
    """One row: the gate, the condition, the kind it names, and why."""

    kind: Kind
    why: str
    signals: frozenset[Signal] = frozenset()  # the gate: any of these signals …
    statuses: frozenset[int] = frozenset()  # … or of these statuses …
    upstreams: frozenset[str] = frozenset()  # … or of these upstream error types
    when: Match | None = None  # and then this, if given

    def matches(self, facts: Facts) -> bool:
        """Whether the gate opens for `facts` and the condition holds."""
        gated = self.signals or self.statuses or self.upstreams
        opened = (
            not self.signals.isdisjoint(facts.signals)
            or facts.status in self.statuses
            or (facts.upstream_type or "").lower() in self.upstreams
        )
        return (opened or not gated) and (self.when is None or self.when(facts))


def row(
    kind: Kind,
    why: str,
    *,
    signals: Iterable[Signal] = (),
    statuses: Iterable[int] = (),
    upstreams: Iterable[str] = (),
    when: Match | None = None,
) -> Rule:
    """A row, its gate as sets."""
    return Rule(kind, why, frozenset(signals), frozenset(statuses), frozenset(upstreams), when)


def mentions(*words: str) -> Match:
    """The error's text has any of `words` as a whole word."""
    return lambda f: f.mentions(*words)


def period(*periods: Period) -> Match:
    return lambda f: f.period in periods


def busy_status(f: Facts) -> bool:
    """No status, or one a busy service sends (429, 5xx): words of being busy are believed."""
    return f.status is None or f.status == 429 or f.status >= 500


# Words that name a credential, in the languages of the vocabularies: an "invalid" next to one
# is a credential refused, not a malformed request.
_CREDENTIALS = (
    *("password", "credential", "credentials", "signature", "apikey", "jwt", "passwort"),
    *("authentication", "login", "inloggning", "logowanie"),
    *("пароль", "токен", "contraseña", "senha", "assinatura", "firma", "imza", "hasło"),
)
_CREDENTIAL_PHRASE = re.compile(
    r"(?i)\b(?:access|auth|bearer|session|refresh|id)[ _-]?token|\b(?:api|secret)[ _-]?key"
    r"|\bclient[ _-]?secret"
)


def _names_a_credential(f: Facts) -> bool:
    """The error names a credential: a password, a signature, an access token, an API key."""
    return f.mentions(*_CREDENTIALS) or _CREDENTIAL_PHRASE.search(f.text) is not None


def _push_refused(f: Facts) -> bool:
    """A refused push to a code repository ("permission to push", "repo.git denied", a fork
    or write access named, an operation that pushes), not an image registry's "the push
    refers to a repository … denied"."""
    return (
        "to push" in f.text.lower()
        or (f.mentions("push") and f.mentions("git"))
        or f.mentions("fork")
        or (f.mentions("write") and f.mentions("access"))
        or _PUSH.search(f.context) is not None
    )


_PUSH = re.compile(r"\bpush\b", re.IGNORECASE)


_ADMIN = (
    *("sso", "saml", "administrator", "admin", "organization", "organisation", "role"),
    *("policy", "tenant"),
)
# A rate of tokens: "tokens per minute", "(TPM)".
_PER_PERIOD = re.compile(r"(?i)\btokens?\s+per\s+(?:second|sec|minute|min|hour|day)\b|\btpm\b")


def _no_rate(f: Facts) -> bool:
    return _PER_PERIOD.search(f.text) is None


_PAGE_FOR_DATA = re.compile(
    r"(?i)\b(?:unexpected|unrecognized)\s+(?:token|character)\s*\(?\s*['\"‘]?<"
    r"|\bcharacter\s*['\"‘]?<['\"’]?\s+looking for beginning of value"
)
_CLIENT_ERRORS = range(400, 500)
_SERVER_ERRORS = range(500, 600)

RULES: tuple[Rule, ...] = (
    # Our own verdicts: the tool already knows exactly what went wrong.
    row(
        k.DEADLINE,
        "the whole call's budget is spent: nothing left to retry with",
        signals=[S.DEADLINE],
    ),
    row(k.SKIPPED, "its circuit breaker is open: use another source", signals=[S.SKIPPED]),
    row(k.MISSING_KEY, "nothing was sent for want of a credential", signals=[S.MISSING_KEY]),
    # This machine's limits.
    row(k.DISK_FULL, "ENOSPC/EDQUOT/SQLSTATE 53100: no retry makes room", signals=[S.DISK_FULL]),
    row(
        k.OUT_OF_MEMORY,
        "ENOMEM, Redis OOM, SQLSTATE 53200: the same request needs the same memory",
        signals=[S.OUT_OF_MEMORY],
    ),
    row(
        k.RESOURCE_LIMIT,
        "EMFILE/ENFILE and the like: a limit of this machine, not of the request",
        signals=[S.RESOURCE_LIMIT],
    ),
    row(k.LOCAL_PERMISSION, "EACCES/EPERM: a local permission", signals=[S.PERMISSION]),
    row(
        k.CERTIFICATE,
        "a certificate is not fixed by trying again, and must never be skipped",
        signals=[S.CERTIFICATE],
    ),
    # Money, sizes and keys.
    row(
        k.DECLINED,
        "a declined card is the payer's to change, not an exhausted quota of ours",
        signals=[S.DECLINED],
    ),
    row(
        k.TOO_LONG,
        "too long is too long however often it is sent",
        signals=[S.TOO_LONG],
        # a request larger than a per-minute limit never passes; many requests pass in time
        when=lambda f: not f.mentions("wait", "later") and (f.mentions("large") or _no_rate(f)),
    ),
    row(
        k.RATE_LIMIT,
        "too many tokens with a 429, a period or a wait asked for: a rate of tokens, not a "
        "prompt too long",
        signals=[S.TOO_LONG],
    ),
    row(
        k.IDEMPOTENCY,
        "the key belongs to another request (in flight, or with other parameters): resending "
        "it returns the same refusal",
        signals=[S.IDEMPOTENCY],
    ),
    row(k.EXISTS, "it is there already: creating it again cannot succeed", signals=[S.EXISTS]),
    # Spent quotas escalate; short windows wait. Money first, then the period, then the words.
    row(
        k.QUOTA,
        "402 and billing_error: money, which waiting cannot refill",
        statuses=[402],
        upstreams=["billing_error"],
    ),
    row(
        k.QUOTA,
        "billing, plan or balance words: the owner must act, whatever the status says",
        signals=[S.QUOTA],
        when=lambda f: f.billing,
    ),
    row(
        k.QUOTA,
        "a limit per day or per month: waiting a minute cannot refill it",
        signals=[S.QUOTA, S.RATE_LIMIT],
        when=period(Period.DAY, Period.MONTH),
    ),
    row(
        k.RATE_LIMIT,
        "a per-second, per-minute or per-hour limit passes with its window",
        signals=[S.QUOTA, S.RATE_LIMIT],
        when=period(Period.SECOND, Period.MINUTE, Period.HOUR),
    ),
    row(k.QUOTA, "a spent quota with no window named: its owner must raise it", signals=[S.QUOTA]),
    row(
        k.OVERLOADED,
        "529, a mid-stream overloaded_error (HTTP 200: the type decides), too many "
        "connections; not a 4xx whose message merely says overloaded",
        signals=[S.CAPACITY],
        statuses=[529],
        upstreams=["overloaded_error"],
        when=busy_status,
    ),
    row(
        k.RATE_LIMIT,
        "429 (and the older 420) and its words, also when sent as 403 (GitHub): it passes",
        signals=[S.RATE_LIMIT],
        statuses=[420, 429],
    ),
    row(
        k.UNAVAILABLE,
        "503 with Retry-After is the server scheduling us, like a 429",
        statuses=[503],
        when=lambda f: f.hint_s is not None,
    ),
    row(
        k.RECIPIENT_GONE,
        "the recipient's choice: no retry, fix or administrator changes it",
        signals=[S.RECIPIENT_GONE],
    ),
    row(
        k.BAD_DATA,
        "a parser that met '<' where data should start: a web page came back, not the data "
        "(\"Unexpected character ('<'\", \"Unrecognized token '<'\", Go's \"invalid character "
        "'<' looking for beginning of value\"); above the auth rows, as its 'token' is a "
        "parser's, not a credential",
        signals=[S.BAD_DATA, S.BAD_REQUEST, S.BAD_CREDENTIALS],
        when=lambda f: f.status is None and _PAGE_FOR_DATA.search(f.text) is not None,
    ),
    # Auth that only someone else can fix: no retry, no guessing.
    row(
        k.MISSING_KEY,
        "refused as anonymous: no credential was sent at all",
        signals=[S.FORBIDDEN, S.BAD_CREDENTIALS],
        statuses=[401, 403],
        when=mentions("anonymous"),
    ),
    row(
        k.NEEDS_ADMIN,
        "SSO, SAML, a role, a policy or a tenant setting: an administrator acts, not the "
        "caller (also when the refusal reads as bad credentials)",
        signals=[S.FORBIDDEN, S.BAD_CREDENTIALS],
        statuses=[401, 403],
        when=mentions(*_ADMIN),
    ),
    row(
        k.NEEDS_FORK,
        "a refused push has a known fix: fork it",
        signals=[S.FORBIDDEN],
        statuses=[401, 403],
        when=_push_refused,
    ),
    row(k.TOKEN_EXPIRED, "an expired token is renewed, not retried", signals=[S.EXPIRED_TOKEN]),
    row(
        k.TOKEN_EXPIRED,
        "a 401/403 that says expired: the same",
        statuses=[401, 403],
        when=mentions("expired"),
    ),
    row(
        k.BAD_CREDENTIALS,
        "a wrong key stays wrong: check it",
        signals=[S.BAD_CREDENTIALS],
        statuses=[401],
        upstreams=["authentication_error"],
    ),
    row(
        k.BAD_CREDENTIALS,
        "invalid words about a credential (a token, a password, a signature): it is refused",
        signals=[S.BAD_REQUEST, S.INVALID_INPUT],
        statuses=[400, 401],
        when=lambda f: f.upstream_type is None and _names_a_credential(f),  # a type is exact
    ),
    row(
        k.FORBIDDEN,
        "403 and its words (AccessDenied, RBAC, scopes), also when sent as 400",
        signals=[S.FORBIDDEN],
        statuses=[403],
    ),
    row(
        k.INTERNAL,
        "a bug the error names (a null pointer, a missing module, an address in use): no "
        "retry or correction of the input helps; developers act",
        signals=[S.INTERNAL],
        # JSON's SyntaxError is about data; a validation message names the input to fix
        when=lambda f: bool(f.cause) and not f.has(S.BAD_DATA, S.INVALID_INPUT),
    ),
    row(
        k.NOTHING_THERE,
        "410 and its words (deleted, no longer there), or a source that does not carry the "
        "thing: go on without it",
        signals=[S.GONE],
        statuses=[410],
    ),
    row(
        k.NO_SUCH_NAME,
        "404: a name the caller chose (a model, a package, a repository, a place) that does "
        "not exist; correct it",
        statuses=[404],
    ),
    row(k.TOO_LARGE, "413 and its words: send less", signals=[S.TOO_LARGE], statuses=[413]),
    row(
        k.NETWORK,
        "refused or not resolved: nothing was sent, whatever other words the text has",
        signals=[S.NETWORK],
        when=lambda f: f.connect_phase,
    ),
    row(
        k.TIMEOUT,
        "408, 504, client timeouts: once more, then escalate",
        signals=[S.TIMEOUT],
        statuses=[408, 504],
    ),
    row(
        k.CONFLICT,
        "409, deadlocks, serialization failures, stale versions: the retry usually wins",
        signals=[S.CONFLICT],
        statuses=[409],
    ),
    row(
        k.NO_SUCH_NAME,
        "a name that does not exist (a place, a package, a channel): correct it",
        signals=[S.NOT_FOUND],
        when=lambda f: f.status is None or 400 <= f.status <= 499,
    ),
    row(
        k.INVALID_INPUT,
        "same input, same no: correct it (never sent upstream if it is ours)",
        signals=[S.INVALID_INPUT],
        when=lambda f: f.status is None,
    ),
    row(
        k.INVALID_REQUEST,
        "400/422 and their words: fix, then resend",
        signals=[S.BAD_REQUEST, S.INVALID_INPUT],
        statuses=_CLIENT_ERRORS,
        when=lambda f: f.status is None or f.status < 500,  # a 5xx is the service's own
    ),
    row(
        k.UNAVAILABLE,
        "the service asks to be tried later and says no more: wait, as for a 503",
        signals=[S.LATER],
    ),
    row(
        k.SERVER,
        "5xx and their words, gRPC INTERNAL/UNAVAILABLE: once more, then escalate",
        signals=[S.SERVER],
        statuses=_SERVER_ERRORS,
    ),
    row(k.NETWORK, "reset, dropped, disconnected: once more, then escalate", signals=[S.NETWORK]),
    row(k.BAD_DATA, "HTML for JSON, drift, a cut body: once, then fall back", signals=[S.BAD_DATA]),
    row(k.INTERNAL, "our bug: developers act", signals=[S.INTERNAL]),
    row(k.UNKNOWN, "unidentified: do not loop on it"),
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
