"""examples/exchange_rates.py on recorded answers (tests/examples/fixtures, sources in its
README): the primary answers; the primary fails and Frankfurter answers; both down; unknown
currencies; the schema the model sees; the tool in an agent, next to the built-in ones."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from agent.settings import Settings
from errors import BadUpstreamData, NotFound, UpstreamStatus
from examples.exchange_rates import (
    Currency,
    exchange_rate_tool,
    parse_frankfurter,
    parse_open_er_api,
)
from offline import QueuedModel, calls, open_agent, text
from resilience import Policy
from tests.tools.fakes import FakeClock
from tests.tools.upstream import Script, Step, body, is_safe_for_a_model, raises, status
from tools import Registry, ToolResult, make_client, tool

FIXTURES = Path(__file__).parent / "fixtures"
ER_API_USD = "open_er_api_latest_USD.json"
ER_API_UNSUPPORTED = "open_er_api_unsupported_code.json"
FRANKFURTER_GBP_USD = "frankfurter_latest_GBP_USD_amount_1000000.json"
FRANKFURTER_404 = "frankfurter_not_found.json"

USD_EUR = {
    "base": "USD",
    "quote": "EUR",
    "rate": 0.852966,
    "date": "2025-09-30",
    "source": "open.er-api.com",
}
GBP_USD = {
    "base": "GBP",
    "quote": "USD",
    "rate": 1.326528,
    "date": "2022-03-04",
    "source": "frankfurter.dev",
}


def still_down(base: str, quote: str) -> str:
    """The sentence for both sources down, the pair named as the activity says it."""
    return (
        f"Getting the exchange rate from {base} to {quote} still isn't working after retrying, "
        "so it's stopped for now; please try again in a few minutes."
    )


def recorded(name: str, code: int = 200) -> Step:
    """One recorded answer, byte for byte, with the status its source reports."""
    content = (FIXTURES / name).read_bytes()
    headers = {"Content-Type": "application/json"}
    return lambda _request: httpx.Response(code, content=content, headers=headers)


def loaded(name: str) -> Any:
    return json.loads((FIXTURES / name).read_bytes())


class Upstream:
    """open.er-api.com and Frankfurter behind one transport, each playing a `Script`."""

    def __init__(self, er_api: Script, frankfurter: Script | None = None) -> None:
        self.er_api = er_api
        self.frankfurter = frankfurter or Script(recorded(FRANKFURTER_404, 404))

    def __call__(self, request: httpx.Request) -> httpx.Response:
        script = self.er_api if request.url.host == "open.er-api.com" else self.frankfurter
        return script(request)

    def client(self) -> httpx.AsyncClient:
        return make_client(transport=httpx.MockTransport(self))


async def ask(upstream: Upstream, policy: Policy, base: str, quote: str) -> ToolResult:
    """One `exchange_rate` call, dispatched as the agent would, on fake time."""
    async with upstream.client() as client:
        made = exchange_rate_tool(client).bound(policy, None)
        return await Registry([made]).dispatch("exchange_rate", {"base": base, "quote": quote})


def timeline(result: ToolResult) -> list[tuple[str, int, str]]:
    return [(a.source, a.number, a.outcome) for a in result.attempts]


# --- the primary answers ---


async def test_the_primary_answers_from_its_recorded_rates(policy: Policy) -> None:
    """USD→EUR from open.er-api.com's recorded answer; Frankfurter is never asked."""
    upstream = Upstream(Script(recorded(ER_API_USD)))
    result = await ask(upstream, policy, "USD", "EUR")
    assert json.loads(result.content) == USD_EUR
    assert timeline(result) == [("open_er_api", 1, "ok")]
    assert upstream.frankfurter.requests == []


async def test_the_primary_is_asked_for_the_base_in_its_path(policy: Policy) -> None:
    """GET /v6/latest/USD: the base is the path, the quote is read from its rates."""
    upstream = Upstream(Script(recorded(ER_API_USD)))
    await ask(upstream, policy, "USD", "JPY")
    assert str(upstream.er_api.requests[0].url) == "https://open.er-api.com/v6/latest/USD"


# --- the primary fails, Frankfurter answers ---


