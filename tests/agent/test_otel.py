"""Turning tracing on: the CLI's `--otel`, the environment, the real OTLP/HTTP exporter, and
nothing of OpenTelemetry loaded while it is off."""

from __future__ import annotations

import gzip
import importlib.util
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from structlog.testing import capture_logs

from agent import otel
from agent.cli import EXIT_OK, EXIT_USAGE
from agent.settings import Settings
from offline import ask
from resilience import tracing
from tests.cli_run import run_cli

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "What's the weather in Paris?"


run = run_cli


def test_off_unless_asked_for() -> None:
    assert otel.wanted(None, {}) is None
    assert otel.wanted("console", {}) == "console"
    assert otel.wanted("otlp", {}) == "otlp"
    assert otel.wanted(None, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}) == "otlp"
    assert otel.wanted(None, {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://h/v1/t"}) == "otlp"
    disabled = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://h", "OTEL_SDK_DISABLED": "true"}
    assert otel.wanted(None, disabled) is None
    assert otel.wanted("console", disabled) == "console"  # the flag says so explicitly


def test_ask_with_otel_console_prints_the_turns_span_tree_on_stderr() -> None:
    """The answer on stdout as ever; the tree (with durations) on stderr; tracing off after."""
    code, out, err = run(["ask", "--otel", "console", QUESTION])
    assert code == EXIT_OK
    assert out.startswith("In Paris")
    assert "invoke_agent failsafe-agent  answered=true" in err
    assert "├── execute_tool get_weather" in err
    assert " ms" in err
    assert "invoke_agent" not in out
    assert not tracing.enabled()


def test_otel_without_a_mode_means_otlp(monkeypatch: pytest.MonkeyPatch) -> None:
    """`--otel` alone is OTLP, wherever it stands: before the question it does not take the
    question for its mode."""
    started: list[str | None] = []
    monkeypatch.setattr(otel, "start", lambda option, env, write: started.append(option))
    assert run(["ask", QUESTION, "--otel"])[0] == EXIT_OK
    code, out, _ = run(["ask", "--otel", QUESTION])
    assert (code, out.startswith("In Paris")) == (EXIT_OK, True)
    assert run(["ask", "--otel", "--offline", QUESTION])[0] == EXIT_OK
    assert run(["chat", "--otel", "console"])[0] == EXIT_OK
    assert run(["ask", "--otel=console", QUESTION])[0] == EXIT_OK
    assert run(["ask", QUESTION])[0] == EXIT_OK
    assert started == ["otlp", "otlp", "otlp", "console", "console", None]


def test_without_the_sdk_otel_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """`--otel` with the extra not installed: one sentence saying how, exit 2."""
    monkeypatch.setitem(sys.modules, "opentelemetry.sdk.trace", None)  # import fails
    code, out, err = run(["ask", "--otel", "console", QUESTION])
    assert (code, out) == (EXIT_USAGE, "")
    assert "pip install 'failsafe-agent[otel]'" in err
    assert "Traceback" not in err


def test_without_the_sdk_an_endpoint_alone_is_a_notice(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the environment asked: the agent answers untraced, and says why once."""
    monkeypatch.setitem(sys.modules, "opentelemetry.sdk.trace", None)
    code, out, err = run(["ask", QUESTION], {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"})
    assert code == EXIT_OK
    assert out.startswith("In Paris")
    assert "running without traces" in err


def test_the_demo_shows_each_scenarios_span_tree_with_otel_console(
    capsys: pytest.CaptureFixture[str],
) -> None:
    spec = importlib.util.spec_from_file_location("demo", ROOT / "scripts" / "demo.py")
    assert spec is not None
    assert spec.loader is not None
    demo = importlib.util.module_from_spec(spec)
    sys.modules["demo"] = demo  # dataclasses look their module up here
    spec.loader.exec_module(demo)
    argv = ["--offline", "--scenario", "fallback", "--scenario", "rate_limit", "--otel", "console"]
    assert demo.main(argv, env={}) == 0
    out = capsys.readouterr().out
    assert out.count("Span tree:") == 2
    assert "├── • fallback  from=open-meteo source=wttr.in" in out
    assert "then=retry_after wait_s=2" in out
    assert not tracing.enabled()


def test_nothing_of_opentelemetry_is_imported_with_tracing_off() -> None:
    """A whole `agent ask` in a fresh interpreter: no opentelemetry module loaded; with
    `--otel console`, it is (so the check can fail)."""
    code = (
        "import sys\n"
        "from agent.cli import main\n"
        "rc = main(sys.argv[1:], env={})\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] == 'opentelemetry')\n"
        "print(rc, len(loaded), loaded[:3])\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    args = [sys.executable, "-c", code, "ask", "--offline", QUESTION]
    off = subprocess.run(  # noqa: S603 - a fixed argv: our own interpreter
        args, capture_output=True, text=True, cwd=ROOT, env=env, check=True
    )
    assert off.stdout.splitlines()[-1] == "0 0 []"
    on = subprocess.run(  # noqa: S603 - a fixed argv: our own interpreter
        [*args, "--otel", "console"], capture_output=True, text=True, cwd=ROOT, env=env, check=True
    )
    rc, loaded, *_ = on.stdout.splitlines()[-1].split()
    assert (rc, loaded != "0") == ("0", True)


class _Collector(BaseHTTPRequestHandler):
    """An OTLP/HTTP trace receiver: keeps each request's path, headers and body."""

    received: list[tuple[str, dict[str, str], bytes]]

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        headers = {key.lower(): value for key, value in self.headers.items()}
        self.received.append((self.path, headers, body))
        reply = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, format: str, *args: object) -> None:
        return None


@pytest.fixture
def collector() -> Iterator[tuple[str, list[tuple[str, dict[str, str], bytes]]]]:
    received: list[tuple[str, dict[str, str], bytes]] = []
    handler = type("Handler", (_Collector,), {"received": received})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", received
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def _decoded(body: bytes, headers: dict[str, str]) -> ExportTraceServiceRequest:
    if headers.get("content-encoding") == "gzip":
        body = gzip.decompress(body)
    return ExportTraceServiceRequest.FromString(body)


@pytest.mark.loopback
async def test_spans_reach_an_otlp_http_collector(
    collector: tuple[str, list[tuple[str, dict[str, str], bytes]]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The official OTLP/HTTP exporter, to a receiver on 127.0.0.1 started here: protobuf at
    /v1/traces, the resource named by OTEL_SERVICE_NAME, the turn's spans and their tree."""
    for name in ("OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES"):
        monkeypatch.delenv(name, raising=False)
    url, received = collector
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": url, "OTEL_SERVICE_NAME": "weather-desk"}
    session = otel.start(None, env, write=lambda text: None)
    assert session is not None
    try:
        answer = await ask(QUESTION, Settings())
    finally:
        session.close()  # flushes the batch
    assert answer.answered
    assert received, "nothing arrived"
    path, headers, _ = received[0]
    assert path == "/v1/traces"
    assert headers["content-type"] == "application/x-protobuf"
    spans = []
    for _, headers, body in received:
        for resource_spans in _decoded(body, headers).resource_spans:
            resource = {a.key: a.value.string_value for a in resource_spans.resource.attributes}
            assert resource["service.name"] == "weather-desk"
            assert resource["telemetry.sdk.name"] == "opentelemetry"
            for scope_spans in resource_spans.scope_spans:
                assert scope_spans.scope.name == "failsafe-agent"
                spans += list(scope_spans.spans)
    by_id = {span.span_id: span for span in spans}
    names = sorted(span.name for span in spans)
    assert names == sorted(
        [
            "invoke_agent failsafe-agent",
            "chat offline-scripted",
            "attempt offline-scripted",
            "execute_tool get_weather",
            "attempt open-meteo",
            "chat offline-scripted",
            "attempt offline-scripted",
        ]
    )
    [attempt] = [s for s in spans if s.name == "attempt open-meteo"]
    tool = by_id[attempt.parent_span_id]
    turn = by_id[tool.parent_span_id]
    assert (tool.name, turn.name, turn.parent_span_id) == (
        "execute_tool get_weather",
        "invoke_agent failsafe-agent",
        b"",
    )
    attributes = {a.key: a.value for a in tool.attributes}
    assert attributes["gen_ai.tool.name"].string_value == "get_weather"
    assert len({span.trace_id for span in spans}) == 1
    assert b"Paris" not in b"".join(body for _, _, body in received)


def _console_resource() -> Any:
    """The resource attributes a console tracing session starts with."""
    session = otel.start("console", {}, write=lambda text: None)
    assert session is not None
    try:
        return session.provider.resource.attributes
    finally:
        session.close()


def test_the_service_is_named_failsafe_agent_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES"):
        monkeypatch.delenv(name, raising=False)
    resource = _console_resource()
    assert resource["service.name"] == "failsafe-agent"
    assert resource["service.version"]


def test_the_service_name_may_come_from_resource_attributes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OTEL_SERVICE_NAME", raising=False)
    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", "service.name=from-attributes,team=weather")
    resource = _console_resource()
    assert (resource["service.name"], resource["team"]) == ("from-attributes", "weather")


def test_the_endpoint_and_the_export_timeout_come_from_the_environment() -> None:
    assert otel._endpoint({}) is None
    assert otel._endpoint({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318/"}) == (
        "http://c:4318/v1/traces"
    )
    traces = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "x"}
    assert otel._endpoint(traces) == "x"
    assert otel._timeout({}) == otel.EXPORT_TIMEOUT_S
    assert otel._timeout({"OTEL_EXPORTER_OTLP_TIMEOUT": "10000"}) is None


# The exporter's own message and logger: opentelemetry-exporter-otlp-proto-http 1.45.2,
# opentelemetry/exporter/otlp/common/http.py (`_logger.warning("Transient error %s …")`); the
# reason as a live run printed it with nothing listening on localhost:4318.
SDK_LOGGER = "opentelemetry.exporter.otlp.common.http"
SDK_RETRY = "Transient error %s encountered while exporting %s batch, retrying in %.2fs."
NO_COLLECTOR = (
    "HTTPConnectionPool(host='localhost', port=4318): Max retries exceeded with url: /v1/traces "
    "(Caused by NewConnectionError(\"HTTPConnection(host='localhost', port=4318): Failed to "
    'establish a new connection: [Errno 111] Connection refused"))'
)


def test_the_sdks_own_messages_go_to_our_log_not_the_screen(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A collector that cannot be reached: the SDK's retry messages become one log event each."""
    otel.route_sdk_logs()
    with capture_logs() as logs:
        logging.getLogger(SDK_LOGGER).warning(SDK_RETRY, NO_COLLECTOR, "span", 1.02)
    assert [e["event"] for e in logs] == ["otel.sdk_message"]
    assert "retrying in 1.02s" in logs[0]["note"]
    assert capsys.readouterr().err == ""
