"""Numbers in a text that mean something: status codes, and the server's wait.

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
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from errors import _vocab_db, _vocab_grpc, _vocab_os
from errors._facts import Period, Signal
from errors._vocab_http import ERROR_STATUSES, OWN_PHRASES

if TYPE_CHECKING:
    from errors._text import Words

__all__ = [
    "MAX_WAIT_S",
    "MIN_WAIT_S",
    "clamp_wait",
    "errno_signals",
    "grpc_signals",
    "hint_from_headers",
    "hint_from_text",
    "json_rpc_signals",
    "sqlstate_signals",
    "status_in",
    "until_period_ends",
]

_STATUS_WORDS = frozenset(str(code) for code in ERROR_STATUSES)
# The leading space is matched, not looked behind at: a pattern that opens with a literal is
# searched for quickly; the code is group 1 (the trailing space stays for the next match).
_NUMBER = re.compile(r" ([45]\d\d)(?= )")
_BEFORE_COLON = re.compile(r"(?<![\d.:\]])\b([45]\d\d):\s")
_ANCHORS = frozenset(
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
    if not before or before[-1] in _ANCHORS or before[-1].endswith("error"):
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
