"""The one record every failure is turned into, before any policy is applied.

`facts_from` (in `errors._facts_from`) builds a `Facts` from any error: a raw string or JSON
body (`errors._from_text`), one of the project's own exceptions or a foreign one
(`errors._from_exceptions`). Everything downstream — the rule table, the wording, the
developer note — sees only this record. Raw text is cleaned once, by `clean_text`: cut to its
head and tail *first* (so no step ever works on, or keeps, more than the cap), control
characters dropped, secrets redacted.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import NamedTuple

from errors._redact import redact

__all__ = [
    "ASCII_SEPARATORS",
    "MAX_TEXT",
    "SEPARATORS",
    "Facts",
    "Period",
    "Signal",
    "Term",
    "clean_text",
    "cut",
    "normalise",
    "term",
]


class Signal(StrEnum):
    """What a failure is, as the error says it; the rule table decides what it means."""

    STATUS = "status"  # an HTTP status (and maybe an upstream error type) says it all
    TIMEOUT = "timeout"
    NETWORK = "network"  # refused, reset, DNS, a server that hung up
    SERVER = "server"  # the service failed on its side (5xx by name, gRPC INTERNAL)
    CAPACITY = "capacity"  # overloaded, too many connections: busy, not broken
    RATE_LIMIT = "rate_limit"  # too many requests in a short window
    QUOTA = "quota"  # an allowance or balance is spent
    DECLINED = "declined"  # a card or payment was declined
    CONFLICT = "conflict"  # a concurrent change won (deadlock, stale version): try again
    EXISTS = "exists"  # the thing to create is already there
    IDEMPOTENCY = "idempotency"  # a request key reused for a different request
    TOO_LONG = "too_long"  # a prompt or conversation longer than the model takes
    BAD_REQUEST = "bad_request"  # the service found the request malformed
    INVALID_INPUT = "invalid_input"  # a validation error names what is wrong
    NOT_FOUND = "not_found"
    BAD_CREDENTIALS = "bad_credentials"
    EXPIRED_TOKEN = "expired_token"  # noqa: S105 - a signal name, not a secret
    MISSING_KEY = "missing_key"
    FORBIDDEN = "forbidden"  # a remote permission
    PERMISSION = "permission"  # a local permission (file, socket), not an HTTP one
    RECIPIENT_GONE = "recipient_gone"  # the person to reach blocked or never started the chat
    CERTIFICATE = "certificate"  # a TLS certificate that is not trusted, expired or misnamed
    DISK_FULL = "disk_full"
    OUT_OF_MEMORY = "out_of_memory"
    RESOURCE_LIMIT = "resource_limit"  # open files, processes: a limit of this machine
    BAD_DATA = "bad_data"
    DEADLINE = "deadline"
    SKIPPED = "skipped"
    INTERNAL = "internal"
    UNKNOWN = "unknown"


class Period(StrEnum):
    """The window a rate or quota counts over, when the error names one."""

    SECOND = "second"
    MINUTE = "minute"
    HOUR = "hour"
    DAY = "day"
    MONTH = "month"

    @property
    def short(self) -> bool:
        """Whether waiting it out is worth it inside a conversation (seconds, a minute)."""
        return self in {Period.SECOND, Period.MINUTE}


class Facts(NamedTuple):
    """Everything classification may look at; `text` is redacted and never shown to a model.

    Immutable; a changed copy is `facts._replace(field=value)`.
    """

    signal: Signal
    text: str = ""
    status: int | None = None
    upstream_type: str | None = None
    hint_s: float | None = None  # when it may be tried again, in seconds, if the error says
    exception: str | None = None
    request_id: str | None = None
    source: str | None = None
    field: str | None = None
    problem: str | None = None
    fix: str | None = None
    subject: str | None = None
    what: str | None = None
    context: str = ""  # the operation and user context, for rows that depend on them
    connect_phase: bool = False  # the connection never opened (refused, DNS): nothing was sent
    signals: frozenset[Signal] = frozenset()  # every signal the error gave, `signal` included
    period: Period | None = None
    billing: bool = False  # the words point at money: a plan, a balance, billing
    words: frozenset[str] = frozenset()  # the text's words, lower-cased, for rows that ask

    def has(self, *wanted: Signal) -> bool:
        """Whether the error gave any of `wanted`."""
        return not self.signals.isdisjoint(wanted)

    def mentions(self, *words: str) -> bool:
        """Whether the error's text has any of `words` (lower case) as a whole word."""
        return not self.words.isdisjoint(words)


_HEAD, _TAIL = 4096, 2048  # a traceback's cause sits at its end; a body's status at its start
MAX_TEXT = _HEAD + _TAIL + 3  # the longest text any step sees or keeps
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]+")


def cut(text: str) -> str:
    """`text` cut to its head and tail: the first step, before anything else reads it."""
    return text if len(text) <= MAX_TEXT else f"{text[:_HEAD]} … {text[-_TAIL:]}"


def clean_text(text: str) -> str:
    """`text` capped to its head and tail, without control characters, secrets redacted."""
    text = cut(text)
    if not text.isprintable():  # every control character is unprintable: most texts skip this
        text = _CONTROL.sub(" ", text)
    return redact(" ".join(text.split()))


# --- vocabulary rows ----------------------------------------------------------------------


class Term(NamedTuple):
    """Words that say `signal`; matched as whole words, case-insensitively."""

    phrase: str
    signal: Signal
    why: str
    connect: bool = False  # said before anything was sent (refused, DNS): reconnect at once
    billing: bool = False  # money is involved: a balance, a plan, billing
    status: int = 0  # an HTTP reason phrase: the status it names


def term(
    phrase: str, signal: Signal, why: str, *, connect: bool = False, billing: bool = False
) -> Term:
    """A row, its phrase normalised the way texts are (lower case, punctuation as spaces)."""
    return Term(normalise(phrase), signal, why, connect, billing)


_ASCII = "!\"#$%&'()*+,-./:;<=>?@[\\]^`{|}~\t\n\r\x0b\x0c"
SEPARATORS = str.maketrans(
    dict.fromkeys(_ASCII, " ") | {"\u2018": " ", "\u2019": " ", "\u201c": " ", "\u201d": " "}
)
# The same table for ASCII text as bytes: `bytes.translate` is several times faster than
# `str.translate` with a dict, and most error texts are ASCII.
ASCII_SEPARATORS = bytes.maketrans(_ASCII.encode(), b" " * len(_ASCII))


def normalise(text: str) -> str:
    """Lower-case words separated by single spaces: the form phrases are matched in."""
    return " ".join(text.lower().translate(SEPARATORS).split())
