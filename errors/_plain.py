"""What makes a user-facing sentence not plain: the checks the rules' output always passes."""

from __future__ import annotations

import re

__all__ = ["plainness_problems"]

_CHECKS = (
    (re.compile(r"(?<!\d)(?<!\d\.)[1-5]\d\d(?!\d|\.\d)"), "a status code"),
    (re.compile(r"\b\w*(?:Error|Exception)\b|Traceback|\bat 0x"), "an exception name"),
    (
        re.compile(
            r"\bE(?:CONN\w+|TIMEDOUT|NOTFOUND|HOSTUNREACH|NETUNREACH|PIPE|AI_AGAIN|ADDR\w+)\b"
        ),
        "an error code",
    ),
    (
        re.compile(r"\w+://|www\.\w|\b[\w-]+\.(?:com|org|net|io|dev|ai|app|co|in)\b|\w/\w"),
        "a URL",
    ),
    (
        re.compile(
            r"(?i)\berror (?:has )?occurred|something went wrong|unexpected error"
            r"|\[object Object\]"
        ),
        "a vague non-message",
    ),
    (re.compile(r"[.!?](?:\s+\S)"), "more than one sentence"),
    (re.compile(r"[{}<>\n\r\t]"), "markup or a line break"),
)


def plainness_problems(sentence: str) -> list[str]:
    """Why `sentence` is not one plain sentence; empty when it is."""
    found = [why for pattern, why in _CHECKS if pattern.search(sentence)]
    if not sentence.rstrip().endswith((".", "!", "?")):
        found.append("no closing full stop")
    return found
