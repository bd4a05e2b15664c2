"""Models, as the loop sees them: one `ModelRequest` in, one `Reply` out, through the engine.

The seam: a `ModelBackend` is Claude over HTTP (`agent/claude.py`), the offline scripted
model, or a fault-injecting wrapper; it answers with the agent's own light `Reply` types, so
offline mode never imports the anthropic SDK. Every block is kept as the API sent it and goes
back unchanged in the next request (`to_param`): text with its citations, tool calls,
thinking with its signature, server tools' blocks, and any field this SDK version does not
know. What a person is shown of several text blocks is `Reply.text`.

The call: `ModelCaller` makes each model a source of the resilience engine, so its failures
are classified by error-to-action and retried within `MODEL_POLICY` (more patient than a
tool's: a turn without the model has no answer), and a model that stays overloaded or
unreachable hands over to the next one (`AGENT_FALLBACK_MODEL`). The timeline and the log
name the model each attempt went to. When no model answers, `ModelUnavailable` carries one
plain sentence for the person.

Each attempt is bounded twice, here, for every model: in all (`attempt_s`,
AGENT_MODEL_TIMEOUT), and by its progress (`stall_s`, AGENT_MODEL_STALL_TIMEOUT): a model
that reports progress (`ModelRequest.on_progress`: Claude does, for each event that brings
something new) and then reports none for `stall_s` is cut, so a stream of pings, of blank
deltas or of bytes that never complete an event ends in seconds, not at the attempt's end.
A live answer reports progress with every word and is never cut by it. The engine's own cut
of an attempt stays as a backstop, a moment later. Text a person has already seen is never
asked for again silently: an attempt cut after it showed text ends the call with what it
showed (`CUT_OFF`, which the turn marks with one plain sentence), and a retry after any
other failure that broke an answer off is announced on a line of its own first.

Importing the anthropic SDK takes a second or more, so `DeferredModels` stands in for the
Claude models while it loads on a thread of its own: `agent chat` shows its prompt at once,
and the first model call waits for the import (without blocking the event loop, so Ctrl-C
still cancels) — before its first attempt, so loading never spends an attempt's time.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import importlib
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from itertools import groupby
from typing import TYPE_CHECKING, Any, Literal, Protocol, cast

import structlog

from agent.records import ASKED_AGAIN
from agent.settings import DEFAULT_MODEL_STALL_S
from errors import ErrorAction, ErrorType, InvalidInput
from resilience import (
    AttemptInfo,
    Deadline,
    Engine,
    Event,
    Listener,
    Outcome,
    Policy,
    Source,
    tracing,
)

if TYPE_CHECKING:
    from anthropic.types import (
        ContentBlockParam,
        MessageParam,
        TextBlockParam,
        ToolChoiceParam,
        ToolParam,
        ToolUseBlockParam,
    )

__all__ = [
    "BACKSTOP_S",
    "CUT_OFF",
    "KEY_PROBLEMS",
    "MODEL_POLICY",
    "PARAGRAPH",
    "Block",
    "DeferredModels",
    "ModelBackend",
    "ModelCaller",
    "ModelRequest",
    "ModelUnavailable",
    "OtherBlock",
    "Paragraphs",
    "Progress",
    "PromptTooLong",
    "Reply",
    "Text",
    "TextSink",
    "ToolCall",
    "Usage",
    "model_policy",
    "provider",
    "response_attributes",
]


log = structlog.get_logger("agent")


# --- a reply, in the agent's own light types ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class Text:
    """Text the model said; `raw`, the block as the API sent it (its `citations`, any field
    this version does not know), goes back with it."""

    text: str
    type: Literal["text"] = "text"
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def to_param(self) -> TextBlockParam:
        """The block as the Messages API takes it back: as it came, every field kept."""
        return cast("TextBlockParam", {**self.raw, "type": "text", "text": self.text})


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A `tool_use` block: the model asks for `name` with `input` (`raw`: as for `Text`)."""

    id: str
    name: str
    input: Mapping[str, Any]
    type: Literal["tool_use"] = "tool_use"
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def to_param(self) -> ToolUseBlockParam:
        """The block as the Messages API takes it back: as it came, every field kept."""
        fields = {"type": "tool_use", "id": self.id, "name": self.name, "input": dict(self.input)}
        return cast("ToolUseBlockParam", {**self.raw, **fields})


@dataclass(frozen=True, slots=True)
class OtherBlock:
    """Any other block (thinking, server tool use, …), kept exactly as the API sent it."""

    type: str
    raw: Mapping[str, Any] = field(default_factory=dict)

    def to_param(self) -> ContentBlockParam:
        """The block as it came."""
        return cast("ContentBlockParam", dict(self.raw))


