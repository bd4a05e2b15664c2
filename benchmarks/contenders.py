"""The three contenders, each behind the same `ask(question, urls)`.

- "this agent": `agent.app.ask` with settings read from an environment that points at the fault
  server (api key "test-key", online), sharing one HTTP client from `tools.http.make_client`,
  one Claude client and one `Admission` (as a server would);
- "article loop": the baseline port in `benchmarks.article_loop`, the SDK at default settings;
- "SDK tool runner": `client.beta.messages.tool_runner(…, thread=False)` with a typical tool.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
from anthropic import AsyncAnthropic

from benchmarks import sdk_runner
from benchmarks.article_loop import ArticleAgent
from benchmarks.harness import API_KEY, Contender, Urls

__all__ = ["ArticleLoop", "SdkToolRunner", "ThisAgent", "all_contenders"]


class ThisAgent:
    """This project's agent, as `agent ask` runs it."""

    name = "this agent"

    def __init__(self, *, admission: bool = True) -> None:
        from agent.app import Admission, ask, model_client  # late: the bench runs without it
        from agent.settings import Settings
        from tools.http import make_client

        self._ask, self._model_client, self._settings = ask, model_client, Settings
        self._http = make_client()
        self._client: Any = None  # one Claude client for the whole run, as a server would keep
        self._admission = Admission() if admission else None  # overload queues or is refused
        self._read: dict[Urls, Any] = {}

    async def ask(self, question: str, urls: Urls) -> str | None:
        """The agent's answer, or None when it says it could not produce one."""
        settings = self._settings_for(urls)
        if self._client is None:
            self._client = self._model_client(settings)
        answer = await self._ask(
            question, settings, http=self._http, client=self._client, admission=self._admission
        )
        return answer.text if answer.answered else None

    def _settings_for(self, urls: Urls) -> Any:
        """The settings for `urls`, read from the environment once (a server reads them at
        start, not per question)."""
        if urls not in self._read:
            self._read[urls] = self._settings.from_env(urls.env(API_KEY), offline=False)
        return self._read[urls]

    async def aclose(self) -> None:
        """Close the shared HTTP and Claude clients."""
        await self._http.aclose()
        if self._client is not None:
            await self._client.close()


class ArticleLoop:
    """BASELINE: the article's full working example, ported."""

    name = "article loop"

    def __init__(self, base_url: str) -> None:
        self._client = AsyncAnthropic(api_key=API_KEY, base_url=base_url)
        self._fetch = httpx.AsyncClient()

    async def ask(self, question: str, urls: Urls) -> str | None:
        """`chat(question)` with Open-Meteo at `urls`."""
        agent = ArticleAgent(self._client, self._fetch, urls.geocoding, urls.forecast)
        return await agent.chat(question)

    async def aclose(self) -> None:
        """Close both clients."""
        await self._fetch.aclose()
        await self._client.close()


class SdkToolRunner:
    """The SDK's tool runner with an idiomatic `@beta_async_tool`."""

    name = "SDK tool runner"

    def __init__(self, base_url: str) -> None:
        self._client = AsyncAnthropic(api_key=API_KEY, base_url=base_url)
        self._http = httpx.AsyncClient()

    async def ask(self, question: str, urls: Urls) -> str | None:
        """The runner's final text."""
        tool = sdk_runner.weather_tool(self._http, urls.geocoding, urls.forecast)
        return await sdk_runner.ask(self._client, question, tool)

    async def aclose(self) -> None:
        """Close both clients."""
        await self._http.aclose()
        await self._client.close()


def all_contenders(base_url: str) -> tuple[list[Contender], dict[str, str]]:
    """Every contender that can be built, and why the others could not."""
    built: list[Contender] = []
    missing: dict[str, str] = {}
    for name, make in _MAKERS:
        try:
            built.append(make(base_url))
        except ImportError as exc:
            missing[name] = f"not importable yet ({exc.name or exc})"
    return built, missing


def _this_agent(base_url: str) -> Contender:
    del base_url  # it reads ANTHROPIC_BASE_URL from the settings' environment
    return ThisAgent()


_MAKERS: tuple[tuple[str, Callable[[str], Contender]], ...] = (
    (ThisAgent.name, _this_agent),
    (ArticleLoop.name, ArticleLoop),
    (SdkToolRunner.name, SdkToolRunner),
)
