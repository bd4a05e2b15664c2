"""Wiring: settings → models + tools → an `Agent` that answers questions.

`ask` is the one-shot entry the CLI and the benchmark use. Offline, the tools talk to the
simulated services and the scripted model answers; otherwise Claude (and, with
`AGENT_FALLBACK_MODEL`, a second Claude model) and the real endpoints.
A caller asking many questions shares its costly clients rather than building them per
question: the tools' `http=` (an `httpx.AsyncClient`) and Claude's `client=` (an
`anthropic.AsyncAnthropic` from `model_client`). Shared clients are left open; close them.
Questions asked on one shared tools' client share one bound on the tool calls running at
once (`Limits.max_concurrent_tools`), as the turns of one agent do: a bulkhead, so a hanging
upstream holds a few slots rather than every connection, and the client's pool keeps the
connections it opens instead of opening one per request under load.

Your own tools (`tools.tool`) join the built-in ones with `open_agent(settings, tools=[…])`;
`builtins=False` leaves only yours. Your MCP servers' tools join them with
`open_agent(settings, mcp=[McpServer.stdio(…), McpServer.http(…)])` (see docs/mcp.md).

Offline mode is wired at the entry point: the command line (`agent/cli.py`) hands
`open_agent` the scripted model as `backend` and the simulated services as `transport`
(`offline.open_agent` does the same for a program of yours). This module never imports the
offline world.

Admission control: many questions at once in one process queue, or are refused early,
instead of all starting and all timing out together. A server asking many questions on
shared clients shares one `Admission`: at most `max_in_flight` questions run; up to
`max_waiting` more wait their turn, each for at most `max_wait_s`; a question that finds the
queue full, or waits longer than that, is refused at once with one plain sentence
(`records.BUSY`), unanswered.

    admission = Admission()
    answer = await ask(question, settings, http=http, client=client, admission=admission)
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import structlog

from agent.conversation import Conversation
from agent.loop import Answer, Limits, Turn
from agent.models import (
    DeferredModels,
    ModelBackend,
    ModelCaller,
    TextSink,
    model_policy,
)
from agent.records import BUSY
from agent.settings import Settings
from resilience import Listener, Policy, state_from_url
from tools import Registry, Tool, builtin_tools, make_client

if TYPE_CHECKING:
    import anthropic
    import httpx

    from tools.mcp import McpServer

__all__ = [
    "Admission",
    "Agent",
    "Answer",
    "Busy",
    "ask",
    "claude_models",
    "model_client",
    "open_agent",
]

log = structlog.get_logger("agent")


@dataclass(slots=True)
class Agent:
    """A model, the tools, and the bounds; `ask` runs one turn of a conversation."""

    caller: ModelCaller
    registry: Registry
    limits: Limits = field(default_factory=Limits)
    closers: list[Callable[[], Awaitable[None]]] = field(default_factory=list)
    _turns: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    # The bound on this agent's tool calls running at once, across its turns.
    tool_gate: asyncio.Semaphore = field(init=False)

    def __post_init__(self) -> None:
        self.tool_gate = asyncio.Semaphore(max(1, self.limits.max_concurrent_tools))

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
    from agent.claude import new_client  # the SDK: only when Claude is asked for

    return new_client(api_key=key, base_url=settings.base_url)


def claude_models(
    settings: Settings, *, client: anthropic.AsyncAnthropic | None = None
) -> list[ModelBackend]:
    """Claude at `settings.base_url`, then the fallback model if one is set, both on one SDK
    client (a shared `client`, left open, stands for the key and the base URL)."""
    from agent.claude import ClaudeModel  # the SDK: only when Claude is asked for

    key = settings.claude_key
    if key is None:
        raise ValueError(_NO_CLAUDE)
    primary = ClaudeModel(
        api_key=key, model=settings.model, base_url=settings.base_url, client=client
    )
    if settings.fallback_model is None:
        return [primary]
    return [primary, ClaudeModel(model=settings.fallback_model, client=primary.client)]


_NO_CLAUDE = "offline settings have no Claude: pass the model as `backend` (offline.open_agent)"


async def open_agent(
    settings: Settings,
    *,
    tools: Sequence[Tool] = (),
    builtins: bool = True,
    http: httpx.AsyncClient | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    backend: ModelBackend | Sequence[ModelBackend] | None = None,
    client: anthropic.AsyncAnthropic | None = None,
    listener: Listener | None = None,
    policy: Policy | None = None,
    limits: Limits = Limits(),  # noqa: B008 - frozen, shared safely
    mcp: Sequence[McpServer] = (),
    on_notice: Callable[[str], None] | None = None,
) -> Agent:
    """An agent for `settings`, with the built-in tools (unless `builtins=False`), `tools`
    and the tools of the `mcp` servers, all on `policy` and reporting to `listener`.

    `backend` replaces the models (one, or a primary and fallbacks); without it, Claude, whose
    SDK is imported on a background thread while the first model call waits for it
    (`DeferredModels`). The tools' HTTP client is `http` (left open), or one made on the first
    weather question on `transport` (default: the network) and closed by `Agent.aclose`,
    with the models it built and the MCP sessions (stopping their processes). A server that
    can't start is left out, with one plain sentence to `on_notice`."""
    models, deferred = _models(settings, backend, client)
    policy = _with_state(policy, settings)
    tools_http = http if http is not None else _LazyClient(transport)
    everything = (
        builtin_tools(tools_http, endpoints=settings.endpoints, policy=policy, listener=listener)
        if builtins
        else []
    )
    everything += [tool.bound(policy, listener) for tool in tools]
    caller = ModelCaller(
        models,
        model_policy(
            policy,
            attempt_timeout_s=settings.model_timeout_s,
            requests_per_minute=settings.model_rpm,
        ),
        listener,
        base_url=settings.base_url,
        stall_s=settings.model_stall_s,
    )
    closers: list[Callable[[], Awaitable[None]]] = [caller.aclose]
    if http is None:
        closers.append(tools_http.aclose)
    if mcp:
        from tools.mcp import open_toolset  # the MCP SDK: only when servers are asked for

        reserved = {tool.name for tool in everything}
        toolset = await open_toolset(
            mcp, reserved=reserved, policy=policy, listener=listener, on_problem=on_notice
        )
        everything += toolset.tools
        closers.append(toolset.aclose)
    if deferred is not None:  # last: no other import runs beside it (see DeferredModels)
        deferred.start()
    bound = limits.tool_bound_s(policy)  # past this policy's own deadline, unless set
    turn = settings.turn_timeout_s if limits.turn_timeout_s is None else limits.turn_timeout_s
    limits = dataclasses.replace(limits, tool_timeout_s=bound, turn_timeout_s=turn)
    return Agent(caller, Registry(everything), limits, closers)


