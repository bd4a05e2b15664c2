"""Raw text → facts: a message, a log line, a traceback or an error body (JSON or not).

The text is read once (`read`): normalised (lower case, punctuation as spaces) and split into
words. Every vocabulary (`errors/_vocab_*.py`) is looked up in that one reading, in one pass
however many terms there are: each term is indexed under one *anchor*, its longest word; the
text's words are intersected with the anchors (a set operation, in C), and only the terms under
the anchors that occur are checked, as whole words, against the text. The input a validation
message names comes from `field_in`. The text is expected already cleaned (`clean_text`).
Numbers in a text that mean something: status codes, and the server's wait.

A three-digit number is an HTTP status only where something says so: "HTTP/1.1 503",
"status: 429", '"statusCode":503', "Error: 503", "error code 529", "HttpError: 404", leading the
text, followed by its own reason phrase ("502 Bad Gateway") or by a colon ("503: …"). Ports
(":443"), positions ("at position 404"), line numbers and IP octets are not. An errno is read
from "[Errno N]", "[WinError N]", "(os error N)" and "errno: N"; a gRPC status only after
"StatusCode", as "grpc_status N" or in grpc-node's "N NAME:"; a SQLSTATE after "SQLSTATE".

When to try again: headers `retry-after-ms`, then `Retry-After` (seconds or an HTTP date);
in text, a "Retry-After:" line, a JSON `retry_after` (Slack, Telegram), "retry after N
[seconds]" (Telegram, Azure), "try again in 18.642s" / "retry in 6ms" (OpenAI, Gemini), "try
again in one minute" / "in the next hour" (Open-Meteo) and "try again tomorrow" (the next UTC
midnight). A period the error names ("per day") gives the time until that period turns. Then
`clamp_wait` turns a hint into a wait worth taking.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta
from operator import attrgetter, itemgetter
from typing import NamedTuple

from errors import (
    _vocab_api,
    _vocab_clients,
    _vocab_db,
    _vocab_grpc,
    _vocab_http,
    _vocab_os,
    _vocab_tls,
    _vocab_words,
)
from errors._facts import ASCII_SEPARATORS, SEPARATORS, Facts, Period, Signal, Term
from errors._vocab_api import STATUS_OF_TYPE
from errors._vocab_http import ERROR_STATUSES, OWN_PHRASES

__all__ = [
    "MAX_WAIT_S",
    "MIN_WAIT_S",
    "TERMS",
    "Words",
    "clamp_wait",
    "facts_from_text",
    "field_in",
    "find",
    "hint_from_headers",
    "hint_from_text",
    "period_in",
    "primary",
    "read",
    "until_period_ends",
]

TERMS: tuple[Term, ...] = (
    *_vocab_os.TERMS,
    *_vocab_tls.TERMS,
    *_vocab_http.TERMS,
    *_vocab_grpc.TERMS,
    *_vocab_db.TERMS,
    *_vocab_api.TERMS,
    *_vocab_clients.TERMS,
    *_vocab_words.TERMS,
)


# Under each anchor: the one-word terms (found as soon as the anchor is), and the longer
# phrases with their padded form, to be checked as whole words.
_Entry = tuple[tuple[Term, ...], tuple[tuple[str, Term], ...]]


def _index(terms: Iterable[Term]) -> dict[str, _Entry]:
    """Terms by anchor: the longest word of each phrase, the least likely to occur by chance."""
    words: dict[str, list[Term]] = {}
    phrases: dict[str, list[tuple[str, Term]]] = {}
    for found in terms:
        anchor = max(found.phrase.split(), key=len)
        if found.phrase == anchor:
            words.setdefault(anchor, []).append(found)
        else:
            phrases.setdefault(anchor, []).append((f" {found.phrase} ", found))
    anchors = words.keys() | phrases.keys()
    return {a: (tuple(words.get(a, ())), tuple(phrases.get(a, ()))) for a in anchors}


_INDEX = _index(TERMS)
_RANK = {id(term): rank for rank, term in enumerate(TERMS)}
_ANCHORS = frozenset(_INDEX)


class Words(NamedTuple):
    """A text read once: its normalised form (padded with spaces) and its set of words.

    (A named tuple: built once per text, and cheaper to build than a frozen dataclass.)
    """

    padded: str
    words: frozenset[str]


def read(text: str) -> Words:
    """`text` normalised and split, for `find` and the other readers."""
    lowered = text.lower()
    if lowered.isascii():  # the same translation, done on bytes (several times faster)
        split = lowered.encode().translate(ASCII_SEPARATORS).decode().split()
    else:
        split = lowered.translate(SEPARATORS).split()
    return Words(f" {' '.join(split)} ", frozenset(split))


def find(words: Words) -> list[Term]:
    """Every term whose words occur in the text, as whole words, in the order the text names
    them (then in vocabulary order): which of two reason phrases names the status must not
    depend on a set's order, which changes with the hash seed."""
    hits: list[tuple[int, int, Term]] = []
    padded = words.padded
    for anchor in words.words & _ANCHORS:
        single, phrases = _INDEX[anchor]
        if single:
            at = padded.find(f" {anchor} ")
            hits += [(at, _RANK[id(term)], term) for term in single]
        for phrase, candidate in phrases:  # a plain loop: most anchors have no phrase
            at = padded.find(phrase)
            if at >= 0:
                hits.append((at, _RANK[id(candidate)], candidate))
    hits.sort(key=_POSITION)
    return [term for _, _, term in hits]


