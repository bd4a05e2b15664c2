"""A loopback HTTP server that plays the Messages API, Open-Meteo and wttr.in, with scripted faults.

Routes (real TCP on 127.0.0.1, HTTP/1.1 keep-alive)::

    POST /v1/messages            the scripted model (JSON, or SSE when "stream": true)
    GET  /geocoding/v1/search    Open-Meteo geocoding
    GET  /forecast/v1/forecast   Open-Meteo forecast (`current=…`, `current_weather`, `hourly`)
    GET  /wttr/{city}            wttr.in `?format=j1`
    POST /_bench/plan            apply a `Plan` (resets the counters)
    GET  /_bench/report          the `Report` since the last plan

Run as `python -m benchmarks.fault_server`: it prints `{"port": N}` and serves until stdin closes,
so it never outlives the bench that started it.
"""

from __future__ import annotations

import json
import math
import random
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from benchmarks import scripted_model, weather_shapes
from benchmarks.plan import HANG_S, RANDOM_FAULTS, Fault, Plan, Report, Route

__all__ = ["FaultServer", "main"]

Json = dict[str, Any]


class _State:
    """The plan in force and what has been seen under it; every method holds the lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.apply(Plan())

    def apply(self, plan: Plan) -> None:
        with self._lock:
            self.plan = plan
            self.applied_at = time.monotonic()
            self.report = Report()
            self._left = [f.times for f in plan.faults]
            self._hits: Counter[tuple[str, str]] = Counter()
            self._blocked: dict[tuple[str, str], tuple[float, Fault]] = {}

    def snapshot(self) -> Report:
        with self._lock:
            return self.report.model_copy(deep=True)

    def fault_for(self, route: Route, key: str) -> Fault | None:
        """The fault this request meets, if any, counting it."""
        with self._lock:
            self.report.requests[route] = self.report.requests.get(route, 0) + 1
            fault = self._blocking(route, key) or self._scripted(route) or self._random(route, key)
            if fault is not None:
                self.report.faults_injected += 1
                if fault.retry_after and (route, key) not in self._blocked:
                    self._blocked[route, key] = (time.monotonic() + fault.retry_after, fault)
            return fault

    def model_call(self, body: Json) -> int:
        """Record one request to the model; returns its number."""
        raw = json.dumps(body, ensure_ascii=False)
        with self._lock:
            self.report.model_calls += 1
            self.report.secret_hits += sum(raw.count(s) for s in self.plan.secrets if s)
            self.report.last_questions = [
                scripted_model.content_text(m.get("content", ""))
                for m in body.get("messages", [])
                if m.get("role") == "user" and not scripted_model.tool_results(m)
            ]
            for message in body.get("messages", []):
                for result in scripted_model.tool_results(message):
                    text = scripted_model.content_text(result.get("content", ""))
                    self.report.tool_results.setdefault(str(result.get("tool_use_id")), text)
            return self.report.model_calls

    def protocol_error(self, error: str) -> None:
        with self._lock:
            self.report.protocol_errors.append(error)

    def _blocking(self, route: Route, key: str) -> Fault | None:
        until, fault = self._blocked.get((route, key), (0.0, None))
        left = until - time.monotonic()
        if fault is None or left <= 0:
            self._blocked.pop((route, key), None)
            return None
        return fault.model_copy(update={"retry_after": max(1, math.ceil(left))})

    def _scripted(self, route: Route) -> Fault | None:
        since = time.monotonic() - self.applied_at
        for index, fault in enumerate(self.plan.faults):
            left = self._left[index]
            over = fault.for_s is not None and since >= fault.for_s
            if fault.route == route and left != 0 and not over:
                self._left[index] = None if left is None else left - 1
                return fault
        return None

    def _random(self, route: Route, key: str) -> Fault | None:
        number = self._hits[route, key]
        self._hits[route, key] += 1
        rng = random.Random(f"{self.plan.seed}:{route}:{key}:{number}")
        draw = rng.random()
        for share in self.plan.mix:  # the mix: each share of the requests, one draw
            if share.fault.route == route:
                if draw < share.rate:
                    return share.fault
                draw -= share.rate
        if route not in self.plan.random_routes:
            return None
        return rng.choice(RANDOM_FAULTS[route]) if draw < self.plan.random_rate else None


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: FaultServer

    def do_GET(self) -> None:
        self._dispatch()

    def do_POST(self) -> None:
        self._dispatch()

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the bench reports what matters."""

    def _dispatch(self) -> None:
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        body = self._body()
        if url.path == "/v1/messages":
            self._messages(json.loads(body or b"{}"))
        elif url.path.startswith("/_bench/"):
            self._control(url.path, body)
        elif (route := _weather_route(url.path)) is not None:
            self._weather(route, url.path, query)
        else:
            self._send(404, b"no such route", "text/plain")

    def _control(self, path: str, body: bytes) -> None:
        if path == "/_bench/plan":
            self.server.state.apply(Plan.model_validate_json(body))
            self._json(200, {"ok": True})
        else:
            self._send(200, self.server.state.snapshot().model_dump_json().encode())

    def _messages(self, body: Json) -> None:
        state = self.server.state
        number = state.model_call(body)
        messages = body.get("messages", [])
        error = scripted_model.protocol_error(messages)
        if error is not None:
            state.protocol_error(error)
            return self._json(400, scripted_model.error_for(400, error))
        fault = state.fault_for("messages", scripted_model.question_of(messages))
        self._pause("messages")
        message = scripted_model.reply(body, number)
        if fault is not None:
            return self._model_fault(fault, message, bool(body.get("stream")))
        if body.get("stream"):
            return self._sse(scripted_model.sse_events(message))
        return self._json(200, message, {"request-id": f"req_bench_{number:06d}"})

    def _weather(self, route: Route, path: str, query: dict[str, str]) -> None:
        key = weather_shapes.request_key(route, path, query)
        fault = self.server.state.fault_for(route, key)
        self._pause(route)
        if fault is not None:
            return self._weather_fault(route, fault)
        status, payload = weather_shapes.answer(route, key, query)
        if isinstance(payload, str):
            return self._send(status, payload.encode(), "text/plain; charset=utf-8")
        return self._json(status, payload)

    def _model_fault(self, fault: Fault, message: Json, stream: bool) -> None:
        if fault.kind == "drop":
            return self._drop()
        if fault.kind == "hang":
            time.sleep(HANG_S)
            return self._drop()
        if fault.kind == "stream_error" and stream:
            return self._sse(scripted_model.sse_stream_error(message))
        status = 529 if fault.kind == "stream_error" else fault.status
        body = scripted_model.error_for(status, "Overloaded" if status == 529 else "Scripted fault")
        self._json(status, body, _retry_headers(fault))

    def _weather_fault(self, route: Route, fault: Fault) -> None:
        if fault.kind == "drop":
            return self._drop()
        if fault.kind == "hang":  # no answer until long after any client gave up
            time.sleep(HANG_S)
            return self._drop()
        if fault.kind == "garbage":
            return self._send(200, weather_shapes.GARBAGE.encode(), "text/html")
        status, payload = weather_shapes.failure(route, fault.status)
        headers = _retry_headers(fault)
        if isinstance(payload, str):
            return self._send(status, payload.encode(), "text/plain; charset=utf-8", headers)
        return self._json(status, payload, headers)

    def _pause(self, route: Route) -> None:
        time.sleep(self.server.state.plan.latency.get(route, 0.0))

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            return b"".join(iter(self._chunk, b""))
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _chunk(self) -> bytes:
        size = int(self.rfile.readline().split(b";")[0], 16)
        data = self.rfile.read(size) if size else b""
        self.rfile.readline()
        return data

    def _drop(self) -> None:
        self.close_connection = True

    def _sse(self, events: Iterable[tuple[str, Json]]) -> None:
        text = "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events)
        self._send(200, text.encode(), "text/event-stream")

    def _json(self, status: int, payload: Json, headers: dict[str, str] | None = None) -> None:
        body = json.dumps(payload, ensure_ascii=False).encode()
        self._send(status, body, "application/json", headers)

    def _send(
        self,
        status: int,
        body: bytes,
        content_type: str = "application/json",
        headers: dict[str, str] | None = None,
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)


class FaultServer(ThreadingHTTPServer):
    """The server; `state` holds the plan in force and the report."""

    daemon_threads = True
    request_queue_size = 256

    def __init__(self, port: int = 0) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.state = _State()

    @property
    def port(self) -> int:
        """The port it listens on."""
        return int(self.server_address[1])

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up is ordinary here; anything else is printed as usual."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def _weather_route(path: str) -> Route | None:
    if path == "/geocoding/v1/search":
        return "geocoding"
    if path == "/forecast/v1/forecast":
        return "forecast"
    return "wttr" if path.startswith("/wttr/") and unquote(path[6:]) else None


def _retry_headers(fault: Fault) -> dict[str, str]:
    return {"Retry-After": str(fault.retry_after)} if fault.retry_after else {}


def main() -> None:
    """Serve on a free port until stdin closes."""
    server = FaultServer()
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    sys.stdout.write(json.dumps({"port": server.port}) + "\n")
    sys.stdout.flush()
    sys.stdin.read()
    server.shutdown()
    server.server_close()


if __name__ == "__main__":
    main()
