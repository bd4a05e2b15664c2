"""Raw text → facts: a message, a log line, a traceback or an error body (JSON or not).

The text is read once (`read`): normalised (lower case, punctuation as spaces) and split into
words. Every vocabulary (`errors/_vocab_*.py`) is looked up in that one reading, in one pass
however many terms there are: each term is indexed under one *anchor*, its longest word; the
text's words are intersected with the anchors (a set operation, in C), and only the terms under
the anchors that occur are checked, as whole words, against the text. Numbers that are codes
and the server's wait come from `errors._codes`; the input a validation message names from
`field_in`. The text is expected already cleaned (`clean_text`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime
from operator import attrgetter, itemgetter
from typing import NamedTuple

from errors import (
    _codes,
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

__all__ = ["TERMS", "Words", "facts_from_text", "field_in", "find", "period_in", "primary", "read"]

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
    errno_found, errno_connect = _codes.errno_signals(text, words)
    signals = signals_of(found) | errno_found | _codes.grpc_signals(words)
    signals |= _codes.sqlstate_signals(text, words) | _codes.json_rpc_signals(text)
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
    status = _codes.status_in(text, words)
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
    hint = _codes.hint_from_text(text, now) if not words.words.isdisjoint(_HINT_WORDS) else None
    if hint is None and period is not None:
        return _codes.until_period_ends(period, now)
    return hint