_POSITION = itemgetter(0, 1)


def signals_of(found: Iterable[Term]) -> frozenset[Signal]:
    """The signals the found terms give."""
    return frozenset(map(_SIGNAL, found))


_SIGNAL = attrgetter("signal")


# --- the input a validation message names ---------------------------------------------

_MISSING = "is missing", "send it again with that value filled in"
_NULL = "is empty", "send it again with a value"
# Over the lower-cased text; the name is then taken, as written, from the original. Each row
# starts with words its pattern cannot match without: a substring test is far cheaper than a
# pattern that opens with a character class (tried at every position), so most rows are
# passed over without a scan.
_PATTERNS: tuple[tuple[str, re.Pattern[str], tuple[str, str]], ...] = (
    (
        " is a required property",
        re.compile(r"['\"](?P<name>\w+)['\"] is a required property"),
        _MISSING,
    ),
    (
        " field required [type=missing",
        re.compile(r"(?P<name>[\w.]+) field required \[type=missing"),
        _MISSING,
    ),
    (
        "parameter ",
        re.compile(r"\bparameter '?(?P<name>\w+)'? (?:is )?(?:not provided|missing|is required)"),
        _MISSING,
    ),
    (
        "missing required ",
        re.compile(r"missing required (?:field|parameter|property|argument)s?:? '?(?P<name>\w+)"),
        _MISSING,
    ),
    (" is required", re.compile(r"(?:field )?['\"](?P<name>\w+)['\"] is required"), _MISSING),
    # JSON Schema on a null: "None is not of type 'string'" … "On instance['units']"
    (
        "none is not of type '",
        re.compile(r"\bnone is not of type '\w+'.{0,200}?on instance\[['\"](?P<name>\w+)['\"]\]"),
        _NULL,
    ),
    (
        " input should be a valid ",
        re.compile(
            r"(?P<name>[\w.]+) input should be a valid (?P<kind>string|integer|number|boolean)"
        ),
        ("must be {1}", "send it again as {1}"),
    ),
)
_KINDS = {"string": "text", "integer": "a whole number", "number": "a number"}
_KINDS["boolean"] = "true or false"
_NOT_NAMES = frozenset({"value", "input", "field", "property", "parameter", "it", "this", "type"})


def field_in(text: str) -> tuple[str, str, str] | None:
    """(field, problem, fix) for the first input the text names as invalid, or None."""
    lowered = text.lower()
    same_places = len(lowered) == len(text)
    for needed, pattern, (problem, fix) in _PATTERNS:
        match = pattern.search(lowered) if needed in lowered else None
        if match is None:
            continue
        written = text[match.start("name") : match.end("name")] if same_places else match["name"]
        name = written.rsplit(".", 1)[-1]
        if _is_name(name):
            kind = _KINDS.get(match.groupdict().get("kind") or "", "")
            return name, problem.format(name, kind), fix.format(name, kind)
    return None


def _is_name(name: str) -> bool:
    return name.isidentifier() and len(name) <= 30 and name.lower() not in _NOT_NAMES


# --- facts from a text -------------------------------------------------------------------

