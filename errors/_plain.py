"""What makes a user-facing sentence not plain: the checks the rules' output always passes.

Each check is a cheap gate (a character or word that must be present for the problem to be
possible) and the exact test behind it, so a plain sentence costs a handful of substring
tests rather than a scan per pattern.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["plainness_problems"]

_NUMBER = re.compile(r"\d[\d.]*")
_EXCEPTION = re.compile(r"(?:Error|Exception)\b|Traceback|\bat 0x")
_ERROR_CODE = re.compile(
    r"\bE(?:CONN\w+|TIMEDOUT|NOTFOUND|HOSTUNREACH|NETUNREACH|PIPE|AI_AGAIN|ADDR\w+)\b"
)
_DOMAIN = re.compile(r"\.(?:com|org|net|io|dev|ai|app|co|in)\b")
_VAGUE = re.compile(
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


# A word each vague wording needs: without any, `_VAGUE` cannot match.
_VAGUE_WORDS = ("occurred", "wrong", "unexpected", "[object")


def _vague(s: str) -> bool:
    lowered = s.lower()
    return any(map(lowered.__contains__, _VAGUE_WORDS)) and bool(_VAGUE.search(lowered))


_CHECKS: tuple[tuple[Callable[[str], object], str], ...] = (
    (_status_code, "a status code"),
    (_exception_name, "an exception name"),
    (lambda s: "E" in s and _ERROR_CODE.search(s), "an error code"),
    (_url, "a URL"),
    (_vague, "a vague non-message"),
    (_SENTENCES.search, "more than one sentence"),
    (_MARKUP.search, "markup or a line break"),
)


def plainness_problems(sentence: str) -> list[str]:
    """Why `sentence` is not one plain sentence; empty when it is."""
    found = [why for check, why in _CHECKS if check(sentence)]
    if not sentence.rstrip().endswith((".", "!", "?")):
        found.append("no closing full stop")
    return found
