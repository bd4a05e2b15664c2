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

import itertools
import re
import threading
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from operator import attrgetter, itemgetter
from typing import NamedTuple

from errors import (
    _vocab_api,
    _vocab_brokers,
    _vocab_clients,
    _vocab_db,
    _vocab_grpc,
    _vocab_http,
    _vocab_languages,
    _vocab_mail,
    _vocab_os,
    _vocab_tls,
    _vocab_words,
)
from errors._facts import (
    _MEMO,
    ASCII_SEPARATORS,
    SEPARATORS,
    Facts,
    Period,
    Signal,
    Term,
    normalise,
    read_token,
    stem,
    stemmed,
    term,
)
from errors._redact import quotable
from errors._vocab_api import STATUS_OF_TYPE
from errors._vocab_http import ERROR_STATUSES, OWN_PHRASES, SIGNAL_OF_STATUS
from errors._vocab_translated import STATUS_PHRASES, TRANSLATIONS

__all__ = [
    "MAX_WAIT_S",
    "MIN_WAIT_S",
    "Vocabulary",
    "Words",
    "clamp_wait",
    "exception_line",
    "facts_from_text",
    "field_in",
    "find",
    "hint_from_headers",
    "hint_from_text",
    "is_stack_trace",
    "pairs_in",
    "period_in",
    "primary",
    "read",
    "should_retry",
    "until_period_ends",
    "vocabulary",
    "without_frames",
]

_CAMEL_WORDS = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")  # "ConnectError" → "Connect Error"

_ENGLISH: tuple[Term, ...] = (
    *_vocab_os.TERMS,
    *_vocab_tls.TERMS,
    *_vocab_http.TERMS,
    *_vocab_grpc.TERMS,
    *_vocab_db.TERMS,
    *_vocab_brokers.TERMS,
    *_vocab_api.TERMS,
    *_vocab_clients.TERMS,
    *_vocab_words.TERMS,
)


def _translated(english: Iterable[Term]) -> Iterator[Term]:
    """The English terms glibc translates, in every language of its catalogues."""
    catalogue: dict[str, list[tuple[str, str]]] = {}
    for source, by_language in TRANSLATIONS.items():  # msgids differing only by case merge
        catalogue.setdefault(source.lower(), []).extend(by_language.items())
    for original in english:
        for language, text in catalogue.get(original.spelled.lower(), []):
            why = f"glibc {language}.po: {original.spelled!r}"
            yield original._replace(phrase=normalise(text), why=why, spelled=text, literal=True)


def _status_phrases() -> Iterator[Term]:
    """The reason phrases of the HTTP error statuses in other languages, as their signal."""
    for code, by_language in STATUS_PHRASES.items():
        if (signal := SIGNAL_OF_STATUS.get(code)) is None:
            continue
        for language, phrase in by_language.items():
            why = f"HTTP {code} as Laravel-Lang/http-statuses words it in {language}"
            yield term(phrase, signal, why, literal=True, billing=code == 402)


def _all_terms() -> tuple[Term, ...]:
    languages = (*_vocab_languages.TERMS, *_translated(_ENGLISH))
    return (*_ENGLISH, *languages, *_unaccented(languages), *_status_phrases())


def _unaccented(terms: Iterable[Term]) -> Iterator[Term]:
    """The terms as typed without accents, where that is safe (`_vocab_words.typed_plain`)."""
    for found in terms:
        if (plain := _vocab_words.typed_plain(found.phrase)) is not None:
            yield found._replace(phrase=plain, why=f"{found.why} (typed without accents)")


# Under each anchor: the one-word terms (found as soon as the anchor is), and the longer
# phrases with their padded form, to be checked as whole words. Phrases in another script
# are under their first two characters, as written: looked for inside the text instead
# (Chinese and Japanese put no spaces between words).
_Entry = tuple[tuple[Term, ...], tuple[tuple[str, Term], ...]]


def _index(terms: Iterable[Term]) -> dict[str, _Entry]:
    """Terms by anchor: the word of each phrase least likely to occur by chance — not a word
    every error text has (`_COMMON`), then the one the fewest other phrases use, then the
    longest: "refus" for "connection refused", not "connect", which half the rows share."""
    terms = list(terms)
    used = Counter(word for found in terms for word in set(found.phrase.split()))
    words: dict[str, list[Term]] = {}
    phrases: dict[str, list[tuple[str, Term]]] = {}
    for found in terms:
        anchor = min(
            found.phrase.split(), key=lambda word: (word in _COMMON, used[word], -len(word))
        )
        if found.phrase == anchor:
            words.setdefault(anchor, []).append(found)
        else:
            phrases.setdefault(anchor, []).append((f" {found.phrase} ", found))
    anchors = words.keys() | phrases.keys()
    return {a: (tuple(words.get(a, ())), tuple(phrases.get(a, ()))) for a in anchors}


# Words nearly every error text has: a poor anchor, however rare in the vocabulary.
_COMMON = frozenset(
    stemmed(
        "the a an on in of to for is are was be not no and or with your you this that it by at "
        "from as has have been error request connection server failed api code message please "
        "type token service operation de la le en el die der n"
    ).split()
)


def _by_pair(terms: Iterable[Term]) -> dict[str, _Entry]:
    """Phrases in other scripts by their first two characters, which a text must contain."""
    index: dict[str, list[tuple[str, Term]]] = {}
    for found in terms:
        index.setdefault(found.phrase[:2], []).append((found.phrase, found))
    return {pair: ((), tuple(entries)) for pair, entries in index.items()}


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """Every term, and the tables the reader looks them up in. Built on the first text read
    (`vocabulary()`, some 30 ms), not on import: a command that meets no failure never pays."""

    terms: tuple[Term, ...]
    index: dict[str, _Entry]  # English terms, looked up in the text's stems
    literal: dict[str, _Entry]  # other languages' in Latin letters, in its words as written
    anchors: frozenset[str]
    literal_anchors: frozenset[str]
    other_scripts: dict[str, _Entry]  # by their first two characters, anywhere inside it
    rank: dict[int, int]  # by `id(term)`: a term's place in `terms`
    # The words of the English vocabularies, as written and as read (four letters or more):
    # what a glued word may be made of (`_unglued`); and every word they use whole.
    glue: frozenset[str]
    whole: frozenset[str]


def vocabulary() -> Vocabulary:
    """The vocabulary and its tables, built by the first caller (others wait for it)."""
    if not _BUILT:
        with _BUILDING:
            if not _BUILT:
                _BUILT.append(_built())
    return _BUILT[0]


_BUILT: list[Vocabulary] = []  # one, once built
_BUILDING = threading.Lock()


def _built() -> Vocabulary:
    terms = _all_terms()
    index = _index(t for t in terms if not t.literal)
    literal = _index(t for t in terms if t.literal and t.phrase.isascii())
    glue = frozenset(
        form
        for t in terms
        if not t.literal
        for word in normalise(_CAMEL_WORDS.sub(" ", t.spelled or t.phrase)).split()
        if len(word) >= 4 and word.isalpha()
        for form in (word, stem(word))
    )
    return Vocabulary(
        terms=terms,
        index=index,
        literal=literal,
        anchors=frozenset(index),
        literal_anchors=frozenset(literal),
        other_scripts=_by_pair(t for t in terms if not t.phrase.isascii()),
        rank={id(term): rank for rank, term in enumerate(terms)},
        glue=glue,
        whole=frozenset(word for t in terms if not t.literal for word in t.phrase.split()),
    )