# The signal that names a record, most telling first (the rule table looks at them all).
_PRECEDENCE = (
    Signal.MISSING_KEY,
    Signal.DISK_FULL,
    Signal.OUT_OF_MEMORY,
    Signal.RESOURCE_LIMIT,
    Signal.PERMISSION,
    Signal.CERTIFICATE,
    Signal.DECLINED,
    Signal.TOO_LONG,
    Signal.IDEMPOTENCY,
    Signal.EXISTS,
    Signal.QUOTA,
    Signal.CAPACITY,
    Signal.RATE_LIMIT,
    Signal.RECIPIENT_GONE,
    Signal.EXPIRED_TOKEN,
    Signal.BAD_CREDENTIALS,
    Signal.FORBIDDEN,
    Signal.TIMEOUT,
    Signal.CONFLICT,
    Signal.NOT_FOUND,
    Signal.INVALID_INPUT,
    Signal.BAD_REQUEST,
    Signal.SERVER,
    Signal.NETWORK,
    Signal.BAD_DATA,
    Signal.INTERNAL,
)


_NOT_A_SIGNAL = frozenset({Signal.STATUS})  # a status is read as a number, not from words
_COUNTED = frozenset({Signal.RATE_LIMIT, Signal.QUOTA})  # the signals that count over a period
# A found term's flags and status, read in C (`map`), not in a generator: this runs per text.
_CONNECT, _BILLING, _STATUS = attrgetter("connect"), attrgetter("billing"), attrgetter("status")


def facts_from_text(text: str, now: datetime | None = None, context: str = "") -> Facts:
    """The facts of a cleaned error text."""
    words = read(text)
    found = find(words)
    errno_found, errno_connect = errno_signals(text, words)
    signals = signals_of(found) | errno_found | grpc_signals(words)
    signals |= sqlstate_signals(text, words) | json_rpc_signals(text)
    signals -= _NOT_A_SIGNAL
    upstream_type = _upstream_type(text, words, found)
    status = _status(text, words, found, upstream_type)
    period = None if signals.isdisjoint(_COUNTED) else period_in(words)
    field = field_in(text) if Signal.INVALID_INPUT in signals else None
    return Facts(
        primary(signals, status),
        text,
        status=status,
        upstream_type=upstream_type,
        hint_s=_hint(text, words, period, now),
        connect_phase=errno_connect or any(map(_CONNECT, found)),
        signals=signals,
        period=period,
        billing=any(map(_BILLING, found)),
        field=field and field[0],
        problem=field and field[1],
        fix=field and field[2],
        context=context,
        words=words.words,
    )


def primary(signals: frozenset[Signal], status: int | None) -> Signal:
    """The one signal that names the record."""
    for signal in _PRECEDENCE:
        if signal in signals:
            return signal
    return Signal.STATUS if status is not None else Signal.UNKNOWN


def _status(text: str, words: Words, found: list[Term], upstream: str | None) -> int | None:
    """The status the text states, or the one its reason phrase or error type stands for."""
    status = status_in(text, words)
    if status is None:
        status = next(filter(None, map(_STATUS, found)), None)
    if status is None and upstream is not None:
        status = STATUS_OF_TYPE.get(upstream.lower())
    return status


# The one-word codes and types of the APIs' error bodies ("overloaded_error", "ExpiredToken").
_UPSTREAM = frozenset(
    t.phrase for t in (*_vocab_api.TERMS, *_vocab_grpc.TERMS) if " " not in t.phrase
)


_TYPES = frozenset(STATUS_OF_TYPE)


def _upstream_type(text: str, words: Words, found: list[Term]) -> str | None:
    """The first error code or type of a known API that the text quotes, as it spells it."""
    codes = [t.phrase for t in found if t.phrase in _UPSTREAM]
    codes += words.words & _TYPES
    if not codes:
        return None
    lowered = text.lower()
    placed = [(lowered.find(code), code) for code in codes if code in lowered]
    if not placed:
        return None
    start, code = min(placed)
    return text[start : start + len(code)] if len(lowered) == len(text) else code


