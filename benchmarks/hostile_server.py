"""Hostile servers on 127.0.0.1: the Messages API and the weather APIs, misbehaving on purpose.

The adversarial tests (tests/hostile/) and the bench's hostile table (benchmarks/hostile.py)
both use it. Each server runs in a thread of its own (so the synchronous CLI, or a child
process, can be pointed at it as well as async code), answers on real sockets, and is
started and stopped by its user:

    with HostileServer(messages=pings_forever()) as server:
        env = server.env()        # ANTHROPIC_BASE_URL and the weather URLs, at the server

A route is a function `(exchange) -> None` that reads `exchange.json` and writes whatever it
likes with `exchange.send(...)`, or `exchange.start(...)` and `exchange.write(...)` for a body
that never ends (`write` returns False once the client has gone). The server counts requests
and the connections the client closed while a body was still coming (`hung_up`), and every
route ends when the server stops. Bodies and event streams come from
`offline._messages_wire`, the encoders every fake in the project shares.
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from offline._messages_wire import (
    Json,
    message_body,
    sse_bytes,
    sse_events,
    text_block,
    tool_results,
    tool_use_block,
)

__all__ = [
    "Exchange",
    "HostileServer",
    "Route",
    "answer",
    "big_body",
    "deltas_forever",
    "echo_tool_results",
    "in_pieces",
    "never_answers",
    "pings_forever",
    "raw_json",
    "scripted",
    "slowly",
    "steadily",
    "tool_uses",
    "trickle",
    "whitespace_forever",
]

Route = Callable[["Exchange"], None]
TICK_S = 0.02  # how often a never-ending body writes again (and checks the server is up)


class Exchange:
    """One request and the means to answer it, as raw as a hostile server likes."""

    def __init__(self, handler: _Handler, body: bytes) -> None:
        self._handler = handler
        self.path = handler.path
        self.body = body
        self.server: HostileServer = handler.server.owner  # type: ignore[attr-defined]

    @property
    def json(self) -> Json:
        """The request body as JSON (the Messages API's request), or {}."""
        try:
            value = json.loads(self.body or b"{}")
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}

    @property
    def streaming(self) -> bool:
        """Whether the client asked for server-sent events."""
        return bool(self.json.get("stream"))

    def send(
        self,
        status: int,
        body: bytes,
        content_type: str = "application/json",
        headers: Sequence[tuple[str, str]] = (),
    ) -> None:
        """A whole answer, with its length (and any other `headers`)."""
        self.start(status, content_type, length=len(body), headers=headers)
        self.write(body)

    def start(
        self,
        status: int,
        content_type: str,
        *,
        length: int | None = None,
        headers: Sequence[tuple[str, str]] = (),
    ) -> None:
        """The status line and headers; without `length`, the body runs until the close."""
        out = self._handler
        out.send_response_only(status)
        given = {name.lower() for name, _ in headers}  # a recording's own Date and Server win
        if "server" not in given:
            out.send_header("Server", out.version_string())
        if "date" not in given:
            out.send_header("Date", out.date_time_string())
        out.send_header("Content-Type", content_type)
        for name, value in headers:
            out.send_header(name, value)
        if length is None:
            out.send_header("Connection", "close")
            out.close_connection = True
        else:
            out.send_header("Content-Length", str(length))
        out.end_headers()
        out.wfile.flush()

    def write(self, chunk: bytes) -> bool:
        """Send `chunk` now; False once the client has hung up (or the server is stopping)."""
        if self.server.stopping.is_set():
            return False
        try:
            self._handler.wfile.write(chunk)
            self._handler.wfile.flush()
        except OSError:
            self.server.count_hang_up()
            return False
        return True

    def wait_for_hang_up(self) -> None:
        """Say nothing at all until the client gives up on the connection."""
        sock = self._handler.connection
        while not self.server.stopping.is_set():
            readable, _, _ = select.select([sock], [], [], TICK_S)
            if readable and not _peek(sock):
                self.server.count_hang_up()
                return

    def forever(self, chunk: Callable[[int], bytes], every_s: float = TICK_S) -> None:
        """Write `chunk(n)` every `every_s` until the client hangs up or the server stops."""
        n = 0
        while self.write(chunk(n)):
            n += 1
            time.sleep(every_s)


def _peek(sock: socket.socket) -> bytes:
    try:
        return sock.recv(1, socket.MSG_PEEK)
    except OSError:
        return b""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        self._route(b"")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self._route(self.rfile.read(length))

    def _route(self, body: bytes) -> None:
        owner: HostileServer = self.server.owner  # type: ignore[attr-defined]
        exchange = Exchange(self, body)
        owner.record(exchange)
        owner.route_for(self.path)(exchange)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: a test's output is its assertions."""