@pytest.mark.parametrize(
    ("failure", "primary"),
    [
        pytest.param(
            status(503),
            [("open_er_api", 1, "server_error"), ("open_er_api", 2, "server_error")],
            id="503 then 503",
        ),
        pytest.param(
            raises(httpx.ConnectError, "[Errno 111] Connection refused"),
            [("open_er_api", 1, "network"), ("open_er_api", 2, "network")],
            id="connection refused",
        ),
        pytest.param(
            body(b"<html><body>Checking your browser...</body></html>", "text/html"),
            [("open_er_api", 1, "bad_data"), ("open_er_api", 2, "bad_data")],
            id="HTML with 200",
        ),
        pytest.param(
            recorded(ER_API_UNSUPPORTED),
            [("open_er_api", 1, "not_found")],
            id="result error (recorded)",
        ),
    ],
)
async def test_frankfurter_answers_when_the_primary_cannot(
    failure: Step, primary: list[tuple[str, int, str]], policy: Policy
) -> None:
    """Whatever kept the primary from answering, the fallback's recorded rate comes back."""
    upstream = Upstream(Script(failure), Script(recorded(FRANKFURTER_GBP_USD)))
    result = await ask(upstream, policy, "GBP", "USD")
    assert json.loads(result.content) == GBP_USD
    assert timeline(result) == [*primary, ("frankfurter", 1, "ok")]


async def test_frankfurter_is_asked_for_the_pair(policy: Policy) -> None:
    """GET /v1/latest?base=GBP&symbols=USD."""
    upstream = Upstream(Script(status(503)), Script(recorded(FRANKFURTER_GBP_USD)))
    await ask(upstream, policy, "GBP", "USD")
    url = upstream.frankfurter.requests[0].url
    assert (url.host, url.path) == ("api.frankfurter.dev", "/v1/latest")
    assert dict(url.params) == {"base": "GBP", "symbols": "USD"}


async def test_a_retry_after_within_the_cap_is_waited_on_fake_time(
    policy: Policy, clock: FakeClock
) -> None:
    """429 with Retry-After 2, then the recorded answer: the wait is asked of the policy's
    sleep (fake: nothing sleeps) and the same source answers."""
    upstream = Upstream(Script(status(429, retry_after="2"), recorded(ER_API_USD)))
    result = await ask(upstream, policy, "USD", "EUR")
    assert json.loads(result.content) == USD_EUR
    assert clock.sleeps == [2.0]


# --- nothing answers ---


async def test_both_down_tells_the_model_one_plain_sentence(policy: Policy) -> None:
    """Both sources failing: one sentence, no status, host, URL or upstream body."""
    upstream = Upstream(Script(status(503)), Script(status(503)))
    result = await ask(upstream, policy, "USD", "EUR")
    assert (result.is_error, result.content) == (True, still_down("USD", "EUR"))
    assert is_safe_for_a_model(result.content)
    assert "er-api" not in result.content
    assert "frankfurter" not in result.content.lower()


async def test_a_currency_frankfurter_lacks_is_not_blamed_on_the_input(policy: Policy) -> None:
    """The primary down and Frankfurter's recorded 404 (TWD is not an ECB currency): no answer,
    but the model is not told to change a code that is fine."""
    upstream = Upstream(Script(status(503)), Script(recorded(FRANKFURTER_404, 404)))
    result = await ask(upstream, policy, "TWD", "USD")
    assert result.error is not None
    assert result.error.action != "fix_input"
    assert "spelling" not in result.content
    assert "no currency called" not in result.content


# --- input to fix ---


async def test_a_base_the_primary_does_not_know_is_input_to_fix(policy: Policy) -> None:
    """The recorded "unsupported-code" answer: fix_input, naming the code."""
    upstream = Upstream(Script(recorded(ER_API_UNSUPPORTED)))
    result = await ask(upstream, policy, "XYZ", "EUR")
    assert result.error is not None
    assert (result.error.action, result.error.retryable) == ("fix_input", False)
    assert "“XYZ”" in result.content
    assert timeline(result) == [("open_er_api", 1, "not_found"), ("frankfurter", 1, "not_found")]


async def test_a_quote_missing_from_the_primarys_rates_is_input_to_fix(policy: Policy) -> None:
    """USD's recorded rates have no XYZ: fix_input, naming it."""
    upstream = Upstream(Script(recorded(ER_API_USD)))
    result = await ask(upstream, policy, "USD", "XYZ")
    assert result.error is not None
    assert result.error.action == "fix_input"
    assert "currency called “XYZ”" in result.content


@pytest.mark.parametrize("code", ["usd", "US", "USDT", "U$D", ""])
async def test_a_code_that_is_not_iso_4217_is_refused_before_any_request(
    code: str, policy: Policy
) -> None:
    """The schema's pattern stops it: fix_input, and neither service is called."""
    upstream = Upstream(Script(recorded(ER_API_USD)))
    result = await ask(upstream, policy, code, "EUR")
    assert result.error is not None
    assert result.error.action == "fix_input"
    assert upstream.er_api.requests == upstream.frankfurter.requests == []


# --- parsing at the boundary ---


def test_the_frankfurter_rate_is_per_unit_of_the_base() -> None:
    """The recorded answer is for 1,000,000 GBP; the rate is for one."""
    assert parse_frankfurter(loaded(FRANKFURTER_GBP_USD), "GBP", "USD") == GBP_USD