# "per minute", "per_minute", "PerMinute" (Google quota ids), "per min", "per sec".
_PER = re.compile(r"per[ _]?(second|sec\b|minute|min\b|hour|day|month)")
# Whole words that name a period: Open-Meteo's "Minutely …", OpenAI's "(TPM)", "tomorrow".
_PERIOD_WORDS = {"minutely": Period.MINUTE, "hourly": Period.HOUR, "daily": Period.DAY}
_PERIOD_WORDS |= {"monthly": Period.MONTH, "rps": Period.SECOND, "rpm": Period.MINUTE}
_PERIOD_WORDS |= {"tpm": Period.MINUTE, "rpd": Period.DAY, "tpd": Period.DAY}
_PERIOD_WORDS |= {"tomorrow": Period.DAY}
# Phrases: "Limit: 10000 / min", "in the next hour", "in one minute".
_PERIOD_PHRASES = {" min ": Period.MINUTE, " next hour ": Period.HOUR}
_PERIOD_PHRASES |= {" one minute ": Period.MINUTE, " a minute ": Period.MINUTE}
_PER_WORD = {"sec": Period.SECOND, "min": Period.MINUTE}
_LONGEST = list(Period)


def period_in(words: Words) -> Period | None:
    """The longest period the text counts a rate or quota over ("per minute", "Daily …")."""
    periods = {_PERIOD_WORDS[word] for word in words.words & _PERIOD_WORDS.keys()}
    periods |= {period for phrase, period in _PERIOD_PHRASES.items() if phrase in words.padded}
    if "per" in words.padded:
        periods |= {_PER_WORD.get(w) or Period(w) for w in _PER.findall(words.padded)}
    return max(periods, key=_LONGEST.index) if periods else None


_HINT_WORDS = frozenset({"retry", "again", "tomorrow", "retry_after", "retryafter"})


def _hint(text: str, words: Words, period: Period | None, now: datetime | None) -> float | None:
    hint = hint_from_text(text, now) if not words.words.isdisjoint(_HINT_WORDS) else None
    if hint is None and period is not None:
        return until_period_ends(period, now)
    return hint


# --- numbers that are codes ---------------------------------------------------------------------

_STATUS_WORDS = frozenset(str(code) for code in ERROR_STATUSES)
# The leading space is matched, not looked behind at: a pattern that opens with a literal is
# searched for quickly; the code is group 1 (the trailing space stays for the next match).
_NUMBER = re.compile(r" ([45]\d\d)(?= )")
_BEFORE_COLON = re.compile(r"(?<![\d.:\]])\b([45]\d\d):\s")
_STATUS_ANCHORS = frozenset(
    {"http", "https", "status", "statuscode", "status_code", "httpstatuscode", "code", "cod"}
    | {"error", "error_code", "errorcode", "returncode", "httpcode", "returned", "got"}
    | {"answered", "responded", "response"}
)


def status_in(text: str, words: Words) -> int | None:
    """The first anchored HTTP error status in the text, if any."""
    if words.words.isdisjoint(_STATUS_WORDS):
        return None
    colon: set[int] | None = None  # the codes followed by a colon, read once if ever needed
    for match in _NUMBER.finditer(words.padded):
        code = int(match.group(1))
        if code not in ERROR_STATUSES:
            continue
        if _anchored(words.padded, match, code):
            return code
        if colon is None:
            colon = {int(code) for code in _BEFORE_COLON.findall(text)}
        if code in colon:
            return code
    return None


def _anchored(padded: str, match: re.Match[str], code: int) -> bool:
    """Whether the words around the number say it is a status."""
    start = match.start(1)
    before = padded[max(0, start - 48) : start].split()
    if not before or before[-1] in _STATUS_ANCHORS or before[-1].endswith("error"):
        return True
    if "http" in before[-3:]:  # "HTTP/1.1 503", "HTTP/2 429"
        return True
    after = padded[match.end() : match.end() + 48]
    return any(after.startswith(f" {phrase} ") for phrase in OWN_PHRASES.get(code, ()))


# Python's "[Errno N]" (negative: getaddrinfo), Windows' "[WinError N]", Rust's "(os error
# N)", an exception's repr "Error(N, …", and libuv's "errno: -N" (a negated errno).
_ERRNO = re.compile(
    r"\[(?:errno|winerror) (-?\d+)\]|\(os error (\d+)\)"
    r"|(?:\b|os|io|connection\w*|brokenpipe|permission|timeout)error\((-?\d+),"
    r"|errno[\"']?[:=]? ?(-?\d+)"
)
_ERRNO_WORDS = frozenset({"errno", "winerror"})


