"""The HTTP client factory and the capped, checked JSON fetch."""

from __future__ import annotations

import gzip
import logging
from collections.abc import AsyncIterator

import httpx
import pytest

from errors import BadUpstreamData, ResponseTooLarge, UpstreamStatus
from tools.http import (
    MAX_JSON_DEPTH,
    USER_AGENT,
    get_capped,
    get_json,
    json_answer,
    make_client,
    parse_json,
    read_capped,
    with_params,
)


class Endless:
    """A streamed body that counts how much of itself was ever produced."""

    def __init__(self, size: int = 10_000_000, chunk: int = 65536) -> None:
        self.size, self.chunk, self.produced = size, chunk, 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while self.produced < self.size:
            self.produced += self.chunk
            yield b"x" * self.chunk


def serving(response: httpx.Response) -> httpx.MockTransport:
    return httpx.MockTransport(lambda _request: response)


async def test_client_sends_a_user_agent() -> None:
    """Every request names the app."""
    seen: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(204)

    transport = httpx.MockTransport(record)
    async with make_client(transport=transport) as client:
        await client.get("https://example.test/")
    assert seen[0].headers["User-Agent"] == USER_AGENT


async def test_client_has_connect_and_read_timeouts() -> None:
    """Connect and read timeouts are set from the arguments."""
    async with make_client(connect_timeout=1.5, read_timeout=2.5) as client:
        assert (client.timeout.connect, client.timeout.read) == (1.5, 2.5)


async def test_huge_body_is_never_read_whole() -> None:
    """A 10 MB streamed body stops at the cap: only about the cap is ever produced."""
    body = Endless()
    async with make_client(transport=serving(httpx.Response(200, content=body))) as client:
        with pytest.raises(ResponseTooLarge):
            await get_capped(client, "https://example.test/", source="svc", max_bytes=100_000)
    assert body.produced <= 100_000 + body.chunk


async def test_declared_length_over_the_cap_is_refused_unread() -> None:
    """A Content-Length over the cap is refused before any of the body is read."""
    body = Endless(size=200)
    headers = {"Content-Length": "5000000"}
    transport = serving(httpx.Response(200, content=body, headers=headers))
    async with make_client(transport=transport) as client:
        with pytest.raises(ResponseTooLarge, match="declared length"):
            await get_capped(client, "https://example.test/", source="svc", max_bytes=1000)
    assert body.produced == 0


async def read_through(response: httpx.Response, cap: int) -> bytes:
    client = make_client(transport=serving(response))
    async with client, client.stream("GET", "https://example.test/") as streamed:
        return await read_capped(streamed, cap)


async def test_cap_applies_to_the_decoded_body() -> None:
    """A small gzip body that inflates past the cap is stopped too."""
    bomb = gzip.compress(b"0" * 2_000_000)
    response = httpx.Response(200, content=bomb, headers={"Content-Encoding": "gzip"})
    with pytest.raises(ResponseTooLarge):
        await read_through(response, 1_000_000)


async def test_small_body_reads_whole() -> None:
    """Under the cap, read_capped returns the body."""
    assert await read_through(httpx.Response(200, content=b"hello"), 10) == b"hello"


async def test_get_json_parses_json() -> None:
    """A 2xx JSON body is parsed."""
    transport = serving(httpx.Response(200, json={"a": 1}))
    async with make_client(transport=transport) as client:
        assert await get_json(client, "https://example.test/", source="s") == {"a": 1}


async def test_get_json_non_2xx_is_upstream_status() -> None:
    """A non-2xx answer raises UpstreamStatus with the status, headers and source."""
    response = httpx.Response(429, json={"error": True}, headers={"Retry-After": "7"})
    async with make_client(transport=serving(response)) as client:
        with pytest.raises(UpstreamStatus) as caught:
            await get_json(client, "https://example.test/", source="svc")
    error = caught.value
    assert (error.status, error.headers["retry-after"], error.source) == (429, "7", "svc")


@pytest.mark.parametrize(
    "content",
    [b"<html>oops</html>", b"", b'{"t": NaN}', b'{"t": Infinity}', b'{"cut'],
)
async def test_get_json_rejects_what_is_not_json(content: bytes) -> None:
    """HTML, empty, truncated bodies and NaN are not JSON: BadUpstreamData."""
    transport = serving(httpx.Response(200, content=content))
    async with make_client(transport=transport) as client:
        with pytest.raises(BadUpstreamData):
            await get_json(client, "https://example.test/", source="svc")


