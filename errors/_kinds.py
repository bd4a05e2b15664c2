"""What a failure is and what happens next: the output schema and the table of kinds.

Every failure is classified into one *kind*: a row of this table saying what the caller does
(`action`), how many retries the kind earns, the sentence the model reads, the step for an
operator, what follows once a source gives up on it (`then`: the next source, or stop the
call), and what the source's circuit breaker learns from it (`blame`). The rows are grouped by
who acts next::

    retry / wait        the same request may succeed soon
    ├── timeout, network, server_error, conflict, bad_data      retry once, then give up
    └── rate_limit, overloaded, service_unavailable             wait (a hint or a backoff), twice
    fix_input           the caller must change something first (never retried)
    ├── invalid_input, invalid_request, request_too_large, context_too_long
    ├── not_found (a name), already_exists, idempotency_conflict, payment_declined
    └── auth_invalid_credentials, auth_token_expired, auth_missing_key, a push that needs a fork
    skip                go on without it: not_found (nothing there), source_skipped,
                        recipient_unavailable
    escalate            someone else must act: quota_exhausted, auth_requires_admin,
                        auth_permission_denied, tls_certificate, disk_full, out_of_memory,
                        resource_exhausted, deadline_exceeded, internal_error, unknown

Which kind a failure is, is decided elsewhere (`errors._rules`, from the facts); this table
only says what each kind means. `{subject}` in a sentence is the operation, as a phrase.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = [
    "KINDS",
    "LATER",
    "Action",
    "Blame",
    "ErrorAction",
    "ErrorType",
    "Kind",
    "Step",
]


class Action(StrEnum):
    """Who acts next, and how."""

    RETRY = "retry"  # the same request may succeed in a moment
    WAIT = "wait"  # the same request will succeed after a pause the service asked for
    FIX_INPUT = "fix_input"  # the caller (model or user) must change something first
    SKIP = "skip"  # nothing to do: go on without this result
    ESCALATE = "escalate"  # someone else (admin, operator, upstream) must act

    @property
    def retries(self) -> bool:
        """Whether this action sends the same request again (and so is `retryable`)."""
        return self is Action.RETRY or self is Action.WAIT


class ErrorType(StrEnum):
    """The `error_type` values the rules give (a model's answer may name others)."""

    DEADLINE_EXCEEDED = "deadline_exceeded"
    SOURCE_SKIPPED = "source_skipped"
    AUTH_MISSING_KEY = "auth_missing_key"
    DISK_FULL = "disk_full"
    OUT_OF_MEMORY = "out_of_memory"
    RESOURCE_EXHAUSTED = "resource_exhausted"
    AUTH_PERMISSION_DENIED = "auth_permission_denied"
    TLS_CERTIFICATE = "tls_certificate"
    PAYMENT_DECLINED = "payment_declined"
    CONTEXT_TOO_LONG = "context_too_long"
    IDEMPOTENCY_CONFLICT = "idempotency_conflict"
    ALREADY_EXISTS = "already_exists"
    QUOTA_EXHAUSTED = "quota_exhausted"
    RATE_LIMIT = "rate_limit"
    OVERLOADED = "overloaded"
    SERVICE_UNAVAILABLE = "service_unavailable"
    RECIPIENT_UNAVAILABLE = "recipient_unavailable"
    AUTH_REQUIRES_ADMIN = "auth_requires_admin"
    AUTH_TOKEN_EXPIRED = "auth_token_expired"  # noqa: S105 - a kind, not a secret
    AUTH_INVALID_CREDENTIALS = "auth_invalid_credentials"
    NOT_FOUND = "not_found"
    REQUEST_TOO_LARGE = "request_too_large"
    NETWORK = "network"
    TIMEOUT = "timeout"
    CONFLICT = "conflict"
    INVALID_INPUT = "invalid_input"
    INVALID_REQUEST = "invalid_request"
    SERVER_ERROR = "server_error"
    BAD_DATA = "bad_data"
    INTERNAL_ERROR = "internal_error"
    UNKNOWN = "unknown"


class Step(StrEnum):
    """What follows a failed attempt."""

    RETRY = "retry"  # the same source again (after the verdict's wait, or a backoff)
    NEXT = "next"  # give this source up; the next one, if any, may answer
    STOP = "stop"  # end the call: no other source can do better (the input must change)


# What a source's circuit breaker learns from a failure: "source", a failure of the source;
# "caller", none (the source answered sensibly: the question was wrong); "none", nothing at all
# (the call's own clock cut it short).
Blame = Literal["source", "caller", "none"]


class ErrorAction(BaseModel):
    """What a failure means and what happens next; only `user_message` reaches a model."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    error_type: str = Field(min_length=1, max_length=40)
    user_message: str = Field(min_length=1, max_length=240)
    action: Action
    action_detail: str = Field(min_length=1, max_length=300)
    retryable: bool
    developer_note: str = Field(min_length=1, max_length=400)

    @model_validator(mode="after")
    def _retry_means_retryable(self) -> ErrorAction:
        if self.action.retries != self.retryable:
            raise ValueError("retryable must be true exactly when action is retry or wait")
        return self

    def to_json(self) -> str:
        """The skill's JSON object, on one line (`model_dump_json`'s, without its wrapper)."""
        return _SERIALIZE(self).decode()

    def log_fields(self) -> dict[str, str | bool]:
        """The fields every failure's log event carries: never the user message, never the body."""
        return {
            "error_type": self.error_type,
            "action": self.action.value,
            "retryable": self.retryable,
            "developer_note": self.developer_note,
        }