class Words(NamedTuple):
    """A text read once (a named tuple: built once per text, cheaply).

    `padded` and `words` are its tokens as written, lower-cased — where codes, statuses and
    error types are read ("http 1 1 503", "sqlite_busy"). `stems` and `stemmed` are the same
    text the way a person reads it (`word_forms`): identifiers split into words, inflections
    folded ("sqlite busy", "throttl exception") — where the vocabulary is looked up.
    """

    padded: str
    words: frozenset[str]
    stems: str
    stemmed: frozenset[str]
    lowered: str
    prose: list[str]  # the tokens of its prose, as written (`pairs_in` reads them in order)


def read(text: str) -> Words:
    """`text` normalised and split, for `find` and the other readers. Its prose is read for
    words without its addresses: a URL's path or a stack frame's file ("…/rate_limit",
    "internal/errors.js") names no failure."""
    tokens = _tokens(text)
    prose_text = _without_addresses(text)
    prose = tokens if prose_text is text else _tokens(prose_text)
    stems = _stems(prose)
    lowered = text.lower()
    raw = _tokens(lowered) if len(lowered) == len(text) else [t.lower() for t in tokens]
    joined = " ".join(raw)
    stemmed = frozenset(stems.split())
    return Words(f" {joined} ", frozenset(raw), f" {stems} ", stemmed, lowered, prose)


def _tokens(text: str) -> list[str]:
    if text.isascii():  # the same translation, done on bytes (several times faster)
        return text.encode().translate(ASCII_SEPARATORS).decode().split()
    return text.translate(SEPARATORS).split()


def _stems(tokens: list[str]) -> str:
    """`tokens` as `read_token` reads them, in one string (its memo asked first, inline); a
    long word glued from two of the vocabularies' words as both (`_unglued`)."""
    known = _MEMO.get
    forms = [known(token) or read_token(token) for token in tokens]
    return " ".join([f if len(f) < 9 or " " in f else _unglued(f) for f in forms])


def _unglued(form: str) -> str:
    """A long word read as the two words of the vocabularies it is glued from: "timeouterror"
    as timeout, error; "connectionreset" as connection, reset. A word the vocabularies use
    whole ("masterdown") stays whole. Remembered, by the word alone, so a text always reads the
    same way."""
    if len(form) > 40:  # an id or a blob, not a word: never remembered
        return form
    done = _UNGLUED.get(form)
    if done is None:
        done = form
        glue, whole = vocabulary().glue, vocabulary().whole
        if form.isascii() and form.isalpha() and form not in whole:
            for cut in range(4, len(form) - 3):
                if form[:cut] in glue and form[cut:] in glue:
                    done = f"{stem(form[:cut])} {stem(form[cut:])}"
                    break
        if len(_UNGLUED) >= 50_000:
            _UNGLUED.clear()
        _UNGLUED[form] = done
    return done


_UNGLUED: dict[str, str] = {}


_SOURCE = r"\.(?:js|mjs|cjs|ts|py|java|kt|scala|go|rs|rb|php|cs|swift)\b"  # a source file's ending
_SOURCE_FILE = re.compile(_SOURCE)


def _without_addresses(text: str) -> str:
    """`text` without URLs and paths to source files (a stack frame's "internal/errors.js")."""
    sources = ("/" in text or "\\" in text) and _SOURCE_FILE.search(text) is not None
    if "://" in text:
        text = _URL.sub(" ", text)
    if "-" in text and ": " in text:  # a header's name says what it reports, not a failure
        text = _HEADER_NAME.sub(" ", text)
    return _SOURCE_PATH.sub(" ", text) if sources else text


# A URL, to the first character that cannot be in one unescaped (a quote ends it in JSON).
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s\"'<>()\[\]{}]+")
# The name of an extension header in a dumped response ("X-Rate-Limit-Remaining: 4",
# "x-ratelimit-limit: 60"), then its colon: what it reports is in its value, not its name.
_HEADER_NAME = re.compile(r"(?i)(?<![\w-])x-[a-z0-9]+(?:-[a-z0-9]+)*:(?= )")
_SOURCE_PATH = re.compile(rf"[\w.@~-]*(?:[/\\][\w.@~-]+)+{_SOURCE}(?::\d+)*")


def find(words: Words) -> list[Term]:
    """Every term whose words occur in the text, as whole words, in the order the text names
    them (then in vocabulary order): which of two reason phrases names the status must not
    depend on a set's order, which changes with the hash seed. A term found only inside a
    longer one ("not found" in "module not found") is the longer one's, and is dropped.

    English terms are looked for in the text's stems, other languages' in its words as
    written; phrases in other scripts anywhere inside it (placed after the rest)."""
    known = vocabulary()
    hits = _hits(known.index, known.rank, words.stemmed & known.anchors, words.stems, 0)
    if not words.words.isdisjoint(known.literal_anchors):
        anchors, offset = words.words & known.literal_anchors, len(words.stems)
        hits += _hits(known.literal, known.rank, anchors, words.padded, offset)
    if not words.lowered.isascii():  # placed after the words, in the order the text has them
        padded, offset = words.padded, len(words.stems) + len(words.padded)
        pairs = {padded[i : i + 2] for i in range(len(padded) - 1)} & known.other_scripts.keys()
        hits += _hits(known.other_scripts, known.rank, pairs, padded, offset)
    if len(hits) > 1:
        hits = _outermost(hits)
    hits.sort(key=_POSITION)
    return [term for _, _, term in hits]


def _hits(
    index: dict[str, _Entry],
    rank: dict[int, int],
    anchors: Iterable[str],
    padded: str,
    offset: int,
) -> list[tuple[int, int, Term]]:
    """(position, rank, term) of the terms under `anchors` that occur in `padded`."""
    hits: list[tuple[int, int, Term]] = []
    for anchor in anchors:
        single, phrases = index[anchor]
        if single:
            at = padded.find(f" {anchor} ") + offset
            hits += [(at, rank[id(term)], term) for term in single]
        for phrase, candidate in phrases:  # a plain loop: most anchors have no phrase
            at = padded.find(phrase)
            if at >= 0:
                hits.append((at + offset, rank[id(candidate)], candidate))
    return hits


def _outermost(hits: list[tuple[int, int, Term]]) -> list[tuple[int, int, Term]]:
    """The hits without those a longer hit holds ("not found" in "module not found";
    "不可用" in "服务不可用"): those say nothing more, and may say something else."""
    phrases = {term.phrase for _, _, term in hits}
    inside = {  # a phrase whose words stand, in order, inside a longer one found
        id(term)
        for _, _, term in hits
        if any(p != term.phrase and f" {term.phrase} " in f" {p} " for p in phrases)
    }
    scripts = [(at, at + len(t.phrase), t) for at, _, t in hits if not t.phrase.isascii()]
    if len(scripts) > 1:  # other scripts are placed where they are found: compare their spans
        inside |= {
            id(t)
            for s, e, t in scripts
            if any(a <= s and e <= b and (b - a) > (e - s) for a, b, _ in scripts)
        }
    return [hit for hit in hits if id(hit[2]) not in inside] if inside else hits


