"""What text may carry across a boundary (a log, a terminal, a span, the model): secrets
masked, and the one list of characters that change how text reads without being seen
(`INVISIBLE`: controls, bidi, zero-width; `escape_invisible`, `for_outside`), and the rule for
a flood of combining marks (`without_mark_floods`).

Two ways a secret is found: by *pattern* (a well-known key prefix, an Authorization header, a
password in a URL, a key-ish header, JSON key or query parameter such as `api_key=`,
`appid=`, `access_token=`, `sig=`) and by *value* (`register_secret`: the program's own keys,
masked wherever they appear, also in their URL-encoded forms). Each pattern keeps its label
and masks what follows it. The patterns run once, case-sensitively, over the lower-cased
text, and the spans they find are masked in the original.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from urllib.parse import quote, quote_plus

__all__ = [
    "CONTROL",
    "INVISIBLE",
    "MAX_MARKS",
    "MAX_QUOTED",
    "MIN_SECRET_LENGTH",
    "UNSEEN",
    "escape_invisible",
    "for_outside",
    "has_space_or_control",
    "quotable",
    "redact",
    "register_secret",
    "thin_marks",
    "without_mark_floods",
]

_MASK = "[redacted]"
MIN_SECRET_LENGTH = 6  # shorter values would mask ordinary words and numbers

_KEYISH = (
    r"x-api-key|api[_-]?key|app[_-]?key|app[_-]?id|access[_-]?key|private[_-]?key"
    r"|access[_-]?token|refresh[_-]?token|id[_-]?token|client[_-]?secret|token|secret"
    r"|password|passwd|pwd|auth|key|sig|signature|session[_-]?id|credentials?"
)
# Over lower-cased text: (trigger, pattern). A pattern runs only when its trigger occurs
# (a few substrings, or a cheap pattern); each alternative is (label)(secret), and the label
# is kept.
_PATTERNS: tuple[tuple[tuple[str, ...] | str, str], ...] = (
    # Keys with a well-known prefix: Anthropic/OpenAI "sk-…", Stripe "sk_live_…"/"rk_test_…",
    # GitHub "ghp_…"/"github_pat_…", Slack "xox?-…", AWS access key ids.
    (
        "sk-|k_live_|k_test_|gh[pousr]_|github_pat_|xox[abprs]-|akia",  # cheaper: `_prefixed`
        r"()\b(?:sk-[a-z0-9_\-]{8,}|[sr]k_(?:live|test)_[a-z0-9]{8,}"
        r"|gh[pousr]_[a-z0-9]{16,}|github_pat_\w{20,}|xox[abprs]-[a-z0-9\-]{8,}"
        r"|akia[0-9a-z]{16})",
    ),
    # Authorization headers, whatever the scheme, and bare bearer/basic credentials.
    (
        ("authorization",),
        r"(\bauthorization[\"']?\s*[:=]\s*[\"']?(?:bearer|basic|token)?\s*)[^\s\"',;]{6,}",
    ),
    (("bearer", "basic"), r"(\b(?:bearer|basic)\s+)[a-z0-9._~+/=\-]{8,}"),
    # A password in a URL's user part: scheme://user:password@host.
    (("://",), r"(://[^/\s:@]{1,64}:)[^@\s/]{1,128}(?=@)"),
    # Header-, JSON- and query-style secrets: "x-api-key: …", "appid=…", '"password": "…"'.
    (
        r"(?:key|token|secret|pass|pwd|sig|auth|cred|session|app[_-]?id)\w{0,8}[\"']?\s*[:=]",
        rf"((?:{_KEYISH})[\"']?\s*[:=]\s*[\"']?)[^\s&\"',;}}]{{3,}}",
    ),
)


def _prefixed(text: str) -> bool:
    """Whether `text` may hold a key with a well-known prefix (cheap: few substring tests)."""
    if "sk-" in text or "akia" in text or "xox" in text:
        return True
    return "_" in text and ("k_live_" in text or "k_test_" in text or "gh" in text)


def _gate(trigger: tuple[str, ...] | str) -> Callable[[str], bool]:
    """A cheap test for a trigger: substrings, or a pattern."""
    if isinstance(trigger, str):
        found = re.compile(trigger).search
        return lambda text: found(text) is not None
    return lambda text: any(map(text.__contains__, trigger))


_GATED = (
    (_prefixed, re.compile(_PATTERNS[0][1])),
    *((_gate(trigger), re.compile(pattern)) for trigger, pattern in _PATTERNS[1:]),
)
# Every pattern but the prefixed keys and bearer/basic credentials needs a ":" or an "=" (a
# header, a URL's scheme, a JSON key, a query parameter); a text with neither skips them.
_UNSIGNED = (_GATED[0], _GATED[2])

_registered: set[str] = set()
_by_value: re.Pattern[str] | None = None


def register_secret(value: str) -> None:
    """Mask `value` (and its URL-encoded forms) wherever it appears from now on.

    Values shorter than `MIN_SECRET_LENGTH` are ignored: they would mask ordinary text.
    """
    global _by_value
    value = value.strip()
    if len(value) < MIN_SECRET_LENGTH or value in _registered:
        return
    _registered.add(value)
    forms = {form for secret in _registered for form in _forms(secret)}
    ordered = sorted(forms, key=len, reverse=True)  # longest first: no partial masks
    _by_value = re.compile("|".join(re.escape(form) for form in ordered))


# Every pattern in one, ignoring case: for the rare text whose lower case is longer ("İ"), so
# spans found in it would not line up. `re` compiles it when first needed (1.5 ms) and caches it.
_ANY_CASE = "|".join(pattern for _, pattern in _PATTERNS)


def _forms(secret: str) -> tuple[str, ...]:
    return (secret, quote(secret, safe=""), quote_plus(secret, safe=""))


def redact(text: str) -> str:
    """`text` with registered secrets, API keys, bearer tokens, URL passwords and key-ish
    header, JSON and query values masked."""
    if _by_value is not None:
        text = _by_value.sub(_MASK, text)
    lowered = text.lower()
    if len(lowered) != len(text):  # a character whose lower case is longer: match any case
        return re.sub(_ANY_CASE, _keep_label, text, flags=re.IGNORECASE)
    spans = _secret_spans(lowered)
    if not spans:
        return text
    pieces: list[str] = []
    last = 0
    for start, end in sorted(spans):
        if start >= last:
            pieces += (text[last:start], _MASK)
            last = end
    return "".join((*pieces, text[last:]))


def _secret_spans(lowered: str) -> list[tuple[int, int]]:
    """(start, end) of every secret the patterns find: the part after each label."""
    spans = []
    for triggered, pattern in _GATED if ":" in lowered or "=" in lowered else _UNSIGNED:
        if triggered(lowered):
            spans += [(m.end(1), m.end()) for m in pattern.finditer(lowered)]
    return spans


def _keep_label(match: re.Match[str]) -> str:
    return (match.group(match.lastindex) if match.lastindex else "") + _MASK


# --- a value a sentence may repeat ----------------------------------------------------------

MAX_QUOTED = 40  # the longest value a sentence repeats
_WEB = re.compile(r"://|\bwww\.|\.(?:com|org|net|io|dev|ai|app|co|in)\b", re.IGNORECASE)


def quotable(value: str) -> str:
    """`value` as a sentence may repeat it in quotes, or "" when it may not: a name of a few
    words (a place, a time zone, a queue) that holds no secret, no control character, no quote
    mark and no web address, cut to `MAX_QUOTED` characters."""
    value = " ".join(value.split()).strip(" .,;:")
    if not value or len(value.split()) > 4 or not any(c.isalnum() for c in value):
        return ""
    if not value.isprintable() or any(q in value for q in '“”"`') or _WEB.search(value):
        return ""
    if redact(value) != value:
        return ""
    return value if len(value) <= MAX_QUOTED else f"{value[: MAX_QUOTED - 1]}…"


# --- what leaves the process ------------------------------------------------------------------

# The one list, for every boundary, of characters that change how text reads without being
# seen. Controls: C0 (newline and tab kept), DEL and C1. Unseen: bidi controls (ALM, LRE…RLO,
# LRI…PDI), zero-width characters and marks (ZWSP, ZWNJ, ZWJ, LRM, RLM), the line and
# paragraph separators, the word joiner and the invisible operators, the byte order mark.
_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f"
_UNSEEN = "\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff"
CONTROL = re.compile(f"[{_CONTROLS}]")
UNSEEN = re.compile(f"[{_UNSEEN}]")
INVISIBLE = re.compile(f"[{_CONTROLS}{_UNSEEN}]")  # both


def has_space_or_control(text: str) -> bool:
    """Whether `text` holds whitespace, a control character or a format character (bidi
    controls, zero-width characters): what no URL in a setting holds unescaped."""
    return any(char.isspace() or unicodedata.category(char) in _CC_CF for char in text)


_CC_CF = frozenset({"Cc", "Cf"})  # control and format characters


def escape_invisible(text: str) -> str:
    """`text` with every `INVISIBLE` character written as its escape ("\\u202e"), so that a
    reader sees it instead of being misled by it (a log line, a span attribute)."""
    if text.isascii() and text.isprintable():
        return text
    return INVISIBLE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def for_outside(text: str) -> str:
    """`text` as it may leave the process — a log line, a span attribute, an exported trace:
    secrets masked (`redact`) and every invisible character escaped (`escape_invisible`).
    The one function for that boundary."""
    return escape_invisible(redact(text))


# --- a flood of combining marks -------------------------------------------------------------

MAX_MARKS = 4  # combining marks kept on one base character; more are a flood
# A run of characters at U+0300 or above: every combining mark is in one. Only runs long
# enough to hold a flood are read character by character (curly quotes and dashes are runs of
# one: a reply full of them is thinned half again as fast). (Written as "not below U+0300":
# the same set, compiled ten times faster than the range up to U+10FFFF, on every start.)
_HIGH = re.compile("[^\x00-\u02ff]+")
_MARKS = frozenset({"Mn", "Me"})  # nonspacing and enclosing marks: they stack on one cell


def without_mark_floods(text: str) -> str:
    """`text` with at most `MAX_MARKS` combining marks on a character: what every boundary
    that keeps text (the terminal, the model's input) does with a flood of them. Accents and
    vowel signs stay; a flood that would smear over the lines around it does not."""
    return text if text.isascii() else thin_marks(text, 0)[0]


def thin_marks(text: str, marks: int) -> tuple[str, int]:
    """`text` with at most `MAX_MARKS` combining marks in a row (`marks` of them just before
    it, for a stream's next piece), and the number of marks it ends with."""
    out: list[str] = []
    done, ending = 0, 0
    for run in _HIGH.finditer(text):
        chars = run.group()
        before = marks if run.start() == 0 else 0  # a character below U+0300 is no mark
        if before + len(chars) <= MAX_MARKS:  # too short to hold a flood: kept as it is
            ending = _trailing_marks(chars, before)
            continue
        kept, ending = _marks_kept(chars, before)
        out += [text[done : run.start()], kept]
        done = run.end()
    out.append(text[done:])
    return "".join(out), ending if text and text[-1] >= "\u0300" else 0


def _marks_kept(run: str, marks: int) -> tuple[str, int]:
    """`run`, each base character keeping at most `MAX_MARKS` marks; the marks it ends with."""
    kept: list[str] = []
    for char in run:
        if unicodedata.category(char) in _MARKS:
            marks += 1
            if marks > MAX_MARKS:
                continue
        else:
            marks = 0
        kept.append(char)
    return "".join(kept), marks


def _trailing_marks(text: str, before: int) -> int:
    """How many combining marks end `text` (and `before` more, if it is all marks)."""
    count = 0
    for char in reversed(text):
        if unicodedata.category(char) not in _MARKS:
            return count
        count += 1
    return before + count