class HostileServer:
    """A threaded HTTP server on 127.0.0.1 whose routes misbehave as told.

    `messages` answers `POST /v1/messages`; `weather` maps a path prefix (`/geocoding`,
    `/forecast`, `/wttr`) to its route. Anything else is a 404.
    """

    def __init__(
        self, messages: Route | None = None, weather: Mapping[str, Route] | None = None
    ) -> None:
        self.messages = messages or answer("Hello.")
        self.weather = dict(weather or {})
        self.stopping = threading.Event()
        self.requests: list[tuple[str, Json]] = []
        self.hung_up = 0
        self._lock = threading.Lock()
        self._hang_ups = threading.Condition(self._lock)
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._http.daemon_threads = True
        self._http.owner = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def base(self) -> str:
        """`http://127.0.0.1:PORT`."""
        return f"http://127.0.0.1:{self._http.server_address[1]}"

    def env(self, **extra: str) -> dict[str, str]:
        """An environment pointing the agent's Claude and weather URLs here."""
        return {
            "ANTHROPIC_API_KEY": "sk-ant-api03-HOSTILE-0123456789abcdefghij",
            "ANTHROPIC_BASE_URL": self.base,
            "OPEN_METEO_GEOCODING_URL": f"{self.base}/geocoding/v1/search",
            "OPEN_METEO_FORECAST_URL": f"{self.base}/forecast/v1/forecast",
            "WTTR_URL": f"{self.base}/wttr",
            **extra,
        }

    def _serve(self) -> None:
        """Answer until stopped, looking every tick (stopping waits for the next look)."""
        self._http.serve_forever(poll_interval=TICK_S)

    def route_for(self, path: str) -> Route:
        if path.startswith("/v1/messages"):
            return self.messages
        for prefix, route in self.weather.items():
            if path.startswith(prefix):
                return route
        return lambda exchange: exchange.send(404, b'{"error": "no such route"}')

    def record(self, exchange: Exchange) -> None:
        with self._lock:
            self.requests.append((exchange.path, exchange.json))

    def count_hang_up(self) -> None:
        with self._lock:
            self.hung_up += 1
            self._hang_ups.notify_all()

    def saw_hang_ups(self, count: int, within_s: float = 10.0) -> bool:
        """Whether `count` connections were dropped by the client (waiting for the server's
        threads to notice: a write after the close is what tells them)."""
        with self._lock:
            return self._hang_ups.wait_for(lambda: self.hung_up >= count, within_s)

    def model_requests(self) -> list[Json]:
        """The Messages API requests seen, in order."""
        with self._lock:
            return [body for path, body in self.requests if path.startswith("/v1/messages")]

    def paths(self, prefix: str) -> list[str]:
        """The paths requested that start with `prefix`."""
        with self._lock:
            return [path for path, _ in self.requests if path.startswith(prefix)]

    def __enter__(self) -> HostileServer:
        self._thread.start()
        return self

    def __exit__(
        self, _t: type[BaseException] | None, _e: BaseException | None, _tb: TracebackType | None
    ) -> None:
        self.stopping.set()
        self._http.shutdown()
        self._http.server_close()
        self._thread.join(5)

    async def __aenter__(self) -> HostileServer:
        return self.__enter__()

    async def __aexit__(
        self, _t: type[BaseException] | None, _e: BaseException | None, _tb: TracebackType | None
    ) -> None:
        self.__exit__(_t, _e, _tb)


# --- Messages API routes -------------------------------------------------------------------


def _reply(exchange: Exchange, message: Json) -> None:
    """`message` as the client asked for it: JSON, or an event stream."""
    if exchange.streaming:
        exchange.send(200, sse_bytes(sse_events(message)), "text/event-stream")
    else:
        exchange.send(200, json.dumps(message).encode())


def answer(text: str) -> Route:
    """A well-behaved model that says `text` (escape sequences and all)."""
    return lambda exchange: _reply(exchange, message_body(text_block(text)))


def scripted(*messages: Json) -> Route:
    """Each request gets the next message; the last one is repeated."""
    pending = list(messages)
    lock = threading.Lock()

    def route(exchange: Exchange) -> None:
        with lock:
            message = pending.pop(0) if len(pending) > 1 else pending[0]
        _reply(exchange, message)

    return route


def echo_tool_results(first: Json) -> Route:
    """`first` (say, a tool_use), then each later request answered with the text of the
    tool results it carries: what the model was told is what the person reads."""

    def route(exchange: Exchange) -> None:
        messages = exchange.json.get("messages", [])
        results = tool_results(messages[-1]) if messages else []
        if not results:
            _reply(exchange, first)
            return
        said = " | ".join(str(result.get("content")) for result in results)
        _reply(exchange, message_body(text_block(said)))

    return route


def tool_uses(
    count: int, name: str = "calculate", *, ids: Callable[[int], str] | None = None
) -> Json:
    """A reply asking for `count` tool calls at once (ids from `ids`, default unique)."""
    make_id = ids or (lambda n: f"toolu_{n:04d}")
    blocks = [tool_use_block(make_id(n), name, {"expression": f"{n} + 1"}) for n in range(count)]
    return message_body(*blocks, stop_reason="tool_use")


