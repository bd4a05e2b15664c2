"""Wiring: settings → models + tools → an `Agent` that answers questions.

`ask` is the one-shot entry the CLI and the benchmark use. Offline, the tools talk to the
simulated services and the scripted model answers; otherwise Claude (and, with
`AGENT_FALLBACK_MODEL`, a second Claude model) and the real endpoints.
A caller asking many questions shares its costly clients rather than building them per
question: the tools' `http=` (an `httpx.AsyncClient`) and Claude's `client=` (an
`anthropic.AsyncAnthropic` from `model_client`). Shared clients are left open; close them.

Your own tools (`tools.tool`) join the built-in ones with `open_agent(settings, tools=[…])`;
`builtins=False` leaves only yours. Your MCP servers' tools join them with
`open_agent(settings, mcp=[McpServer.stdio(…), McpServer.http(…)])` (see docs/mcp.md).
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import structlog

from agent.admission import BUSY, Admission, Busy
from agent.answer import Answer, Limits
from agent.conversation import Conversation
from agent.loop import Turn
from agent.model_call import ModelCaller, model_policy
from agent.models import ModelBackend, TextSink
from agent.models._deferred import DeferredModels
from agent.settings import Settings
from resilience import Observer, Policy
from tools import Registry, Tool, builtin_tools

if TYPE_CHECKING:
    import anthropic
    import httpx

    from tools.mcp import McpServer

__all__ = ["Admission", "Agent", "Answer", "ask", "make_backends", "model_client", "open_agent"]

log = structlog.get_logger("agent")


@dataclass(slots=True)
class Agent:
    """A model, the tools, and the bounds; `ask` runs one turn of a conversation."""

    caller: ModelCaller
    registry: Registry
    limits: Limits = field(default_factory=Limits)
    closers: list[Callable[[], Awaitable[None]]] = field(default_factory=list)
    _turns: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _tool_gate: asyncio.Semaphore | None = None  # made on first use, from the limits

    @property
    def tool_gate(self) -> asyncio.Semaphore:
        """The bound on this agent's tool calls running at once, across its turns."""
        if self._tool_gate is None:
            self._tool_gate = asyncio.Semaphore(max(1, self.limits.max_concurrent_tools))
        return self._tool_gate

    @property
    def model_name(self) -> str:
        """The primary model's name ("claude-sonnet-4-6", "offline-scripted")."""
        return self.caller.name

    async def ask(
        self,
        question: str,
        conversation: Conversation | None = None,
        *,
        on_text: TextSink | None = None,
    ) -> Answer:
        """One turn: the answer to `question`, given the history in `conversation`."""
        turn = Turn(
            conversation if conversation is not None else Conversation(),
            caller=self.caller,
            registry=self.registry,
            limits=self.limits,
            on_text=on_text,
            tool_gate=self.tool_gate,
        )
        with structlog.contextvars.bound_contextvars(turn=next(self._turns)):
            log.info("agent.turn_started", model=self.model_name)
            return await turn.run(question)

    async def aclose(self) -> None:
        """Close the model's and the tools' HTTP clients."""
        for close in reversed(self.closers):
            await close()
        self.closers.clear()


def model_client(settings: Settings) -> anthropic.AsyncAnthropic | None:
    """One Claude SDK client for `settings`, to share across questions; None when offline."""
    if (key := settings.claude_key) is None:
        return None
    from agent.models.claude import new_client

    return new_client(api_key=key, base_url=settings.base_url)


def make_backends(
    settings: Settings, *, client: anthropic.AsyncAnthropic | None = None
) -> list[ModelBackend]:
    """The offline scripted model; or Claude at `settings.base_url`, then the fallback model
    if one is set, both on one SDK client (a shared `client`, left open, stands for the key
    and the base URL)."""
    if (key := settings.claude_key) is None:
        from offline import OfflineModel

        return [OfflineModel()]
    from agent.models.claude import ClaudeModel

    primary = (
        ClaudeModel(api_key=key, model=settings.model, base_url=settings.base_url)
        if client is None
        else ClaudeModel(model=settings.model, client=client)
    )
    if settings.fallback_model is None:
        return [primary]
    return [primary, ClaudeModel(model=settings.fallback_model, client=primary.client)]


