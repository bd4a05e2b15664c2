"""Words: one plain sentence for the user, a step for the caller, facts for the developer.

Nothing from an upstream body reaches `user_message` or `action_detail`: they are built from
the operation (ours, kept as written: `subject_from`), our own structured facts (a field name
that looks like one, a place, a period, a wait, a named cause from our vocabulary) and each
kind's fixed wording (`errors._kinds`) — and, in quotes, a value the caller itself sent that
the error points at (`errors._text.named_value`, made safe by `errors._redact.quotable`). A
sentence that still fails the plainness check (`plainness_problems`) falls back to the kind's
own words about "that request".

The operation as a subject: its words stay as they are — names, versions ("Claude 3.5
Sonnet", "GPT-4", "2020.0.2"), "#channels" and "@scopes". Only what would make the sentence
technical is dropped — a URL, a path, a snake_case identifier such as `billing_api`, markup, an
exception name, an error code, a three-digit number that reads as a status, a redacted secret
— together with the connecting words that led to it ("from", "via", "using"), so nothing is
left dangling. A long operation is shortened at a word boundary, never ending on a connecting
word.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from errors._facts import Facts, Period, clean_text, cut
from errors._kinds import LATER, Action, ErrorType, Kind
from errors._redact import quotable, redact

__all__ = [
    "FALLBACK_SUBJECT",
    "MAX_SUBJECT",
    "action_detail",
    "developer_note",
    "duration",
    "phrase",
    "plainness_problems",
    "spoken",
    "subject_from",
    "subject_of",
    "tidy",
    "user_message",
]

# --- the user's sentence, the caller's step, the developer's note ----------------------------

_MAX_MESSAGE = 230

_TECHNICAL = re.compile(
    r"\w+://[^\s]{0,200}|[^\s]{0,80}[_/\\=<>{}\[\]()@#$%^*|`~][^\s]{0,80}|\[redacted\]"
    r"|\b[1-5]\d\d\b|\b\w{0,40}(?:Error|Exception|Traceback)\b"
)
_NOT_WORDS = re.compile(r"[^\w\s,'’&+-]")


def phrase(text: str, limit: int) -> str:
    """`text` as plain words: no markup, no sentence breaks, at most `limit` characters."""
    words = " ".join(_NOT_WORDS.sub(" ", _TECHNICAL.sub(" ", redact(text))).split())
    return _shorten(words, limit).strip(" ,'’&+-")


_BREAKS = re.compile(r"[.!?;]+(?=\s|$)|[{}<>\[\]`]")


def tidy(text: str, limit: int) -> str:
    """Our own words (a problem, a fix) made safe inside a sentence, symbols kept: "2 * (3 + 4)"."""
    words = " ".join(_BREAKS.sub(",", clean_text(text)).split()).strip(" ,")
    return _shorten(words, limit)


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0]


_IDENTIFIER_BREAKS = re.compile(r"[_\-.]+|(?<=[a-z0-9])(?=[A-Z])")


def spoken(name: str) -> str:
    """An input's name as words a sentence can hold: "user_id" → "user id", "timeZone" →
    "time zone"; "" when nothing of it is a word."""
    return phrase(_IDENTIFIER_BREAKS.sub(" ", name).lower(), 40)


def duration(seconds: float) -> str:
    """About how long, the way a person says it."""
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size and (unit != "minute" or seconds >= 90):  # "90 seconds", not "2 min"
            count = round(seconds / size)
            return f"1 {unit}" if count == 1 else f"{count} {unit}s"
    whole = max(1, round(seconds))
    return "1 second" if whole == 1 else f"{whole} seconds"


def user_message(kind: Kind, facts: Facts, subject: str, action: Action, wait: float | None) -> str:
    """One plain sentence: what failed (`subject`, the operation as a phrase) and what happens
    next."""
    sentence = _sentence(kind, facts, subject, action, wait)
    if len(sentence) <= _MAX_MESSAGE and not plainness_problems(sentence):
        return sentence
    return kind.sentence.replace("{subject}", FALLBACK_SUBJECT)


def _sentence(kind: Kind, facts: Facts, subject: str, action: Action, wait: float | None) -> str:
    if action is Action.ESCALATE and kind.action.retries:
        return f"{subject} still isn't working after retrying, so it's stopped for now; {LATER}."
    if kind.action is Action.WAIT:
        return _wait_sentence(kind, subject, facts.hint_s, wait)
    if kind.error_type is ErrorType.QUOTA_EXHAUSTED and facts.period in _PERIOD_WORDS:
        return _period_sentence(subject, facts.period)
    if kind.error_type in _NAMES_THE_FIELD and facts.field and spoken(facts.field):
        return (
            f"{subject} couldn't start because the {spoken(facts.field)} "
            f"{tidy(facts.problem or 'is not valid', 60)}; "
            f"{tidy(facts.fix or 'change it and try again', 100)}."
        )
    if facts.what and (kind.action is Action.FIX_INPUT) and kind.error_type in _THING_SENTENCES:
        with_value, without = _THING_SENTENCES[kind.error_type]
        what = phrase(facts.what, 30) or "name"
        value = quotable(facts.subject or "")
        sentence = with_value if value else without
        return sentence.format(subject=subject, what=what, value=f"“{value}”")
    if kind.error_type is ErrorType.INTERNAL_ERROR and facts.cause:
        return (
            f"{subject} failed because of an internal error ({phrase(facts.cause, 40)}), which "
            "has been logged for the developers."
        )
    return kind.sentence.replace("{subject}", subject)


# The sentences that name the thing an error is about — and the value the caller sent for it,
# when the error points at it (`errors._text.named_value`) — so the model can correct its call.
_NOT_VALID = (
    "{subject} was turned down because the {what} {value} is not one it accepts; send it "
    "again with a valid {what}.",
    "{subject} was turned down because the {what} it was given is not valid; send it again "
    "with a valid {what}.",
)
_THING_SENTENCES = {
    ErrorType.NOT_FOUND: (
        "{subject} stopped because no {what} called {value} could be found; check the name "
        "and try again.",
        "{subject} couldn't find the {what} it asked for; check the name and try again.",
    ),
    ErrorType.INVALID_REQUEST: _NOT_VALID,
    ErrorType.INVALID_INPUT: _NOT_VALID,
    ErrorType.ALREADY_EXISTS: (
        "{subject} was turned down because the {what} {value} already exists; use it or choose "
        "a different name.",
        "{subject} was turned down because that {what} already exists; use the existing one or "
        "choose a different name.",
    ),
}


_NAMES_THE_FIELD = frozenset({ErrorType.INVALID_INPUT, ErrorType.INVALID_REQUEST})
_PERIOD_WORDS = {
    Period.DAY: ("daily", "tomorrow"),
    Period.MONTH: ("monthly", "next month, or ask the account owner to raise it"),
}


def _period_sentence(subject: str, period: Period | None) -> str:
    adjective, when = _PERIOD_WORDS[period or Period.DAY]
    return f"{subject} has reached the service's {adjective} usage limit; please try again {when}."


def _wait_sentence(kind: Kind, subject: str, hint: float | None, wait: float | None) -> str:
    if hint is None or wait is None:
        return kind.sentence.replace("{subject}", subject)
    if hint > wait:
        return (
            f"{subject} is held up because the service is busy for about {duration(hint)}; "
            "please try again after that."
        )
    return (
        f"{subject} is on hold because the service is busy; "
        f"it should be ready in about {duration(wait)}."
    )


def action_detail(kind: Kind, facts: Facts, action: Action, wait: float | None) -> str:
    """The next step, precise enough for a program or an operator to follow."""
    if action is Action.ESCALATE and kind.action.retries:
        return "Retries are used up; stop retrying and report the failure (or use a fallback)."
    if action is Action.WAIT and facts.hint_s is not None and wait is not None:
        if facts.hint_s > wait:
            return (
                f"The server asked for {duration(facts.hint_s)}, more than the "
                f"{duration(wait)} cap: do not sleep; use a fallback or report the wait."
            )
        return f"Wait {duration(wait)} per Retry-After, then retry the same request unchanged."
    if kind.error_type is ErrorType.QUOTA_EXHAUSTED and facts.hint_s is not None and facts.period:
        return f"Do not retry. The limit resets in about {duration(facts.hint_s)}."
    if kind.error_type in _NAMES_THE_FIELD and facts.field and facts.fix and spoken(facts.field):
        return (
            f"Correct the {spoken(facts.field)} ({tidy(facts.fix, 100)}) and call "
            "again; never resend it unchanged."
        )
    if action is Action.RETRY and facts.connect_phase:
        return "Retry once right away (nothing was sent); escalate or fall back if it fails again."
    return kind.detail


_MAX_NOTE = 400


def developer_note(facts: Facts, kind: Kind, operation: str, retry_count: int) -> str:
    """The technical facts for the log: status, type, reason, hint, retry count, request id.
    `operation` is already cleaned (cut, tidied, redacted)."""
    parts = [f"op={operation[:80]!r}"] if operation else []
    status = facts.status and str(facts.status)
    said = [p for p in (facts.source, status, facts.upstream_type, facts.code) if p]
    if said:
        parts.append(" ".join(said))
    if facts.exception:
        parts.append(facts.exception)
    if facts.hint_s is not None:
        parts.append(f"Retry-After: {facts.hint_s:.3g}s")
    parts.append(f"class={kind.error_type} retry_count={retry_count}")
    if facts.request_id:
        parts.append(f"request_id={clean_text(facts.request_id)[:64]}")
    if facts.text:
        parts.append(f"reason: {facts.text[:200].rstrip('.')}")
    return _fit(". ".join(parts), _MAX_NOTE)


def _fit(text: str, limit: int) -> str:
    """`text` cut so that even its JSON-escaped form stays within `limit` characters."""
    if len(text) + text.count('"') + text.count("\\") <= limit and text.isprintable():
        return text  # printable text escapes only quotes and backslashes, one character each
    over = len(json.dumps(text, ensure_ascii=False)) - 2 - limit
    while over > 0:
        text = text[: len(text) - over]
        over = len(json.dumps(text, ensure_ascii=False)) - 2 - limit
    return text


# --- the operation as a subject ---------------------------------------------------------

MAX_SUBJECT = 80
FALLBACK_SUBJECT = "That request"

_VAGUE = re.compile(
    r"(?i)\b(?:an? )?(?:unexpected |unknown )?error (?:has )?occurred(?: while)?"
    r"|something went wrong(?: (?:in|with|while))?"
)
# Anything that may make an operation technical; an operation without any is plain words.
_SUSPECT = re.compile(r"[\d_/:<>{}\[\]()|`\\=$%^*~@#.]|rror|xception|Trace|E[A-Z]{4}")
_TECHNICAL_WORD = re.compile(
    r"://|^www\.|[{}<>\[\]|`\\=$%^*~_]|(?:Error|Exception)$|^Traceback|^E[A-Z]{4,}$"
    r"|^0x[0-9a-fA-F]+|\.(?:com|org|net|io|dev|ai|app|co|in)$|\w/\w"
    r"|(?<!\d)(?<!\d\.)[1-5]\d\d(?!\d|\.\d)"  # reads as a status code
)
# Names a person wrote: "#releases", "@channel_news", "@types/node".
_NAME = re.compile(r"^[@#][A-Za-z][\w.-]*(?:/[\w.-]+)?$")
_CONNECTORS = frozenset(
    {"a", "an", "the", "to", "for", "from", "of", "with", "via", "using", "through", "and"}
    | {"against", "or", "in", "on", "at", "by", "into", "onto", "about", "as", "than", "over"}
    | {"per"}
)
_OPEN = "\"'“‘(«"
_CLOSE = ".,;:!?\"'”’)»…"
_PUNCTUATED = re.compile(f"[{re.escape(_OPEN + _CLOSE)}]")


def subject_of(operation: str) -> str:
    """The operation as a short phrase to start a sentence: "Fetching billing data"."""
    return subject_from(redact(cut(operation[:1000])))


def subject_from(operation: str) -> str:
    """The same, for an operation already cut and redacted (`clean_text`)."""
    text = _VAGUE.sub(" ", operation) if "rror" in operation or "wrong" in operation else operation
    words = _kept(text.split()) if _SUSPECT.search(text) else _plain(text)
    phrase = _shorten_words(words, MAX_SUBJECT)
    return phrase[:1].upper() + phrase[1:] if phrase else FALLBACK_SUBJECT


def _plain(text: str) -> list[str]:
    """Plain words: only their surrounding punctuation goes."""
    tokens = text.split()
    if not _PUNCTUATED.search(text):
        return tokens  # nothing to strip (the common case: an operation in plain words)
    words = []
    for token in tokens:  # a plain loop: cheaper than a generator inside a comprehension
        word = token.strip(_OPEN).rstrip(_CLOSE)
        if word:
            words.append(word)
    return words


def _kept(tokens: list[str]) -> list[str]:
    """The words that stay, without technical ones and the connectors that led to them."""
    kept: list[str] = []
    for token in tokens:
        word = token.strip(_OPEN).rstrip(_CLOSE)
        if word.isalpha() or (word and (_NAME.match(word) or not _TECHNICAL_WORD.search(word))):
            kept.append(word)
            continue
        while kept and kept[-1].lower() in _CONNECTORS:
            kept.pop()
    return kept


def _shorten_words(words: list[str], limit: int) -> str:
    """Whole words up to `limit` characters, ending on a word that is not a connector."""
    text = " ".join(words)
    if len(text) > limit:
        text = text[: limit + 1].rsplit(" ", 1)[0]
    while text:
        head, _, last = text.rpartition(" ")
        if last.lower() not in _CONNECTORS:
            break
        text = head
    return text.strip(" ,'’&+-")


# --- what makes a sentence not plain --------------------------------------------------

_NUMBER = re.compile(r"\d[\d.]*")
_EXCEPTION = re.compile(r"(?:Error|Exception)\b|Traceback|\bat 0x")
_ERROR_CODE = re.compile(
    r"\bE(?:CONN\w+|TIMEDOUT|NOTFOUND|HOSTUNREACH|NETUNREACH|PIPE|AI_AGAIN|ADDR\w+)\b"
)
_DOMAIN = re.compile(r"\.(?:com|org|net|io|dev|ai|app|co|in)\b")
_VAGUE_MESSAGE = re.compile(
    r"error (?:has )?occurred|something went wrong|unexpected error|\[object object\]"
)
_SENTENCES = re.compile(r"[.!?]\s+\S")
_MARKUP = re.compile(r"[{}<>\n\r\t]")


def _status_code(sentence: str) -> bool:
    """A three-digit number 100–599 standing on its own ("500", "v503", "429ms"), not part of
    a longer number or a decimal ("1500", "3.500", "500.5")."""
    if not any(map(sentence.__contains__, "12345")):
        return False
    for number in _NUMBER.findall(sentence):
        number = number.rstrip(".")
        if len(number) == 3 and number.isdigit() and number[0] in "12345":
            return True
    return False


def _url(sentence: str) -> bool:
    """A scheme, www., a web domain, or a path — not a scoped package name ("@types/node")."""
    if "/" not in sentence and "." not in sentence:
        return False
    if "://" in sentence or "www." in sentence:
        return True
    for domain in _DOMAIN.finditer(sentence):
        if _wordish(sentence, domain.start() - 1):
            return True
    at = sentence.find("/")
    while at > 0:
        if _wordish(sentence, at - 1) and _wordish(sentence, at + 1) and not _scoped(sentence, at):
            return True
        at = sentence.find("/", at + 1)
    return False


def _wordish(text: str, at: int) -> bool:
    return 0 <= at < len(text) and (text[at].isalnum() or text[at] == "_")


def _scoped(text: str, slash: int) -> bool:
    """Whether the word before `slash` starts with "@" ("@scope/name")."""
    start = slash
    while start > 0 and (_wordish(text, start - 1) or text[start - 1] in ".-"):
        start -= 1
    return start > 0 and text[start - 1] == "@"


def _exception_name(s: str) -> bool:
    return ("rror" in s or "xception" in s or "Trace" in s or "0x" in s) and bool(
        _EXCEPTION.search(s)
    )


# A word each vague wording needs: without any, `_VAGUE_MESSAGE` cannot match.
_VAGUE_WORDS = ("occurred", "wrong", "unexpected", "[object")


def _vague(s: str) -> bool:
    lowered = s.lower()
    return any(map(lowered.__contains__, _VAGUE_WORDS)) and bool(_VAGUE_MESSAGE.search(lowered))


_CHECKS: tuple[tuple[Callable[[str], object], str], ...] = (
    (_status_code, "a status code"),
    (_exception_name, "an exception name"),
    (lambda s: "E" in s and _ERROR_CODE.search(s), "an error code"),
    (_url, "a URL"),
    (_vague, "a vague non-message"),
    (_SENTENCES.search, "more than one sentence"),
    (_MARKUP.search, "markup or a line break"),
)


_QUOTED_VALUE = re.compile(r"“([^“”]{1,40})”")


def plainness_problems(sentence: str) -> list[str]:
    """Why `sentence` is not one plain sentence; empty when it is. A value in “quotes” (the
    caller's own, repeated so it can be corrected) is read only for a web address."""
    values = _QUOTED_VALUE.findall(sentence) if "“" in sentence else []
    if values:
        sentence = _QUOTED_VALUE.sub("“it”", sentence)
    found = [why for check, why in _CHECKS if check(sentence)]
    if any("://" in v or "www." in v or _DOMAIN.search(v) for v in values):
        found.append("a URL")
    if not sentence.rstrip().endswith((".", "!", "?")):
        found.append("no closing full stop")
    return found
