"""The one record every failure is turned into, before any policy is applied.

`facts_from` (in `errors._exceptions`) builds a `Facts` from any error: a raw string or JSON
body (`errors._text`), one of the project's own exceptions or a foreign one. Everything
downstream — the rule table, the wording, the developer note — sees only this record. Raw text
is cleaned once, by `clean_text`: cut to its head and tail *first* (so no step ever works on,
or keeps, more than the cap), control characters dropped, secrets redacted. Its words are read
as a person reads them (`word_forms`).
"""

from __future__ import annotations

import re
import threading
import unicodedata
from bisect import bisect_left
from collections.abc import Sequence
from enum import StrEnum
from typing import NamedTuple

import Stemmer  # PyStemmer: the Snowball stemmers, in C

from errors._redact import CONTROL, redact

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
    "read_token",
    "starts_a_word",
    "stem",
    "stemmed",
    "term",
    "unaccented",
    "word_forms",
]


class Signal(StrEnum):
    """What a failure is, as the error says it; the rule table decides what it means.

    Most telling first: of the signals an error gives, the first in this order names its
    record (`errors._text.primary`). A bare status and nothing at all come last."""

    DEADLINE = "deadline"  # the call's time budget is spent (ours alone: never read from words)
    SKIPPED = "skipped"  # a source's circuit is open (ours alone)
    MISSING_KEY = "missing_key"
    DISK_FULL = "disk_full"
    OUT_OF_MEMORY = "out_of_memory"
    RESOURCE_LIMIT = "resource_limit"  # open files, processes: a limit of this machine
    PERMISSION = "permission"  # a local permission (file, socket), not an HTTP one
    CERTIFICATE = "certificate"  # a TLS certificate that is not trusted, expired or misnamed
    DECLINED = "declined"  # a card or payment was declined
    TOO_LONG = "too_long"  # a prompt or conversation longer than the model takes
    TOO_LARGE = "too_large"  # a request, a message or a file larger than the service takes
    IDEMPOTENCY = "idempotency"  # a request key reused for a different request
    EXISTS = "exists"  # the thing to create is already there
    QUOTA = "quota"  # an allowance or balance is spent
    CAPACITY = "capacity"  # overloaded, too many connections: busy, not broken
    RATE_LIMIT = "rate_limit"  # too many requests in a short window
    RECIPIENT_GONE = "recipient_gone"  # the person to reach blocked or never started the chat
    EXPIRED_TOKEN = "expired_token"  # noqa: S105 - a signal name, not a secret
    BAD_CREDENTIALS = "bad_credentials"
    FORBIDDEN = "forbidden"  # a remote permission
    TIMEOUT = "timeout"
    CONFLICT = "conflict"  # a concurrent change won (deadlock, stale version): try again
    LATER = "later"  # the service asks to be tried later and says no more ("try again later")
    GONE = "gone"  # nothing there to get (deleted, no longer there, or not carried by a source)
    NOT_FOUND = "not_found"
    INVALID_INPUT = "invalid_input"  # a validation error names what is wrong
    BAD_REQUEST = "bad_request"  # the service found the request malformed
    SERVER = "server"  # the service failed on its side (5xx by name, gRPC INTERNAL)
    NETWORK = "network"  # refused, reset, DNS, a server that hung up
    BAD_DATA = "bad_data"
    INTERNAL = "internal"
    STATUS = "status"  # an HTTP status (and maybe an upstream error type) says it all
    UNKNOWN = "unknown"