_POSITION = itemgetter(0, 1)


def signals_of(found: Iterable[Term]) -> frozenset[Signal]:
    """The signals the found terms give."""
    return frozenset(map(_SIGNAL, found))


_SIGNAL = attrgetter("signal")


# --- a traceback, by its exception ---------------------------------------------------------

# A frame of a stack trace: Python's, Java's and Node's ("  File …", "    at …", "\tat …",
# "\t... 12 more"), .NET's in other languages ("   在 …", "   bei …", "   в …"), Go's and
# others' source paths ("\t/tmp/main.go:8"). Indented lines that are none of these (a JSON
# body laid out on several lines) do not make a text a stack trace.
_FRAME = re.compile(
    r"^[ \t]+(?:at |File \"|\.\.\. \d+ more|在 |bei |в |à |en )"
    rf"|^[ \t]+\S*{_SOURCE}"
)
_INDENTED = re.compile(r"^[ \t]")
_TRACEBACK_START = ("Traceback (most recent call last)", "goroutine ")
_NOT_EXCEPTIONS = ("Traceback (most recent call last)", "During handling of the above", "The above")
_EXCEPTION_LINE = re.compile(
    r"[\w.$]*(?:Error|Exception|Fault|Failure)\w*(?::|\s*$)|^(?:panic|fatal error|Caused by):"
)


def is_stack_trace(lines: list[str]) -> bool:
    """Whether these (non-blank) lines are one stack trace: it starts as one ("Traceback (most
    recent call last):"), or a line after the first is a frame."""
    if len(lines) < 2:
        return False
    return lines[0].startswith(_TRACEBACK_START) or any(map(_FRAME.match, lines[1:]))


