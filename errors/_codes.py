"""Numbers in a text that are codes: an HTTP status, an errno, a gRPC status, a SQLSTATE.

A three-digit number is an HTTP status only where something says so: "HTTP/1.1 503",
"status: 429", '"statusCode":503', "Error: 503", "error code 529", "HttpError: 404", leading the
text, followed by its own reason phrase ("502 Bad Gateway") or by a colon ("503: …"). Ports
(":443"), positions ("at position 404"), line numbers and IP octets are not. An errno is read
from "[Errno N]", "[WinError N]", "(os error N)" and "errno: N"; a gRPC status only after
"StatusCode", as "grpc_status N" or in grpc-node's "N NAME:"; a SQLSTATE after "SQLSTATE".
"""

from __future__ import annotations

import re

from errors import _vocab_db, _vocab_grpc, _vocab_os
from errors._facts import Signal
from errors._lexicon import Words
from errors._vocab_http import ERROR_STATUSES, OWN_PHRASES

__all__ = ["errno_signals", "grpc_signals", "sqlstate_signals", "status_in"]

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
    names = [_vocab_os.ERRNO_NUMBERS.get(_number(match), "") for match in matches]
    found = frozenset(_vocab_os.ERRNO_NAMES[name] for name in names if name)
    return found, any(name in _vocab_os.CONNECT_NAMES for name in names)


def _number(match: re.Match[str]) -> int:
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