class Period(StrEnum):
    """The window a rate or quota counts over, when the error names one."""

    SECOND = "second"
    MINUTE = "minute"
    HOUR = "hour"
    DAY = "day"
    MONTH = "month"


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
    words: frozenset[str] = frozenset()  # the text's words as `stem` reads them, for rows that ask
    cause: str = ""  # a cause the text names in plain words ("a null pointer"), for the sentence
    code: str = ""  # a protocol's code the text quotes ("SMTP 550 5.1.1"), for the developer note
    retry_said: bool | None = None  # the server's own `x-should-retry`, when it sent one

    def has(self, *wanted: Signal) -> bool:
        """Whether the error gave any of `wanted`."""
        return not self.signals.isdisjoint(wanted)

    def mentions(self, *words: str) -> bool:
        """Whether the error's text says any of `words` (in any inflection) as a whole word —
        itself, not inside a name it quotes ('eutlAdmin' is a user, not an administrator)."""
        said = self.words
        if any(map(self.text.__contains__, _QUOTES)):
            names = _QUOTED_NAME.findall(self.text)
            said = said - {form for name in names for form in stemmed(name).split()}
        return any(not said.isdisjoint(word_forms(word)) for word in words)


# One token in quotes, 'no_such_module' or "eutlAdmin": a value, not prose.
_QUOTED_NAME = re.compile(r"(?<!\S)[(\[{<]*['\"`]([^\s'\"`]+)['\"`]")
_QUOTES = ("'", '"', "`")

_HEAD, _TAIL = 4096, 2048  # a traceback's cause sits at its end; a body's status at its start
MAX_TEXT = _HEAD + _TAIL + 3  # the longest text any step sees or keeps


def cut(text: str) -> str:
    """`text` cut to its head and tail: the first step, before anything else reads it."""
    return text if len(text) <= MAX_TEXT else f"{text[:_HEAD]} … {text[-_TAIL:]}"


def clean_text(text: str) -> str:
    """`text` capped to its head and tail, without control characters, secrets redacted."""
    text = cut(text)
    if not text.isprintable():  # every control character is unprintable: most texts skip this
        text = CONTROL.sub(" ", text)  # the one list (errors._redact)
    return redact(" ".join(text.split()))


# --- vocabulary rows ----------------------------------------------------------------------


class Term(NamedTuple):
    """Words that say `signal`, matched as words are read (`word_forms`): split out of
    identifiers, in any case and inflection. `spelled` is the phrase as the source writes it
    (an API's `overloaded_error` is also its error type)."""

    phrase: str
    signal: Signal
    why: str
    connect: bool = False  # said before anything was sent (refused, DNS): reconnect at once
    billing: bool = False  # money is involved: a balance, a plan, billing
    status: int = 0  # an HTTP reason phrase: the status it names
    spelled: str = ""
    cause: str = ""  # the cause in plain words, when the text names one ("a null pointer")
    weak: bool = False  # a general cue: it counts only when nothing more specific is said
    literal: bool = False  # matched as written (another language): never split or stemmed


def term(
    phrase: str,
    signal: Signal,
    why: str,
    *,
    connect: bool = False,
    billing: bool = False,
    status: int = 0,
    cause: str = "",
    weak: bool = False,
    literal: bool = False,
) -> Term:
    """A row, its phrase read the way English texts are (`stemmed`). A `literal` phrase — of
    another language, which English stems would mangle ("invalide" is not "invalid") — and a
    phrase in another script are kept as written, lower-cased (`normalise`); so is a class
    name that claims nothing was sent (`connect`): httpx's `ConnectError` is not the words
    "connection error", which say no such thing."""
    identifier = " " not in phrase and not phrase.islower() and not phrase.isupper()
    literal = literal or not phrase.isascii() or (connect and identifier)
    read = normalise(phrase) if literal else stemmed(phrase)
    return Term(read, signal, why, connect, billing, status, phrase, cause, weak, literal)


_ASCII = "!\"#$%&'()*+,-./:;<=>?@[\\]^`{|}~\t\n\r\x0b\x0c"
# Beyond ASCII: curly quotes, guillemets, and the punctuation of Chinese and Japanese (full
# width: "，。：" and the rest), which separates words as ASCII's does.
_WIDE = "‘’“”«»。【】「」『』、《》〈〉…·" + "".join(  # and the full-width forms of ASCII's
    chr(0xFEE0 + ord(c)) for c in _ASCII if "!" <= c <= "~"
)
SEPARATORS = str.maketrans(dict.fromkeys(_ASCII + _WIDE, " "))
# The same table for ASCII text as bytes: `bytes.translate` is several times faster than
# `str.translate` with a dict, and most error texts are ASCII.
ASCII_SEPARATORS = bytes.maketrans(_ASCII.encode(), b" " * len(_ASCII))


