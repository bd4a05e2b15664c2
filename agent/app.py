"""Wiring: settings → model backend + tool registry → an `Agent` that answers questions.

`ask` is the one-shot entry the CLI and the benchmark use. Offline, the tools talk to the
simulated services and the scripted model answers; otherwise Claude and the real endpoints.
A caller asking many questions shares its costly clients rather than building them per
question: the tools' `http=` (an `httpx.AsyncClient`) and Claude's `client=` (an
`anthropic.AsyncAnthropic` from `model_client`). Shared clients are left open; close them.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import httpx
import structlog

from agent.answer import Answer, Limits
from agent.conversation import Conversation
from agent.loop import Turn
from agent.model_call import ModelCaller, model_policy
from agent.models import ModelBackend, TextSink
from agent.settings import Settings
from tools import Observer, Registry, default_registry
from tools.http import make_client
from tools.middleware import Policy

if TYPE_CHECKING:
    import anthropic

__all__ = ["Agent", "Answer", "ask", "make_backend", "model_client", "open_agent"]

log = structlog.get_logger("agent")


@dataclass(slots=True)
class Agent:
    """A model, the tools, and the bounds; `ask` runs one turn of a conversation."""

    caller: ModelCaller
    registry: Registry
    limits: Limits = field(default_factory=Limits)
    closers: list[Callable[[], Awaitable[None]]] = field(default_factory=list)
    _turns: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    @property
    def model_name(self) -> str:
        """The backend's label ("claude", "offline")."""
        return self.caller.backend.name

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


def make_backend(
    settings: Settings, *, client: anthropic.AsyncAnthropic | None = None
) -> ModelBackend:
    """The offline scripted model, or Claude at `settings.base_url` (or on a shared `client`,
    which then stands for the key and the base URL, and is left open)."""
    if (key := settings.claude_key) is None:
        from agent.models.offline import OfflineModel

        return OfflineModel()
    from agent.models.claude import ClaudeModel

    if client is not None:
        return ClaudeModel(model=settings.model, client=client)
    return ClaudeModel(api_key=key, model=settings.model, base_url=settings.base_url)


async def open_agent(
    settings: Settings,
    *,
    http: httpx.AsyncClient | None = None,
    backend: ModelBackend | None = None,
    client: anthropic.AsyncAnthropic | None = None,
    observer: Observer | None = None,
    policy: Policy | None = None,
    limits: Limits = Limits(),  # noqa: B008 - frozen, shared safely
) -> Agent:
    """An agent for `settings`. `Agent.aclose` closes the backend (given or built) and the
    clients it built itself; a given `http` or Claude `client` is left open."""
    model = backend if backend is not None else make_backend(settings, client=client)
    tools_http = http if http is not None else _tools_client(settings)
    registry = default_registry(
        tools_http, endpoints=settings.endpoints, policy=policy, observer=observer
    )
    caller = ModelCaller(model, model_policy(policy), observer)
    closers: list[Callable[[], Awaitable[None]]] = [model.aclose]
    if http is None:
        closers.append(tools_http.aclose)
    bound = limits.tool_bound_s(policy)  # past this policy's own deadline, unless set
    return Agent(caller, registry, dataclasses.replace(limits, tool_timeout_s=bound), closers)


def _tools_client(settings: Settings) -> httpx.AsyncClient:
    """The real services; offline, the simulated ones at the same (maybe custom) endpoints."""
    if not settings.offline:
        return make_client()
    from tools.simulated import SimulatedServices

    return make_client(transport=SimulatedServices(settings.endpoints).transport)


async def ask(
    question: str,
    settings: Settings,
    *,
    http: httpx.AsyncClient | None = None,
    client: anthropic.AsyncAnthropic | None = None,
) -> Answer:
    """Answer one question with a fresh conversation (the CLI's `ask`, the benchmark's unit).

    Asking many: pass the same `http` and `client` (from `model_client`) each time; both
    are left open, so no question pays for building them.
    """
    agent = await open_agent(settings, http=http, client=client)
    try:
        return await agent.ask(question)
    finally:
        await agent.aclose()