def exception_line(text: str) -> str:
    """The line a pasted stack trace is about: its last exception line ("ConnectionError: …",
    "Caused by: java.net.ConnectException: …", "panic: …") — not its frames or the source
    lines they quote (`r = requests.get(url, timeout=5)` says nothing of the failure). Text
    that is not a stack trace is returned as it is."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not is_stack_trace(lines):
        return text
    own = [line.strip() for line in lines if not _INDENTED.match(line)]  # frames, source lines
    own = [line for line in own if not line.startswith(_NOT_EXCEPTIONS) and _WORDY(line)]
    named = [line for line in own if _EXCEPTION_LINE.search(line)]
    panics = [line for line in named if line.startswith(("panic:", "fatal error:"))]
    chosen = panics[:1] or named[-1:] or own[-1:]
    return chosen[0] if chosen else text


def without_frames(text: str) -> str:
    """A stack trace without its frames and the source lines under them: what it says, its
    exceptions and their properties (Node's "code: 'ERR_…'", "cause: …")."""
    kept, after_frame = [], False
    for line in text.splitlines():
        frame = bool(_FRAME.match(line))
        if not frame and not (after_frame and _INDENTED.match(line)):
            kept.append(line)
        after_frame = frame and line.lstrip().startswith('File "')
    return "\n".join(kept)


_WORDY = re.compile(r"\w").search


# --- the input a validation message names ---------------------------------------------

_MISSING = "is missing", "send it again with that value filled in"
_NULL = "is null", "send it again with a value"
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
        if needed not in lowered or (match := pattern.search(lowered)) is None:
            continue
        written = text[match.start("name") : match.end("name")] if same_places else match["name"]
        name = written.rsplit(".", 1)[-1]
        if name.isidentifier() and len(name) <= 30 and name.lower() not in _NOT_NAMES:
            kind = _KINDS.get(match.groupdict().get("kind") or "", "")
            if kind and "input_value=none" in lowered[match.end() : match.end() + 120]:
                problem, fix = _NULL  # pydantic on a null: the value is missing, not mistyped
            return name, problem.format(name, kind), fix.format(name, kind)
    return None


# --- the thing an error is about, and the value it quotes -----------------------------------

# A quoted value: '…', "…", `…`, ‘…’, “…”, «…» (short: a name, not a sentence).
_QUOTED = re.compile(
    r"'([^'\n]{1,80})'|\"([^\"\n]{1,80})\"|`([^`\n]{1,80})`|‘([^’\n]{1,80})’|“([^”\n]{1,80})”"
    r"|«([^»\n]{1,80})»"
)
# An unquoted one the error introduces: "… with key Mars/Olympus", "named foo", "with ID: 3".
_KEYED = re.compile(
    r"(?i)\b(?:with (?:the )?(?:key|id|name)|named|called|found for)\s*:?\s*([^\s'\"`,;]+)"
)
_KEYED_WORDS = (" key", " id", "name", "called", "found for")  # what `_KEYED` needs
# What follows the value in the sentence that says what is wrong with it.
_VERDICT = re.compile(
    r"(?i)^\W{0,3}(?:does not exist|doesn't exist|not found|was not found|could not be found"
    r"|is not valid|is invalid|is not a valid|is unknown|not recogni[sz]ed|already exists"
    r"|is already (?:taken|in use))"
)
_CLAUSE = re.compile(r"[:;,.!?()\[\]{}<>=|]")
# Words around a name that are not the kind of thing it names.
_NOT_NOUNS = frozenset(
    {"no", "unknown", "invalid", "nonexistent", "missing", "unrecognized", "unrecognised"}
    | {"unsupported", "bad", "the", "a", "an", "such", "specified", "given", "requested"}
    | {"provided", "this", "that", "found", "with", "key", "id", "name", "named", "called"}
    | {"for", "of", "in", "on", "to", "by", "not", "error", "exception", "message", "reason"}
    | {"value", "find", "get", "fetch", "load", "open", "stat", "access", "locate", "resolve"}
    | {"read", "create", "delete", "update", "use", "is", "was", "could", "cannot", "unable"}
    | {"matching"}
)


def named_value(text: str, context: str = "") -> tuple[str, str] | None:
    """(what, value): the thing the error is about and the value it quotes for it —
    "no queue 'integer-addition'" → ("queue", "integer-addition"), "No time zone found with key
    Mars/Olympus" → ("time zone", "Mars/Olympus") — or None.

    Both may reach a sentence, so neither is taken on the error's word alone: `what` must be a
    kind of thing (`THINGS`) or named in `context` (the operation and the caller's request),
    and `value` is kept only when the caller's request holds it too — it is the caller's own,
    the error only says which one was wrong — made safe to repeat (`quotable`); else it is
    "". Text that merely looks like a name ("the user must run 'rm -rf /'") stays out."""
    context = context.lower()
    head = text[:2000]
    candidates: list[tuple[int, str]] = []
    for match in _QUOTED.finditer(head):
        value = next(group for group in match.groups() if group)
        if len(value.split()) > 4:  # a quoted sentence: the name is inside it
            inside = named_value(value, context)
            if inside is not None:
                return inside
            continue
        candidates.append((match.start(), value))
        if _VERDICT.match(head, match.end()):
            candidates.insert(0, candidates.pop())  # the one the error says is wrong
            break
    lowered = head.lower()
    if any(map(lowered.__contains__, _KEYED_WORDS)):
        candidates += [(match.start(), match[1]) for match in _KEYED.finditer(head)]
    for start, value in candidates:
        what = _noun_before(head[:start])
        if what in _vocab_words.THINGS or (what and what in context):
            safe = quotable(value)
            return what, safe if safe and safe.lower() in context else ""
    thing = _thing(lowered)  # no value quoted: "model not found", "no such table"
    return (thing, "") if thing else None


_THING_BEFORE = re.compile(r" (?:not found|does not exist|doesn't exist|could not be found)")
_THING_AFTER = re.compile(r"\b(?:no such|unknown) ")


def _thing(lowered: str) -> str:
    """A kind of thing the text says is not there: "model not found", "no such table"."""
    candidates = []
    if (before := _THING_BEFORE.search(lowered)) is not None:
        words = lowered[max(0, before.start() - 40) : before.start()].split()[-2:]
        candidates += [" ".join(words), words[-1] if words else ""]
    if (after := _THING_AFTER.search(lowered)) is not None:
        words = lowered[after.end() : after.end() + 40].split()[:2]
        candidates += [" ".join(words), words[0] if words else ""]
    return next((c for c in candidates if c in _vocab_words.THINGS), "")


def _noun_before(text: str) -> str:
    """The one or two words naming a thing just before a value, in its own clause."""
    clause = _CLAUSE.split(text[-60:])[-1].split()
    words = [w.lower() for w in clause if w.isalpha()]
    while words and words[-1] in _NOT_NOUNS:
        words.pop()
    kept = words[-2:]
    while kept and kept[0] in _NOT_NOUNS:
        kept.pop(0)
    return " ".join(kept)


# --- facts from a text -------------------------------------------------------------------

# The signals that may name a record, most telling first (`Signal`'s order): all but a bare
# status and nothing. The rule table looks at them all.
_NAMING = tuple(signal for signal in Signal if signal not in {Signal.STATUS, Signal.UNKNOWN})


_NOT_A_SIGNAL = frozenset({Signal.STATUS})  # a status is read as a number, not from words
_COUNTED = frozenset({Signal.RATE_LIMIT, Signal.QUOTA})  # the signals that count over a period
# A found term's flags and status, read in C (`map`), not in a generator: this runs per text.
_CONNECT, _BILLING, _STATUS = attrgetter("connect"), attrgetter("billing"), attrgetter("status")
_WEAK = attrgetter("weak")


def facts_from_text(text: str, now: datetime | None = None, context: str = "") -> Facts:
    """The facts of a cleaned error text.

    The evidence is read in layers, the most specific first: the codes the text quotes that
    name one failure (errno, curl, NSURLError, ORA-), exact in any language, else the
    vocabulary's terms — beside the classes of a status family (gRPC, JSON-RPC, SQLSTATE);
    two words said together may say what a bare "invalid" or "unauthorized" was about ("API
    key … unregistered", `pairs_in`); then, if nothing was said, the class of a mail server's
    reply; then, if still nothing, the general cues a person reads without knowing the system
    ("try again later", "locked") and the pairs of words ("didn't find", "can't reach").
    """
    words = read(text)
    found = find(words)
    strong = list(itertools.filterfalse(_WEAK, found))
    errno_found, errno_connect = errno_signals(text, words)
    coded, code_connect = client_codes(words)
    exact = errno_found | coded  # one failure each, in any language: its words agree
    signals = exact or signals_of(strong) - _NOT_A_SIGNAL
    # the classes of a status family (gRPC, JSON-RPC, SQLSTATE) stand beside the words
    signals |= grpc_signals(words) | sqlstate_signals(text, words) | json_rpc_signals(text)
    upstream_type = _upstream_type(text, words, found)
    mail = mail_reply(text, words)
    status = None if mail else _status(text, words, found, upstream_type)
    # two words said together: what was wrong when only "malformed" was said, else a cue
    pairs = pairs_in(words) if not exact and signals <= _GENERIC else frozenset()
    if signals:
        signals |= pairs & _vocab_words.REFINES
    if mail and not signals and mail.precise:
        signals = mail.signals  # an enhanced code that says which problem, before the cues
    if signals and not mail:
        signals |= _refined(signals, status, found, words)
    cued = not signals
    if not signals:  # the general cues, within what a mail server's reply class allows
        cues = (signals_of(filter(_WEAK, found)) - _NOT_A_SIGNAL) | pairs
        if mail:  # a transient reply is no refusal; a permanent one no "try later"
            cues = cues & _TRANSIENT if mail.transient else cues - {Signal.LATER}
        signals = cues
        if not signals and mail:
            signals = mail.signals
    period = None if signals.isdisjoint(_COUNTED) else period_in(words)
    field = field_in(text) if Signal.INVALID_INPUT in signals else None
    hint = _hint(text, words, period, now)
    if cued and hint is not None:  # a wait asked for, and only cues: a service to wait for
        signals |= {Signal.LATER}
    return Facts(
        primary(signals, status),
        text,
        status=status,
        upstream_type=upstream_type,
        hint_s=hint,
        connect_phase=errno_connect or code_connect or any(map(_CONNECT, strong)),
        signals=signals,
        period=period,
        billing=any(map(_BILLING, strong)),
        field=field and field[0],
        problem=field and field[1],
        fix=field and field[2],
        context=context,
        words=words.stemmed,
        cause=next((t.cause for t in found if t.cause), ""),
        code=mail.code if mail else "",
    )


def pairs_in(words: Words) -> frozenset[Signal]:
    """The signals of two kinds of word said close together (`errors._vocab_words.PAIRS`): a
    thing and what is wrong with it ("sign invalid", "API key … unregistered"), a verb and
    its negation ("didn't find", "can't reach"). Only the words listed as `BETWEEN` may stand
    between the two; in scripts written without spaces, they are found within a few
    characters of each other."""
    kinds = [those for token in words.prose for those in _kinds_of(token)]
    at: dict[int, list[int]] = {}  # where each kind of word stands, in one pass
    for place, those in enumerate(kinds):
        for index in those:
            at.setdefault(index, []).append(place)
    # "key" is a credential's word after a word that says which ("API key", "user key")
    keys = [p for p in at.get(_KEY, []) if p and _QUALIFIER in kinds[p - 1]]
    if _CREDENTIAL in at or keys:
        places = sorted(at.get(_CREDENTIAL, []) + keys)
        at[_CREDENTIAL] = [p for p in places if _names_a_credential(kinds, p)]
    # a good word negated is a bad one, placed at its "not" ("not valid", "no es correcta")
    good, negated = at.get(_GOOD, []), at.get(_NEGATION, [])
    if good and negated:
        nots = [n for n in negated if any(0 < g - n <= 2 for g in good)]
        at[_BAD] = sorted(at.get(_BAD, []) + nots)
    lowered = words.lowered
    found = set()
    for rule in _vocab_words.PAIRS:
        firsts = _places(rule.first, at)
        seconds = _places(rule.second, at) if firsts else []
        if any(_close(kinds, a, b, rule) for a, b in _near(firsts, seconds, rule.reach)) or (
            not lowered.isascii() and _unspaced_close(lowered, rule)
        ):
            found.add(rule.signal)
    if not found:  # one kind of word alone: what is left of the cue
        for kind, signal in _vocab_words.ALONE:
            if _places(kind, at) or any(map(lowered.__contains__, kind.unspaced)):
                found.add(signal)
    return frozenset(found)


def _names_a_credential(kinds: list[frozenset[int]], place: int) -> bool:
    """Whether a credential's word at `place` stands for one: not the last word of another
    name ("max_tokens", "pagination token": an English word right before it that is not one
    of an article, a qualifier or what is wrong), nor the first of a name of something about
    it ("key name", "token count")."""
    if place and kinds[place - 1] and kinds[place - 1].isdisjoint(_MAY_PRECEDE):
        return False
    return place + 1 == len(kinds) or _OF_IT not in kinds[place + 1]


# Every kind of word a pair, a cue alone or a negation may ask about, by its place here; then
# the mark of an ordinary English word (of no kind at all).
_WORD_KINDS = tuple(
    dict.fromkeys(
        [k for rule in _vocab_words.PAIRS for k in (rule.first, rule.second)]
        + [kind for kind, _ in _vocab_words.ALONE]
        + [_vocab_words.NEGATION, _vocab_words.GOOD, _vocab_words.BETWEEN, _vocab_words.OF_IT]
        + [_vocab_words.LABEL, _vocab_words.KEY, _vocab_words.QUALIFIER]
    )
)
_KIND_AT = {id(kind): at for at, kind in enumerate(_WORD_KINDS)}
_ORDINARY = len(_WORD_KINDS)
_MAY_PRECEDE = frozenset(  # the kinds of word that may stand right before a credential's
    _KIND_AT[id(kind)]
    for kind in (
        _vocab_words.BETWEEN,
        _vocab_words.BAD,
        _vocab_words.MISSING,
        _vocab_words.EXPIRED,
        _vocab_words.NEGATION,
        _vocab_words.GOOD,
        _vocab_words.CREDENTIAL,
        _vocab_words.SESSION,
        _vocab_words.LABEL,
    )
)
_CREDENTIAL, _OF_IT = _KIND_AT[id(_vocab_words.CREDENTIAL)], _KIND_AT[id(_vocab_words.OF_IT)]
_KEY, _QUALIFIER = _KIND_AT[id(_vocab_words.KEY)], _KIND_AT[id(_vocab_words.QUALIFIER)]
_BAD, _GOOD = _KIND_AT[id(_vocab_words.BAD)], _KIND_AT[id(_vocab_words.GOOD)]
_NEGATION = _KIND_AT[id(_vocab_words.NEGATION)]
_WORD_KINDS_MEMO: dict[str, tuple[frozenset[int], ...]] = {}


def _kinds_of(token: str) -> tuple[frozenset[int], ...]:
    """The kinds (places in `_WORD_KINDS`) of each word of a token, remembered as `read_token` is:
    an identifier's words are English; a plain word is read both stemmed and as written."""
    known = _WORD_KINDS_MEMO.get(token)
    if known is None:
        forms = read_token(token).split()
        pairs = [(forms[0], token.lower())] if len(forms) == 1 else [(f, f) for f in forms]
        head = _ASCII_HEAD.match(token)
        if head is not None and _east_asian(token[head.end() : head.end() + 1]):  # "key입니다"
            word = head[0].lower()  # a word, then a particle
            pairs = [(stem(word), word), (token[head.end() :].lower(),) * 2]
        known = tuple(
            frozenset(at for at, kind in enumerate(_WORD_KINDS) if kind.holds(read, written))
            or (_ORDINARY_ONLY if written.isascii() and written.isalpha() else frozenset())
            for read, written in pairs
        )
        if len(token) <= 40:  # longer: an id or a blob, never remembered
            if len(_WORD_KINDS_MEMO) >= 50_000:
                _WORD_KINDS_MEMO.clear()
            _WORD_KINDS_MEMO[token] = known
    return known


# An English word with a Korean, Chinese or Japanese ending glued to it ("key입니다").
_ASCII_HEAD = re.compile(r"[A-Za-z]{2,}")


def _east_asian(char: str) -> bool:
    """Whether `char` is kana, a Chinese character or a Hangul syllable. (As a character
    class these ranges cost a millisecond to compile on every start.)"""
    return (
        "\u3040" <= char <= "\u30ff" or "\u3400" <= char <= "\u9fff" or "\uac00" <= char <= "\ud7a3"
    )


def _places(kind: _vocab_words.WordClass, at: dict[int, list[int]]) -> list[int]:
    """Where words of `kind` stand, in order."""
    return at.get(_KIND_AT[id(kind)], [])


def _close(kinds: list[frozenset[int]], a: int, b: int, rule: _vocab_words.Pair) -> bool:
    """Whether the words at `a` and `b` (within the rule's reach: `_near`) stand in its order,
    with only `BETWEEN` words between."""
    if (rule.ordered and b <= a) or a == b:
        return False
    if rule.any_between:
        return True
    return all(_BETWEEN in those for those in kinds[min(a, b) + 1 : max(a, b)])


_BETWEEN = _KIND_AT[id(_vocab_words.BETWEEN)]
_ORDINARY_ONLY = frozenset({_ORDINARY})


def _near(firsts: list[int], seconds: list[int], reach: int) -> Iterator[tuple[int, int]]:
    """The pairs of places, one from each sorted list, at most `reach` apart (found by
    bisection: a long text with many of both costs no more than its length)."""
    for a in firsts:
        for b in seconds[bisect_left(seconds, a - reach) : bisect_right(seconds, a + reach)]:
            yield a, b


def _unspaced_close(lowered: str, rule: _vocab_words.Pair, gap: int = 2) -> bool:
    """Whether phrases of the two kinds occur with at most `gap` characters between them (in
    the rule's order, when it has one): "签名错误", "访问频率太快", "超过限制"."""
    firsts = sorted((at, at + len(p)) for p in rule.first.unspaced for at in _all_at(lowered, p))
    if not firsts:
        return False
    seconds = sorted((at, at + len(p)) for p in rule.second.unspaced for at in _all_at(lowered, p))
    starts = [at for at, _ in seconds]
    longest = max(end - at for at, end in seconds) if seconds else 0
    for a, a_end in firsts:
        window = seconds[bisect_left(starts, a - gap - longest) : bisect_right(starts, a_end + gap)]
        for b, b_end in window:
            if 0 <= b - a_end <= gap or (not rule.ordered and 0 <= a - b_end <= gap):
                return True
    return False


def _all_at(text: str, phrase: str) -> Iterator[int]:
    at = text.find(phrase)
    while at >= 0:
        yield at
        at = text.find(phrase, at + 1)


# Signals that say only "the request was wrong" or "not accepted": a pair may say what was
# wrong with it ("Unauthorized … OAuth token is missing").
_GENERIC = frozenset({Signal.BAD_REQUEST, Signal.INVALID_INPUT, Signal.BAD_CREDENTIALS})
_SERVER_ONLY = frozenset({Signal.SERVER})
_REFUSALS = frozenset({Signal.FORBIDDEN, Signal.BAD_REQUEST})


def _refined(
    signals: frozenset[Signal], status: int | None, found: list[Term], words: Words
) -> frozenset[Signal]:
    """What the general cues add to a bare failure or refusal: a service failure that says it
    is for a while ("500 … try again later") is a service to wait for; a 403 that names a
    quota counted over a period ("Forbidden: … your daily download quota") is that quota."""
    cues = frozenset(t.signal for t in found if t.weak)
    server = Signal.SERVER in signals or (status or 0) >= 500
    if server and signals <= _SERVER_ONLY and Signal.LATER in cues:
        return frozenset({Signal.LATER})
    forbidden = Signal.FORBIDDEN in signals or status == 403
    if forbidden and signals <= _REFUSALS and Signal.QUOTA in cues and period_in(words):
        return frozenset({Signal.QUOTA})
    return frozenset()


# What a mail server's transient reply (4xx) can still turn out to be, whatever its words.
_TRANSIENT = frozenset(
    {Signal.LATER, Signal.RATE_LIMIT, Signal.CAPACITY, Signal.SERVER, Signal.NETWORK}
    | {Signal.TIMEOUT, Signal.CONFLICT, Signal.QUOTA}
)


def primary(signals: frozenset[Signal], status: int | None) -> Signal:
    """The one signal that names the record: the first of `signals` in `Signal`'s order."""
    for signal in _NAMING:
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
    t.spelled.lower() for t in (*_vocab_api.TERMS, *_vocab_grpc.TERMS) if " " not in t.spelled
)
_TYPES = frozenset(STATUS_OF_TYPE)