Block = Text | ToolCall | OtherBlock


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens the call used, as the API counted them."""

    input_tokens: int = 0
    output_tokens: int = 0


@dataclass(frozen=True, slots=True)
class Reply:
    """One model answer."""

    content: tuple[Block, ...]
    stop_reason: str | None
    model: str = ""  # the model that answered
    usage: Usage = Usage()
    refusal: str | None = None  # why, when stop_reason is "refusal" and the API said
    id: str = ""
    # Read once, when the reply is made: the `tool_use` blocks, in order, and every block as
    # the Messages API takes it back (for the history).
    tool_calls: tuple[ToolCall, ...] = field(init=False, repr=False, compare=False)
    params: tuple[ContentBlockParam, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:  # frozen: each set here, once
        calls = tuple(block for block in self.content if isinstance(block, ToolCall))
        object.__setattr__(self, "tool_calls", calls)
        object.__setattr__(self, "params", tuple(block.to_param() for block in self.content))

    @property
    def text(self) -> str:
        """The text as a person reads it: text blocks in a row joined as they are (the API
        splits a sentence where a citation starts), runs of text that other blocks separate
        set apart by `PARAGRAPH`, as pydantic-ai's `ModelResponse.text` does (the SDK's
        `get_final_text` joins them with nothing: "…a few searches:Now let me look…"); each
        run stripped."""
        runs = groupby(self.content, key=lambda block: isinstance(block, Text))
        texts = (
            "".join(b.text for b in run if isinstance(b, Text)) for is_text, run in runs if is_text
        )
        return PARAGRAPH.join(text.strip() for text in texts if text.strip())


# --- the seam: one request in, one reply out ----------------------------------------------------

TextSink = Callable[[str], None]
Progress = Callable[[], None]
# The stop reason of an answer kept in part: its attempt was cut after it had shown text.
CUT_OFF = "cut_off"


# Between runs of text that other blocks (a web search, a tool call, thinking) separate.
PARAGRAPH = "\n\n"


class Paragraphs:
    """Streamed text to `sink`, laid out as `Reply.text` lays it out: told where each content
    block starts (`block`), it sends `PARAGRAPH` before text that follows another block.
    `after_text`: text was shown before this stream began (the turn a paused reply left)."""

    def __init__(self, sink: TextSink, *, after_text: bool = False) -> None:
        self._sink = sink
        self._shown = after_text  # some text was sent
        self._apart = after_text  # and another block has begun since

    def block(self, kind: str) -> None:
        """A content block of type `kind` begins."""
        if kind != "text":
            self._apart = self._shown

    def text(self, text: str) -> None:
        """Text of the current block."""
        if not text:
            return
        if self._apart:
            self._sink(PARAGRAPH)
            self._apart = False
        self._sink(text)
        self._shown = True


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """Everything one Messages API call needs; `on_text` receives text as it streams, and
    `on_progress` is called whenever the answer brings something new (see `ModelCaller`)."""

    messages: Sequence[MessageParam]
    tools: Sequence[ToolParam] = ()
    system: str = ""
    max_tokens: int = 1024
    tool_choice: ToolChoiceParam | None = None
    on_text: TextSink | None = field(default=None, compare=False)
    on_progress: Progress | None = field(default=None, compare=False)


class PromptTooLong(InvalidInput):
    """The messages no longer fit in the model's context window; `reason` is for the log only.

    An `InvalidInput` (fix_input, never resent as is, no fallback model asked): the loop drops
    earlier turns and asks once more, and says so plainly when there is nothing left to drop.
    """

    def __init__(self, detail: str) -> None:
        super().__init__(
            "conversation", "is too long for the model to read", "ask a shorter question"
        )
        self.reason = f"context window exceeded; the API said: {detail}"  # for the log only


class ModelBackend(Protocol):
    """A model: Claude over HTTP, the offline scripted model, or a fault-injecting wrapper.

    `create` raises on failure: the SDK's own exceptions, or ours where the SDK's would
    mislead (`errors.BadUpstreamData` for an answer that is not a whole message,
    `PromptTooLong`); the engine classifies and retries. A model that calls
    `request.on_progress` (when the request goes out, and for everything new it receives) is
    cut once it stops calling it for the no-progress window; one that never calls it is
    bounded by the attempt's limit alone.
    """

    name: str  # the model's id, as the timeline and the log show it ("claude-sonnet-4-6")

    async def create(self, request: ModelRequest) -> Reply:
        """One model call."""

    async def aclose(self) -> None:
        """Release connections."""


# --- models whose SDK loads on a thread of its own ----------------------------------------------


class DeferredModels:
    """Stand-ins for the models `build` makes once `module` is imported (in the background)."""

    def __init__(
        self, names: Sequence[str], build: Callable[[], list[ModelBackend]], module: str
    ) -> None:
        self._build = build
        self._module = module
        self._loaded: Future[None] | None = None
        self._built: list[ModelBackend] | None = None
        self.models: list[ModelBackend] = [
            _Deferred(self, index, name) for index, name in enumerate(names)
        ]

    def start(self) -> Future[None]:
        """Begin the import on a thread of its own (once); the future that completes when the
        import ends."""
        if self._loaded is not None:
            return self._loaded
        loaded: Future[None] = Future()
        loaded.set_running_or_notify_cancel()  # running: a cancelled waiter cannot cancel it
        self._loaded = loaded

        def load() -> None:
            try:
                importlib.import_module(self._module)
            except BaseException as exc:  # handed to the first model call, which raises it
                loaded.set_exception(exc)
            else:
                loaded.set_result(None)

        threading.Thread(target=load, name=f"import {self._module}").start()
        return loaded

    async def model(self, index: int) -> ModelBackend:
        """The real model at `index`, built (all of them) on first use."""
        if self._built is None:
            await asyncio.shield(asyncio.wrap_future(self.start()))  # Ctrl-C cancels the wait only
            if self._built is None:  # a concurrent first call may have built them meanwhile
                self._built = self._build()
        return self._built[index]

    async def aclose(self, index: int) -> None:
        if self._built is not None:
            await self._built[index].aclose()


class _Deferred:
    """One model, as the caller sees it before the SDK is loaded."""

    def __init__(self, models: DeferredModels, index: int, name: str) -> None:
        self._models = models
        self._index = index
        self.name = name

    async def ready(self) -> None:
        """Wait until the real model is built; a failed import is left for `create` to raise,
        inside an attempt, where error-to-action classifies it."""
        with contextlib.suppress(Exception):
            await self._models.model(self._index)

    async def create(self, request: ModelRequest) -> Reply:
        return await (await self._models.model(self._index)).create(request)

    async def aclose(self) -> None:
        await self._models.aclose(self._index)


# --- calling the models through the engine ------------------------------------------------------

# More patient than a tool. The breaker works only with a fallback model (`ModelCaller` turns
# it off for one): after repeated failures the primary is skipped for a while and the
# fallback answers at once; skipping the only model would just refuse sooner.
MODEL_POLICY = Policy(
    max_wait_s=30.0,
    deadline_s=300.0,
    attempt_timeout_s=120.0,
    base_backoff_s=1.0,
    max_backoff_s=8.0,
    max_attempts=3,
    breaker_threshold=3,
    breaker_cooldown_s=60.0,
)


def model_policy(
    tools_policy: Policy | None = None,
    *,
    attempt_timeout_s: float | None = None,
    requests_per_minute: float = 0.0,
) -> Policy:
    """`MODEL_POLICY`, on the tools policy's sleep, clock, jitter and state (where breakers
    and budgets live) when given, with `attempt_timeout_s` (AGENT_MODEL_TIMEOUT: one attempt,
    streaming included) when given, paced at `requests_per_minute` (AGENT_MODEL_RPM)."""
    changes: dict[str, Any] = {"requests_per_minute": requests_per_minute}
    if tools_policy is not None:
        shared = ("sleep", "clock", "rand", "state")
        changes.update({name: getattr(tools_policy, name) for name in shared})
    if attempt_timeout_s is not None:
        changes["attempt_timeout_s"] = attempt_timeout_s
    return dataclasses.replace(MODEL_POLICY, **changes)


KEY_PROBLEMS = {  # a key that is missing, wrong or expired: the person fixes the setup
    ErrorType.AUTH_INVALID_CREDENTIALS,
    ErrorType.AUTH_MISSING_KEY,
    ErrorType.AUTH_TOKEN_EXPIRED,
}
_KEY_SENTENCE = (
    "Claude did not accept the API key; set a valid ANTHROPIC_API_KEY "
    "(or run with --offline) and try again."
)
# Built from our own words only: a 404 body may echo anything.
_MODEL_SENTENCE = (
    "Claude has no model by the name given; check --model or AGENT_MODEL "
    "(and ANTHROPIC_BASE_URL, if set) and try again."
)


# No connection could be opened (refused, no such host): what to check, where it is set.
_UNREACHABLE_AT_BASE_URL = (
    "Claude could not be reached at the address in ANTHROPIC_BASE_URL; check that it is "
    "right and that the server there is running, then try again."
)
_UNREACHABLE = (
    "Claude could not be reached; check your network connection (and any proxy settings), "
    "then try again."
)


class ModelUnavailable(Exception):
    """No model answered within the bounds; `sentence` is safe to show a person.

    `unreachable`: no connection to the model could even be opened (refused, DNS);
    `base_url`: the ANTHROPIC_BASE_URL in use, if one is set (it is not repeated: it may
    hold credentials)."""

    def __init__(
        self, result: ErrorAction, *, unreachable: bool = False, base_url: str | None = None
    ) -> None:
        super().__init__(result.error_type)
        self.result = result
        self.sentence = _sentence(result, unreachable=unreachable, base_url=base_url)


def _sentence(result: ErrorAction, *, unreachable: bool, base_url: str | None) -> str:
    """The user's fix where the setup is wrong (the key, the model id, the address), else
    the verdict's."""
    if result.error_type in KEY_PROBLEMS:
        return _KEY_SENTENCE
    if result.error_type == ErrorType.NOT_FOUND:
        return _MODEL_SENTENCE
    if unreachable:
        return _UNREACHABLE_AT_BASE_URL if base_url else _UNREACHABLE
    return result.user_message


