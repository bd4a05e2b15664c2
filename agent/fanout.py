"""Bounded fan-out: how many of one reply's tool calls run, and what the rest are told.

A reply may ask for any number of tool calls; at most `Limits.max_tool_calls` of them run
(the first ones, in order). Every other call still gets its `tool_result`: an `is_error`
sentence saying it was not run and why, so the next request is valid and the model knows
to ask for fewer.

Tool-use ids must be unique, and the API wants exactly one `tool_result` per `tool_use`: a
reply that repeats an id cannot be answered as it came. Which of the calls sharing an id was
meant is unknowable, so none of them runs: the history keeps only the first block with that
id, and it is answered with a refusal (`DUPLICATE_ID`); the later blocks are dropped from
the kept message. The next request is valid whatever the reply held.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import structlog

from agent.models import Reply, ToolCall
from agent.tool_round import result_block
from errors import Action, ErrorAction

if TYPE_CHECKING:
    from anthropic.types import ToolResultBlockParam

__all__ = ["DUPLICATE_ID", "FanOut", "plan_calls", "too_many", "unique_ids"]

log = structlog.get_logger("agent")

DUPLICATE_ID = ErrorAction(
    error_type="duplicate_call_id",
    user_message=(
        "This call was not run because another call in the same reply had the same id; "
        "make it again on its own if it is still needed."
    ),
    action=Action.FIX_INPUT,  # the same reply would be refused the same way
    action_detail="Do not reuse a tool_use id within one reply; repeat the call with a new id.",
    retryable=False,
    developer_note="a reply repeated a tool_use id; none of those calls was run, the first is "
    "kept in the history with this result and the later ones are dropped",
)


def too_many(limit: int) -> ErrorAction:
    """The record of a call past the per-reply cap of `limit` calls."""
    return ErrorAction(
        error_type="too_many_calls",
        user_message=(
            f"This call was not run because one reply may run at most {limit} tool calls at "
            "once; ask for fewer at a time, the most important first."
        ),
        action=Action.FIX_INPUT,  # the same reply would be capped the same way
        action_detail=f"Split the work: at most {limit} tool calls per reply.",
        retryable=False,
        developer_note=f"a reply asked for more than {limit} tool calls; the rest were not run",
    )


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
        blocks = []
        for call in self.reply.tool_calls:
            refusal = self.refused.get(call.id)
            if refusal is None:
                blocks.append(by_id[call.id])
            else:
                blocks.append(result_block(call.id, refusal.user_message, is_error=True))
        return blocks


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
        asked = len(reply.tool_calls)
        log.warning(
            "agent.fanout_capped",
            asked=asked,
            run=len(run),
            not_run=len(over),
            **record.log_fields(),
        )
    return FanOut(kept, tuple(run), refused)
