"""One round of tool calls: every tool call runs concurrently and gets one `tool_result`.

A call that already failed in this turn (same tool, same input) is not run again: the model
is told plainly not to repeat it (`REPEATED`), and past `max_repeats` the turn is wrapped up.
Each call is bounded (`timeout_s`, and what is left of the turn's deadline, enforced by
`Registry.dispatch`), whatever the tool: one built without the middleware cannot hang a turn.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import structlog

from agent import spans
from agent.models import ToolCall
from errors import Action, DeadlineExceeded, ErrorAction, classify
from resilience import Attempt, Deadline
from tools import Registry, ToolResult
from tools.registry import SOURCE

if TYPE_CHECKING:
    from anthropic.types import ToolResultBlockParam

__all__ = ["NOT_RUN", "REPEATED", "RoundResult", "ToolRound", "result_block"]

log = structlog.get_logger("agent")

# The round's own failures have no upstream error for errors/ to classify: fixed records with
# the same six fields, logged the same way (`log_fields`). Each user_message is one sentence.
NOT_RUN = ErrorAction(
    error_type="tool_not_run",
    user_message=(
        "This call was not run because the turn ended first; ask again if it is still needed."
    ),
    action=Action.SKIP,  # the turn is over: nothing to retry now, the next question may ask again
    action_detail="Answer without this result; the call may be made again in a later turn.",
    retryable=False,
    developer_note="a tool_use left in the turn's last reply was closed without being run",
)
REPEATED = ErrorAction(
    error_type="repeated_call",
    user_message=(
        "This exact call already failed earlier in this turn, so it was not run again; "
        "do not repeat it — answer with what you have or ask the user."
    ),
    action=Action.FIX_INPUT,  # the same input would fail the same way: change it or stop
    action_detail="Do not resend this tool call with the same input; answer from earlier results.",
    retryable=False,
    developer_note="the model repeated a tool call (same tool, same input) that already failed "
    "in this turn; not run",
)


def result_block(tool_use_id: str, content: str, *, is_error: bool) -> ToolResultBlockParam:
    """A `tool_result` block; on error its content is only a plain sentence."""
    block: ToolResultBlockParam = {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": content,
    }
    if is_error:
        block["is_error"] = True
    return block


@dataclass(frozen=True, slots=True)
class RoundResult:
    """What a round produced: one `tool_result` per call, in order, and every attempt made."""

    results: list[ToolResultBlockParam]
    attempts: tuple[Attempt, ...]


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
        self, uses: Sequence[ToolCall], *, deadline: Deadline | None = None
    ) -> RoundResult:
        """One `tool_result` per call, in the same order, with the attempts behind them; each
        call cut at `timeout_s` or at `deadline` (the turn's), whichever is first."""
        timeout = (
            self._timeout_s if deadline is None else min(self._timeout_s, deadline.remaining())
        )
        done = await asyncio.gather(*(self._one(use, timeout) for use in uses))
        attempts = tuple(attempt for _, result in done for attempt in result)
        return RoundResult([block for block, _ in done], attempts)

    async def _one(
        self, use: ToolCall, timeout_s: float
    ) -> tuple[ToolResultBlockParam, tuple[Attempt, ...]]:
        with (
            structlog.contextvars.bound_contextvars(tool_use_id=use.id, tool=use.name[:80]),
            spans.tool(use, known=use.name in self._registry) as span,
        ):
            key = (use.name, json.dumps(use.input, sort_keys=True, default=str))
            if self._failures[key]:
                spans.tool_done(span, REPEATED)
                return self._repeated(use.id, key), ()
            result = await self._dispatch(use.name, use.input, timeout_s)
            spans.tool_done(span, result)
            return self._settle(use.id, key, result), result.attempts

    async def _dispatch(self, name: str, tool_input: object, timeout_s: float) -> ToolResult:
        """The registry's result, bounded by `timeout_s` (the registry's job, not ours),
        once the agent's gate lets the call through (the wait counts against `timeout_s`)."""
        if self._gate is None:
            return await self._dispatch_now(name, tool_input, timeout_s)
        loop = asyncio.get_running_loop()
        until = loop.time() + timeout_s
        try:
            async with asyncio.timeout_at(until):
                await self._gate.acquire()
        except TimeoutError:
            late = DeadlineExceeded("no tool slot came free before the turn's time ran out")
            return self._failed(name, late, "tool.timed_out", "waiting for a free tool slot")
        try:
            return await self._dispatch_now(name, tool_input, max(0.0, until - loop.time()))
        finally:
            self._gate.release()

    async def _dispatch_now(self, name: str, tool_input: object, timeout_s: float) -> ToolResult:
        try:
            return await self._registry.dispatch(name, tool_input, timeout_s=timeout_s)
        except Exception as exc:  # the registry never raises; should it, still answer the call
            return self._failed(name, exc, "tool.crashed", "running a tool")

    def _failed(self, name: str, error: Exception, event: str, activity: str) -> ToolResult:
        """A call settled here, outside the registry: classified, logged once, one attempt."""
        result = classify(error, activity).result
        log.error(event, source=SOURCE, **result.log_fields())
        attempt = Attempt(name[:80], SOURCE, 1, 0.0, result.error_type, result.action.value)
        return ToolResult.failed(result, (attempt,))

    def _settle(
        self, tool_use_id: str, key: tuple[str, str], result: ToolResult
    ) -> ToolResultBlockParam:
        content = result.content  # on error, only the error-to-action sentence
        if result.is_error:
            self._failures[key] += 1
        error_type = result.error.error_type if result.error else None
        log.info("agent.tool_result", is_error=result.is_error, error_type=error_type)
        return result_block(tool_use_id, content, is_error=result.is_error)

    def _repeated(self, tool_use_id: str, key: tuple[str, str]) -> ToolResultBlockParam:
        self._failures[key] += 1
        log.warning("agent.repeated_call", repeats=self._failures[key], **REPEATED.log_fields())
        return result_block(tool_use_id, REPEATED.user_message, is_error=True)