async def open_agent(
    settings: Settings,
    *,
    tools: Sequence[Tool] = (),
    builtins: bool = True,
    http: httpx.AsyncClient | None = None,
    backend: ModelBackend | Sequence[ModelBackend] | None = None,
    client: anthropic.AsyncAnthropic | None = None,
    observer: Observer | None = None,
    policy: Policy | None = None,
    limits: Limits = Limits(),  # noqa: B008 - frozen, shared safely
    mcp: Sequence[McpServer] = (),
    on_notice: Callable[[str], None] | None = None,
) -> Agent:
    """An agent for `settings`, with the built-in tools (unless `builtins=False`), `tools`
    and the tools of the `mcp` servers, all on `policy` and reporting to `observer`. A server
    that can't start is left out, with one plain sentence to `on_notice`. `backend` replaces
    the models (one, or a primary and fallbacks). `Agent.aclose` closes the models (given or
    built), the clients it built itself and the MCP sessions (stopping their processes); a
    given `http` or Claude `client` is left open. Without a `client`, Claude's SDK is imported
    on a background thread and the first model call waits for it (agent/models/_deferred.py),
    and the tools' HTTP client is made on the first weather question."""
    models, deferred = _models(settings, backend, client)
    tools_http = http if http is not None else _LazyClient(settings)
    everything = [*(_builtins(settings, tools_http, policy, observer) if builtins else ())]
    everything += [tool.bound(policy, observer) for tool in tools]
    caller = ModelCaller(
        models,
        model_policy(policy, attempt_timeout_s=settings.model_timeout_s),
        observer,
        base_url=settings.base_url,
    )
    closers: list[Callable[[], Awaitable[None]]] = [caller.aclose]
    if http is None:
        closers.append(tools_http.aclose)
    if mcp:
        from tools.mcp import open_toolset

        reserved = {tool.name for tool in everything}
        toolset = await open_toolset(
            mcp, reserved=reserved, policy=policy, observer=observer, on_problem=on_notice
        )
        everything += toolset.tools
        closers.append(toolset.aclose)
    if deferred is not None:  # last: no other import runs beside it (see agent/models/_deferred.py)
        deferred.start()
    bound = limits.tool_bound_s(policy)  # past this policy's own deadline, unless set
    turn = settings.turn_timeout_s if limits.turn_timeout_s is None else limits.turn_timeout_s
    limits = dataclasses.replace(limits, tool_timeout_s=bound, turn_timeout_s=turn)
    return Agent(caller, Registry(everything), limits, closers)


def _models(
    settings: Settings,
    backend: ModelBackend | Sequence[ModelBackend] | None,
    client: anthropic.AsyncAnthropic | None,
) -> tuple[list[ModelBackend], DeferredModels | None]:
    """The models, and, for Claude without a client given, the SDK import to start: the
    models are stand-ins until it is done, so `agent chat` can prompt meanwhile."""
    if backend is not None:
        return list(backend) if isinstance(backend, Sequence) else [backend], None
    if settings.claude_key is None or client is not None:  # offline, or the SDK is loaded
        return make_backends(settings, client=client), None
    names = [settings.model, *([settings.fallback_model] if settings.fallback_model else [])]
    deferred = DeferredModels(
        names, lambda: make_backends(settings, client=client), "agent.models.claude"
    )
    return deferred.models, deferred


def _builtins(
    settings: Settings,
    http: httpx.AsyncClient | _LazyClient,
    policy: Policy | None,
    observer: Observer | None,
) -> list[Tool]:
    return builtin_tools(http, endpoints=settings.endpoints, policy=policy, observer=observer)


class _LazyClient:
    """The tools' HTTP client, made on the first weather question (httpx is imported then),
    so a question the calculator answers never loads the HTTP stack; closed if it was made."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._client: httpx.AsyncClient | None = None

    def __call__(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = _tools_client(self._settings)
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()


def _tools_client(settings: Settings) -> httpx.AsyncClient:
    """The real services; offline, the simulated ones at the same (maybe custom) endpoints."""
    from tools.http import make_client

    if not settings.offline:
        return make_client()
    from offline import SimulatedServices

    return make_client(transport=SimulatedServices(settings.endpoints).transport)


async def ask(
    question: str,
    settings: Settings,
    *,
    http: httpx.AsyncClient | None = None,
    client: anthropic.AsyncAnthropic | None = None,
    mcp: Sequence[McpServer] = (),
    on_notice: Callable[[str], None] | None = None,
    admission: Admission | None = None,
) -> Answer:
    """Answer one question with a fresh conversation (the CLI's `ask`, the benchmark's unit),
    with the tools of the `mcp` servers too (`on_notice` hears about those left out).

    Asking many: pass the same `http` and `client` (from `model_client`) each time; both
    are left open, so no question pays for building them. Asking many at once: pass the
    same `admission` too, so that overload queues, or is refused early with one plain
    sentence (unanswered), instead of every question timing out.
    """
    if admission is None:
        return await _ask(question, settings, http, client, mcp, on_notice)
    try:
        async with admission.slot():
            return await _ask(question, settings, http, client, mcp, on_notice)
    except Busy:
        return Answer(BUSY.user_message, answered=False, error=BUSY)


async def _ask(
    question: str,
    settings: Settings,
    http: httpx.AsyncClient | None,
    client: anthropic.AsyncAnthropic | None,
    mcp: Sequence[McpServer],
    on_notice: Callable[[str], None] | None,
) -> Answer:
    agent = await open_agent(settings, http=http, client=client, mcp=mcp, on_notice=on_notice)
    try:
        return await agent.ask(question)
    finally:
        await agent.aclose()
