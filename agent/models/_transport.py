"""The model's HTTP transport, capped: no answer from the model API may grow past a size.

The SDK reads whatever the server sends: a 50 MB body (or an event stream that never ends)
is held in memory whole. `CappedTransport` wraps any httpx2 transport and counts the bytes
of every response as they stream in; past `max_bytes` it raises `errors.ResponseTooLarge`
(bad data: retried once, then the next model). A declared length over the cap is refused
before a byte is read. It caps each response on its own, streaming included.

The cap is on the decoded body, so a small gzip body cannot inflate past it: requests ask
for no compression (model answers are small), and a gzip or deflate body sent anyway is
decoded here, a piece at a time and never past the cap; any other encoding is refused.

    client = httpx2.AsyncClient(transport=CappedTransport(httpx2.AsyncHTTPTransport()))
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator

import httpx2

from errors import BadUpstreamData, ResponseTooLarge

__all__ = ["DEFAULT_MAX_BYTES", "SOURCE", "CappedTransport"]

DEFAULT_MAX_BYTES = 4 * 1024 * 1024  # 4 MiB: far above any answer of max_tokens, far below harm
SOURCE = "claude"


class CappedTransport(httpx2.AsyncBaseTransport):
    """`inner`, with every response body cut at `max_bytes` (raising `ResponseTooLarge`)."""

    def __init__(
        self, inner: httpx2.AsyncBaseTransport, max_bytes: int = DEFAULT_MAX_BYTES
    ) -> None:
        if max_bytes <= 0:
            raise ValueError("max_bytes must be positive")
        self.inner = inner
        self.max_bytes = max_bytes

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """The inner transport's response, its stream counted (and decoded) as it is read."""
        request.headers["Accept-Encoding"] = "identity"
        response = await self.inner.handle_async_request(request)
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        declared = response.headers.get("content-length", "")
        problem: Exception | None = None
        if encoding not in _DECODERS:
            problem = BadUpstreamData(f"the model API sent a {encoding!r} body", source=SOURCE)
        elif declared.isdigit() and int(declared) > self.max_bytes:
            problem = ResponseTooLarge(
                f"the model API declared a {declared}-byte body, over the "
                f"{self.max_bytes}-byte cap",
                source=SOURCE,
            )
        if problem is not None:
            await response.aclose()
            raise problem
        stream = response.stream
        assert isinstance(stream, httpx2.AsyncByteStream)  # what an async transport returns
        response.stream = _Capped(stream, self.max_bytes, _DECODERS[encoding])
        if encoding != "identity":  # decoded here, so httpx2 must not decode it again
            del response.headers["content-encoding"]
            response.headers.pop("content-length", None)
        return response

    async def aclose(self) -> None:
        """Close the inner transport."""
        await self.inner.aclose()


# zlib's window bits per encoding: 0, none; 47, gzip or zlib framing; 15, zlib ("deflate").
_DECODERS = {"identity": 0, "": 0, "gzip": 47, "x-gzip": 47, "deflate": 15}


class _Capped(httpx2.AsyncByteStream):
    """A response stream (decoded here when `wbits` says so) that raises once more than
    `max_bytes` of body have come through."""

    def __init__(self, inner: httpx2.AsyncByteStream, max_bytes: int, wbits: int) -> None:
        self._inner = inner
        self._max_bytes = max_bytes
        self._wbits = wbits

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        decoder = zlib.decompressobj(self._wbits) if self._wbits else None
        async for raw in self._inner:
            chunk = raw if decoder is None else self._decoded(decoder, raw, seen)
            seen += len(chunk)
            if seen > self._max_bytes:
                raise self._too_large()
            if chunk:
                yield chunk

    def _decoded(self, decoder: zlib._Decompress, raw: bytes, seen: int) -> bytes:
        """At most one byte past the cap of `raw` inflated: enough to know it is over."""
        try:
            chunk = decoder.decompress(raw, self._max_bytes - seen + 1)
        except zlib.error as exc:
            raise BadUpstreamData(
                "the model API sent a body that does not decode", source=SOURCE
            ) from exc
        if decoder.unconsumed_tail:  # more inflated output than the cap allows
            raise self._too_large()
        return chunk

    def _too_large(self) -> ResponseTooLarge:
        return ResponseTooLarge(
            f"the model API's body passed the {self._max_bytes}-byte cap", source=SOURCE
        )

    async def aclose(self) -> None:
        await self._inner.aclose()
