"""Finding 9 of issue 19: URL settings with line breaks, controls or spaces.

Before: an ANTHROPIC_BASE_URL with CR/LF passed the start-up check (`urlsplit` drops them),
then every question failed as "a problem in this app" (exit 1); a value with spaces was taken
as it was, and so were OTLP endpoints. Now every URL variable — ANTHROPIC_BASE_URL, the
weather endpoints, OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_EXPORTER_OTLP_TRACES_ENDPOINT — that
holds a space or a control character once the whitespace around it is stripped is refused at
start-up: exit 2, one plain line naming the variable, the value never echoed, nothing asked.
The finding itself runs in child processes; its variations run the same `main` in process.
"""

from __future__ import annotations

import pytest

from agent.cli import EXIT_OK, EXIT_USAGE
from benchmarks.hostile_server import HostileServer, answer
from tests.hostile.agents import cli, run_agent

# Inside a URL: what urlsplit drops or keeps, none of which belongs there unescaped.
INSIDE = {
    "CR LF": "\r\n",
    "LF": "\n",
    "tab": "\t",
    "space": " ",
    "ESC": "\x1b",
    "C1 NEL": "\x85",
    "no-break space": "\xa0",
    "RLO": "\u202e",
    "zero-width space": "\u200b",
}
URL_VARIABLES = [
    "ANTHROPIC_BASE_URL",
    "OPEN_METEO_GEOCODING_URL",
    "OPEN_METEO_FORECAST_URL",
    "WTTR_URL",
]
OTLP_VARIABLES = ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]
REFUSED = "must be an http(s) URL without spaces or control characters"


def _spoiled(url: str, inside: str) -> str:
    """`url` with `inside` in its path, where a header or a second request could be smuggled."""
    return f"{url}/v1{inside}X-Injected: yes"


def test_an_anthropic_base_url_with_a_line_break_exits_2_naming_it() -> None:
    """`agent ask` in a child process, ANTHROPIC_BASE_URL with CR LF in it: exit 2, one line
    naming the variable and not repeating the value, and the server is never asked."""
    with HostileServer(messages=answer("Four.")) as server:
        env = server.env(ANTHROPIC_BASE_URL=_spoiled(server.base, "\r\n"))
        ran = run_agent(["ask", "2+2?"], env)
        asked = server.model_requests()
    assert (ran.code, ran.out, asked) == (EXIT_USAGE, "", [])
    assert ran.err == f"agent: ANTHROPIC_BASE_URL {REFUSED}.\n"


@pytest.mark.parametrize("inside", INSIDE.values(), ids=INSIDE.keys())
def test_anthropic_base_url_with_a_control_or_space_exits_2_naming_it(inside: str) -> None:
    """Each kind of space or control character: the same exit 2 and line, nothing asked."""
    with HostileServer(messages=answer("Four.")) as server:
        env = server.env(ANTHROPIC_BASE_URL=_spoiled(server.base, inside))
        code, out, err = cli(["ask", "2+2?"], env)
        asked = server.model_requests()
    assert (code, out, asked) == (EXIT_USAGE, "", [])
    assert err == f"agent: ANTHROPIC_BASE_URL {REFUSED}.\n"


@pytest.mark.parametrize("name", URL_VARIABLES)
def test_every_url_setting_is_checked_the_same_way(name: str) -> None:
    """Each URL variable with a line break in it: exit 2 at start-up, naming it."""
    with HostileServer(messages=answer("Four.")) as server:
        env = server.env()
        env[name] = _spoiled(env[name], "\r\n")
        code, out, err = cli(["ask", "2+2?"], env)
        asked = server.model_requests()
    assert (code, out, asked) == (EXIT_USAGE, "", [])
    assert err == f"agent: {name} {REFUSED}.\n"


def test_an_otlp_endpoint_with_a_line_break_exits_2_naming_it() -> None:
    """In a child process, tracing turned on by OTEL_EXPORTER_OTLP_ENDPOINT with CR LF in it
    (offline, where the endpoint is still used): exit 2 naming the variable, no answer."""
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": _spoiled("http://127.0.0.1:4318", "\r\n")}
    ran = run_agent(["ask", "--offline", "2+2?"], env)
    assert (ran.code, ran.out) == (EXIT_USAGE, "")
    assert ran.err == f"agent: OTEL_EXPORTER_OTLP_ENDPOINT {REFUSED}.\n"


@pytest.mark.parametrize("name", OTLP_VARIABLES)
@pytest.mark.parametrize("inside", ["\r\n", " "], ids=["CR LF", "space"])
def test_either_otlp_endpoint_with_a_control_or_space_exits_2_naming_it(
    name: str, inside: str
) -> None:
    """Either OTLP variable, a line break or a space: exit 2 naming it, no answer begun."""
    code, out, err = cli(
        ["ask", "--offline", "2+2?"], {name: _spoiled("http://[::1]:4318", inside)}
    )
    assert (code, out) == (EXIT_USAGE, "")
    assert err == f"agent: {name} {REFUSED}.\n"


def test_whitespace_around_a_url_is_stripped_not_refused() -> None:
    """A value pasted with a newline or spaces around it is the URL inside them."""
    with HostileServer(messages=answer("Four.")) as server:
        env = server.env()
        env = {name: f"  {env[name]}\n" if name in URL_VARIABLES else env[name] for name in env}
        code, out, _ = cli(["ask", "2+2?"], env)
        asked = server.model_requests()
    assert (code, out, len(asked)) == (EXIT_OK, "Four.\n", 1)


def test_offline_still_sets_aside_a_base_url_it_never_calls() -> None:
    """Offline, ANTHROPIC_BASE_URL is never called, so a spoiled one is ignored, as before."""
    code, _, _ = cli(
        ["ask", "--offline", "What is 2 + 2?"], {"ANTHROPIC_BASE_URL": "http://x/\r\n"}
    )
    assert code == EXIT_OK