def trickle(every_s: float = TICK_S) -> Route:
    """200 with a JSON body that never completes: a byte every `every_s`, forever."""

    def route(exchange: Exchange) -> None:
        exchange.start(200, "application/json")
        exchange.write(b'{"id": "msg_trickle", "type": "message", "content": [')
        exchange.forever(lambda _n: b" ", every_s)

    return route


def pings_forever(every_s: float = TICK_S) -> Route:
    """A stream that opens a message, then sends `ping` events, and never ends it."""

    def route(exchange: Exchange) -> None:
        exchange.start(200, "text/event-stream")
        opening = next(iter(sse_events(message_body(text_block("")))))
        exchange.write(sse_bytes([opening]))
        ping = sse_bytes([("ping", {"type": "ping"})])
        exchange.forever(lambda _n: ping, every_s)

    return route


def deltas_forever(every_s: float = TICK_S) -> Route:
    """A stream whose text block never ends: one delta after another."""

    def route(exchange: Exchange) -> None:
        exchange.start(200, "text/event-stream")
        events = list(sse_events(message_body(text_block("and on "))))
        exchange.write(sse_bytes(events[:2]))  # message_start, content_block_start
        _, delta = events[2]
        exchange.forever(lambda _n: sse_bytes([("content_block_delta", delta)]), every_s)

    return route


def whitespace_forever(said: str = "", every_s: float = TICK_S) -> Route:
    """A stream that says `said` (perhaps nothing), then sends deltas of spaces and newlines,
    one after another, and never ends: events keep coming, content does not."""

    def route(exchange: Exchange) -> None:
        exchange.start(200, "text/event-stream")
        opening, block_start, delta, *_ = sse_events(message_body(text_block(said)))
        exchange.write(sse_bytes([opening, block_start, *([delta] if said else [])]))
        blank = {**delta[1], "delta": {"type": "text_delta", "text": " \n"}}
        exchange.forever(lambda _n: sse_bytes([("content_block_delta", blank)]), every_s)

    return route


def _deltas(pieces: list[str]) -> list[bytes]:
    """A whole stream whose text comes in `pieces`, a delta each: each event framed."""
    opening, block_start, delta, *closing = sse_events(message_body(text_block("")))
    deltas = [
        ("content_block_delta", {**delta[1], "delta": {"type": "text_delta", "text": piece}})
        for piece in pieces
    ]
    return [sse_bytes([event]) for event in (opening, block_start, *deltas, *closing)]


def in_pieces(text: str, size: int = 1) -> Route:
    """A well-behaved model that streams `text` `size` characters a delta (JSON when the
    client did not ask for a stream)."""

    def route(exchange: Exchange) -> None:
        if not exchange.streaming:
            _reply(exchange, message_body(text_block(text)))
            return
        events = _deltas([text[n : n + size] for n in range(0, len(text), size)])
        exchange.start(200, "text/event-stream", length=sum(map(len, events)))
        for event in events:
            if not exchange.write(event):
                return

    return route


def steadily(words: int, every_s: float) -> Route:
    """A live answer, slow but steady: `words` words ("w0 w1 …"), one every `every_s`, then
    the end of the message; longer in all than any gap in it."""

    def route(exchange: Exchange) -> None:
        events = _deltas([f"w{n} " for n in range(words)])
        exchange.start(200, "text/event-stream")
        exchange.write(b"".join(events[:2]))  # message_start, content_block_start
        for event in events[2:-3]:  # one word a delta
            time.sleep(every_s)
            if not exchange.write(event):
                return
        exchange.write(b"".join(events[-3:]))  # content_block_stop, message_delta, _stop

    return route


def never_answers() -> Route:
    """Accepts the request, then says nothing at all."""
    return lambda exchange: exchange.wait_for_hang_up()


def big_body(megabytes: int) -> Route:
    """A 200 message whose one text block is `megabytes` MB long, sent as fast as it goes."""

    def route(exchange: Exchange) -> None:
        head = json.dumps(message_body(text_block("@@")))
        before, after = head.split("@@")
        size = megabytes * 1024 * 1024
        exchange.start(200, "application/json", length=len(before) + size + len(after))
        if not exchange.write(before.encode()):
            return
        chunk = b"x" * 65536
        for _ in range(size // len(chunk)):
            if not exchange.write(chunk):
                return
        exchange.write(after.encode())

    return route


def slowly(route: Route, delay_s: float) -> Route:
    """`route`, after `delay_s` of silence (an upstream under load)."""

    def slow(exchange: Exchange) -> None:
        time.sleep(delay_s)
        route(exchange)

    return slow


def raw_json(body: bytes, status: int = 200) -> Route:
    """Exactly these bytes, labelled JSON (for the weather routes' hostile shapes)."""
    return lambda exchange: exchange.send(status, body)
