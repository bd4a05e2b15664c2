"""The one HTTP client factory (timeouts, a User-Agent), the capped GET the tools use, and the
http(s) URL check for every configured endpoint.

The body cap is enforced in one place, `read_capped`, while the body streams in: a declared
length over the cap is refused unread, and reading stops at the first decoded chunk past it
(so a small gzip body that inflates to gigabytes is stopped too), raising
`errors.ResponseTooLarge`. A 10 MB answer is never held whole.
"""

from __future__ import annotations

import functools
import json
import logging
import math
import ssl
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

import httpx

from errors import BadSetting, BadUpstreamData, ResponseTooLarge, UpstreamStatus, redact
from errors._redact import has_space_or_control

__all__ = [
    "DEFAULT_MAX_BYTES",
    "MAX_JSON_DEPTH",
    "USER_AGENT",
    "check_http_url",
    "get_capped",
    "get_json",
    "json_answer",
    "make_client",
    "parse_json",
    "read_capped",
    "with_params",
]


# --- configured endpoints -----------------------------------------------------------------------


def check_http_url(name: str, url: str) -> None:
    """Refuse, as `errors.BadSetting(name, …)`, a `url` that is not http(s) with a host (and a
    valid port, if any), or that holds a space or a control character anywhere (strip what
    surrounds it first). The value is never echoed: it may carry a key.

    `urlsplit` drops tabs, CR and LF wherever they are, so a value with a line break would pass
    its reading and fail only when the client sends it, as a failure of every request; it is
    refused here instead, with any other whitespace or control or format character (C0, C1,
    bidi controls, zero-width characters), which no URL holds unescaped."""
    if has_space_or_control(url):
        raise BadSetting(name, "must be an http(s) URL without spaces or control characters")
    try:
        parts = urlsplit(url)
        _ = parts.port  # raises ValueError for a port that is not a number in range
    except ValueError:
        raise BadSetting(name, "must be an http(s) URL") from None
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        raise BadSetting(name, "must be an http(s) URL")


# --- the client and the capped GET --------------------------------------------------------------

USER_AGENT = "failsafe-agent/0.1 (+https://github.com/failsafe-agent; tool-use demo)"
DEFAULT_MAX_BYTES = 1_000_000


def make_client(
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    connect_timeout: float = 3.0,
    read_timeout: float = 5.0,
) -> httpx.AsyncClient:
    """An `httpx.AsyncClient` with timeouts and a User-Agent; read bodies with `get_capped`.

    Its own transport never retries (there is one retry layer: the middleware's).
    """
    _mask_secrets_in_httpx_logs()
    timeout = httpx.Timeout(
        connect=connect_timeout, read=read_timeout, write=read_timeout, pool=connect_timeout
    )
    return httpx.AsyncClient(
        transport=transport or httpx.AsyncHTTPTransport(verify=_ssl_context(), retries=0),
        timeout=timeout,
        headers={"User-Agent": USER_AGENT},
    )


@functools.cache
def _mask_secrets_in_httpx_logs() -> None:
    """Put the redacting filter on httpx's logger, once per process."""
    logging.getLogger("httpx").addFilter(_redact_secrets)


def _redact_secrets(record: logging.LogRecord) -> bool:
    """Mask secrets in a record's text: httpx logs every request's full URL at INFO
    ("HTTP Request: GET https://…?apikey=…"), for anyone who turns the stdlib logger on."""
    try:
        text = record.getMessage()
    except Exception:  # a malformed record is for the handler to report, not for us
        return True
    record.msg, record.args = redact(text), None
    return True


@functools.cache
def _ssl_context() -> ssl.SSLContext:
    """Loading the CA bundle takes tens of milliseconds: do it once per process."""
    return httpx.create_ssl_context()


