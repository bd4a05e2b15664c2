"""The vocabularies hold against their sources of truth, and each of their rows is recognised.

The sources the running system carries are asked directly: errno numbers and strerror texts
(`errno`, `os.strerror`), getaddrinfo's texts (`gai_strerror` from libc), HTTP statuses and
reason phrases (`http.HTTPStatus`). The rest (gRPC codes, SQLSTATEs, API error types, client
class names) are checked for shape, and every row must be found in a text that quotes it.
"""

from __future__ import annotations

import ctypes
import errno
import os
import socket
import sys
from http import HTTPStatus

import pytest

from errors import classify
from errors._exceptions import facts_from
from errors._facts import Signal, Term
from errors._vocab_api import TERMS as API_TERMS
from errors._vocab_clients import SIGNAL_OF_CLASS
from errors._vocab_clients import TERMS as CLIENT_TERMS
from errors._vocab_db import SQLSTATE_CLASSES, SQLSTATES
from errors._vocab_db import TERMS as DB_TERMS
from errors._vocab_grpc import BY_NAME, BY_NUMBER
from errors._vocab_grpc import TERMS as GRPC_TERMS
from errors._vocab_http import ERROR_STATUSES
from errors._vocab_http import TERMS as HTTP_TERMS
from errors._vocab_os import CONNECT_NAMES, ERRNO_NAMES, ERRNO_NUMBERS
from errors._vocab_os import TERMS as OS_TERMS
from errors._vocab_tls import TERMS as TLS_TERMS
from errors._vocab_words import TERMS as WORD_TERMS

linux = pytest.mark.skipif(sys.platform != "linux", reason="the numbers and texts are Linux's")
ALL_TERMS: list[Term] = [
    *OS_TERMS,
    *TLS_TERMS,
    *HTTP_TERMS,
    *GRPC_TERMS,
    *DB_TERMS,
    *API_TERMS,
    *CLIENT_TERMS,
    *WORD_TERMS,
]
_EAI = {name for name in ERRNO_NAMES if name.startswith("EAI_")}


def test_every_row_says_why() -> None:
    """Every vocabulary row carries its source or reason, and its phrase is not empty."""
    for row in ALL_TERMS:
        assert row.phrase.strip(), row
        assert len(row.why) >= 5, row


@pytest.mark.parametrize("row", ALL_TERMS, ids=lambda row: row.spelled[:40])
def test_every_row_is_recognised_in_a_text_that_quotes_it(row: Term) -> None:
    """A text quoting a row's words gives the row's signal (or its status, for a phrase)."""
    facts = facts_from(f"request failed: {row.spelled}")
    if row.status:
        assert facts.status == row.status
    else:
        assert row.signal in facts.signals


@linux
@pytest.mark.parametrize(("number", "name"), sorted(ERRNO_NUMBERS.items()))
def test_errno_numbers_match_the_system(number: int, name: str) -> None:
    """Linux errno numbers and getaddrinfo's EAI numbers are the running system's."""
    if number < 0:
        assert getattr(socket, name) == number
    elif number < 10000:  # Winsock's numbers (100xx, 110xx) are Windows' own
        assert errno.errorcode[number] == name


@linux
@pytest.mark.parametrize("name", sorted(set(ERRNO_NAMES) - _EAI))
def test_strerror_texts_are_recognised(name: str) -> None:
    """Python's own "[Errno N] strerror" for each listed errno gives that errno's signal."""
    number = getattr(errno, name)
    facts = facts_from(f"[Errno {number}] {os.strerror(number)}")
    assert ERRNO_NAMES[name] in facts.signals
    assert facts.connect_phase == (name in CONNECT_NAMES)


@linux
@pytest.mark.parametrize("name", sorted(set(ERRNO_NAMES) - _EAI))
def test_strerror_alone_is_recognised(name: str) -> None:
    """glibc's strerror text alone, with no number, gives the errno's signal.

    "Permission denied" alone is also a remote refusal's wording, so it may read as one."""
    found = facts_from(os.strerror(getattr(errno, name))).signals
    assert ERRNO_NAMES[name] in found or (name == "EACCES" and Signal.FORBIDDEN in found)


