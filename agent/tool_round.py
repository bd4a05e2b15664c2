"""One round of tool calls: which of a reply's calls run, each concurrently, one result each.

Fan-out is bounded: at most `Limits.max_tool_calls` of a reply's calls run (the first ones, in
order); every other call still gets its `tool_result`, an `is_error` sentence saying it was not
run and why, so the next request is valid and the model knows to ask for fewer. Tool-use ids
must be unique, and the API wants exactly one `tool_result` per `tool_use`: which of the calls
sharing an id was meant is unknowable, so none of them runs; the history keeps only the first
block with that id, answered with a refusal (`DUPLICATE_ID`), and drops the later ones.

A call that already failed in this turn (same tool, same input) is not run again: the model is
told plainly not to repeat it (`REPEATED`), and past `max_repeats` the turn is wrapped up. Each
call is bounded (`timeout_s`, and what is left of the turn's deadline, enforced by
`Registry.dispatch`), whatever the tool: one built without the middleware cannot hang a turn.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import structlog

from agent.conversation import to_model
from agent.models import Reply, ToolCall
from agent.records import DUPLICATE_ID, REPEATED, too_many
from errors import DeadlineExceeded, ErrorAction, classify
from resilience import Deadline, Event, tracing
from tools import Registry, ToolResult
from tools.registry import SOURCE

if TYPE_CHECKING:
    from anthropic.types import ToolResultBlockParam

__all__ = ["FanOut", "ToolRound", "plan_calls", "result_block", "unique_ids"]

log = structlog.get_logger("agent")


# --- which calls of a reply run -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FanOut:
    """One reply's calls, sorted: the reply to keep, the calls to run, the calls refused."""

    reply: Reply  # as the history keeps it: one block per tool_use id
    run: tuple[ToolCall, ...]  # at most the cap, in order
    refused: dict[str, ErrorAction]  # tool_use id → why it was not run

    def results(self, ran: Sequence[ToolResultBlockParam]) -> list[ToolResultBlockParam]:
        """One `tool_result` per kept `tool_use`, in the reply's order: the results of the
        calls that ran (`ran`, in `run`'s order) and the refusals."""
        by_id = {call.id: block for call, block in zip(self.run, ran, strict=True)}
        for tool_use_id, refusal in self.refused.items():
            by_id[tool_use_id] = result_block(tool_use_id, refusal.user_message, is_error=True)
        return [by_id[call.id] for call in self.reply.tool_calls]


def unique_ids(reply: Reply) -> tuple[Reply, frozenset[str]]:
    """`reply` with every tool_use id kept once (its first block), and the ids repeated."""
    counts = Counter(call.id for call in reply.tool_calls)
    repeated = frozenset(tool_id for tool_id, count in counts.items() if count > 1)
    if not repeated:
        return reply, repeated
    seen: set[str] = set()
    content = []
    for block in reply.content:
        if isinstance(block, ToolCall):
            if block.id in seen:
                continue
            seen.add(block.id)
        content.append(block)
    return dataclasses.replace(reply, content=tuple(content)), repeated


def plan_calls(reply: Reply, limit: int) -> FanOut:
    """Sort `reply`'s tool calls: repeated ids refused, then the first `limit` to run, the rest
    refused as too many. Logged once per kind of refusal."""
    kept, repeated = unique_ids(reply)
    refused: dict[str, ErrorAction] = dict.fromkeys(repeated, DUPLICATE_ID)
    candidates = [call for call in kept.tool_calls if call.id not in repeated]
    run, over = candidates[:limit], candidates[limit:]
    if repeated:
        fields = DUPLICATE_ID.log_fields()
        log.warning("agent.duplicate_call_ids", ids=sorted(repeated)[:20], **fields)
    if over:
        record = too_many(limit)
        refused.update(dict.fromkeys((call.id for call in over), record))
        log.warning(
            "agent.fanout_capped",
            asked=len(reply.tool_calls),
            run=len(run),
            not_run=len(over),
            **record.log_fields(),
        )
    return FanOut(kept, tuple(run), refused)


# --- running them -------------------------------------------------------------------------------


def _trace(span: tracing.Span, result: ToolResult) -> None:
    """A tool call's outcome on its span: an error the model was told (status ERROR), a
    degraded answer (no source answered, and the tool said so honestly), or an answer."""
    if not span.recording:
        return
    if result.is_error and result.error is not None:
        span.fail(result.error)
        return
    answered = any(a.outcome == "ok" for a in result.attempts)
    span.set({"resilience.degraded": bool(result.attempts) and not answered})
    if tracing.capture_content():
        span.set({"gen_ai.tool.call.result": result.content})