async def read_capped(response: httpx.Response, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
    """The body of a streamed `response`, read only up to `max_bytes`."""
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise ResponseTooLarge(f"declared length {declared} is over the {max_bytes}-byte cap")
    body = bytearray()
    async for chunk in response.aiter_bytes():  # decoded: a gzip bomb is capped too
        body += chunk
        if len(body) > max_bytes:
            raise ResponseTooLarge(f"body passed the {max_bytes}-byte cap")
    return bytes(body)


async def get_json(
    client: httpx.AsyncClient,
    url: str,
    *,
    source: str,
    params: Mapping[str, str | int | float] | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> Any:
    """GET `url` and parse JSON; any non-2xx, oversized or non-JSON answer raises."""
    response, body = await get_capped(
        client, url, source=source, params=params, max_bytes=max_bytes
    )
    return json_answer(response, body, source)


async def get_capped(
    client: httpx.AsyncClient,
    url: str,
    *,
    source: str,
    params: Mapping[str, str | int | float] | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> tuple[httpx.Response, bytes]:
    """GET `url` with `params` merged into its query (see `with_params`): the (closed)
    response and its body, read only up to `max_bytes`."""
    try:
        async with client.stream("GET", with_params(url, params)) as response:
            body = await read_capped(response, max_bytes)
    except ResponseTooLarge as exc:
        raise ResponseTooLarge(f"{source}: {exc.reason}", source=source) from exc
    return response, body


def with_params(url: str, params: Mapping[str, str | int | float] | None) -> httpx.URL:
    """`url` with `params` added to the query it already has.

    httpx's `params=` would replace that query, dropping what the URL was configured with
    (a commercial plan's `?apikey=…`). Here the URL's own parameters are kept and ours are
    added; a name both use takes our value, since our parsing depends on it (`format=j1`).
    Each of our values is encoded whole, so a city such as "Paris&apikey=x" stays inside its
    own parameter and can neither add one nor change another.
    """
    return httpx.URL(url).copy_merge_params(params or {})


def json_answer(response: httpx.Response, body: bytes, source: str) -> Any:
    """The JSON of a successful answer; a non-2xx status or a non-JSON body raises."""
    if not response.is_success:
        status = response.status_code
        reason = f"{source} answered {status} {response.reason_phrase}: {_why(body)}"
        raise UpstreamStatus(status, reason, source=source, headers=dict(response.headers))
    return parse_json(body, source, response.headers.get("content-type", ""))


def _why(body: bytes) -> str:
    """What an error body says: the `reason` of a JSON error object (Open-Meteo's form,
    `{"error": true, "reason": "Daily API request limit exceeded. …"}`), whole, so the
    classifier can read it; else the first 160 characters of the body."""
    if body[:1] == b"{" and len(body) <= 4096:
        try:
            data = json.loads(body)
        except ValueError:
            data = None
        reason = data.get("reason") if isinstance(data, dict) else None
        if isinstance(reason, str) and reason.strip():
            return " ".join(reason.split())[:500]
    return body[:160].decode("utf-8", "replace")


MAX_JSON_DEPTH = 64  # no weather answer nests deeper than a handful of levels


def parse_json(body: bytes, source: str, content_type: str = "") -> Any:
    """`body` as JSON, or `BadUpstreamData`: not JSON, a non-finite number (`NaN`,
    `Infinity`, or `1e999`, which overflows to infinity), or nesting deeper than
    `MAX_JSON_DEPTH` (100 KB of `[` would otherwise exhaust the recursion limit)."""
    try:
        value = json.loads(body, parse_constant=_reject_constant, parse_float=_finite)
    except ValueError as exc:
        kind = content_type.split(";")[0] or "no content type"
        raise BadUpstreamData(
            f"{source} sent a body that is not JSON ({kind}): {exc}"[:200], source=source
        ) from exc
    except RecursionError as exc:
        raise _too_deep(source) from exc
    if _deeper_than(value, MAX_JSON_DEPTH):
        raise _too_deep(source)
    return value


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"a number out of range ({text[:20]})")
    return number


def _too_deep(source: str) -> BadUpstreamData:
    return BadUpstreamData(
        f"{source} sent JSON nested deeper than {MAX_JSON_DEPTH} levels", source=source
    )


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether `value` nests lists and objects more than `limit` deep (iteratively)."""
    level: list[Any] = [value]  # the nodes at one depth, the root's first
    for _ in range(limit):
        level = [
            child
            for node in level
            if isinstance(node, dict | list)
            for child in (node.values() if isinstance(node, dict) else node)
        ]
        if not level:
            return False
    return any(isinstance(node, dict | list) for node in level)