def _with_state(policy: Policy | None, settings: Settings) -> Policy | None:
    """`policy` keeping its breakers, budget and request bucket where `AGENT_STATE_URL` says:
    a Redis store shared by every worker, or (unset) this process."""
    if settings.state_url is None or (policy is not None and policy.state is not None):
        return policy
    return dataclasses.replace(policy or Policy(), state=state_from_url(settings.state_url))


def _models(
    settings: Settings,
    backend: ModelBackend | Sequence[ModelBackend] | None,
    client: anthropic.AsyncAnthropic | None,
) -> tuple[ModelBackend | Sequence[ModelBackend], DeferredModels | None]:
    """The models, and, for Claude without a client given, the SDK import to start: the
    models are stand-ins until it is done, so `agent chat` can prompt meanwhile."""
    if backend is not None:
        return backend, None
    if settings.claude_key is None:
        raise ValueError(_NO_CLAUDE)
    if client is not None:  # the SDK is loaded already
        return claude_models(settings, client=client), None
    names = [settings.model, *([settings.fallback_model] if settings.fallback_model else [])]
    deferred = DeferredModels(names, lambda: claude_models(settings), "agent.claude")
    return deferred.models, deferred


class _LazyClient:
    """The tools' HTTP client on `transport`, made on the first weather question; closed if
    it was made."""

    def __init__(self, transport: httpx.AsyncBaseTransport | None) -> None:
        self._transport = transport
        self._client: httpx.AsyncClient | None = None

    def __call__(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = make_client(transport=self._transport)
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()


async def ask(
    question: str,
    settings: Settings,
    *,
    http: httpx.AsyncClient | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    backend: ModelBackend | Sequence[ModelBackend] | None = None,
    client: anthropic.AsyncAnthropic | None = None,
    mcp: Sequence[McpServer] = (),
    on_notice: Callable[[str], None] | None = None,
    admission: Admission | None = None,
    conversation: Conversation | None = None,
    limits: Limits = Limits(),  # noqa: B008 - frozen, shared safely
) -> Answer:
    """Answer one question with a fresh conversation, or `conversation` (a saved one, for
    `agent ask --continue`): the CLI's `ask`, the benchmark's unit; with the agent
    `open_agent` makes of the same options, closed afterwards.

    Asking many: pass the same `http` and `client` (from `model_client`) each time; both
    are left open, so no question pays for building them, and the questions on that `http`
    run at most `limits.max_concurrent_tools` tool calls at once between them (a call that
    waits too long for a slot fails as a timeout). Asking many at once: pass the
    same `admission` too, so that overload queues, or is refused early with one plain
    sentence (unanswered), instead of every question timing out.
    """

    slot = contextlib.nullcontext() if admission is None else admission.slot()
    try:
        async with slot:
            agent = await open_agent(
                settings,
                http=http,
                transport=transport,
                backend=backend,
                client=client,
                limits=limits,
                mcp=mcp,
                on_notice=on_notice,
            )
            if http is not None:  # one bulkhead for every question on this client
                agent.tool_gate = _tool_gate(http, agent.limits.max_concurrent_tools)
            try:
                return await agent.ask(question, conversation)
            finally:
                await agent.aclose()
    except Busy:  # only admission control refuses
        return Answer(BUSY.user_message, answered=False, error=BUSY)


# The bound on tool calls at once shared by the questions `ask` answers on one tools' HTTP
# client (gone with the client), by its size, with the event loop it serves.
_GATES: weakref.WeakKeyDictionary[
    httpx.AsyncClient, dict[int, tuple[asyncio.AbstractEventLoop, asyncio.Semaphore]]
] = weakref.WeakKeyDictionary()


def _tool_gate(http: httpx.AsyncClient, size: int) -> asyncio.Semaphore:
    """The gate of the questions asked on `http` that allow `size` tool calls at once (those
    with another bound share another gate). A semaphore serves one event loop: a client used
    again under a new loop (a second `asyncio.run`) gets a new gate."""
    loop = asyncio.get_running_loop()
    gates = _GATES.setdefault(http, {})
    kept = gates.get(size)
    if kept is None or kept[0] is not loop:
        kept = gates[size] = (loop, asyncio.Semaphore(max(1, size)))
    return kept[1]


# --- admission control ---------------------------------------------------------------------------

Why = Literal["queue_full", "waited_too_long"]


class Busy(Exception):
    """A question refused by admission control; `why` says which limit refused it."""

    def __init__(self, why: Why) -> None:
        super().__init__(why)
        self.why = why


class Admission:
    """A semaphore with a bounded, time-limited wait queue; share one per process."""

    def __init__(
        self, max_in_flight: int = 32, max_waiting: int = 100, max_wait_s: float = 30.0
    ) -> None:
        if max_in_flight < 1 or max_waiting < 0 or max_wait_s < 0:
            raise ValueError("max_in_flight must be at least 1; the others not negative")
        self.max_in_flight = max_in_flight
        self.max_waiting = max_waiting
        self.max_wait_s = max_wait_s
        self._slots = asyncio.Semaphore(max_in_flight)
        self.in_flight = 0
        self.waiting = 0
        self.refused = 0

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold one of the slots for the question's run; `Busy` if none comes in time."""
        if self._slots.locked() or self.waiting:  # no free slot, or others are first in line
            if self.waiting >= self.max_waiting:
                raise self._refuse("queue_full")
            self.waiting += 1
            try:
                async with asyncio.timeout(self.max_wait_s):
                    await self._slots.acquire()
            except TimeoutError:
                raise self._refuse("waited_too_long") from None
            finally:
                self.waiting -= 1
        else:
            await self._slots.acquire()
        self.in_flight += 1
        try:
            yield
        finally:
            self.in_flight -= 1
            self._slots.release()

    def _refuse(self, why: Why) -> Busy:
        self.refused += 1
        log.warning(
            "agent.admission_refused",
            why=why,
            in_flight=self.in_flight,
            waiting=self.waiting,
            **BUSY.log_fields(),
        )
        return Busy(why)
