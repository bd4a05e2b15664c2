"""Raw text → facts: a message, a log line, a traceback or an error body (JSON or not).

The text is read once (`errors._lexicon.read`) and every vocabulary is looked up in that one
reading; numbers that are codes come from `errors._codes`, the wait from the text's own words
(`errors._retry_after`) or from the period a rate or quota names, and the input a validation
message names from `errors._fields`. The text is expected already cleaned (`clean_text`).
"""

from __future__ import annotations

import re
from datetime import datetime
from operator import attrgetter

from errors import _codes, _lexicon, _vocab_api, _vocab_grpc
from errors._facts import Facts, Period, Signal
from errors._fields import field_in
from errors._lexicon import Words
from errors._retry_after import hint_from_text, until_period_ends
from errors._term import Term
from errors._vocab_api import STATUS_OF_TYPE

__all__ = ["facts_from_text", "period_in", "primary"]

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
    words = _lexicon.read(text)
    found = _lexicon.find(words)
    errno_found, errno_connect = _codes.errno_signals(text, words)
    signals = _lexicon.signals(found) | errno_found | _codes.grpc_signals(words)
    signals |= _codes.sqlstate_signals(text, words)
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
    hint = hint_from_text(text, now) if not words.words.isdisjoint(_HINT_WORDS) else None
    if hint is None and period is not None:
        return until_period_ends(period, now)
    return hint