_SERIALIZE = ErrorAction.__pydantic_serializer__.to_json


@dataclass(frozen=True, slots=True)
class Kind:
    """One row of the table: a kind of failure and everything it means."""

    error_type: ErrorType
    action: Action
    sentence: str  # the user_message, with {subject}
    detail: str  # the action_detail
    retries: int = 0  # retries this kind earns before it escalates
    then: Step = Step.NEXT  # once a source gives up on it: the next source, or stop
    blame: Blame = "source"


T, A = ErrorType, Action
LATER = "please try again in a few minutes"
_BUSY = "{subject} hit a busy service, so it will be tried again in a moment."
_BACKOFF = "Back off with full-jitter exponential delay, then retry the same request."

# Our own verdicts: the tool already knows exactly what went wrong.
DEADLINE = Kind(
    T.DEADLINE_EXCEEDED,
    A.ESCALATE,
    f"{{subject}} ran out of time, so it was stopped; {LATER}.",
    "Stop: the call's time budget is spent. Answer without this result.",
    then=Step.STOP,
    blame="none",
)
SKIPPED = Kind(
    T.SOURCE_SKIPPED,
    A.SKIP,
    "{subject} skipped a service that keeps failing and will use another if there is one.",
    "Skip this source until its cool-down ends; try the next source.",
    blame="none",
)
MISSING_KEY = Kind(
    T.AUTH_MISSING_KEY,
    A.FIX_INPUT,
    "{subject} can't start because a key or password isn't set; add it or run offline.",
    "Set the missing key or credentials (for Claude, ANTHROPIC_API_KEY) or run offline, then "
    "try again.",
)
# This machine's limits: retrying cannot make room; a person must.
DISK_FULL = Kind(
    T.DISK_FULL,
    A.ESCALATE,
    "{subject} failed because the disk is full; someone needs to free up space first.",
    "Do not retry. Free disk space (or raise the disk quota), then try again.",
)
OUT_OF_MEMORY = Kind(
    T.OUT_OF_MEMORY,
    A.ESCALATE,
    "{subject} failed because the system ran out of memory; someone who runs it needs to "
    "free memory or raise the limit.",
    "Do not retry. Free memory or raise the memory limit (Redis maxmemory, the container).",
)
RESOURCE_LIMIT = Kind(
    T.RESOURCE_EXHAUSTED,
    A.ESCALATE,
    "{subject} failed because the system hit one of its limits, such as open files; someone "
    "who runs it must raise the limit.",
    "Do not retry. Raise the limit named in the developer note (ulimit -n, max processes).",
)
LOCAL_PERMISSION = Kind(
    T.AUTH_PERMISSION_DENIED,
    A.ESCALATE,
    "{subject} isn't allowed to use what it needs here; someone with access must grant it.",
    "Do not retry. Grant the process access to the resource named in the developer note.",
)
CERTIFICATE = Kind(
    T.TLS_CERTIFICATE,
    A.ESCALATE,
    "{subject} was stopped because the service's security certificate isn't trusted or has "
    "expired; someone who runs it must fix the certificate.",
    "Do not retry. Install the issuing authority, or renew or correct the server's certificate.",
)
# Money, sizes and keys: the caller's to change.
DECLINED = Kind(
    T.PAYMENT_DECLINED,
    A.FIX_INPUT,
    "{subject} didn't go through because the card was declined; please use a different card "
    "or payment method.",
    "Do not retry the same card. Ask for another card or payment method.",
)
TOO_LONG = Kind(
    T.CONTEXT_TOO_LONG,
    A.FIX_INPUT,
    "{subject} was turned down because the conversation or prompt is too long; shorten it or "
    "start a new conversation, then try again.",
    "Shorten the prompt or the history (or start a new conversation) before resending.",
)
IDEMPOTENCY = Kind(
    T.IDEMPOTENCY_CONFLICT,
    A.FIX_INPUT,
    "{subject} was turned down because its request key is already taken by another request; "
    "don't send it again with the same key.",
    "Do not resend with this idempotency key: await the first request's result, or use a new "
    "key for a different request.",
)
EXISTS = Kind(
    T.ALREADY_EXISTS,
    A.FIX_INPUT,
    "{subject} was turned down because it already exists; use the existing one or choose a "
    "different name.",
    "Use the existing resource, or create it under a different name.",
)
QUOTA = Kind(
    T.QUOTA_EXHAUSTED,
    A.ESCALATE,
    "{subject} is blocked because the account's usage limit or billing needs attention from "
    "its owner.",
    "Do not retry. An account owner must raise the quota or fix billing.",
)
# Busy, not broken: wait (the server's hint, or a backoff), twice at most.
RATE_LIMIT = Kind(T.RATE_LIMIT, A.WAIT, _BUSY, _BACKOFF, retries=2)
OVERLOADED = Kind(T.OVERLOADED, A.WAIT, _BUSY, _BACKOFF, retries=2)
UNAVAILABLE = Kind(T.SERVICE_UNAVAILABLE, A.WAIT, _BUSY, _BACKOFF, retries=2)
RECIPIENT_GONE = Kind(
    T.RECIPIENT_UNAVAILABLE,
    A.SKIP,
    "{subject} couldn't reach the person, who has blocked or not started the conversation, "
    "so it will be skipped.",
    "Skip this recipient; they must start (or unblock) the conversation first.",
)
# Auth: fixed by the caller when the fix is known, else by someone with the rights.
NEEDS_ADMIN = Kind(
    T.AUTH_REQUIRES_ADMIN,
    A.ESCALATE,
    "{subject} needs access that only an administrator can grant; please ask them.",
    "Do not retry. An administrator must grant access (SSO, role or policy).",
)
NEEDS_FORK = Kind(
    T.AUTH_PERMISSION_DENIED,
    A.FIX_INPUT,
    "You don't have write access to this repository; fork it, push to your fork, then open a "
    "pull request.",
    "Fork the repository, push the branch to the fork, then open a pull request.",
)
TOKEN_EXPIRED = Kind(
    T.AUTH_TOKEN_EXPIRED,
    A.FIX_INPUT,
    "{subject} was refused because the access token has expired; sign in again or renew it, "
    "then retry.",
    "Sign in again or renew the access token, then retry with the new one.",
)
BAD_CREDENTIALS = Kind(
    T.AUTH_INVALID_CREDENTIALS,
    A.FIX_INPUT,
    "{subject} was refused because the credentials weren't accepted; check the key or token "
    "and try again.",
    "Check that the API key or token is correct and active, then try again.",
)
FORBIDDEN = Kind(
    T.AUTH_PERMISSION_DENIED,
    A.ESCALATE,
    "{subject} isn't allowed with the current permissions; someone who manages access needs "
    "to grant it.",
    "Do not retry. Someone who manages access must grant the permission.",
)
# Not there: nothing to fetch (skip), or a name to correct (fix_input).
NOTHING_THERE = Kind(
    T.NOT_FOUND,
    A.SKIP,
    "{subject} found nothing there, so it will be skipped.",
    "Skip this item; retrying the same request cannot find it.",
)
NO_SUCH_NAME = Kind(
    T.NOT_FOUND,
    A.FIX_INPUT,
    "{subject} couldn't find what was asked for; check the name and try again.",
    "Retrying cannot find it: ask for a corrected name, or skip this item.",
    blame="caller",
)
TOO_LARGE = Kind(
    T.REQUEST_TOO_LARGE,
    A.FIX_INPUT,
    "{subject} sent more than the service accepts; try again with less.",
    "Send a smaller request (fewer items or a shorter payload).",
)
# Transient: once more, then give up on the source.
NETWORK = Kind(
    T.NETWORK,
    A.RETRY,
    "{subject} couldn't reach the service, so it will be tried once more.",
    "Retry once after a short backoff; escalate or fall back if still unreachable.",
    retries=1,
)
TIMEOUT = Kind(
    T.TIMEOUT,
    A.RETRY,
    "{subject} took too long, so it will be tried once more.",
    "Retry once with a lighter request; escalate if it times out again.",
    retries=1,
)
CONFLICT = Kind(
    T.CONFLICT,
    A.RETRY,
    "{subject} clashed with another change, so it will be tried once more.",
    "Retry once after a short backoff (re-read first); escalate if the conflict persists.",
    retries=1,
)
INVALID_INPUT = Kind(
    T.INVALID_INPUT,
    A.FIX_INPUT,
    "{subject} was given input it can't use, so the input needs correcting first.",
    "Correct the input and call again; never resend it unchanged.",
    then=Step.STOP,
    blame="caller",
)
INVALID_REQUEST = Kind(
    T.INVALID_REQUEST,
    A.FIX_INPUT,
    "{subject} was turned down as malformed, so it needs correcting before another try.",
    "Fix the request's parameters before sending it again; never resend it as is.",
)
SERVER = Kind(
    T.SERVER_ERROR,
    A.RETRY,
    "{subject} hit a temporary problem at the service, so it will be tried once more.",
    "Retry once after a short jittered backoff; escalate if it fails again.",
    retries=1,
)
BAD_DATA = Kind(
    T.BAD_DATA,
    A.RETRY,
    "{subject} got an answer that didn't make sense, so it will be tried once more.",
    "Retry once; if the data is still unusable, fall back to another source.",
    retries=1,
)
INTERNAL = Kind(
    T.INTERNAL_ERROR,
    A.ESCALATE,
    "{subject} failed because of a problem in this app, which has been logged for the developers.",
    "Do not retry. Fix the bug described in the developer note.",
)
UNKNOWN = Kind(
    T.UNKNOWN,
    A.ESCALATE,
    "{subject} failed for a reason that couldn't be identified, so it has been logged for a "
    "closer look.",
    "Do not retry automatically. Inspect the developer note and escalate.",
)

# The table whole, in the order above: what `tests/errors/test_kinds_documented.py` holds the
# README and docs/failure-policy.md to.
KINDS: tuple[Kind, ...] = (
    DEADLINE,
    SKIPPED,
    MISSING_KEY,
    DISK_FULL,
    OUT_OF_MEMORY,
    RESOURCE_LIMIT,
    LOCAL_PERMISSION,
    CERTIFICATE,
    DECLINED,
    TOO_LONG,
    IDEMPOTENCY,
    EXISTS,
    QUOTA,
    RATE_LIMIT,
    OVERLOADED,
    UNAVAILABLE,
    RECIPIENT_GONE,
    NEEDS_ADMIN,
    NEEDS_FORK,
    TOKEN_EXPIRED,
    BAD_CREDENTIALS,
    FORBIDDEN,
    NOTHING_THERE,
    NO_SUCH_NAME,
    TOO_LARGE,
    NETWORK,
    TIMEOUT,
    CONFLICT,
    INVALID_INPUT,
    INVALID_REQUEST,
    SERVER,
    BAD_DATA,
    INTERNAL,
    UNKNOWN,
)