def errno_signals(text: str, words: Words) -> tuple[frozenset[Signal], bool]:
    """The signals of the errno numbers the text quotes, and whether one says nothing was sent."""
    quoted = " os error " in words.padded or "rror(" in text
    if words.words.isdisjoint(_ERRNO_WORDS) and not quoted:
        return frozenset(), False
    matches = _ERRNO.finditer(text.lower())
    names = [_vocab_os.ERRNO_NUMBERS.get(_errno_of(match), "") for match in matches]
    found = frozenset(_vocab_os.ERRNO_NAMES[name] for name in names if name)
    return found, any(name in _vocab_os.CONNECT_NAMES for name in names)


def _errno_of(match: re.Match[str]) -> int:
    python, rust, repr_, libuv = match.groups()
    return int(python or rust or repr_) if libuv is None else abs(int(libuv))


_GRPC_NAMES = "|".join(_vocab_grpc.BY_NAME)
_GRPC = re.compile(
    rf"statuscode (\w+)|grpc_status (\d+)|(?<= )(?:1[0-6]|[1-9]) ({_GRPC_NAMES})(?= )"
)
_GRPC_WORDS = frozenset({"statuscode", "grpc_status"} | set(_vocab_grpc.BY_NAME))


def grpc_signals(words: Words) -> frozenset[Signal]:
    """The signals of the gRPC statuses the text names where it says they are statuses."""
    if words.words.isdisjoint(_GRPC_WORDS) or not _may_name_grpc(words):
        return frozenset()
    found: set[Signal] = set()
    for name, number, node_name in _GRPC.findall(words.padded):
        signal = _vocab_grpc.BY_NAME.get(name or node_name)
        signal = signal or (_vocab_grpc.BY_NUMBER.get(int(number)) if number else None)
        if signal is not None:
            found.add(signal)
    return frozenset(found)


def _may_name_grpc(words: Words) -> bool:
    """Whether `_GRPC` can match at all: its marker words, or a gRPC number as a word."""
    padded = words.padded
    if "statuscode " in padded or "grpc_status " in padded:
        return True
    return not words.words.isdisjoint(_GRPC_NUMBERS)


_GRPC_NUMBERS = frozenset(str(number) for number in range(1, 17))
_JSON_RPC = re.compile(r"json-?rpc\W{0,3}(?:error\W{0,3})?(-32\d{3})|\"code\": ?(-32\d{3})")


def json_rpc_signals(text: str) -> frozenset[Signal]:
    """The signals of the JSON-RPC error codes the text quotes."""
    if "-32" not in text:
        return frozenset()
    found = set()
    for quoted, coded in _JSON_RPC.findall(text.lower()):
        signal = _vocab_grpc.JSON_RPC.get(int(quoted or coded))
        if signal is not None:
            found.add(signal)
    return frozenset(found)


_SQLSTATE = re.compile(r"sqlstate\W{0,3}([0-9a-z]{5})")


def sqlstate_signals(text: str, words: Words) -> frozenset[Signal]:
    """The signals of the SQLSTATEs the text quotes."""
    if "sqlstate" not in words.words:
        return frozenset()
    found = set()
    for code in _SQLSTATE.findall(text.lower()):
        upper = code.upper()
        signal = _vocab_db.SQLSTATES.get(upper) or _vocab_db.SQLSTATE_CLASSES.get(upper[:2])
        if signal is not None:
            found.add(signal)
    return frozenset(found)


# --- when to try again -----------------------------------------------------------------

# A hint of 0 (or a date already past) must not become a hot loop of instant retries.
MIN_WAIT_S = 1.0
# A hint of an hour must not become an hour of sleep; past this the caller should give up.
MAX_WAIT_S = 60.0

_HEADER_HINT = re.compile(
    r"(?i)\bretry-after(-ms)?\s*[:=]\s*(\d+(?:\.\d+)?|[A-Z][a-z]{2},[^\n]{10,30}?GMT)"
)
_WORD_HINT = re.compile(
    r"(?i)retry_?after[\"']?\s*[:=]\s*(\d+(?:\.\d+)?)()"
    r"|(?:retry after|try again in|retry in)\s+(\d+(?:\.\d+)?)\s*"
    r"(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hours?)?\b"
)
_WORD_PERIOD = re.compile(
    r"(?i)(?:try again|retry) (?:in|within) (?:a|an|one) (minute|hour)\b"
    r"|(?:in|within) the next (hour|minute)\b|try again (tomorrow)\b"
)
_TWINS = {
    pattern: re.compile(pattern.pattern.removeprefix("(?i)"))
    for pattern in (_WORD_HINT, _WORD_PERIOD)
}
_TRIGGERS = ("retry", "again", "tomorrow")