def _upstream_type(text: str, words: Words, found: list[Term]) -> str | None:
    """The first error code or type of a known API that the text quotes, as it spells it."""
    spelled = (t.spelled.lower() for t in found)
    codes = [code for code in spelled if code in _UPSTREAM]
    codes += words.words & _TYPES
    lowered = words.lowered
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
# The same periods in the languages of the vocabularies (read only beside a rate or a quota):
# whole words, and inside the text for scripts without spaces and for inflected forms.
_PERIODS_ABROAD = {
    Period.SECOND: ("segundo", "segundos", "sekunde", "sekunden", "seconde", "secondes"),
    Period.MINUTE: ("minuto", "minutos", "minuti", "minut", "minuty", "minuten", "dakika"),
    Period.HOUR: ("hora", "horas", "stunde", "stunden", "heure", "heures", "godzina", "godziny"),
    Period.DAY: ("jour", "jours", "giorno", "giorni", "diario", "diaria", "diário", "täglich"),
    Period.MONTH: ("meses", "monat", "mois", "mese", "mensual", "mensal", "monatlich"),
}
_PERIOD_WORDS |= {word: period for period, words in _PERIODS_ABROAD.items() for word in words}
_PERIOD_INSIDE = {
    Period.SECOND: ("每秒", "秒钟", "секунд", "saniye"),
    Period.MINUTE: ("分钟", "分鐘", "毎分", "минут"),
    Period.HOUR: ("小时", "小時", "毎時", "час"),
    Period.DAY: (
        "每天",
        "每日",
        "毎日",
        "当日",
        "сутки",
        "суток",
        "в день",
        "día",
        "dzienn",
        "günlük",
    ),
    Period.MONTH: ("每月", "毎月", "месяц", "mês", "miesiąc", "aylık"),
}
_LONGEST = list(Period)