@linux
@pytest.mark.parametrize("name", sorted(_EAI))
def test_getaddrinfo_texts_are_a_connection_that_never_opened(name: str) -> None:
    """glibc's gai_strerror texts are DNS failures: network, reconnect at once."""
    libc = ctypes.CDLL(None)
    libc.gai_strerror.restype = ctypes.c_char_p
    text = libc.gai_strerror(getattr(socket, name)).decode()
    verdict = classify(f"socket.gaierror: {text}", "Fetching the forecast")
    assert verdict.result.error_type == "network"
    assert verdict.wait_s == 0


@pytest.mark.parametrize("status", sorted(ERROR_STATUSES))
def test_every_http_error_status_line_is_placed(status: int) -> None:
    """Every 4xx/5xx status line, with its reason phrase, is read and never `unknown`."""
    phrase = HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ else ""
    facts = facts_from(f"HTTP/1.1 {status} {phrase}".strip())
    assert facts.status == status
    assert classify(f"HTTP/1.1 {status} {phrase}", "Fetching the page").result.error_type != (
        "unknown"
    )


def test_grpc_codes_are_the_published_table() -> None:
    """The gRPC table holds the sixteen error codes, numbered 1 to 16, one name each."""
    assert sorted(BY_NUMBER) == list(range(1, 17))
    assert len(BY_NAME) == 16


# The published table, in order: code N is GRPC_NAMES[N - 1].
GRPC_NAMES = [
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
]


def test_grpc_names_and_numbers_agree() -> None:
    """Each name and its number in the table give the same signal."""
    for number, name in enumerate(GRPC_NAMES, start=1):
        assert BY_NAME[name.lower()] == BY_NUMBER[number], name


@pytest.mark.parametrize(("number", "name"), list(enumerate(GRPC_NAMES, start=1)))
def test_grpc_codes_read_alike_in_every_form(number: int, name: str) -> None:
    """ "StatusCode.X", "grpc_status: N" and grpc-node's "N X: …" give the code's signal."""
    texts = [
        f"<_InactiveRpcError: status = StatusCode.{name}, details = 'x'>",
        f"grpc_status: {number}",
        f"Error: {number} {name}: the call failed",
    ]
    for text in texts:
        assert BY_NUMBER[number] in facts_from(text).signals, text
    assert classify(texts[0], "Calling the service").result.error_type != "unknown"


@pytest.mark.parametrize(("code", "signal"), sorted(SQLSTATES.items()))
def test_sqlstates_are_read_where_quoted(code: str, signal: Signal) -> None:
    """A quoted SQLSTATE gives its signal, as PDO and psycopg print it."""
    assert signal in facts_from(f"SQLSTATE[{code}]: General error").signals
    assert signal in facts_from(f"ERROR: something happened SQLSTATE {code}").signals


@pytest.mark.parametrize(("klass", "signal"), sorted(SQLSTATE_CLASSES.items()))
def test_sqlstate_classes_cover_unlisted_codes(klass: str, signal: Signal) -> None:
    """A code not listed on its own falls back to its class (08xxx connection, 53xxx …)."""
    code = f"{klass}9Z9"
    assert code not in SQLSTATES
    assert signal in facts_from(f"SQLSTATE[{code}]: x").signals


@pytest.mark.parametrize(("name", "signal"), sorted(SIGNAL_OF_CLASS.items()))
def test_client_exception_classes_are_known_by_name(name: str, signal: Signal) -> None:
    """A foreign exception is recognised by its class name, without importing its package."""
    foreign = type(name, (Exception,), {"__module__": "somepackage.exceptions"})
    assert signal in facts_from(foreign("x")).signals


@pytest.mark.parametrize(("name", "signal"), sorted(SIGNAL_OF_CLASS.items()))
def test_client_exception_classes_are_known_along_the_mro(name: str, signal: Signal) -> None:
    """A subclass of a known class (an SDK's own) is recognised through its parent."""
    parent = type(name, (Exception,), {"__module__": "somepackage.exceptions"})
    child = type("VendorSpecificFailure", (parent,), {"__module__": "vendor"})
    assert signal in facts_from(child("x")).signals
