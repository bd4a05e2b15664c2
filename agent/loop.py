"""The tool_use loop: one turn of question → model ⇄ tools → answer, within bounds.

Stop reasons: `tool_use` runs every tool call and asks again; `pause_turn` sends the turn back
as it is, running any tool calls in it first (every `tool_use` gets its `tool_result`);
`max_tokens` says the answer was cut short; `refusal` passes the refusal on;
`model_context_window_exceeded`, like a 400 "prompt is too long", drops earlier turns and asks
again, or says so. Past `max_rounds`, or once the model keeps repeating a failing call, the
model is asked once more with tools switched off; if even that does not give an answer, the
agent phrases one itself. A reply with no text at all is no answer: the turn ends unanswered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import structlog

from agent.answer import Answer, Limits
from agent.conversation import Conversation, tool_uses
from agent.model_call import ModelCaller, ModelUnavailable
from agent.models import ModelRequest, PromptTooLong, TextSink
from agent.tool_round import NOT_RUN, ToolRound, result_block
from errors import Action, ErrorAction
from tools import Attempt, Registry

if TYPE_CHECKING:
    from anthropic.types import Message

__all__ = ["NO_ANSWER", "SYSTEM_PROMPT", "Turn"]

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
REFUSED = "I can't help with that request."
NO_ANSWER = (
    "The model finished without saying anything, so there is no answer; "
    "please ask again, perhaps in other words."
)
_NO_TOOLS = {"type": "none"}

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


def _bounded(calls: int, stuck: bool, limits: Limits) -> ErrorAction:
    """The record of a turn stopped by its bounds (the repeat bound or `max_rounds`)."""
    why = (
        f"the model repeated a failing call more than {limits.max_repeats} times"
        if stuck
        else f"all {limits.max_rounds} rounds used"
    )
    return ErrorAction(
        error_type="turn_bounded",
        user_message=GAVE_UP,
        action=Action.ESCALATE,  # more rounds would not help: stop and answer with what there is
        action_detail="Stop calling tools; ask the model once more with tools off, then answer.",
        retryable=False,
        developer_note=f"turn bounded after {calls} model calls: {why}; last call has tools off",
    )


class Turn:
    """One turn of a conversation; create one per question."""

    def __init__(
        self,
        conversation: Conversation,
        *,
        caller: ModelCaller,
        registry: Registry,
        limits: Limits = Limits(),  # noqa: B008 - frozen, shared safely
        system: str = SYSTEM_PROMPT,
        on_text: TextSink | None = None,
    ) -> None:
        self._conversation = conversation
        self._caller = caller
        self._registry = registry
        self._limits = limits
        self._system = system
        self._on_text = on_text
        self._tools = ToolRound(
            registry, max_repeats=limits.max_repeats, timeout_s=limits.tool_bound_s()
        )
        self._timeline: list[Attempt] = []
        self._results: list[dict[str, Any]] = []
        self._calls = 0
        self._mark = 0

    async def run(self, question: str) -> Answer:
        """Answer `question`; never raises for a failure (cancellation still propagates)."""
        self._mark = len(self._conversation)
        self._conversation.add_user_text(question)
        try:
            return await self._loop()
        except ModelUnavailable as exc:
            self._conversation.rollback(self._mark)
            return self._answer(exc.sentence, None, answered=False, error=exc.result)
        except BaseException:
            self._conversation.rollback(self._mark)
            raise

    async def _loop(self) -> Answer:
        for _ in range(self._limits.max_rounds):
            message = await self._ask()
            if (answer := await self._handle(message)) is not None:
                return answer
        return await self._wrap_up()

    async def _handle(self, message: Message) -> Answer | None:
        """An answer to end the turn with, or None to ask the model again."""
        match message.stop_reason:
            case "tool_use" if tool_uses(message):  # with none, it is a plain reply
                return await self._run_tools(message)
            case "pause_turn":
                return await self._paused(message)
            case "max_tokens":
                return self._finish(message, CUT_SHORT)
            case "refusal":
                return self._refused(message)
            case "model_context_window_exceeded":
                return self._context_full(message)
        return self._finish(message)

    async def _ask(self, tool_choice: dict[str, str] | None = None) -> Message:
        """The model's reply; on a "prompt is too long", once more without earlier turns."""
        try:
            return await self._call(tool_choice)
        except ModelUnavailable as exc:
            if not (isinstance(exc.__cause__, PromptTooLong) and self._trim()):
                raise
        return await self._call(tool_choice)

    async def _call(self, tool_choice: dict[str, str] | None) -> Message:
        self._calls += 1
        request = ModelRequest(
            messages=self._conversation.messages,
            tools=self._registry.definitions(),
            system=self._system,
            max_tokens=self._limits.max_tokens,
            tool_choice=tool_choice,
            on_text=self._on_text,
        )
        return await self._caller.create(request, self._timeline)

    async def _paused(self, message: Message) -> Answer | None:
        """Send the paused turn back as it is; tool calls in it are run and answered first."""
        if tool_uses(message):
            return await self._run_tools(message)
        self._conversation.add_assistant(message)
        return None

    async def _run_tools(self, message: Message) -> Answer | None:
        self._conversation.add_assistant(message)
        results = await self._tools.run(tool_uses(message))
        self._timeline.extend(self._tools.attempts)
        self._tools.attempts.clear()
        self._results.extend(results)
        self._conversation.add_tool_results(results)
        return await self._wrap_up() if self._tools.stuck else None

    async def _wrap_up(self) -> Answer:
        """Out of rounds, or stuck on a failing call: one last call, with tools off."""
        record = _bounded(self._calls, self._tools.stuck, self._limits)
        log.warning(
            "agent.turn_bounded",
            rounds=self._calls,
            stuck=self._tools.stuck,
            **record.log_fields(),
        )
        self._conversation.add_user_text(WRAP_UP)
        message = await self._ask(_NO_TOOLS)
        if message.stop_reason in {"tool_use", "pause_turn"} or not _text_of(message):
            return self._finish(message, GAVE_UP, replace=True)
        return self._finish(message)

    def _finish(self, message: Message, note: str = "", *, replace: bool = False) -> Answer:
        text = note if replace else _joined(_text_of(message), note)
        if not text:
            return self._unanswered(message)
        self._keep(message, note)
        if note and self._on_text is not None:
            self._on_text(f"\n{note}\n")
        return self._answer(text, message.stop_reason)

    def _keep(self, message: Message, note: str) -> None:
        """The reply into the history, which then ends with an assistant message: unrun tool
        calls are closed, and a reply with nothing left to keep is stood in for by the note."""
        kept = self._conversation.add_assistant(message)
        if uses := tool_uses(message):
            self._conversation.add_tool_results([_not_run(use) for use in uses])
            self._conversation.add_assistant_text(note or GAVE_UP)
        elif not kept:
            self._conversation.add_assistant_text(note)

    def _unanswered(self, message: Message) -> Answer:
        """A reply with no text to show: no answer, and the exchange is not kept."""
        log.warning("agent.empty_answer", stop_reason=message.stop_reason, **_EMPTY.log_fields())
        self._conversation.rollback(self._mark)
        return self._answer(NO_ANSWER, message.stop_reason, answered=False, error=_EMPTY)

    def _refused(self, message: Message) -> Answer:
        self._conversation.rollback(self._mark)  # a refused exchange is not kept
        details = message.stop_details
        text = _text_of(message) or (details.explanation if details else None) or REFUSED
        if not _text_of(message) and self._on_text is not None:
            self._on_text(text)
        return self._answer(text, "refusal")

    def _context_full(self, message: Message) -> Answer | None:
        return None if self._trim() else self._finish(message, CONTEXT_FULL)

    def _trim(self) -> bool:
        """Drop the turns before this one (the history no longer fits); False if none."""
        if not self._conversation.forget_before(self._mark):
            return False
        log.info("agent.history_trimmed", dropped_before=self._mark)
        self._mark = 0
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
        )


def _not_run(use: Any) -> dict[str, Any]:
    """The closing `tool_result` of a call the turn ended before running, logged once."""
    fields = NOT_RUN.log_fields()
    log.warning("agent.tool_not_run", tool_use_id=use.id, tool=str(use.name)[:80], **fields)
    return result_block(use.id, NOT_RUN.user_message, is_error=True)


def _text_of(message: Message) -> str:
    return "".join(block.text for block in message.content if block.type == "text").strip()


def _joined(text: str, note: str) -> str:
    return f"{text}\n\n{note}".strip() if note else text