async def test_get_json_names_the_source_of_an_oversized_body() -> None:
    """ResponseTooLarge raised while fetching carries the source's name."""
    transport = serving(httpx.Response(200, content=Endless()))
    async with make_client(transport=transport) as client:
        with pytest.raises(ResponseTooLarge) as caught:
            await get_json(client, "https://example.test/", source="svc")
    assert caught.value.source == "svc"


async def test_get_capped_hands_back_an_error_answer_unjudged() -> None:
    """get_capped returns a non-2xx status and its body; json_answer then refuses it."""
    transport = serving(httpx.Response(500, text="location not found: Atlantis"))
    async with make_client(transport=transport) as client:
        response, body = await get_capped(client, "https://example.test/", source="svc")
    assert (response.status_code, body) == (500, b"location not found: Atlantis")
    with pytest.raises(UpstreamStatus) as caught:
        json_answer(response, body, "svc")
    assert (caught.value.status, caught.value.source) == (500, "svc")


def test_with_params_keeps_the_urls_own_query() -> None:
    """The URL's parameters (an API key) stay, ours are added after them."""
    url = with_params("https://api.test/v1/search?apikey=K3y-123", {"name": "Paris", "count": 5})
    assert url.params.multi_items() == [("apikey", "K3y-123"), ("name", "Paris"), ("count", "5")]


def test_with_params_gives_our_value_where_both_name_one() -> None:
    """A parameter the tool depends on takes the tool's value, not the URL's."""
    url = with_params("https://w.test/Paris?format=xml&key=K3y-123", {"format": "j1"})
    assert url.params.multi_items() == [("format", "j1"), ("key", "K3y-123")]


def test_with_params_encodes_a_value_whole() -> None:
    """ "&", "=" and "#" in a value stay inside it: it cannot add or change a parameter."""
    url = with_params("https://api.test/s?apikey=K3y-123", {"name": "Paris&apikey=evil#x"})
    assert url.params.get_list("apikey") == ["K3y-123"]
    assert url.params.get_list("name") == ["Paris&apikey=evil#x"]
    assert url.fragment == ""


def test_with_params_keeps_an_encoded_path_and_a_bare_url() -> None:
    """The path's percent-encoding is left as it is; with no query and no params, no "?"."""
    url = with_params("https://w.test/%2E%2E%2Fadmin?key=K3y-123", {"format": "j1"})
    assert url.raw_path == b"/%2E%2E%2Fadmin?key=K3y-123&format=j1"
    assert str(with_params("https://w.test/x", None)) == "https://w.test/x"


async def test_get_capped_sends_the_merged_query() -> None:
    """What goes on the wire is the URL's query plus ours, not ours alone."""
    seen: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={})

    async with make_client(transport=httpx.MockTransport(record)) as client:
        await get_json(client, "https://api.test/f?apikey=K3y-123", source="s", params={"a": 1})
    assert seen[0].url.query == b"apikey=K3y-123&a=1"


async def test_httpx_request_log_masks_keys(caplog: pytest.LogCaptureFixture) -> None:
    """httpx's own "HTTP Request: GET …" line, if anyone enables it, has the key masked."""
    transport = serving(httpx.Response(200, json={}))
    with caplog.at_level(logging.DEBUG):
        async with make_client(transport=transport) as client:
            await get_json(client, "https://api.test/f?apikey=K3y-123", source="s")
    lines = [r.getMessage() for r in caplog.records if r.name == "httpx"]
    assert lines
    assert all("apikey=[redacted]" in line and "K3y-123" not in line for line in lines)
    assert "K3y-123" not in caplog.text


@pytest.mark.parametrize(
    "body",
    [
        b'{"weather_code": 1e999}',
        b'{"t": -1e999}',
        b'{"t": NaN}',
        b"[Infinity]",
        b"[" * 65 + b"]" * 65,
        b'{"a":' * 65 + b"1" + b"}" * 65,
        b"[" * 100_000,
        b"[" * 50_000 + b"]" * 50_000,
    ],
    ids=["1e999", "-1e999", "NaN", "Infinity", "65 deep", "65 deep objects", "100 KB [", "nested"],
)
def test_non_finite_numbers_and_deep_nesting_are_bad_data(body: bytes) -> None:
    """Not numbers a source can mean, nor a shape any answer has: bad data, never a crash."""
    with pytest.raises(BadUpstreamData):
        parse_json(body, "open-meteo")


def test_nesting_up_to_the_limit_and_large_finite_numbers_are_read() -> None:
    """64 levels and 1e308 are still JSON we read."""
    assert parse_json(b"[" * MAX_JSON_DEPTH + b"]" * MAX_JSON_DEPTH, "x")
    assert parse_json(b'{"t": 1e308}', "x") == {"t": 1e308}