# The engine cuts a model attempt this long after the attempt's own limit: only a backstop,
# since the attempt ends itself first and so can keep what it has shown.
BACKSTOP_S = 1.0


class ModelCaller:
    """Asks the models in order, through one engine (its breakers live as long as it does);
    each attempt bounded in all (the policy's `attempt_timeout_s`) and by its progress
    (`stall_s`)."""

    def __init__(
        self,
        models: ModelBackend | Sequence[ModelBackend],
        policy: Policy | None = None,
        listener: Listener | None = None,
        *,
        base_url: str | None = None,
        stall_s: float = DEFAULT_MODEL_STALL_S,
    ) -> None:
        """`base_url`: ANTHROPIC_BASE_URL, if set, for the sentence when it can't be reached;
        `stall_s`: how long an attempt may go without progress (AGENT_MODEL_STALL_TIMEOUT)."""
        self.models = tuple(models) if isinstance(models, Sequence) else (models,)
        self.base_url = base_url
        policy = policy or MODEL_POLICY
        if len(self.models) == 1:
            policy = dataclasses.replace(policy, breaker_threshold=0)
        self.attempt_s = policy.attempt_timeout_s  # one attempt in all (AGENT_MODEL_TIMEOUT)
        self.stall_s = stall_s
        backstop = dataclasses.replace(policy, attempt_timeout_s=self.attempt_s + BACKSTOP_S)
        self.engine = Engine("model", backstop, listener, kind="model")

    @property
    def name(self) -> str:
        """The primary model's name."""
        return self.models[0].name

    async def create(
        self, request: ModelRequest, timeline: list[Event], *, deadline: Deadline | None = None
    ) -> Reply:
        """One reply, or `ModelUnavailable` once no model is worth asking again."""
        await _loaded(self.models, deadline)
        call = _Call(request, self.attempt_s, self.stall_s)
        sources = [
            Source(model.name, functools.partial(call.attempt, model)) for model in self.models
        ]
        attributes: tracing.Attributes = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": provider(self.name),
            "gen_ai.request.model": self.name,
            "gen_ai.request.max_tokens": request.max_tokens,
        }
        with tracing.span(f"chat {self.name}", kind="client", attributes=attributes) as span:
            claude = self.name.startswith("claude")
            operation = "asking Claude for an answer" if claude else "asking the model"
            outcome = await self.engine.run(operation, sources, deadline=deadline)
            timeline.extend(outcome.attempts)
            if outcome.answered and outcome.value is not None:
                reply = outcome.value
                model = reply.model or outcome.source
                span.set(response_attributes(model, reply.stop_reason, reply.usage))
                span.set({"gen_ai.response.id": reply.id or None})
                return reply
            unavailable = _unavailable(outcome, self.base_url)
            span.fail(unavailable.result)
        raise unavailable from outcome.error

    async def aclose(self) -> None:
        """Close every model."""
        for model in self.models:
            await model.aclose()


