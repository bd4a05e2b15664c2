"""HTTP: the error statuses real services send, and the reason phrases that name them.

Source of truth: the IANA status registry as Python's `http.HTTPStatus` holds it (RFC 9110
and friends), plus the non-standard statuses in common use: 499 (nginx: client closed the
request), 520–527 and 530 (Cloudflare), 529 (Anthropic: overloaded). A reason phrase names
its status only when it cannot be ordinary English: "Service Unavailable" is a status line,
"not found" and "forbidden" are also plain words, so those become signals instead.
"""

from __future__ import annotations

from http import HTTPStatus

from errors._facts import Signal as S
from errors._facts import Term, normalise, term

__all__ = ["ERROR_STATUSES", "OWN_PHRASES", "REASON_PHRASES", "SIGNAL_OF_STATUS", "TERMS"]

_EXTRA_STATUSES = {
    420: "Enhance Your Calm",  # Twitter's old rate limit, still sent (Mailgun, some gateways)
    499: "Client Closed Request",  # nginx
    520: "Web Server Returned an Unknown Error",  # Cloudflare
    521: "Web Server Is Down",
    522: "Connection Timed Out",
    523: "Origin Is Unreachable",
    524: "A Timeout Occurred",
    525: "SSL Handshake Failed",
    526: "Invalid SSL Certificate",
    527: "Railgun Error",
    529: "Overloaded",  # Anthropic; also "Site is overloaded"
    530: "Origin DNS Error",
}
ERROR_STATUSES: frozenset[int] = frozenset(
    {status.value for status in HTTPStatus if status.value >= 400} | set(_EXTRA_STATUSES)
)

# Phrases that are ordinary English too: they give a signal (below), not a status.
_PLAIN_WORDS = {"Not Found", "Conflict", "Gone", "Forbidden", "Unauthorized", "Locked"}
_OLD_NAMES = {
    "Service Temporarily Unavailable": 503,  # nginx's page title
    "Gateway Time-out": 504,  # nginx's spelling
    "Request Time-out": 408,
    "Payload Too Large": 413,  # RFC 7231's name
    "Request Entity Too Large": 413,  # RFC 2616's name
    "Unprocessable Entity": 422,  # RFC 4918's name
}

REASON_PHRASES: dict[str, int] = {
    normalise(status.phrase): status.value
    for status in HTTPStatus
    if status.value >= 400 and status.phrase not in _PLAIN_WORDS
} | {normalise(phrase): code for phrase, code in _OLD_NAMES.items()}


def _own_phrases() -> dict[int, tuple[str, ...]]:
    """Every status's own phrases, plain words included: "404 Not Found" confirms a 404."""
    named = [(status.value, status.phrase) for status in HTTPStatus]
    named += [(code, phrase) for phrase, code in _OLD_NAMES.items()]
    named += list(_EXTRA_STATUSES.items())
    phrases: dict[int, tuple[str, ...]] = {}
    for code, phrase in named:
        phrases[code] = (*phrases.get(code, ()), normalise(phrase))
    return phrases


OWN_PHRASES = _own_phrases()

TERMS: tuple[Term, ...] = (
    *(
        term(phrase, S.STATUS, f"HTTP {code} reason phrase", status=code)
        for phrase, code in REASON_PHRASES.items()
    ),
    term("Unauthorized", S.BAD_CREDENTIALS, "RFC 9110 401 reason phrase, or the word"),
    term("Forbidden", S.FORBIDDEN, "RFC 9110 403 reason phrase, or the word"),
    term("Too Many Requests", S.RATE_LIMIT, "RFC 6585 429 reason phrase"),
    term("Service Unavailable", S.SERVER, "RFC 9110 503 reason phrase"),
    term("Service Temporarily Unavailable", S.SERVER, "nginx's 503 page"),
    term("Internal Server Error", S.SERVER, "RFC 9110 500 reason phrase"),
    term("Bad Gateway", S.SERVER, "RFC 9110 502 reason phrase"),
    term("Gateway Timeout", S.TIMEOUT, "RFC 9110 504 reason phrase"),
    term("Gateway Time-out", S.TIMEOUT, "nginx's 504 page"),
    term("Request Timeout", S.TIMEOUT, "RFC 9110 408 reason phrase"),
    term("Bad Request", S.BAD_REQUEST, "RFC 9110 400 reason phrase"),
    term("Payment Required", S.QUOTA, "RFC 9110 402 reason phrase", billing=True),
)

# What an error status says, for its reason phrase in another language (whose words, unlike
# the English, are not read as ordinary words elsewhere).
SIGNAL_OF_STATUS: dict[int, S] = {
    400: S.BAD_REQUEST,
    401: S.BAD_CREDENTIALS,
    402: S.QUOTA,
    403: S.FORBIDDEN,
    404: S.NOT_FOUND,
    408: S.TIMEOUT,
    409: S.CONFLICT,
    413: S.TOO_LARGE,
    420: S.RATE_LIMIT,
    422: S.BAD_REQUEST,
    423: S.CONFLICT,
    429: S.RATE_LIMIT,
    500: S.SERVER,
    502: S.SERVER,
    503: S.LATER,
    504: S.TIMEOUT,
    507: S.DISK_FULL,
}
