"""What a turn produces, and the bounds it runs within."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from agent.settings import DEFAULT_TURN_TIMEOUT_S
from errors import ErrorAction
from resilience import Attempt, Policy

if TYPE_CHECKING:
    from anthropic.types import ToolResultBlockParam

__all__ = ["TOOL_MARGIN_S", "Answer", "Limits"]

# The registry's bound on one tool call sits this far beyond the tools' own whole-call
# deadline, so it only ever cuts a tool built without the middleware (or one that ignores it).
TOOL_MARGIN_S = 10.0


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds that make every turn end in bounded time and model calls."""

    max_rounds: int = 6  # model calls that may lead to another (tool rounds, pauses, trims)
    max_repeats: int = 2  # times the same failing call (tool + input) is tolerated
    max_tokens: int = 1024
    tool_timeout_s: float | None = None  # one tool call, whatever the tool; None: see below
    turn_timeout_s: float | None = None  # the whole turn; None: AGENT_TURN_TIMEOUT's default
    max_tool_calls: int = 8  # tool calls one reply may run; the rest are answered "not run"
    max_concurrent_tools: int = 16  # tool calls running at once in one agent, across turns
    history_tokens: int = 20_000  # the history kept, at turn boundaries (oldest turns dropped)

    def tool_bound_s(self, policy: Policy | None = None) -> float:
        """One tool call's bound: `tool_timeout_s`, else the tools' whole-call deadline (of
        `policy`, or the default one) plus `TOOL_MARGIN_S`."""
        if self.tool_timeout_s is not None:
            return self.tool_timeout_s
        return (policy or Policy()).deadline_s + TOOL_MARGIN_S

    def turn_time_s(self) -> float:
        """The whole turn's time: `turn_timeout_s`, else `DEFAULT_TURN_TIMEOUT_S`."""
        return DEFAULT_TURN_TIMEOUT_S if self.turn_timeout_s is None else self.turn_timeout_s


@dataclass(frozen=True, slots=True)
class Answer:
    """The outcome of one turn.

    `answered` is false only when no answer could be produced (the model unreachable);
    a graceful "the weather service is down" answer counts as answered.
    `tool_results` are the `tool_result` blocks exactly as the model was told them;
    `attempts` the turn's timeline, model calls and tool calls alike.
    """

    text: str
    answered: bool = True
    model_calls: int = 0
    tool_results: list[ToolResultBlockParam] = field(default_factory=list)
    attempts: tuple[Attempt, ...] = ()
    stop_reason: str | None = None
    error: ErrorAction | None = None
    model: str | None = None  # the model that gave the answer (the fallback, if it did)
    history_trimmed: bool = False  # earlier turns were dropped to keep the history in bounds