async def _loaded(models: Sequence[ModelBackend], deadline: Deadline | None) -> None:
    """Wait for any model whose SDK is still loading (`DeferredModels`) before the
    first attempt: loading is not asking, so it spends no attempt's time, only the turn's (a
    load still going when that runs out is left to the engine, which reports the deadline)."""
    waits = [model.ready() for model in models if isinstance(model, _Deferred)]
    if not waits:
        return
    limit = None if deadline is None else max(0.0, deadline.remaining())
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(limit):
            await asyncio.gather(*waits)


def provider(model: str) -> str:
    """`gen_ai.provider.name`: "anthropic" for Claude, else the (offline) model's own name."""
    return "anthropic" if model.startswith("claude") else model


def response_attributes(
    model: str | None, stop_reason: str | None, usage: Usage
) -> tracing.Attributes:
    """A chat's or a turn's answer on its span, without its text: the model, the stop reason,
    the tokens (when the model counted any: the offline scripted model does not)."""
    counted = bool(usage.input_tokens or usage.output_tokens)
    return {
        "gen_ai.response.model": model,
        "gen_ai.response.finish_reasons": [stop_reason] if stop_reason else None,
        "gen_ai.usage.input_tokens": usage.input_tokens if counted else None,
        "gen_ai.usage.output_tokens": usage.output_tokens if counted else None,
    }


