"""The operation as the subject of a sentence, kept as written.

The operation is ours (the caller wrote it), so its words stay as they are: names, versions
("Claude 3.5 Sonnet", "GPT-4", "2020.0.2"), "#channels" and "@scopes". Only what would make
the sentence technical is dropped — a URL, a path, a snake_case identifier such as
`billing_api`, markup, an exception name, an error code, a three-digit number that reads as a
status, a redacted secret — together with the connecting words that led to it ("from", "via",
"using"), so nothing is left dangling. A long operation is shortened at a word boundary, never
ending on a connecting word.
"""

from __future__ import annotations

import re

from errors._facts import cut
from errors._redact import redact

__all__ = ["FALLBACK_SUBJECT", "MAX_SUBJECT", "subject_from", "subject_of"]

MAX_SUBJECT = 80
FALLBACK_SUBJECT = "That request"

_VAGUE = re.compile(
    r"(?i)\b(?:an? )?(?:unexpected |unknown )?error (?:has )?occurred(?: while)?"
    r"|something went wrong(?: (?:in|with|while))?"
)
# Anything that may make an operation technical; an operation without any is plain words.
_SUSPECT = re.compile(r"[\d_/:<>{}\[\]()|`\\=$%^*~@#.]|rror|xception|Trace|E[A-Z]{4}")
_TECHNICAL = re.compile(
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
    phrase = _shorten(words, MAX_SUBJECT)
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
        if word.isalpha() or (word and (_NAME.match(word) or not _TECHNICAL.search(word))):
            kept.append(word)
            continue
        while kept and kept[-1].lower() in _CONNECTORS:
            kept.pop()
    return kept


def _shorten(words: list[str], limit: int) -> str:
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