def test_the_primary_lists_the_base_itself_at_one() -> None:
    """USD→USD is answered from the recorded rates, at 1."""
    assert parse_open_er_api(loaded(ER_API_USD), "USD", "USD")["rate"] == 1.0


def usd(**changes: Any) -> dict[str, Any]:
    """The recorded USD answer with some fields changed (None: removed)."""
    answer = loaded(ER_API_USD)
    answer.update(changes)
    return {key: value for key, value in answer.items() if value is not None}


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param(["USD", 0.85], id="a list"),
        pytest.param(usd(result=None), id="no result"),
        pytest.param(usd(result="pending"), id="unknown result"),
        pytest.param(usd(base_code="EUR"), id="another base"),
        pytest.param(usd(rates=[0.85]), id="rates not an object"),
        pytest.param(usd(rates={"EUR": "0.85"}), id="rate as text"),
        pytest.param(usd(rates={"EUR": 0}), id="rate zero"),
        pytest.param(usd(rates={"EUR": -1.2}), id="rate negative"),
        pytest.param(usd(rates={"EUR": True}), id="rate true"),
        pytest.param(usd(rates={"EUR": 10**400}), id="rate absurd"),
        pytest.param(usd(time_last_update_unix=None), id="no date"),
        pytest.param(usd(time_last_update_unix="yesterday"), id="date as words"),
        pytest.param(usd(time_last_update_unix=10**20), id="date out of range"),
        pytest.param({"result": "error", "error-type": "malformed-request"}, id="other error"),
    ],
)
def test_a_primary_answer_that_makes_no_sense_is_bad_data(answer: Any) -> None:
    """Wrong shapes and values: BadUpstreamData (tried once more, then the fallback)."""
    with pytest.raises(BadUpstreamData):
        parse_open_er_api(answer, "USD", "EUR")


def test_a_primary_error_saying_rate_limited_is_a_429() -> None:
    """`"error-type": "rate-limited"` (which open.er-api.com may send with a 200) is classified
    as the 429 it stands for."""
    with pytest.raises(UpstreamStatus) as raised:
        parse_open_er_api({"result": "error", "error-type": "rate-limited"}, "USD", "EUR")
    assert raised.value.status == 429


def test_the_recorded_unsupported_code_answer_names_the_base() -> None:
    """`"error-type": "unsupported-code"` is NotFound for the base, a currency."""
    with pytest.raises(NotFound) as raised:
        parse_open_er_api(loaded(ER_API_UNSUPPORTED), "XYZ", "EUR")
    assert (raised.value.subject, raised.value.what) == ("XYZ", "currency")


def gbp(**changes: Any) -> dict[str, Any]:
    answer = loaded(FRANKFURTER_GBP_USD)
    answer.update(changes)
    return answer


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param(loaded(FRANKFURTER_404), id="the recorded not-found body"),
        pytest.param(gbp(base="EUR"), id="another base"),
        pytest.param(gbp(rates={"EUR": 0.9}), id="not the quote asked"),
        pytest.param(gbp(amount=0), id="amount zero"),
        pytest.param(gbp(amount="1"), id="amount as text"),
        pytest.param(gbp(date="04/03/2022"), id="date not ISO"),
        pytest.param(gbp(date=None), id="no date"),
    ],
)
def test_a_frankfurter_answer_that_makes_no_sense_is_bad_data(answer: Any) -> None:
    """Wrong shapes and values: BadUpstreamData."""
    with pytest.raises(BadUpstreamData):
        parse_frankfurter(answer, "GBP", "USD")


# --- the same parsing, made differently: sync, retry_on ---


def sync_tool(transport: httpx.MockTransport, **options: Any) -> Any:
    """A sync exchange-rate tool on the example's parsing (httpx.Client, run in a thread)."""

    def exchange_rate(base: Currency, quote: Currency) -> dict[str, Any]:
        """The exchange rate."""
        with httpx.Client(transport=transport) as client:
            response = client.get(f"https://open.er-api.com/v6/latest/{base}")
        return parse_open_er_api(response.json(), base, quote)

    return tool(exchange_rate, **options)


async def test_a_sync_function_gives_the_same_answer(policy: Policy) -> None:
    """The recorded rate, through a plain def run in a worker thread."""
    upstream = Upstream(Script(recorded(ER_API_USD)))
    made = sync_tool(httpx.MockTransport(upstream)).bound(policy, None)
    result = await Registry([made]).dispatch("exchange_rate", {"base": "USD", "quote": "EUR"})
    assert json.loads(result.content) == USD_EUR