def _unavailable(outcome: Outcome[Reply], base_url: str | None) -> ModelUnavailable:
    if outcome.fix is not None:  # the request itself is wrong (e.g. the prompt is too long)
        return ModelUnavailable(outcome.fix.result)
    failure = outcome.failure
    assert failure is not None  # no answer and nothing to fix: something failed
    unreachable = failure.kind.error_type is ErrorType.NETWORK and failure.facts.connect_phase
    return ModelUnavailable(failure.result, unreachable=unreachable, base_url=base_url)


@dataclass(slots=True)
class _Call:
    """One call to the models: its request, the bounds of each attempt, and what its attempts
    have shown so far."""

    request: ModelRequest
    attempt_s: float  # one attempt in all
    stall_s: float  # one attempt without progress
    broke_off: bool = False  # an attempt failed after showing text: say so before the next

    async def attempt(self, model: ModelBackend, _info: AttemptInfo) -> Reply:
        """One attempt of `model` (its fetch, as a source), bounded in all and by its
        progress, its text passed on through a line watch."""
        on_text = self.request.on_text
        if self.broke_off and on_text is not None:
            on_text(f"{ASKED_AGAIN}\n")  # the text shown will come again: say why
            self.broke_off = False
        watch = _LineWatch(on_text)
        whole, idle = asyncio.timeout(self.attempt_s), asyncio.timeout(None)

        def progress() -> None:
            """Something new came (or the request went out): the no-progress window starts
            again (the first report arms it)."""
            if not idle.expired():
                with contextlib.suppress(RuntimeError):  # the attempt has ended
                    idle.reschedule(asyncio.get_running_loop().time() + self.stall_s)

        asking = dataclasses.replace(self.request, on_text=watch.sink, on_progress=progress)
        try:
            async with whole, idle:
                return await model.create(asking)
        except TimeoutError:
            stalled = idle.expired()
            if not (stalled or whole.expired()):  # the model's own timeout, not a bound of ours
                self.broke_off = watch.close_line()
                raise
            why = (
                f"nothing new came for {self.stall_s:g} s"
                if stalled
                else f"the {self.attempt_s:g} s limit"
            )
            if watch.said:  # read already: kept as the answer, never asked for again in full
                return watch.cut_off(model.name, why)
            watch.close_line()
            raise TimeoutError(f"{model.name} gave no complete answer ({why})") from None
        except BaseException:
            self.broke_off = watch.close_line()
            raise


class _LineWatch:
    """Passes streamed text on, keeping what it passed (to keep an answer cut off, and to know
    whether it left a line open)."""

    def __init__(self, on_text: TextSink | None) -> None:
        self.on_text = on_text
        self.shown: list[str] = []  # every piece passed on that was not empty
        self.sink: TextSink | None = None if on_text is None else self._pass

    @property
    def said(self) -> bool:
        """Whether a person has seen text of this attempt (more than blank space)."""
        return any(piece.strip() for piece in self.shown)

    def _pass(self, text: str) -> None:
        if text:
            self.shown.append(text)
        if self.on_text is not None:
            self.on_text(text)

    def close_line(self) -> bool:
        """After a failed attempt: "Let me" + retry reads "Let me\\nAll good.", not "Let meAll".
        Whether the attempt had shown text."""
        if self.on_text is not None and self.shown and not self.shown[-1].endswith("\n"):
            self._pass("\n")
        return self.said

    def cut_off(self, model: str, why: str) -> Reply:
        """The answer as far as it was shown, as a reply that says it was cut off."""
        text = "".join(self.shown)
        log.warning("model.answer_cut", source=model, why=why, chars=len(text))
        return Reply((Text(text),), CUT_OFF, model=model)