def result_block(
    tool_use_id: str, content: str, *, is_error: bool, source: str = ""
) -> ToolResultBlockParam:
    """A `tool_result` block, its content across `to_model` (as data from `source`, when a
    tool from outside the project answered); on error only a plain sentence of ours."""
    block: ToolResultBlockParam = {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": to_model(content, source="" if is_error else source),
    }
    if is_error:
        block["is_error"] = True
    return block


class ToolRound:
    """Runs tool calls for one turn, remembering which calls failed."""

    def __init__(
        self,
        registry: Registry,
        *,
        max_repeats: int,
        timeout_s: float,
        gate: asyncio.Semaphore | None = None,
    ) -> None:
        self._registry = registry
        self._max_repeats = max_repeats
        self._timeout_s = timeout_s
        self._gate = gate  # the agent's bound on tool calls running at once, if any
        self._failures: Counter[tuple[str, str]] = Counter()

    @property
    def stuck(self) -> bool:
        """True once some failing call was repeated more often than tolerated."""
        return any(count > self._max_repeats for count in self._failures.values())

    async def run(
        self, uses: Sequence[ToolCall], timeline: list[Event], *, deadline: Deadline | None = None
    ) -> list[ToolResultBlockParam]:
        """One `tool_result` per call, in the same order, the attempts behind them added to
        `timeline`; each call cut at `timeout_s` or at `deadline` (the turn's), whichever is
        first."""
        timeout = (
            self._timeout_s if deadline is None else min(self._timeout_s, deadline.remaining())
        )
        done = await asyncio.gather(*(self._one(use, timeout) for use in uses))
        timeline.extend(attempt for _, attempts in done for attempt in attempts)
        return [block for block, _ in done]

    async def _one(
        self, use: ToolCall, timeout_s: float
    ) -> tuple[ToolResultBlockParam, tuple[Event, ...]]:
        # A span `execute_tool {name}` (OpenTelemetry's GenAI conventions), its input withheld
        # from developer notes; a name the agent has no tool for is the model's own text: it
        # shows as "unknown" unless content is captured.
        content = tracing.capture_content()
        name = use.name[:80] if use.name in self._registry or content else "unknown"
        attributes: tracing.Attributes = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.call.id": use.id,
            "gen_ai.tool.type": "function",
            "gen_ai.tool.call.arguments": tracing.as_json(use.input) if content else None,
        }
        with (
            structlog.contextvars.bound_contextvars(tool_use_id=use.id, tool=use.name[:80]),
            tracing.span(f"execute_tool {name}", attributes=attributes) as span,
            tracing.withheld(*tracing.strings(use.input)),
        ):
            key = (use.name, json.dumps(use.input, sort_keys=True, default=str))
            if self._failures[key]:
                span.fail(REPEATED)
                self._failures[key] += 1
                log.warning(
                    "agent.repeated_call", repeats=self._failures[key], **REPEATED.log_fields()
                )
                return result_block(use.id, REPEATED.user_message, is_error=True), ()
            result = await self._dispatch(use.name, use.input, timeout_s)
            _trace(span, result)
            if result.is_error:
                self._failures[key] += 1
            error_type = result.error.error_type if result.error else None
            log.info("agent.tool_result", is_error=result.is_error, error_type=error_type)
            # On error, the content is only the error-to-action sentence.
            source = self._registry.source_of(use.name)
            block = result_block(use.id, result.content, is_error=result.is_error, source=source)
            return block, result.attempts

    async def _dispatch(self, name: str, tool_input: object, timeout_s: float) -> ToolResult:
        """The registry's result, bounded by `timeout_s` (the registry's job, not ours),
        once the agent's gate lets the call through (the wait counts against `timeout_s`)."""
        if self._gate is not None:
            loop = asyncio.get_running_loop()
            until = loop.time() + timeout_s
            try:
                async with asyncio.timeout_at(until):
                    await self._gate.acquire()
            except TimeoutError:
                late = DeadlineExceeded("no tool slot came free before the turn's time ran out")
                return self._failed(name, late, "tool.timed_out", "waiting for a free tool slot")
            timeout_s = max(0.0, until - loop.time())
        try:
            return await self._registry.dispatch(name, tool_input, timeout_s=timeout_s)
        except Exception as exc:  # the registry never raises; should it, still answer the call
            return self._failed(name, exc, "tool.crashed", "running a tool")
        finally:
            if self._gate is not None:
                self._gate.release()

    def _failed(self, name: str, error: Exception, event: str, activity: str) -> ToolResult:
        """A call settled here, outside the registry: classified, logged once, one attempt."""
        result = classify(error, activity).result
        log.error(event, source=SOURCE, **result.log_fields())
        attempt = Event("failed", name[:80], SOURCE, 1, 0.0, result.error_type, result.action.value)
        return ToolResult.failed(result, (attempt,))
