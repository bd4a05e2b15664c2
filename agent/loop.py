"""The tool_use loop: one turn of question → model ⇄ tools → answer, within bounds.

Stop reasons: `tool_use` runs every tool call and asks again; `pause_turn` sends the turn back
as it is, running any tool calls in it first (every `tool_use` gets its `tool_result`);
`max_tokens` says the answer was cut short; `refusal` passes the refusal on;
`model_context_window_exceeded`, like a 400 "prompt is too long", drops earlier turns and asks
again, or says so. Past `max_rounds`, or once the model keeps repeating a failing call, the
model is asked once more with tools switched off; if even that does not give an answer, the
agent phrases one itself. A reply with no text at all is no answer: the turn ends unanswered.

A turn has a deadline (`Limits.turn_timeout_s`, AGENT_TURN_TIMEOUT): every model call runs
within it and every tool round is cut at what is left of it. When it runs out, the turn ends
with one plain sentence (`OUT_OF_TIME`), unanswered.

The turn runs in a `Conversation.turn()` scope: only an answered turn commits what it added.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING

import structlog

from agent import spans
from agent.answer import Answer, Limits
from agent.conversation import Conversation, TurnScope
from agent.fanout import plan_calls, unique_ids
from agent.model_call import ModelCaller, ModelUnavailable
from agent.models import ModelRequest, PromptTooLong, Reply, TextSink, ToolCall
from agent.tool_round import NOT_RUN, ToolRound, result_block
from errors import Action, ErrorAction, duration
from resilience import Attempt, Deadline
from tools import Registry

if TYPE_CHECKING:
    from anthropic.types import ToolChoiceParam, ToolResultBlockParam

__all__ = ["GAVE_UP", "NO_ANSWER", "OUT_OF_ROUNDS", "SYSTEM_PROMPT", "Turn", "out_of_time"]

log = structlog.get_logger("agent")

SYSTEM_PROMPT = (
    "You are a helpful assistant with tools for the current weather and for arithmetic. "
    "Call several tools at once when a question needs several lookups. When a tool result is "
    "an error, tell the user plainly what it says; never invent weather figures, and never "
    "repeat a call that already failed with the same input."
)
CUT_SHORT = "(The answer was cut short because it reached the length limit.)"
CONTEXT_FULL = (
    "(The answer was cut short: this conversation no longer fits in the model's memory; "
    "start a new one with /reset.)"
)
WRAP_UP = (
    "You have reached this turn's limit of tool calls. Do not call any more tools: "
    "answer now with what you have."
)
GAVE_UP = (
    "I couldn't finish looking that up: the tools kept failing, so I stopped rather than "
    "keep trying. Please try again in a little while."
)
OUT_OF_ROUNDS = (
    "I couldn't finish looking that up: it took more steps than one question may, so I "
    "stopped there. Please ask again, perhaps about fewer things at once."
)
REFUSED = "I can't help with that request."
NO_ANSWER = (
    "The model finished without saying anything, so there is no answer; "
    "please ask again, perhaps in other words."
)
_NO_TOOLS: ToolChoiceParam = {"type": "none"}

# The turn's own failures have no upstream error for errors/ to classify, so they are fixed
# records with the same six fields, logged the same way (`log_fields`).
_EMPTY = ErrorAction(
    error_type="empty_answer",
    user_message=NO_ANSWER,
    action=Action.ESCALATE,  # the same request tends to end the same way: the user rephrases
    action_detail="Do not resend as is; report no answer and let the user ask differently.",
    retryable=False,
    developer_note="the model ended its reply with no text and no tool call; turn not kept",
)


def out_of_time(limit_s: float) -> ErrorAction:
    """The record of a turn whose deadline ran out before an answer."""
    return ErrorAction(
        error_type="turn_timed_out",
        user_message=(
            f"This question took longer than its limit of {duration(max(1, round(limit_s)))}, "
            "so it was stopped without an answer; please try again, perhaps asking for less "
            "at once."
        ),
        action=Action.ESCALATE,  # the same question would take as long: the user decides
        action_detail="Do not resend as is; report no answer and let the user ask again.",
        retryable=False,
        developer_note=f"the turn's deadline ({limit_s:g} s, AGENT_TURN_TIMEOUT) ran out; "
        "turn not kept",
    )


def _bounded(calls: int, stuck: bool, failed: bool, limits: Limits) -> ErrorAction:
    """The record of a turn stopped by its bounds (the repeat bound or `max_rounds`); its
    sentence says what happened: tools that kept failing (`failed`), or simply no rounds left."""
    why = (
        f"the model repeated a failing call more than {limits.max_repeats} times"
        if stuck
        else f"all {limits.max_rounds} rounds used"
        + ("" if failed else ", every tool call succeeded")
    )
    return ErrorAction(
        error_type="turn_bounded",
        user_message=GAVE_UP if stuck or failed else OUT_OF_ROUNDS,
        action=Action.ESCALATE,  # more rounds would not help: stop and answer with what there is
        action_detail="Stop calling tools; ask the model once more with tools off, then answer.",
        retryable=False,
        developer_note=f"turn bounded after {calls} model calls: {why}; last call has tools off",
    )


class Turn:
    """One turn of a conversation; create one per question."""

    _scope: TurnScope  # the history this turn adds, set by `run`
    _deadline: Deadline  # when the turn must be over, set by `run`

    def __init__(
        self,
        conversation: Conversation,
        *,
        caller: ModelCaller,
        registry: Registry,
        limits: Limits = Limits(),  # noqa: B008 - frozen, shared safely
        system: str = SYSTEM_PROMPT,
        on_text: TextSink | None = None,
        tool_gate: asyncio.Semaphore | None = None,
    ) -> None:
        self._conversation = conversation
        self._caller = caller
        self._limits = limits
        self._system = system
        self._definitions = registry.definitions()  # the same for every call of the turn
        # What no trimming of the history can shrink, measured once: see `note_usage`.
        self._overhead_chars = len(json.dumps(self._definitions, default=str)) + len(system)
        self._on_text = on_text
        self._tools = ToolRound(
            registry,
            max_repeats=limits.max_repeats,
            timeout_s=limits.tool_bound_s(),
            gate=tool_gate,
        )
        self._timeline: list[Attempt] = []
        self._results: list[ToolResultBlockParam] = []
        self._a_call_failed = False  # a call that ran failed (calls refused unrun do not count)
        self._calls = 0
        self._trimmed = False  # earlier turns were dropped, by the budget or after a refusal

    async def run(self, question: str) -> Answer:
        """Answer `question`; never raises for a failure (cancellation still propagates)."""
        with spans.turn(self._caller.name, question) as span:
            answer = await self._run(question)
            spans.turn_done(span, answer)
            return answer

    async def _run(self, question: str) -> Answer:
        limit = self._limits.turn_time_s()
        self._deadline = Deadline.after(limit, self._caller.engine.policy.clock)
        self._keep_history_in_bounds()
        with self._conversation.turn() as scope:
            self._scope = scope
            self._conversation.add_user_text(question)
            try:
                return await self._loop()
            except ModelUnavailable as exc:
                if self._deadline.remaining() > 0:
                    return self._answer(exc.sentence, None, answered=False, error=exc.result)
                record = out_of_time(limit)
                log.warning("agent.turn_timed_out", **record.log_fields())
                return self._answer(record.user_message, None, answered=False, error=record)

    def _keep_history_in_bounds(self) -> None:
        """Before the question: the oldest whole turns dropped until the history fits."""
        before = self._conversation.tokens()
        dropped = self._conversation.keep_within(self._limits.history_tokens)
        if dropped:
            self._trimmed = True
            log.info(
                "agent.history_budget",
                dropped_turns=dropped,
                tokens_before=before,
                tokens_after=self._conversation.tokens(),
                budget_tokens=self._limits.history_tokens,
            )

    async def _loop(self) -> Answer:
        for _ in range(self._limits.max_rounds):
            reply = await self._ask()
            if (answer := await self._handle(reply)) is not None:
                return answer
        return await self._wrap_up()

    async def _handle(self, reply: Reply) -> Answer | None:
        """An answer to end the turn with, or None to ask the model again."""
        match reply.stop_reason:
            case "tool_use" if reply.tool_calls:  # with none, it is a plain reply
                return await self._run_tools(reply)
            case "pause_turn":
                return await self._paused(reply)
            case "max_tokens":
                return self._finish(reply, CUT_SHORT)
            case "refusal":
                return self._refused(reply)
            case "model_context_window_exceeded":
                return self._context_full(reply)
        return self._finish(reply)

    async def _ask(self, tool_choice: ToolChoiceParam | None = None) -> Reply:
        """The model's reply; on a "prompt is too long", once more without earlier turns."""
        try:
            return await self._call(tool_choice)
        except ModelUnavailable as exc:
            if not (isinstance(exc.__cause__, PromptTooLong) and self._trim()):
                raise
        return await self._call(tool_choice)

    async def _call(self, tool_choice: ToolChoiceParam | None) -> Reply:
        self._calls += 1
        request = ModelRequest(
            messages=self._conversation.messages,
            tools=self._definitions,
            system=self._system,
            max_tokens=self._limits.max_tokens,
            tool_choice=tool_choice,
            on_text=self._on_text,
        )
        reply = await self._caller.create(request, self._timeline, deadline=self._deadline)
        self._conversation.note_usage(reply.usage.input_tokens, overhead_chars=self._overhead_chars)
        return reply

    async def _paused(self, reply: Reply) -> Answer | None:
        """Send the paused turn back as it is; tool calls in it are run and answered first."""
        if reply.tool_calls:
            return await self._run_tools(reply)
        self._conversation.add_reply(reply)
        return None

    async def _run_tools(self, reply: Reply) -> Answer | None:
        """At most `max_tool_calls` of the reply's calls run; every kept `tool_use` gets
        exactly one `tool_result` (see `agent.fanout`)."""
        fan = plan_calls(reply, self._limits.max_tool_calls)
        self._conversation.add_reply(fan.reply)
        done = await self._tools.run(fan.run, deadline=self._deadline)
        results = fan.results(done.results)
        self._timeline.extend(done.attempts)
        self._a_call_failed |= any(result.get("is_error") for result in done.results)
        self._results.extend(results)
        self._conversation.add_tool_results(results)
        return await self._wrap_up() if self._tools.stuck else None

    async def _wrap_up(self) -> Answer:
        """Out of rounds, or stuck on a failing call: one last call, with tools off."""
        record = _bounded(self._calls, self._tools.stuck, self._a_call_failed, self._limits)
        log.warning(
            "agent.turn_bounded",
            rounds=self._calls,
            stuck=self._tools.stuck,
            **record.log_fields(),
        )
        self._conversation.add_user_text(WRAP_UP)
        reply = await self._ask(_NO_TOOLS)
        if reply.stop_reason in {"tool_use", "pause_turn"} or not reply.text:
            return self._finish(reply, record.user_message, replace=True)
        return self._finish(reply)

    def _finish(self, reply: Reply, note: str = "", *, replace: bool = False) -> Answer:
        text = note if replace else _joined(reply.text, note)
        if not text:
            return self._unanswered(reply)
        self._keep(reply, note)
        if note and self._on_text is not None:
            self._on_text(f"\n{note}\n")
        self._scope.commit()
        return self._answer(text, reply.stop_reason)

    def _keep(self, reply: Reply, note: str) -> None:
        """The reply into the history, which then ends with an assistant message: unrun tool
        calls are closed, and a reply with nothing left to keep is stood in for by the note."""
        reply, _ = unique_ids(reply)  # one tool_use per id, as the API requires
        kept = self._conversation.add_reply(reply)
        if reply.tool_calls:
            self._conversation.add_tool_results([_not_run(use) for use in reply.tool_calls])
            self._conversation.add_assistant_text(note or GAVE_UP)
        elif not kept:
            self._conversation.add_assistant_text(note)

    def _unanswered(self, reply: Reply) -> Answer:
        """A reply with no text to show: no answer, and the exchange is not kept."""
        log.warning("agent.empty_answer", stop_reason=reply.stop_reason, **_EMPTY.log_fields())
        return self._answer(NO_ANSWER, reply.stop_reason, answered=False, error=_EMPTY)

    def _refused(self, reply: Reply) -> Answer:
        """A refusal is passed on; the refused exchange is not kept."""
        text = reply.text or reply.refusal or REFUSED
        if not reply.text and self._on_text is not None:
            self._on_text(text)
        return self._answer(text, "refusal")

    def _context_full(self, reply: Reply) -> Answer | None:
        return None if self._trim() else self._finish(reply, CONTEXT_FULL)

    def _trim(self) -> bool:
        """Drop the turns before this one (the history no longer fits); False if none."""
        dropped = self._scope.start
        if not self._scope.forget_earlier():
            return False
        self._trimmed = True
        log.info("agent.history_trimmed", dropped_before=dropped)
        return True

    def _answer(
        self,
        text: str,
        stop_reason: str | None,
        *,
        answered: bool = True,
        error: ErrorAction | None = None,
    ) -> Answer:
        log.info("agent.turn_finished", answered=answered, model_calls=self._calls)
        return Answer(
            text=text,
            answered=answered,
            model_calls=self._calls,
            tool_results=list(self._results),
            attempts=tuple(self._timeline),
            stop_reason=stop_reason,
            error=error,
            model=_answering_model(self._timeline),
            history_trimmed=self._trimmed,
        )


def _answering_model(timeline: list[Attempt]) -> str | None:
    """The model whose attempt answered last in this turn, if any did."""
    answered = (a.source for a in reversed(timeline) if a.caller == "model" and a.outcome == "ok")
    return next(answered, None)


def _not_run(use: ToolCall) -> ToolResultBlockParam:
    """The closing `tool_result` of a call the turn ended before running, logged once."""
    fields = NOT_RUN.log_fields()
    log.warning("agent.tool_not_run", tool_use_id=use.id, tool=use.name[:80], **fields)
    return result_block(use.id, NOT_RUN.user_message, is_error=True)


def _joined(text: str, note: str) -> str:
    return f"{text}\n\n{note}".strip() if note else text