def period_in(words: Words) -> Period | None:
    """The longest period the text counts a rate or quota over ("per minute", "Daily …")."""
    periods = {_PERIOD_WORDS[word] for word in words.words & _PERIOD_WORDS.keys()}
    periods |= {period for phrase, period in _PERIOD_PHRASES.items() if phrase in words.padded}
    if "per" in words.padded:
        periods |= {_PER_WORD.get(w) or Period(w) for w in _PER.findall(words.padded)}
    if not words.lowered.isascii():
        inside = _PERIOD_INSIDE.items()
        periods |= {
            period for period, parts in inside if any(map(words.lowered.__contains__, parts))
        }
    return max(periods, key=_LONGEST.index) if periods else None


_HINT_WORDS = frozenset({"retry", "again", "tomorrow", "retry_after", "retryafter", "wait"})


def _hint(text: str, words: Words, period: Period | None, now: datetime | None) -> float | None:
    """The wait the text asks for; else, for a quota per day or month, the time until that
    period turns (how long a breaker may stay open). A rate per second, minute or hour asks for
    no particular wait: "per minute" is the window counted, not a time to sleep."""
    hint = hint_from_text(text, now) if not words.words.isdisjoint(_HINT_WORDS) else None
    if hint is None and period in _LONG_PERIODS:
        return until_period_ends(period, now)
    return hint


_LONG_PERIODS = frozenset({Period.DAY, Period.MONTH})


# --- numbers that are codes ---------------------------------------------------------------------

_STATUS_WORDS = frozenset(str(code) for code in ERROR_STATUSES)
# The leading space is matched, not looked behind at: a pattern that opens with a literal is
# searched for quickly; the code is group 1 (the trailing space stays for the next match).
_NUMBER = re.compile(r" ([45]\d\d)(?= )")
# "503: …", "(401): …", and with the full-width colon of Chinese and Japanese ("(401：…")
_BEFORE_COLON = re.compile(r"(?<![\d.:\]])\b([45]\d\d)\)?(?::\s|：)")
_STATUS_ANCHORS = frozenset(
    {"http", "https", "status", "code", "cod", "returned", "got", "answered", "responded"}
    | {"response", "error", "erreur", "fehler", "erro", "errore", "ошибка", "ошибки", "hata"}
)
# Words that may stand between the anchor and the number: "status code was 429", "HTTP
# status of 503".
_LINKING = frozenset({"was", "is", "of", "with"})


def status_in(text: str, words: Words) -> int | None:
    """The anchored HTTP error status in the text; of several, the last: a wrapper quotes the
    status it got after its own ("HttpError 500: … 'code': 404"), so the inner one is the
    cause. A status the text says was expected ("expected 200 but got …") is not one."""
    if words.words.isdisjoint(_STATUS_WORDS):
        return None
    colon: set[int] | None = None  # the codes followed by a colon, read once if ever needed
    status = None
    for match in _NUMBER.finditer(words.padded):
        code = int(match.group(1))
        if code not in ERROR_STATUSES:
            continue
        if not _anchored(words.padded, match, code):
            if colon is None:
                colon = {int(code) for code in _BEFORE_COLON.findall(text)}
            if code not in colon:
                continue
        before = words.padded[max(0, match.start(1) - 32) : match.start(1)].split()[-3:]
        if "expected" not in before and "expecting" not in before:
            status = code
    if status is None and "://" in text:  # Go clients: "GET https://…/v2/images: 500 (…)"
        after_url = _AFTER_URL.search(text)
        status = int(after_url[1]) if after_url and int(after_url[1]) in ERROR_STATUSES else None
    return status


_AFTER_URL = re.compile(r"://\S+?:\s([45]\d\d)\b")


def _anchored(padded: str, match: re.Match[str], code: int) -> bool:
    """Whether the words around the number say it is a status."""
    start = match.start(1)
    before = padded[max(0, start - 48) : start].split()
    after = padded[match.end() : match.end() + 48]
    counted = after[1:].partition(" ")[0] in _UNITS  # "500 ms", "404 bytes"
    if not before:
        return not counted
    linked = False  # "status code was 429": only a status's own word links over "was"
    for word in reversed(before[-3:]):
        if word in _STATUS_ANCHORS or word.endswith(_ANCHOR_ENDINGS):
            if not linked:  # right before the number: "Code: 503. Errors: …"
                return True
            status_word = word in _LINKED_ANCHORS or word.endswith(_STATUS_ENDINGS)
            return status_word and not counted
        if word not in _LINKING:
            break
        linked = True
    if "http" in before[-3:]:  # "HTTP/1.1 503", "HTTP/2 429"
        return not counted
    if after.startswith(_NAMED_AFTER):  # "too many 429 error responses"
        return True
    return any(after.startswith(f" {phrase} ") for phrase in OWN_PHRASES.get(code, ()))