_LATIN_LETTERS = str.maketrans({"ı": "i", "ł": "l", "ø": "o", "đ": "d", "ß": "ss"})


def unaccented(text: str) -> str:
    """Latin-script `text` as typed without accents ("geçersiz" → "gecersiz", "değeri" →
    "degeri"); text in any other script is returned as it is (its marks are letters)."""
    if text.isascii() or any(ord(c) >= 0x250 and c.isalpha() for c in text):
        return text
    decomposed = unicodedata.normalize("NFKD", text.translate(_LATIN_LETTERS))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def starts_a_word(prefix: str, sorted_words: Sequence[str]) -> bool:
    """Whether any of `sorted_words` (sorted) starts with `prefix`."""
    at = bisect_left(sorted_words, prefix)
    return at < len(sorted_words) and sorted_words[at].startswith(prefix)


def normalise(text: str) -> str:
    """Lower-case words separated by single spaces (identifiers kept whole): the form codes
    and reason phrases are read in."""
    return " ".join(text.lower().translate(SEPARATORS).split())


# --- words, as a person reads them ------------------------------------------------------------

# Where an identifier's words meet: before each capitalised word ("socketTimeout",
# "HTTPError", "NotLeaderOrFollower") — not inside a name in capitals ("MySQL", "OpenAI",
# "DynamoDB"), which people also write in lower case.
_CAMEL = re.compile(r"(?<=[A-Za-z0-9])(?=[A-Z][a-z])")


def word_forms(token: str) -> tuple[str, ...]:
    """The words of one token, each `stem`med: an identifier is split where a person sees
    its words ("ThrottlingException" → throttl, except; "rate_limit_error" → rate, limit,
    error; "SQLITE_BUSY" → sqlite, busi), a plain word is one word."""
    return tuple(read_token(token).split())


def read_token(token: str) -> str:
    """`word_forms` as one string ("throttl except"), the form texts are read in.

    Remembered for short tokens (the words of error texts repeat; a stemmer is slow), in a
    memo of bounded size that starts afresh when full: never more than `_MEMO_SIZE` tokens of
    at most `_MEMO_LONGEST` characters, however many texts pass. A longer token (an id, a
    blob) and a number are read as they are."""
    forms = _MEMO.get(token)
    if forms is None:
        if token.isdigit() or len(token) > _MEMO_LONGEST:  # a number, an id, a blob: itself
            return token.lower()
        elif "_" in token or (not token.islower() and not token.isupper()):
            forms = " ".join(map(stem, _CAMEL.sub(" ", token.replace("_", " ")).lower().split()))
        else:
            forms = stem(token.lower())
        if len(_MEMO) >= _MEMO_SIZE:
            _MEMO.clear()
        _MEMO[token] = forms
    return forms


_MEMO: dict[str, str] = {}
_MEMO_SIZE, _MEMO_LONGEST = 50_000, 40


_STEMMERS = threading.local()  # a Snowball stemmer keeps state while it works: one per thread


def stem(word: str) -> str:
    """An English word without its inflection, so that one form stands for a family:
    throttle, throttled, throttling → "throttl"; lock, locked, locking → "lock"; exceeds,
    exceeded → "exceed" (the Snowball English stemmer, Porter's second). It is a key, not a word
    to show, made the same way for texts and vocabulary alike; numbers, codes and other scripts
    are left as they are."""
    if len(word) <= 3 or not (word.isascii() and word.isalpha()):
        return word
    english = getattr(_STEMMERS, "english", None)
    if english is None:
        english = _STEMMERS.english = Stemmer.Stemmer("english")
    return str(english.stemWord(word))


def stemmed(text: str) -> str:
    """`text` as its words are read: identifiers split, every word stemmed, lower case."""
    tokens = text.translate(SEPARATORS).split()
    return " ".join(form for token in tokens for form in word_forms(token))
