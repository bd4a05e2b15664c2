"""Turning tracing on: an OpenTelemetry SDK tracer provider and where its spans go.

    agent ask --otel console "Weather in Paris?"       # each turn's span tree on stderr
    agent ask --otel "Weather in Paris?"               # OTLP/HTTP to the standard endpoint
    OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 agent chat

Off unless asked for: `--otel [console|otlp]`, or OTEL_EXPORTER_OTLP_ENDPOINT (or
OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) in the environment; OTEL_SDK_DISABLED=true keeps it off
unless `--otel` is given. Nothing of OpenTelemetry is imported until then, and it needs the
`otel` extra (`pip install 'failsafe-agent[otel]'`). Sending OTLP, the endpoint variables are
checked first, as every URL setting is: one that is not an http(s) URL, or holds a space or a
control character, is a usage error naming it. The provider is the process's own, handed to
`resilience.tracing` rather than set as OpenTelemetry's global one, so an application
embedding the agent keeps its own. The resource is the standard one:
`service.name` from OTEL_SERVICE_NAME (then OTEL_RESOURCE_ATTRIBUTES), else
"failsafe-agent". The OTLP exporter reads its other settings (headers, compression,
certificates) from the standard OTEL_EXPORTER_OTLP_* variables itself. Its timeout, unless
OTEL_EXPORTER_OTLP_TIMEOUT (or _TRACES_TIMEOUT) says otherwise, is 3 s rather than the SDK's
10 s: the last spans are sent as the command exits, and a collector that cannot be reached
should not hold an answered `agent ask` for long.

AGENT_OTEL_CONTENT=1 also records the question, the answer and tool inputs and outputs
(off by default: they are the person's and the model's text).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import structlog

from agent import AGENT_NAME
from resilience import tracing
from tools import check_http_url

if TYPE_CHECKING:
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider

__all__ = [
    "ENDPOINTS",
    "MODES",
    "Mode",
    "Session",
    "TracingUnavailable",
    "check_endpoints",
    "instrument",
    "route_sdk_logs",
    "start",
    "wanted",
]

Mode = Literal["console", "otlp"]
MODES: tuple[Mode, ...] = ("console", "otlp")
SCOPE = "failsafe-agent"  # the instrumentation scope every span is recorded under
EXPORT_TIMEOUT_S = 3.0  # one export, retries included, unless the environment says otherwise
_TRUE = {"1", "true", "yes", "on"}
_MISSING = (
    "tracing needs the otel extra (pip install 'failsafe-agent[otel]'): "
    "OpenTelemetry is not installed"
)


class TracingUnavailable(Exception):
    """Tracing was asked for, and the OpenTelemetry SDK is not installed."""

    def __init__(self) -> None:
        super().__init__(_MISSING)


def wanted(option: str | None, env: Mapping[str, str]) -> Mode | None:
    """The mode asked for: `--otel`'s, else "otlp" when an OTLP endpoint is set."""
    if option in MODES:
        return option
    disabled = env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true"
    return "otlp" if not disabled and _endpoint(env) is not None else None


@dataclass(slots=True)
class Session:
    """Tracing while it lasts; `close` flushes what is left and turns it off."""

    provider: TracerProvider

    def close(self) -> None:
        """Turn tracing off, then flush and shut the provider down."""
        tracing.disable()
        self.provider.shutdown()


def start(
    option: str | None,
    env: Mapping[str, str],
    *,
    write: Callable[[str], object],
) -> Session | None:
    """Tracing as `option` and `env` ask (None: not asked); console trees go to `write`.

    Asked for by `--otel` without the SDK installed: `TracingUnavailable`. Asked for only by
    the environment: a one-line notice through `write`, and the agent runs untraced. Sending
    OTLP, an endpoint variable that is set but is no http(s) URL, or that holds a space or a
    control character, is `errors.BadSetting` naming it, before anything is imported.
    """
    mode = wanted(option, env)
    if mode is None:
        return None
    if mode == "otlp":
        check_endpoints(env)
    try:
        provider = _provider(mode, env, write)
    except ImportError:
        if option is not None:
            raise TracingUnavailable() from None
        write(f"{_MISSING}; running without traces.\n")
        return None
    content = env.get("AGENT_OTEL_CONTENT", "").strip().lower() in _TRUE
    instrument(provider, content=content)
    return Session(provider)


def instrument(provider: TracerProvider, *, content: bool = False) -> None:
    """Record the agent's spans with `provider` (tests hand in one with an in-memory
    exporter); `content` also records the person's and the model's text."""
    tracing.enable(provider.get_tracer(SCOPE, _version()), content=content)


def _provider(mode: Mode, env: Mapping[str, str], write: Callable[[str], object]) -> TracerProvider:
    from opentelemetry.sdk.trace import TracerProvider

    provider = TracerProvider(resource=_resource(env))
    if mode == "console":
        from agent.span_tree import TreePrinter

        provider.add_span_processor(TreePrinter(write))
    else:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        exporter = OTLPSpanExporter(endpoint=_endpoint(env), timeout=_timeout(env))
        provider.add_span_processor(BatchSpanProcessor(exporter))
        route_sdk_logs()
    return provider


class _ToOurLog(logging.Handler):
    """The OpenTelemetry SDK's own messages (a collector that cannot be reached: "Transient
    error … retrying") as one of our log events, not raw text across the person's prompt."""

    def emit(self, record: logging.LogRecord) -> None:
        from errors import redact

        message = redact(record.getMessage())[:600]
        structlog.get_logger("agent").warning("otel.sdk_message", logger=record.name, note=message)


def route_sdk_logs() -> None:
    """Send the `opentelemetry` loggers' records to our log (the file, `--verbose` stderr)."""
    sdk = logging.getLogger("opentelemetry")
    if not any(isinstance(handler, _ToOurLog) for handler in sdk.handlers):
        sdk.addHandler(_ToOurLog())
    sdk.propagate = False


def _resource(env: Mapping[str, str]) -> Resource:
    """The standard resource (OTEL_RESOURCE_ATTRIBUTES honoured), named OTEL_SERVICE_NAME or,
    failing any name, "failsafe-agent"."""
    from opentelemetry.sdk.resources import SERVICE_NAME, SERVICE_VERSION, Resource

    resource = Resource.create({SERVICE_VERSION: _version()})
    named = env.get("OTEL_SERVICE_NAME", "").strip()
    unnamed = str(resource.attributes.get(SERVICE_NAME, "")).startswith("unknown_service")
    if named or unnamed:
        resource = resource.merge(Resource({SERVICE_NAME: named or AGENT_NAME}))
    return resource


ENDPOINTS = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")


def check_endpoints(env: Mapping[str, str]) -> None:
    """Refuse (`errors.BadSetting`, the variable named, its value never echoed) an OTLP
    endpoint variable that is set but is no http(s) URL, or holds a space or a control
    character once the whitespace around it is stripped."""
    for name in ENDPOINTS:
        if url := env.get(name, "").strip():
            check_http_url(name, url)


def _endpoint(env: Mapping[str, str]) -> str | None:
    """Where OTLP/HTTP spans go, from `env` (None: the exporter's default)."""
    if traces := env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").strip():
        return traces
    if base := env.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip():
        return base.rstrip("/") + "/v1/traces"
    return None


def _timeout(env: Mapping[str, str]) -> float | None:
    """None (the exporter reads its variables) when one is set, else `EXPORT_TIMEOUT_S`."""
    names = ("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT")
    return None if any(env.get(name, "").strip() for name in names) else EXPORT_TIMEOUT_S


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("failsafe-agent")
    except PackageNotFoundError:
        return "0"