_NAMED_AFTER = (" error ", " error response", " status ", " response ")
_UNITS = frozenset(
    {"ms", "s", "sec", "seconds", "bytes", "kb", "mb", "rows", "items", "entries", "records"}
    | {"characters", "chars", "times", "files", "lines", "frames", "errors", "tokens"}
)
# The endings of a word naming a failure ("httperror", "notificationdispatchexception",
# "apifault") or a status ("statuscode", "responsecode", "http_status"), after which a
# number is a status. Not "failed": "Job failed 500 times" counts; not "decode" or "opcode".
_STATUS_ENDINGS = (
    *("statuscode", "responsecode", "errorcode", "resultcode", "httpcode", "returncode"),
    *("_code", "status"),
)
_ANCHOR_ENDINGS = ("error", "exception", "fault", "failure", *_STATUS_ENDINGS)
_LINKED_ANCHORS = frozenset({"status", "code", "cod", "http", "https"})


# Python's "[Errno N]" (negative: getaddrinfo), Windows' "[WinError N]", Rust's "(os error
# N)", an exception's repr "Error(N, …", and libuv's "errno: -N" (a negated errno); a Win32
# code as an HRESULT ("0x80072efd") or after a WinHTTP/WinINet call ("WinHttpSendRequest:
# 12002"), in hexadecimal (group 5).
_ERRNO = re.compile(
    r"\[(?:errno|winerror) (-?\d+)\]|\(os error (\d+)\)"
    r"|(?:\b|os|io|connection\w*|brokenpipe|permission|timeout)error\((-?\d+),"
    r"|errno[\"']?[:=]? ?(-?\d+)"
    r"|\b0x8007([0-9a-f]{4})\b|\bwin(?:http|inet)\w*(?:\(\))?:? (\d{5})\b"
)
_ERRNO_WORDS = frozenset({"errno", "winerror"})
_WIN32_MARKS = ("0x8007", "winhttp", "wininet")


def errno_signals(text: str, words: Words) -> tuple[frozenset[Signal], bool]:
    """The signals of the errno numbers the text quotes, and whether one says nothing was sent."""
    quoted = " os error " in words.padded or "rror(" in text
    quoted = quoted or any(mark in words.lowered for mark in _WIN32_MARKS)
    if words.words.isdisjoint(_ERRNO_WORDS) and not quoted:
        return frozenset(), False
    matches = _ERRNO.finditer(text.lower())
    names = [_vocab_os.ERRNO_NUMBERS.get(_errno_of(match), "") for match in matches]
    found = frozenset(_vocab_os.ERRNO_NAMES[name] for name in names if name)
    return found, any(name in _vocab_os.CONNECT_NAMES for name in names)


def _errno_of(match: re.Match[str]) -> int:
    python, rust, repr_, libuv, hresult, win32 = match.groups()
    if hresult is not None:  # a Win32 code: only its network ones (WSA, WinINet) are here,
        code = int(hresult, 16)  # the small ones mean other things than Linux's errno
        return code if code >= 10_000 else 0
    if libuv is not None:
        return abs(int(libuv))
    return int(python or rust or repr_ or win32)


_GRPC_NAMES = "|".join(_vocab_grpc.BY_NAME)
_GRPC = re.compile(
    rf"statuscode (\w+)|grpc_status (\d+)|(?<= )(?:1[0-6]|[1-9]) ({_GRPC_NAMES})(?= )"
)
_GRPC_WORDS = frozenset({"statuscode", "grpc_status"} | set(_vocab_grpc.BY_NAME))


def grpc_signals(words: Words) -> frozenset[Signal]:
    """The signals of the gRPC statuses the text names where it says they are statuses."""
    if words.words.isdisjoint(_GRPC_WORDS):
        return frozenset()
    # `_GRPC` matches only after its marker words, or at a gRPC number as a word
    marked = "statuscode " in words.padded or "grpc_status " in words.padded
    if not marked and words.words.isdisjoint(_GRPC_NUMBERS):
        return frozenset()
    found = (
        _vocab_grpc.BY_NUMBER.get(int(number)) if number else _vocab_grpc.BY_NAME.get(name or node)
        for name, number, node in _GRPC.findall(words.padded)
    )
    return frozenset(signal for signal in found if signal is not None)


_GRPC_NUMBERS = frozenset(str(number) for number in range(1, 17))
_JSON_RPC = re.compile(r"json-?rpc\W{0,3}(?:error\W{0,3})?(-32\d{3})|\"code\": ?(-32\d{3})")


def json_rpc_signals(text: str) -> frozenset[Signal]:
    """The signals of the JSON-RPC error codes the text quotes."""
    if "-32" not in text:
        return frozenset()
    codes = (int(quoted or coded) for quoted, coded in _JSON_RPC.findall(text.lower()))
    return frozenset(_vocab_grpc.JSON_RPC[c] for c in codes if c in _vocab_grpc.JSON_RPC)


class MailReply(NamedTuple):
    """A mail server's reply code, as the text quotes it: "SMTP 550 5.1.1"."""

    code: str
    transient: bool  # 4xx: the same message may go through later
    precise: bool  # a permanent enhanced code, or one listed: it says which problem
    signals: frozenset[Signal]  # what the code says, when the words say nothing


# "550 5.1.1", "550-5.1.1", "421 4.7.0": a basic code and an enhanced one of the same class.
_PAIRED = re.compile(r"(?<![\d.])([45]\d\d)[ :-]{1,3}([45])\.(\d{1,3})\.(\d{1,3})(?![\d.])")
_ENHANCED = re.compile(r"(?<![\d.])([45])\.(\d{1,3})\.(\d{1,3})(?![\d.])")
_BASIC = re.compile(r"(?<![\d.])([45][0-5]\d)(?![\d.])")
_HTTP_WORDS = frozenset({"http", "https", "status", "statuscode", "status_code"})
_REPLY_CODES = frozenset(str(code) for code in range(400, 600))


def mail_reply(text: str, words: Words) -> MailReply | None:
    """The mail server's reply the text quotes, if it is one: a basic code paired with an
    enhanced one, or either alone in a text about mail (or leading it)."""
    if words.words.isdisjoint(_REPLY_CODES):  # every reply names a 4xx or 5xx code
        return None
    found = _ENHANCED.search(text)
    paired = found and _PAIRED.search(text, max(0, found.start() - 7))
    if paired:
        basic, enhanced = int(paired[1]), ".".join(paired.group(2, 3, 4))
    else:
        about_mail = not words.stemmed.isdisjoint(_vocab_mail.MARKERS)
        if found is None or not (about_mail or found.start() == 0):
            found = None
        over_http = not words.words.isdisjoint(_HTTP_WORDS)  # "HTTP 503" while sending mail
        single = _BASIC.search(text) if about_mail and not over_http else _leading(words)
        if found is None and (single is None or int(single[1]) not in _vocab_mail.BASIC):
            return None
        basic = int(single[1]) if single and found is None else 0
        enhanced = ".".join(found.groups()) if found else ""
    return MailReply(
        f"SMTP {basic or ''} {enhanced}".replace("  ", " ").strip(),
        (enhanced or str(basic)).startswith("4"),
        enhanced in _vocab_mail.DETAILS or enhanced.startswith("5"),
        frozenset({_mail_signal(basic, enhanced)}),
    )