@pytest.mark.parametrize(
    ("retry_on", "requests"),
    [
        pytest.param(None, 2, id="default: bad data is tried once more"),
        pytest.param(httpx.TransportError, 1, id="retry_on=httpx.TransportError"),
    ],
)
async def test_retry_on_narrows_the_retries(retry_on: Any, requests: int, policy: Policy) -> None:
    """A tool that only retries transport errors does not retry an answer with bad data."""
    upstream = Upstream(Script(lambda _r: httpx.Response(200, json={"result": "pending"})))
    made = sync_tool(httpx.MockTransport(upstream), retry_on=retry_on).bound(policy, None)
    await Registry([made]).dispatch("exchange_rate", {"base": "USD", "quote": "EUR"})
    assert len(upstream.er_api.requests) == requests


# --- what the model sees ---


async def test_the_model_sees_two_iso_codes() -> None:
    """The tools entry: a name, the docstring, and two ISO 4217 codes in capitals."""
    code = {
        "description": "An ISO 4217 currency code in capitals, e.g. USD.",
        "pattern": "^[A-Z]{3}$",
        "type": "string",
    }
    async with make_client() as client:
        definition = exchange_rate_tool(client).definition()
    assert definition["name"] == "exchange_rate"
    assert definition["description"].startswith(
        "How much one unit of `base` is worth in `quote`, at the latest daily rate."
    )
    assert definition["input_schema"] == {
        "additionalProperties": False,
        "properties": {"base": {**code, "title": "Base"}, "quote": {**code, "title": "Quote"}},
        "required": ["base", "quote"],
        "title": "ExchangeRateInput",
        "type": "object",
    }


# --- in an agent ---


async def test_open_agent_offers_it_next_to_the_built_in_tools(policy: Policy) -> None:
    """tools=[…] adds it after get_weather and calculate."""
    async with make_client() as client:
        agent = await open_agent(Settings(), tools=[exchange_rate_tool(client)], policy=policy)
        await agent.aclose()
    names = [d["name"] for d in agent.registry.definitions()]
    assert names == ["get_weather", "calculate", "exchange_rate"]


async def test_builtins_false_leaves_only_it(policy: Policy) -> None:
    """builtins=False: the model is offered exchange_rate alone."""
    async with make_client() as client:
        tools = [exchange_rate_tool(client)]
        agent = await open_agent(Settings(), tools=tools, builtins=False, policy=policy)
        await agent.aclose()
    assert [d["name"] for d in agent.registry.definitions()] == ["exchange_rate"]


async def ask_agent(upstream: Upstream, policy: Policy) -> Any:
    """One turn: the model calls exchange_rate for GBP→USD, then answers."""
    model = QueuedModel(calls(("exchange_rate", {"base": "GBP", "quote": "USD"})), text("Done."))
    async with upstream.client() as client:
        tools = [exchange_rate_tool(client)]
        agent = await open_agent(Settings(), tools=tools, backend=model, policy=policy)
        try:
            return await agent.ask("What's the exchange rate from GBP to USD?")
        finally:
            await agent.aclose()


async def test_the_turns_timeline_says_which_source_answered(policy: Policy) -> None:
    """The primary down: the model gets Frankfurter's rate (as data from a function of the
    app's, not the project's own words), and the timeline shows why."""
    upstream = Upstream(Script(status(503)), Script(recorded(FRANKFURTER_GBP_USD)))
    answer = await ask_agent(upstream, policy)
    [result] = answer.tool_results
    head, body, tail = str(result["content"]).split("\n")
    assert (head, tail) == ('<tool_output source="the exchange_rate function">', "</tool_output>")
    assert json.loads(body) == GBP_USD
    tool_attempts = [
        (a.source, a.number, a.outcome, a.action)
        for a in answer.attempts
        if a.caller == "exchange_rate"
    ]
    assert tool_attempts == [
        ("open_er_api", 1, "server_error", "retry"),
        ("open_er_api", 2, "server_error", "escalate"),
        ("frankfurter", 1, "ok", None),
    ]


async def test_both_down_the_model_reads_only_the_sentence(policy: Policy) -> None:
    """The tool_result the model receives is the sentence alone, marked is_error."""
    upstream = Upstream(Script(status(503)), Script(status(503)))
    answer = await ask_agent(upstream, policy)
    [result] = answer.tool_results
    assert result == {
        "type": "tool_result",
        "tool_use_id": "toolu_00",
        "content": still_down("GBP", "USD"),
        "is_error": True,
    }


# --- the README shows this file ---


def test_the_readme_shows_the_examples_code_as_it_is() -> None:
    """Every block of the README's "Add your own tool" listing is in the file, verbatim."""
    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Add your own tool", 1)[1]
    listing = section.split("```python\n", 1)[1].split("```", 1)[0]
    source = (root / "examples" / "exchange_rates.py").read_text(encoding="utf-8")
    for block in listing.strip().split("\n\n\n"):
        assert block in source