def hint_from_headers(headers: Mapping[str, str], now: datetime | None = None) -> float | None:
    """Seconds the server asked us to wait, from `retry-after-ms` or `retry-after`."""
    lowered = {k.lower(): v for k, v in headers.items()}
    if (ms := _number(lowered.get("retry-after-ms"))) is not None:
        return ms / 1000
    value = lowered.get("retry-after")
    return None if value is None else _seconds(value, now)


def hint_from_text(text: str, now: datetime | None = None) -> float | None:
    """The same hint, found in the words of an error: "429 … Retry-After: 30", "retry after 34",
    "Please try again in 9.816s", "try again tomorrow"."""
    lowered = text.lower()
    if not any(map(lowered.__contains__, _TRIGGERS)):
        return None
    # The header's pattern needs the (ASCII) words "retry-after", in any case: look first.
    hint = _header_hint(text, now) if "retry-after" in lowered else None
    if hint is None:
        hint = _word_hint(text, lowered)
    return hint if hint is not None else _period_hint(text, lowered, now)


def _header_hint(text: str, now: datetime | None) -> float | None:
    match = _HEADER_HINT.search(text)
    if match is None:
        return None
    if match.group(1):
        ms = _number(match.group(2))
        return None if ms is None else ms / 1000
    return _seconds(match.group(2), now)


def _search(pattern: re.Pattern[str], text: str, lowered: str) -> re.Match[str] | None:
    """`pattern` (written in lower case, with `(?i)`) searched for in `text`.

    On ASCII text its twin without `(?i)` searches the lower-cased text instead: the same
    matches, with their words in lower case (which every caller lower-cases anyway), found
    several times faster, since a pattern that heeds case is searched for by its first letters.
    (Beyond ASCII, `(?i)` also equates letters such as "ſ" and "s" that lower-casing does not.)
    """
    if text.isascii():
        return _TWINS[pattern].search(lowered)
    return pattern.search(text)


def _word_hint(text: str, lowered: str) -> float | None:
    match = _search(_WORD_HINT, text, lowered)
    if match is None:
        return None
    value, _, number, unit = match.groups()
    seconds = _number(value or number)
    return None if seconds is None else seconds * _scale(unit or "s")


def _scale(unit: str) -> float:
    """Seconds in one `unit` ("ms", "s", "seconds", "min", "hours")."""
    unit = unit.lower()
    if unit == "ms" or unit.startswith("milli"):
        return 0.001
    return {"m": 60.0, "h": 3600.0}.get(unit[0], 1.0)


def _period_hint(text: str, lowered: str, now: datetime | None) -> float | None:
    match = _search(_WORD_PERIOD, text, lowered)
    if match is None:
        return None
    word = next(group for group in match.groups() if group).lower()
    return until_period_ends(Period.DAY if word == "tomorrow" else Period(word), now)


def until_period_ends(period: Period, now: datetime | None = None) -> float:
    """Seconds until a `period` counted in UTC turns (a minute and a second are rolling)."""
    now = (now or datetime.now(UTC)).astimezone(UTC)
    if period is Period.SECOND:
        return 1.0
    if period is Period.MINUTE:
        return 60.0
    if period is Period.HOUR:
        turn = now.replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    elif period is Period.DAY:
        turn = now.replace(hour=0, minute=0, second=0, microsecond=0) + timedelta(days=1)
    else:
        turn = (now.replace(day=28) + timedelta(days=4)).replace(
            day=1, hour=0, minute=0, second=0, microsecond=0
        )
    return (turn - now).total_seconds()


def clamp_wait(hint: float, cap: float = MAX_WAIT_S) -> float:
    """The wait to take for a hint: never below `MIN_WAIT_S`, never above `cap`."""
    return min(max(hint, MIN_WAIT_S), max(cap, MIN_WAIT_S))


def _seconds(value: str, now: datetime | None) -> float | None:
    seconds = _number(value)
    if seconds is not None:
        return seconds
    from email.utils import parsedate_to_datetime  # the email package: only for a date

    try:
        when = parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def _number(value: str | None) -> float | None:
    try:
        number = float(value) if value is not None else None
    except ValueError:
        return None
    # NaN, infinities and negatives are not hints.
    return number if number is not None and 0 <= number < float("inf") else None