def _leading(words: Words) -> re.Match[str] | None:
    """A reply code leading the text that only a mail server sends ("451 Temporary local
    problem"), not followed by the HTTP reason phrase of the same number."""
    match = _BASIC.match(words.padded, 1)
    if match is None or int(match[1]) not in _vocab_mail.MAIL_ONLY:
        return None
    after = words.padded[match.end() :]
    if any(after.startswith(f" {p} ") for p in OWN_PHRASES.get(int(match[1]), ())):
        return None
    return match


def _mail_signal(basic: int, enhanced: str) -> Signal:
    """What a reply code says: its enhanced code's detail, or subject, or its basic code."""
    if enhanced in _vocab_mail.DETAILS:
        return _vocab_mail.DETAILS[enhanced]
    if enhanced.startswith("4"):
        return _vocab_mail.TRANSIENT
    if enhanced:
        return _vocab_mail.SUBJECTS.get(int(enhanced.split(".")[1]), _vocab_mail.PERMANENT)
    return _vocab_mail.BASIC[basic]


_CURL = re.compile(r" curl (?:error )?(\d{1,2}) ")
_ORACLE = re.compile(r"ora-(\d{5})")
_NSURL = re.compile(r"nsurlerrordomain\W{1,3}code\W{0,2}(-\d{3,4})")
# Each family: the word that must be there, how its codes are found (in the padded words, or
# the lower-cased text), its table, and the codes that say nothing was sent.
_FAMILIES = (
    ("curl", _CURL, True, _vocab_clients.CURL_CODES, _vocab_clients.CURL_CONNECT),
    ("nsurlerrordomain", _NSURL, False, _vocab_clients.NSURL_CODES, _vocab_clients.NSURL_CONNECT),
    ("ora", _ORACLE, False, _vocab_db.ORACLE_CODES, _vocab_db.ORACLE_CONNECT),
)


def client_codes(words: Words) -> tuple[frozenset[Signal], bool]:
    """The signals of the codes of the client libraries and servers the text quotes (curl's
    "curl: (6)", "cURL error 28"; Apple's "NSURLErrorDomain Code=-1004"; Oracle's "ORA-00001"),
    and whether one says nothing was sent. A code says it in every language."""
    found: set[Signal] = set()
    connect = False
    for marker, pattern, in_words, table, connecting in _FAMILIES:
        if marker in words.words:
            codes = [int(c) for c in pattern.findall(words.padded if in_words else words.lowered)]
            found.update(table[code] for code in codes if code in table)
            connect = connect or any(code in connecting for code in codes)
    return frozenset(found), connect


_SQLSTATE = re.compile(r"sqlstate\W{0,3}([0-9a-z]{5})")


def sqlstate_signals(text: str, words: Words) -> frozenset[Signal]:
    """The signals of the SQLSTATEs the text quotes."""
    if "sqlstate" not in words.words:
        return frozenset()
    codes = [code.upper() for code in _SQLSTATE.findall(text.lower())]
    found = (_vocab_db.SQLSTATES.get(c) or _vocab_db.SQLSTATE_CLASSES.get(c[:2]) for c in codes)
    return frozenset(signal for signal in found if signal is not None)


# --- when to try again -----------------------------------------------------------------

# A hint of 0 (or a date already past) must not become a hot loop of instant retries.
MIN_WAIT_S = 1.0
# A hint of an hour must not become an hour of sleep; past this the caller should give up.
MAX_WAIT_S = 60.0

_HEADER_HINT = re.compile(
    r"(?i)\bretry-after(-ms)?\s*[:=]\s*(\d+(?:\.\d+)?|[A-Z][a-z]{2},[^\n]{10,30}?GMT)"
)
_WORD_HINT = re.compile(
    r"(?i)retry_?after[\"']?\s*[:=]\s*(\d+(?:\.\d+)?)"
    r"|(?:retry after|try again in|retry in|wait for|wait)\s+(\d+(?:\.\d+)?)\s*"
    r"(?:(?:more|further|other|additional)\s+)?"  # "wait 59 more minutes": minutes still
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
_TRIGGERS = ("retry", "again", "tomorrow", "wait")


def hint_from_headers(headers: Mapping[str, str], now: datetime | None = None) -> float | None:
    """Seconds the server asked us to wait: `retry-after-ms`, then `Retry-After` (seconds or
    an HTTP date), then Anthropic's `anthropic-ratelimit-*-reset` of each limit it reports
    spent (`*-remaining: 0`), counted from the response's own `date` so that clocks need not
    agree."""
    lowered = {k.lower(): v for k, v in headers.items()}
    if (ms := _number(lowered.get("retry-after-ms"))) is not None:
        return ms / 1000
    value = lowered.get("retry-after")
    if value is not None:
        return _seconds(value, now)
    return _reset_hint(lowered, now)


_RESET = re.compile(r"anthropic-ratelimit-([a-z-]+)-reset")


def _reset_hint(headers: Mapping[str, str], now: datetime | None) -> float | None:
    """The wait until the last of the spent limits resets, or None when none says it is spent."""
    sent = _date(headers.get("date")) or (now or datetime.now(UTC))
    waits = []
    for name, value in headers.items():
        limit = _RESET.fullmatch(name)
        if limit is None or headers.get(f"anthropic-ratelimit-{limit[1]}-remaining") != "0":
            continue
        reset = _instant(value)
        if reset is not None:
            waits.append(max(0.0, (reset - sent).total_seconds()))
    return max(waits) if waits else None


def _instant(value: str) -> datetime | None:
    """An RFC 3339 time ("2024-03-26T20:00:00Z"), in UTC."""
    try:
        when = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def _date(value: str | None) -> datetime | None:
    """An HTTP date ("Tue, 26 Mar 2024 19:59:59 GMT"), aware; one without a zone (or "-0000",
    which says the zone is unknown) is taken as UTC, as HTTP dates are."""
    from email.utils import parsedate_to_datetime  # the email package: only for a date

    try:
        when = parsedate_to_datetime(value.strip()) if value else None
    except (TypeError, ValueError, IndexError):
        return None
    return when.replace(tzinfo=UTC) if when is not None and when.tzinfo is None else when


def should_retry(headers: Mapping[str, str]) -> bool | None:
    """The server's own word on a retry (`x-should-retry: true|false`), if it gave one."""
    said = {k.lower(): v for k, v in headers.items()}.get("x-should-retry", "").strip().lower()
    return {"true": True, "false": False}.get(said)


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
    value, number, unit = match.groups()
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
    when = _date(value)
    return None if when is None else max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def _number(value: str | None) -> float | None:
    try:
        number = float(value) if value is not None else None
    except ValueError:
        return None
    # NaN, infinities and negatives are not hints.
    return number if number is not None and 0 <= number < float("inf") else None
